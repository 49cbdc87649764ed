//go:build unix

package test

// Testscript commands for the OAuth fixture (test/fixture/oauth.go):
// fixture-oauth starts one, oauth-log shows its request log, and oauth-login
// plays the browser for a program that prints an authorization URL.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpx-cli/mcpx/test/fixture"
)

// oauthServers finds a script's OAuth fixtures by their variable name.
var oauthServers = struct {
	sync.Mutex
	m map[*testscript.TestScript]map[string]*fixture.OAuthServer
}{m: map[*testscript.TestScript]map[string]*fixture.OAuthServer{}}

// fixture-oauth VAR [KEY=VALUE ...]: start an OAuth fixture (an MCP server
// and the authorization server protecting it, both on loopback); $VAR gets
// the MCP URL (http://127.0.0.1:PORT/mcp) and $VAR_AS the issuer. It stops
// when the script ends. The keys (see fixture.OAuthOptions; on|off for
// switches, Go durations for times):
//
//	prm=path|path-quiet|root|custom|none    resource=origin|mismatch|omit
//	aspath=/PATH                            metadata=rfc8414|oidc|oidc-append
//	dcr=on|off                              clients=public,basic,post
//	methods=none,client_secret_basic,...    scopes=a,b (an empty value: [])
//	challenge-scope='a b'                   require=METHOD:SCOPE+SCOPE,... (repeatable)
//	open-initialize=on                      ttl=DURATION|none
//	refresh=rotate|none|reuse               refresh-ttl=DURATION
//	refresh-delay=DURATION                  revocation=on
//	bad-state=on  deny=on  bad-issuer=on  no-s256=on  cimd=on
//
// With a clients=jwt, cc-jwt or cc-jwt-rsa client, $VAR_EC_KEY and $VAR_RSA_KEY
// are the JWT clients' PEM private keys.
//
// Without dcr=, registration is offered when there are no clients.
func cmdFixtureOAuth(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || strings.Contains(args[0], "=") {
		ts.Fatalf("usage: fixture-oauth VAR [KEY=VALUE ...]")
	}
	o, err := parseOAuthOptions(args[1:])
	ts.Check(err)
	name := args[0]
	oauthServers.Lock()
	if oauthServers.m[ts][name] != nil {
		oauthServers.Unlock()
		ts.Fatalf("fixture-oauth: %s is already started", name)
	}
	oauthServers.Unlock()
	s, err := fixture.NewOAuth(o)
	ts.Check(err)
	oauthServers.Lock()
	if oauthServers.m[ts] == nil {
		oauthServers.m[ts] = map[string]*fixture.OAuthServer{}
	}
	oauthServers.m[ts][name] = s
	oauthServers.Unlock()
	ts.Defer(func() {
		s.Close()
		oauthServers.Lock()
		delete(oauthServers.m[ts], name)
		if len(oauthServers.m[ts]) == 0 {
			delete(oauthServers.m, ts)
		}
		oauthServers.Unlock()
	})
	ts.Setenv(name, s.URL())
	ts.Setenv(name+"_AS", s.Issuer())
	if slices.ContainsFunc(o.Clients, func(c string) bool { return strings.Contains(c, "jwt") }) {
		k := fixture.FixtureKeys()
		ts.Setenv(name+"_EC_KEY", k.EC)
		ts.Setenv(name+"_RSA_KEY", k.RSA)
	}
}

// parseOAuthOptions reads fixture-oauth's KEY=VALUE arguments.
func parseOAuthOptions(args []string) (fixture.OAuthOptions, error) {
	var o fixture.OAuthOptions
	seen := map[string]bool{}
	for _, arg := range args {
		key, v, ok := strings.Cut(arg, "=")
		if !ok {
			return o, fmt.Errorf("fixture-oauth: %q is not KEY=VALUE", arg)
		}
		if seen[key] && key != "require" {
			return o, fmt.Errorf("fixture-oauth: %s= is given twice", key)
		}
		seen[key] = true
		var err error
		on := func(p *bool) {
			switch v {
			case "on":
				*p = true
			case "off":
				*p = false
			default:
				err = fmt.Errorf("want on or off, not %q", v)
			}
		}
		duration := func(p *time.Duration) { *p, err = time.ParseDuration(v) }
		switch key {
		case "prm":
			o.PRM = v
		case "resource":
			o.Resource = v
		case "aspath":
			o.ASPath = v
		case "metadata":
			o.Metadata = v
		case "dcr":
			var dcr bool
			on(&dcr)
			o.DCR, o.NoDCR = dcr, !dcr
		case "clients":
			o.Clients = list(v)
		case "methods":
			o.AuthMethods = list(v)
		case "scopes":
			o.ScopesSupported = list(v)
		case "challenge-scope":
			o.ChallengeScope = v
		case "require":
			if o.Require == nil {
				o.Require = map[string]string{}
			}
			for _, entry := range list(v) {
				method, scopes, ok := strings.Cut(entry, ":")
				if !ok || method == "" || scopes == "" {
					err = fmt.Errorf("want METHOD:SCOPE+SCOPE, not %q", entry)
					break
				}
				o.Require[method] = strings.ReplaceAll(scopes, "+", " ")
			}
		case "open-initialize":
			on(&o.OpenInitialize)
		case "ttl":
			if v == "none" {
				o.TTL = -1
			} else {
				duration(&o.TTL)
			}
		case "refresh":
			o.Refresh = v
		case "refresh-ttl":
			duration(&o.RefreshTTL)
		case "refresh-delay":
			duration(&o.RefreshDelay)
		case "revocation":
			on(&o.Revocation)
		case "bad-state":
			on(&o.BadState)
		case "deny":
			on(&o.Deny)
		case "bad-issuer":
			on(&o.BadIssuer)
		case "no-s256":
			on(&o.NoS256)
		case "cimd":
			on(&o.CIMD)
		default:
			return o, fmt.Errorf("fixture-oauth: unknown key %q", key)
		}
		if err != nil {
			return o, fmt.Errorf("fixture-oauth: %s: %w", arg, err)
		}
	}
	return o, nil
}

// list splits a comma-separated value; "" is an empty, non-nil list.
func list(v string) []string {
	if v == "" {
		return []string{}
	}
	return strings.Split(v, ",")
}

// oauth-log VAR: write the request log of the OAuth fixture VAR to stdout,
// one line each (see fixture.NewOAuth). oauth-log -clear VAR: empty it (and
// print nothing).
func cmdOAuthLog(ts *testscript.TestScript, neg bool, args []string) {
	clearLog := len(args) == 2 && args[0] == "-clear"
	if neg || !(len(args) == 1 || clearLog) {
		ts.Fatalf("usage: oauth-log [-clear] VAR")
	}
	name := args[len(args)-1]
	oauthServers.Lock()
	s := oauthServers.m[ts][name]
	oauthServers.Unlock()
	if s == nil {
		ts.Fatalf("oauth-log: no OAuth fixture %s (start one with fixture-oauth)", name)
	}
	out := ts.Stdout() // even when empty: stdout is this command's, not the last one's
	if clearLog {
		s.ClearLog()
		return
	}
	for _, line := range s.Log() {
		fmt.Fprintln(out, line)
	}
}

// oauthLoginBound bounds a whole oauth-login: the program, and the browser.
const oauthLoginBound = 60 * time.Second

// oauthLoginEnv are the variables oauth-login passes from the script besides
// scriptCmd's (set to "" when the script has not set them, so that none
// leaks from the test's own environment).
var oauthLoginEnv = []string{"XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR",
	"BROWSER", "MCPX_FORCE_TTY", "NO_COLOR", "CLICOLOR_FORCE", "MCPX_TEST_SECRET"}

// oauth-login [-nofollow] [-tamper-state] [-env=NAME,...] N PROG [ARGS...]:
// run PROG (like exec, through scriptCmd, with the variables of
// oauthLoginEnv and -env too) as a user would run mcpx login: read its
// stderr as it comes, and at the first http(s) URL holding
// response_type=code, GET it like a browser, following redirects (the
// authorization server redirects to the program's loopback callback).
// -tamper-state replaces the URL's state with "tampered-" + state (and adds
// state=tampered- when it has none); -nofollow never follows. Then wait for
// PROG, require exit status N, and leave PROG's stdout and stderr as the
// command's, for stdout, stderr and cmp. A URL seen just before PROG exits
// is still followed (the browser gets 5 s after the exit). The whole of it is
// bounded by 60 s: then PROG is killed and the command fails.
//
// -paste=WHAT plays a browser on another machine for mcpx login --paste: it
// GETs the URL without following the redirect to the loopback callback,
// and writes to PROG's stdin (then closes it) what WHAT says: url (the
// redirect's Location), query (its query alone), code (the code alone),
// wrong-state (the Location with another state), eof (nothing: stdin is
// closed at once).
func cmdOAuthLogin(ts *testscript.TestScript, neg bool, args []string) {
	usage := "usage: oauth-login [-nofollow] [-tamper-state] [-paste=url|query|code|wrong-state|eof] [-env=NAME,...] N PROG [ARGS...]"
	follow, tamper, paste := true, false, ""
	env := oauthLoginEnv
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch flag := args[0]; {
		case flag == "-nofollow":
			follow = false
		case flag == "-tamper-state":
			tamper = true
		case strings.HasPrefix(flag, "-paste="):
			paste = strings.TrimPrefix(flag, "-paste=")
		case strings.HasPrefix(flag, "-env="):
			env = append(env[:len(env):len(env)], list(strings.TrimPrefix(flag, "-env="))...)
		default:
			ts.Fatalf("%s", usage)
		}
		args = args[1:]
	}
	if neg || len(args) < 2 {
		ts.Fatalf("%s", usage)
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	prog := args[1]
	cmd := scriptCmd(ts, prog, args[2:]...)
	for _, k := range env {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	var stdout bytes.Buffer
	watch := &urlWatcher{found: make(chan string, 1)}
	cmd.Stdout, cmd.Stderr = &stdout, watch
	cmd.WaitDelay = 2 * time.Second
	var stdin io.WriteCloser
	if paste != "" {
		var err error
		stdin, err = cmd.StdinPipe()
		ts.Check(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), oauthLoginBound)
	defer cancel()
	ts.Check(cmd.Start())
	if paste == "eof" {
		stdin.Close()
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	var browsed chan string // the browser's report, once started
	browse := func(u string) {
		if !follow {
			ts.Logf("oauth-login: %s printed an authorization URL; not following it (-nofollow)", prog)
			return
		}
		if tamper {
			u = tamperState(u)
		}
		browsed = make(chan string, 1)
		if paste != "" {
			go func() { browsed <- pasteRedirect(ctx, u, paste, stdin) }()
			return
		}
		go func() { browsed <- openURL(ctx, u) }()
	}
	timedOut := false
wait:
	for {
		select {
		case u := <-watch.found:
			browse(u)
		case err = <-exited:
			break wait
		case <-ctx.Done():
			timedOut = true
			_ = cmd.Process.Kill()
			err = <-exited
			break wait
		}
	}
	watch.flush()
	select {
	case u := <-watch.found: // seen last, or in a last line without a newline
		browse(u)
	default:
	}
	if browsed != nil {
		select {
		case report := <-browsed:
			ts.Logf("oauth-login: %s", report)
		case <-time.After(5 * time.Second):
			cancel()
			ts.Logf("oauth-login: %s", <-browsed)
		}
	}

	_, _ = ts.Stdout().Write(stdout.Bytes())
	_, _ = ts.Stderr().Write(watch.bytes())
	if timedOut {
		ts.Fatalf("oauth-login: %s did not exit within %s: killed", prog, oauthLoginBound)
	}
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("oauth-login: %s: %v", prog, err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("oauth-login: %s exited with status %d, want %d", prog, got, want)
	}
}

// authURL matches a URL in a line of text.
var authURL = regexp.MustCompile(`https?://[^\s"'<>]+`)

// findAuthURL returns the first http(s) URL in line that holds
// response_type=code ("" if none), without trailing punctuation.
func findAuthURL(line string) string {
	for _, u := range authURL.FindAllString(line, -1) {
		u = strings.TrimRight(u, ".,;:)]}")
		if strings.Contains(u, "response_type=code") {
			return u
		}
	}
	return ""
}

// tamperState replaces the state parameter of u with "tampered-" + state
// (adding one when u has none), leaving the other parameters as they are.
func tamperState(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	var parts []string
	done := false
	for _, kv := range strings.Split(p.RawQuery, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if k == "state" && !done {
			kv, done = "state=tampered-"+v, true
		}
		parts = append(parts, kv)
	}
	if !done {
		parts = append(parts, "state=tampered-")
	}
	p.RawQuery = strings.Join(parts, "&")
	return p.String()
}

// pasteRedirect GETs u without following its redirect, and writes to w
// what the user of login --paste would paste (see oauth-login -paste).
func pasteRedirect(ctx context.Context, u, what string, w io.WriteCloser) string {
	defer w.Close()
	if what == "eof" {
		return "pasted nothing (stdin closed)"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "the browser could not open the URL: " + err.Error()
	}
	c := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		return "the browser failed"
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode != http.StatusFound {
		return fmt.Sprintf("the authorization server answered HTTP %d, not a redirect", resp.StatusCode)
	}
	var text string
	switch what {
	case "url":
		text = loc.String()
	case "query":
		text = "?" + loc.RawQuery
	case "code":
		text = loc.Query().Get("code")
	case "wrong-state":
		q := loc.Query()
		q.Set("state", "not-"+q.Get("state"))
		loc.RawQuery = q.Encode()
		text = loc.String()
	default:
		return "unknown -paste=" + what
	}
	_, _ = io.WriteString(w, "\n  "+text+"  \n")
	return "pasted the " + what
}

// openURL GETs u like a browser, following redirects, and reports how it went.
func openURL(ctx context.Context, u string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "the browser could not open the URL: " + err.Error()
	}
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its URL may hold a code: not for the log
		}
		return "the browser failed: " + err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	last := *resp.Request.URL
	last.RawQuery = ""
	return fmt.Sprintf("the browser ended at %s with HTTP %d: %q", last.String(), resp.StatusCode, body)
}

// urlWatcher keeps everything written to it and sends the first
// authorization URL found in a complete line on found.
type urlWatcher struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	scanned int // where the next line starts
	done    bool
	found   chan string
}

func (w *urlWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for !w.done {
		rest := w.buf.Bytes()[w.scanned:]
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		w.scan(string(rest[:i]))
		w.scanned += i + 1
	}
	return len(p), nil
}

func (w *urlWatcher) scan(line string) {
	if u := findAuthURL(line); u != "" {
		w.done = true
		w.found <- u
	}
}

// flush scans the last line, if it has no newline.
func (w *urlWatcher) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done && w.scanned < w.buf.Len() {
		w.scan(string(w.buf.Bytes()[w.scanned:]))
		w.scanned = w.buf.Len()
	}
}

func (w *urlWatcher) bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.buf.Bytes())
}

func TestOAuthScriptOptions(t *testing.T) {
	o, err := parseOAuthOptions(strings.Fields(`prm=custom resource=origin aspath=/t metadata=oidc dcr=off clients=basic,post ` +
		`methods=client_secret_basic scopes=a,b challenge-scope=a_b require=tools/call:a+b,tools/list:a require=prompts/get:x:y ` +
		`open-initialize=on ttl=2s refresh=reuse refresh-ttl=1m refresh-delay=10ms revocation=on bad-state=on deny=on bad-issuer=on no-s256=on`))
	want := fixture.OAuthOptions{
		PRM: "custom", Resource: "origin", ASPath: "/t", Metadata: "oidc", NoDCR: true,
		Clients: []string{"basic", "post"}, AuthMethods: []string{"client_secret_basic"}, ScopesSupported: []string{"a", "b"},
		ChallengeScope: "a_b", Require: map[string]string{"tools/call": "a b", "tools/list": "a", "prompts/get": "x:y"},
		OpenInitialize: true, TTL: 2 * time.Second, Refresh: "reuse", RefreshTTL: time.Minute, RefreshDelay: 10 * time.Millisecond,
		Revocation: true, BadState: true, Deny: true, BadIssuer: true, NoS256: true,
	}
	if err != nil || !reflect.DeepEqual(o, want) {
		t.Fatalf("got %+v, %v\nwant %+v", o, err, want)
	}
	if o, err := parseOAuthOptions([]string{"dcr=on", "ttl=none", "scopes="}); err != nil ||
		!reflect.DeepEqual(o, fixture.OAuthOptions{DCR: true, TTL: -1, ScopesSupported: []string{}}) {
		t.Fatalf("dcr=on ttl=none scopes=: %+v, %v", o, err)
	}
	for _, bad := range []string{"nope=1", "prm", "deny=yes", "ttl=2", "require=tools/call", "require=:a", "prm=a prm=b"} {
		if _, err := parseOAuthOptions(strings.Fields(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestOAuthLoginHelpers(t *testing.T) {
	for line, want := range map[string]string{
		"open http://127.0.0.1:5/a?response_type=code&state=x in a browser.": "http://127.0.0.1:5/a?response_type=code&state=x",
		`{"url":"https://h/a?x=1&response_type=code"}`:                       "https://h/a?x=1&response_type=code",
		"see http://h/doc, then http://h/a?response_type=code)":              "http://h/a?response_type=code",
		"http://h/a?response_type=token":                                     "",
	} {
		if got := findAuthURL(line); got != want {
			t.Errorf("findAuthURL(%q) = %q, want %q", line, got, want)
		}
	}
	for u, want := range map[string]string{
		"http://h/a?response_type=code&state=ab%2Bc&x=1": "http://h/a?response_type=code&state=tampered-ab%2Bc&x=1",
		"http://h/a?response_type=code":                  "http://h/a?response_type=code&state=tampered-",
	} {
		if got := tamperState(u); got != want {
			t.Errorf("tamperState(%q) = %q, want %q", u, got, want)
		}
	}
}
