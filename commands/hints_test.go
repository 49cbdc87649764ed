package commands

import (
	"errors"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/internal/daemon"
	"github.com/mcpx-cli/mcpx/internal/fail"
)

// TestHints: the errors below commands carry data, and the hints that
// name flags, commands and config keys are worded here.
func TestHints(t *testing.T) {
	login := func(name string) []string {
		return []string{"log in with: mcpx login " + name,
			`or pass credentials with -H 'Authorization: Bearer TOKEN', or set "headers" in the server's config entry`}
	}
	raise := `raise the bound with --timeout, or "timeout" in the server's config entry`
	otherTransport := "such a server was likely started for another transport (HTTP), or waits for an option: check its command and args (-v shows every line it writes)"
	for _, c := range []struct {
		name string
		err  fail.Failure
		want []string
	}{
		{"401", &fail.AuthError{Server: "srv", Status: 401}, login("srv")},
		{"401 expired", &fail.AuthError{Server: "srv", Status: 401, Token: "expired"}, login("srv")},
		{"403 with scopes", &fail.AuthError{Server: "srv", Status: 403, Scope: "files:read  files:write"},
			[]string{"log in again with the scopes it requires: mcpx login srv --scope files:read --scope files:write"}},
		{"403 without scopes", &fail.AuthError{Server: "srv", Status: 403}, login("srv")},
		{"a failed jwt-bearer grant", &fail.AuthError{Server: "srv", Status: 401, Token: "grant", Grant: "jwt-bearer"},
			[]string{`check the "oauth" entry of the server (its assertionFile or assertionEnv: a current identity token for the authorization server) and that its authorization server accepts it`}},
		{"403 to a token with scopes", &fail.AuthError{Server: "srv", Status: 403, Scope: "mcp:write", Granted: "mcp:basic mcp:write"},
			[]string{"log in again with the scopes it requires: mcpx login srv --scope mcp:basic --scope mcp:write"}},
		{"a URL server", &fail.AuthError{Server: "https://rs.example/mcp?a=1&b=2", Status: 403, Scope: "x"},
			[]string{"log in again with the scopes it requires: mcpx login 'https://rs.example/mcp?a=1&b=2' --scope x"}},
		{"a URL server, 401", &fail.AuthError{Server: "https://rs.example/mcp?a=1&b=2", Status: 401}, login("'https://rs.example/mcp?a=1&b=2'")},
		{"quotes", &fail.AuthError{Server: `it's "x"`, Status: 403, Scope: "a'b c$d"},
			[]string{`log in again with the scopes it requires: mcpx login 'it'\''s "x"' --scope 'a'\''b' --scope 'c$d'`}},
		{"a login failure", &fail.AuthError{Server: "srv", Msg: "m", Status: 401}, nil},
		{"no client", &fail.AuthError{Server: "srv", Msg: "m", NoClient: true},
			[]string{`register mcpx with the authorization server (redirect URI http://127.0.0.1/callback, any port) and set "oauth": {"clientId": "...", "clientSecret": "${VAR}"} in the server's config entry`}},
		{"not installed", &fail.ConnectError{Command: "nope"}, []string{`is "nope" installed and on PATH?`}},
		{"legacy SSE", &fail.ConnectError{LegacySSE: true}, []string{`it may be a legacy SSE server: set "type": "sse" in its config entry`}},
		{"a version it speaks", &fail.ConnectError{Speaks: "2025-06-18"}, []string{"ask for a version it speaks: --protocol-version 2025-06-18"}},
		{"timeout", &fail.TimeoutError{Phase: "initialize"}, []string{raise}},
		{"timeout, a banner", &fail.TimeoutError{Phase: "initialize", Stdout: []fail.SkippedLine{{Text: "Listening on port 3000"}, {Text: "ready"}}},
			[]string{"it wrote a non-JSON line on stdout, which mcpx skipped: Listening on port 3000",
				"it wrote a non-JSON line on stdout, which mcpx skipped: ready", otherTransport}},
		{"timeout, JSON", &fail.TimeoutError{Phase: "initialize", Stdout: []fail.SkippedLine{{Text: `{"a":1}`, JSON: true}}},
			[]string{`it wrote a JSON line that is not JSON-RPC on stdout, which mcpx skipped: {"a":1}`, otherTransport}},
		{"login timeout", &fail.TimeoutError{Phase: "login"}, []string{"login waits 5 minutes for the browser unless --timeout says otherwise"}},
		{"a daemon that does not answer, pid unknown", daemon.NoAnswer(0, "status", time.Second), nil},
		{"unknown server", &fail.Error{Code: fail.NotFound, What: "server", Name: "x", Known: []string{"a", "b"}},
			[]string{"configured servers: a, b (and the built-in demo)"}},
		{"no servers", &fail.Error{Code: fail.NotFound, What: "server", Name: "x", Known: []string{}},
			[]string{"no servers are configured; try the built-in one: mcpx catalog demo"}},
		{"unknown resource", &fail.Error{Code: fail.NotFound, What: "resource", Name: "x://a", Server: "odd"},
			[]string{"see what it offers: mcpx catalog odd --kind resource --kind resource_template"}},
		{"defined elsewhere", &fail.Error{Code: fail.NotFound, What: "server", Name: "g@zed", Source: "zed", Known: []string{"g@cursor"}},
			[]string{"it is defined as g@cursor"}},
		{"untrusted", &fail.Error{Code: fail.Usage, What: "trustedProjects", Name: "/u.json"},
			[]string{`pass --project, or add it to "trustedProjects" in /u.json`}},
		{"unknown tool", &fail.Error{Code: fail.NotFound, What: "tool", Name: "t", Hints: []string{"h"}}, []string{"h"}},
	} {
		if got := hints(c.err); !slices.Equal(got, c.want) {
			t.Errorf("%s: hints\n %q\nwant\n %q", c.name, got, c.want)
		}
	}
	if got := unusableTokenNote("a b", errors.New("token file f is damaged")); got != `server "a b": token file f is damaged; run: mcpx login 'a b'` {
		t.Errorf("token note %q", got)
	}
}

// TestNoAnswerHints: a daemon that took the connection and does not
// answer is a timeout whose hint names its pid, never the --timeout one.
func TestNoAnswerHints(t *testing.T) {
	want := []string{"a daemon stopped by SIGSTOP goes on after: kill -CONT 42 (kill -KILL 42 ends it, and its servers with it)"}
	if runtime.GOOS == "windows" {
		want = []string{"taskkill /F /PID 42 ends it, and its servers with it"}
	}
	if got := hints(daemon.NoAnswer(42, "status", time.Second)); !slices.Equal(got, want) {
		t.Errorf("hints %q, want %q", got, want)
	}
	r := classify(daemon.NoAnswer(42, "stop", time.Second), nil)
	if r.ExitCode != exitTimeout || r.Message != "the mcpx daemon (pid 42) does not answer: timed out after 1s during stop" ||
		r.Details["phase"] != "stop" || r.Details["pid"] != 42 {
		t.Errorf("%+v", r)
	}
}

func TestJQPath(t *testing.T) {
	for in, want := range map[string]string{
		".items[0].id":        "items.0.id",
		".items[].id":         "items.#.id",
		".items[] | .id":      "items.#.id",
		".a | .b":             "a.b",
		`.a["x.y"]`:           `a.x\.y`,
		`.servers[3].probe`:   "servers.3.probe",
		".content":            "content",
		"items[0]":            "items.0",
		"items.0.id":          "", // gjson already
		"content.0.text":      "",
		"a|b":                 "", // a gjson pipe
		".":                   "",
		".a[":                 "",
		".a[x]":               "",
		".a | select(.x)":     "",
		`.items[] | "\(.id)"`: "",
	} {
		got, ok := jqPath(in)
		if ok != (want != "") || got != want {
			t.Errorf("jqPath(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
