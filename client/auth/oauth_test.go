package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/secret"
)

// oaFake is an httptest server answering per path; it records every
// request as "METHOD /path".
type oaFake struct {
	*httptest.Server
	mu     sync.Mutex
	routes map[string]http.HandlerFunc
	reqs   []string
}

func newOAFake(t *testing.T) *oaFake {
	t.Helper()
	f := &oaFake{routes: map[string]http.HandlerFunc{}}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.reqs = append(f.reqs, r.Method+" "+r.URL.Path)
		h := f.routes[r.URL.Path]
		f.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *oaFake) handle(path string, h http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes[path] = h
}

// json answers path with status and v as JSON.
func (f *oaFake) json(path string, status int, v any) {
	f.handle(path, func(w http.ResponseWriter, r *http.Request) { oaWriteJSON(w, status, v) })
}

func (f *oaFake) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reqs)
}

func oaWriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if s, ok := v.(string); ok {
		io.WriteString(w, s)
		return
	}
	_ = json.NewEncoder(w).Encode(v)
}

// oaASDoc is valid authorization-server metadata for issuer.
func oaASDoc(issuer string) map[string]any {
	return map[string]any{
		"issuer":                           issuer,
		"authorization_endpoint":           issuer + "/authorize",
		"token_endpoint":                   issuer + "/token",
		"registration_endpoint":            issuer + "/register",
		"revocation_endpoint":              issuer + "/revoke",
		"response_types_supported":         []string{"code"},
		"code_challenge_methods_supported": []string{"S256"},
	}
}

func oaAuthMsg(t *testing.T, err error) string {
	t.Helper()
	var ae *fail.AuthError
	if !errors.As(err, &ae) {
		t.Fatalf("error %v (%T) is not an *fail.AuthError", err, err)
	}
	if ae.Server != "srv" || ae.Status != 0 {
		t.Errorf("Error server %q status %d", ae.Server, ae.Status)
	}
	return ae.Msg
}

func TestWellKnown(t *testing.T) {
	for _, c := range []struct{ in, name, inserted, root string }{
		{"https://as.example", "oauth-authorization-server", "https://as.example/.well-known/oauth-authorization-server", ""},
		{"https://as.example/", "oauth-authorization-server", "https://as.example/.well-known/oauth-authorization-server", ""},
		{"https://as.example/tenant/a", "oauth-authorization-server",
			"https://as.example/.well-known/oauth-authorization-server/tenant/a", "https://as.example/.well-known/oauth-authorization-server"},
		{"https://as.example/tenant/", "openid-configuration",
			"https://as.example/.well-known/openid-configuration/tenant", "https://as.example/.well-known/openid-configuration"},
		{"https://rs.example:8443/mcp?x=1#f", "oauth-protected-resource",
			"https://rs.example:8443/.well-known/oauth-protected-resource/mcp", "https://rs.example:8443/.well-known/oauth-protected-resource"},
		{"http://127.0.0.1:9/a%20b", "oauth-protected-resource",
			"http://127.0.0.1:9/.well-known/oauth-protected-resource/a%20b", "http://127.0.0.1:9/.well-known/oauth-protected-resource"},
	} {
		ins, root, err := wellKnown(c.in, c.name)
		if err != nil || ins != c.inserted || root != c.root {
			t.Errorf("wellKnown(%q, %q) = %q, %q, %v; want %q, %q", c.in, c.name, ins, root, err, c.inserted, c.root)
		}
	}
	for _, in := range []string{"", "as.example/x", "/x", "http://[::1"} {
		ins, root, err := wellKnown(in, "x")
		if want := fmt.Sprintf("%q is not a URL", in); err == nil || err.Error() != want || ins != "" || root != "" {
			t.Errorf("wellKnown(%q) = %q, %q, %v; want error %q", in, ins, root, err, want)
		}
	}
}

func TestResourceBinds(t *testing.T) {
	for _, c := range []struct {
		resource, server string
		want             bool
	}{
		{"https://rs.example/mcp", "https://rs.example/mcp", true},
		{"HTTPS://RS.example:443/mcp/", "https://rs.example/mcp", true}, // canonicalized
		{"https://rs.example", "https://rs.example/mcp", true},          // the origin
		{"https://rs.example/", "https://rs.example/mcp", true},
		{"https://rs.example/a", "https://rs.example/a/mcp", true}, // a whole-segment prefix
		{"https://rs.example/a/", "https://rs.example/a/mcp", true},
		{"https://rs.example/mc", "https://rs.example/mcp", false}, // not a whole segment
		{"https://rs.example/a/mc", "https://rs.example/a/mcp", false},
		{"https://rs.example/mcp/sub", "https://rs.example/mcp", false}, // longer
		{"https://rs.example/other", "https://rs.example/mcp", false},
		{"https://other.example/mcp", "https://rs.example/mcp", false}, // host
		{"https://rs.example.evil/mcp", "https://rs.example/mcp", false},
		{"http://rs.example/mcp", "https://rs.example/mcp", false},       // scheme
		{"https://rs.example:8443/mcp", "https://rs.example/mcp", false}, // port
		{"https://rs.example/mcp?t=1", "https://rs.example/mcp?t=1", true},
		{"https://rs.example/mcp?t=1", "https://rs.example/mcp", false},
		{"https://rs.example/mcp?t=1", "https://rs.example/mcp?t=2", false},
		{"https://rs.example/mcp", "https://rs.example/mcp?t=1", true}, // no query: binds
		{"https://rs.example/mcp#frag", "https://rs.example/mcp", true},
		{"https://u:p@rs.example/mcp", "https://rs.example/mcp", true},
		{"rs.example/mcp", "https://rs.example/mcp", false},
		{"", "https://rs.example/mcp", false},
		{"ftp://rs.example/mcp", "https://rs.example/mcp", false},
	} {
		if got := resourceBinds(c.resource, c.server); got != c.want {
			t.Errorf("resourceBinds(%q, %q) = %v, want %v", c.resource, c.server, got, c.want)
		}
	}
}

func TestCheckEndpoint(t *testing.T) {
	ok := []string{"https://as.example/token", "https://as.example/t?x=1", "http://localhost:9000/token", "http://LocalHost/x",
		"http://127.0.0.1:1/", "http://127.0.0.2/token", "http://[::1]:8080/token", "http://[::1]/"}
	for _, u := range ok {
		for _, secure := range []bool{true, false} {
			if err := checkEndpoint("token_endpoint", u, secure); err != nil {
				t.Errorf("checkEndpoint(%q, %v) = %v", u, secure, err)
			}
		}
	}
	plain := map[string]string{ // insecure http: refused only when secure
		"http://as.example/token":       "http://as.example/token",
		"http://localhost.evil.example": "http://localhost.evil.example",
		"http://10.0.0.1/t":             "http://10.0.0.1/t",
		"http://[::2]/t":                "http://[::2]/t",
		"http://user:pw@as.example/t":   "http://user:xxxxx@as.example/t", // redacted
	}
	for u, shown := range plain {
		if err := checkEndpoint("token_endpoint", u, false); err != nil {
			t.Errorf("checkEndpoint(%q, false) = %v", u, err)
		}
		want := "token_endpoint " + shown + " is plain http on a host that is not loopback; OAuth needs https"
		if err := checkEndpoint("token_endpoint", u, true); err == nil || err.Error() != want {
			t.Errorf("checkEndpoint(%q, true) = %v; want %q", u, err, want)
		}
	}
	for _, u := range []string{"https://as.example/token#frag", "/token", "token", "ftp://as.example/t", "", "https://", "javascript:alert(1)", "//as.example/t"} {
		want := fmt.Sprintf("token_endpoint %q is not an absolute http(s) URL", u)
		for _, secure := range []bool{true, false} {
			if err := checkEndpoint("token_endpoint", u, secure); err == nil || err.Error() != want {
				t.Errorf("checkEndpoint(%q, %v) = %v; want %q", u, secure, err, want)
			}
		}
	}
	// A URL with a line break is quoted, on one line.
	if err := checkEndpoint("x", "/a\nb", true); err == nil || err.Error() != `x "/a\\nb" is not an absolute http(s) URL` {
		t.Errorf("multi-line: %v", err)
	}
}

func TestChooseMethod(t *testing.T) {
	for _, c := range []struct {
		supported []string
		secret    bool
		want      string
	}{
		{nil, false, "none"},
		{[]string{"client_secret_basic"}, false, "none"},
		{nil, true, "client_secret_basic"}, // RFC 8414 default
		{[]string{}, true, "client_secret_basic"},
		{[]string{"client_secret_post", "client_secret_basic"}, true, "client_secret_basic"},
		{[]string{"client_secret_post"}, true, "client_secret_post"},
		{[]string{"none", "client_secret_post"}, true, "client_secret_post"},
		{[]string{"private_key_jwt"}, true, "none"},
		{[]string{"none"}, true, "none"},
	} {
		if got := chooseMethod(c.supported, c.secret); got != c.want {
			t.Errorf("chooseMethod(%q, %v) = %q, want %q", c.supported, c.secret, got, c.want)
		}
	}
}

func TestExpiresIn(t *testing.T) {
	for _, c := range []struct {
		raw  string
		n    int64
		want bool
	}{
		{`3600`, 3600, true},
		{`"3600"`, 3600, true},
		{`3600.9`, 3600, true},
		{`"59.5"`, 59, true},
		{`0`, 0, true},
		{`1e3`, 1000, true},
		{`315360000`, 315360000, true}, // ten years
		{`315360001`, 0, false},
		{`1e12`, 0, false},
		{`1e400`, 0, false},
		{`-1`, 0, false},
		{`"-5"`, 0, false},
		{`null`, 0, false},
		{``, 0, false},
		{`""`, 0, false},
		{`"abc"`, 0, false},
		{`true`, 0, false},
		{`{}`, 0, false},
		{`[1]`, 0, false},
		{`"Inf"`, 0, false},
	} {
		n, ok := expiresIn(json.RawMessage(c.raw))
		if n != c.n || ok != c.want {
			t.Errorf("expiresIn(%s) = %d, %v; want %d, %v", c.raw, n, ok, c.n, c.want)
		}
	}
}

func TestExpiresInNaN(t *testing.T) {
	n, ok := expiresIn(json.RawMessage(`"NaN"`))
	if ok {
		t.Fatalf("expiresIn(%s) = %d, true: strconv.ParseFloat accepts \"NaN\", which passes both range checks "+
			"(n < 0 and n > 10y are false for NaN) and converts to an undefined int64; a token endpoint answering "+
			`"expires_in":"NaN" gets a token with a nonsense expiry (want: not ok)`, `"NaN"`, n)
	}
}

func TestProbeChallenge(t *testing.T) {
	f := newOAFake(t)
	type seen struct {
		method, accept, ctype, auth, api string
		body                             map[string]any
	}
	got := make(chan seen, 4)
	answer := func(status int, hdrs ...string) {
		f.handle("/mcp", func(w http.ResponseWriter, r *http.Request) {
			s := seen{method: r.Method, accept: r.Header.Get("Accept"), ctype: r.Header.Get("Content-Type"),
				auth: r.Header.Get("Authorization"), api: r.Header.Get("X-Api")}
			if r.Method == http.MethodPost {
				_ = json.NewDecoder(r.Body).Decode(&s.body)
			}
			got <- s
			for _, h := range hdrs {
				w.Header().Add("WWW-Authenticate", h)
			}
			w.WriteHeader(status)
		})
	}
	h := newOAuthHTTP("srv", nil)
	ctx := context.Background()
	tgt := &config.Target{Name: "srv", Transport: config.HTTP, URL: f.URL + "/mcp", Headers: map[string]string{"X-Api": "k", "authorization": "Bearer static"}}

	answer(401, `Bearer realm="x", scope="a b"`, `Bearer resource_metadata="https://rs.example/.well-known/oauth-protected-resource/mcp", scope="later"`)
	ch, err := h.probeChallenge(ctx, tgt, "2025-06-18")
	if err != nil {
		t.Fatal(err)
	}
	want := challenge{status: 401, resourceMetadata: "https://rs.example/.well-known/oauth-protected-resource/mcp", scope: "a b"}
	if ch != want {
		t.Errorf("challenge = %+v, want %+v", ch, want)
	}
	s := <-got
	if s.method != "POST" || s.accept != "application/json, text/event-stream" || s.ctype != "application/json" || s.auth != "" || s.api != "k" {
		t.Errorf("probe request: %+v", s)
	}
	if s.body["method"] != "initialize" || s.body["params"].(map[string]any)["protocolVersion"] != "2025-06-18" {
		t.Errorf("probe body: %v", s.body)
	}

	// SSE: the stream's GET.
	answer(401, `Bearer error="invalid_token", resource_metadata="https://rs.example/prm"`)
	ch, err = h.probeChallenge(ctx, &config.Target{Name: "srv", Transport: config.SSE, URL: f.URL + "/mcp"}, "2025-06-18")
	if want := (challenge{status: 401, resourceMetadata: "https://rs.example/prm"}); err != nil || ch != want {
		t.Errorf("SSE challenge = %+v, %v; want %+v", ch, err, want)
	}
	if s := <-got; s.method != "GET" || s.accept != "text/event-stream" {
		t.Errorf("SSE probe request: %+v", s)
	}

	// 403 insufficient_scope names the scope; a 200 is no challenge at all.
	answer(403, `Bearer error="insufficient_scope", scope="files:write"`)
	ch, err = h.probeChallenge(ctx, tgt, "2025-06-18")
	if want := (challenge{status: 403, scope: "files:write"}); err != nil || ch != want {
		t.Errorf("403 challenge = %+v, %v; want %+v", ch, err, want)
	}
	<-got
	answer(200, `Bearer resource_metadata="https://rs.example/prm"`)
	ch, err = h.probeChallenge(ctx, tgt, "2025-06-18")
	if want := (challenge{status: 200}); err != nil || ch != want {
		t.Errorf("200 challenge = %+v, %v; want %+v", ch, err, want)
	}
	<-got
	if s := <-got; s.body["method"] != "tools/list" {
		t.Errorf("second probe: %+v", s)
	}

	// An initialize let through: the first operation's challenge counts
	// (its scope, its metadata), with the session initialize gave; in the
	// 2026-07-28 era with the version header and _meta.
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		var second *http.Request
		var secondBody map[string]any
		f.handle("/mcp", func(w http.ResponseWriter, r *http.Request) {
			var b map[string]any
			_ = json.NewDecoder(r.Body).Decode(&b)
			if b["method"] == "initialize" {
				w.Header().Set("Mcp-Session-Id", "sess-1")
				oaWriteJSON(w, 200, `{}`)
				return
			}
			second, secondBody = r, b
			w.Header().Set("WWW-Authenticate", `Bearer scope="mcp:basic", resource_metadata="https://rs.example/prm"`)
			w.WriteHeader(401)
		})
		ch, err = h.probeChallenge(ctx, tgt, protocol)
		if want := (challenge{status: 401, resourceMetadata: "https://rs.example/prm", scope: "mcp:basic"}); err != nil || ch != want {
			t.Errorf("%s: challenge = %+v, %v; want %+v", protocol, ch, err, want)
		}
		if second == nil || secondBody["method"] != "tools/list" || second.Header.Get("Mcp-Session-Id") != "sess-1" ||
			second.Header.Get("Mcp-Protocol-Version") != protocol || second.Header.Get("Authorization") != "" {
			t.Fatalf("%s: second probe %v %v", protocol, second, secondBody)
		}
		meta, _ := secondBody["params"].(map[string]any)
		if (protocol >= "2026") != (meta != nil) {
			t.Errorf("%s: params %v", protocol, secondBody["params"])
		}
	}

	// Unreachable; cancelled.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	_, err = h.probeChallenge(ctx, &config.Target{Name: "srv", Transport: config.HTTP, URL: dead.URL}, "x")
	var ce *fail.ConnectError
	if !errors.As(err, &ce) || ce.Phase != "login" || !strings.HasPrefix(ce.Msg, "cannot reach the server: ") {
		t.Errorf("unreachable: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := h.probeChallenge(cctx, tgt, "x"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestDiscover(t *testing.T) {
	const prmPath, asPath = "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server"
	type setup struct {
		f      *oaFake
		server string // the canonical server URL
		issuer string
	}
	for _, c := range []struct {
		name    string
		prep    func(s *setup) challenge
		reqs    []string // the request paths, in order
		wantErr string   // the Error's Msg; %[1]s is the fake's URL
		check   func(t *testing.T, s *setup, as *authServer)
	}{
		{
			name: "401 header URL used exclusively",
			prep: func(s *setup) challenge {
				s.f.json("/custom/prm", 200, map[string]any{"resource": s.server, "authorization_servers": []string{s.issuer}, "scopes_supported": []string{"a", "b"}})
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": s.server, "authorization_servers": []string{"https://wrong.example"}})
				s.f.json(asPath, 200, oaASDoc(s.issuer))
				return challenge{status: 401, resourceMetadata: s.f.URL + "/custom/prm"}
			},
			reqs: []string{"GET /custom/prm", "GET " + asPath},
			check: func(t *testing.T, s *setup, as *authServer) {
				if as.prmURL != s.f.URL+"/custom/prm" || as.resource != s.server || !slices.Equal(as.prmScopes, []string{"a", "b"}) ||
					as.Issuer != s.issuer || as.TokenEndpoint != s.issuer+"/token" || as.AuthorizationEndpoint != s.issuer+"/authorize" ||
					as.RegistrationEndpoint != s.issuer+"/register" || as.RevocationEndpoint != s.issuer+"/revoke" {
					t.Errorf("authServer = %+v", as)
				}
			},
		},
		{
			name: "401 header URL not found: no fallback",
			prep: func(s *setup) challenge {
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": s.server, "authorization_servers": []string{s.issuer}})
				s.f.json(prmPath, 200, map[string]any{"resource": s.server, "authorization_servers": []string{s.issuer}})
				return challenge{status: 401, resourceMetadata: s.f.URL + "/custom/prm"}
			},
			reqs:    []string{"GET /custom/prm"},
			wantErr: "the server publishes no protected-resource metadata (RFC 9728) at %[1]s/custom/prm, so its authorization server is unknown",
		},
		{
			name: "401 header URL unusable",
			prep: func(s *setup) challenge {
				return challenge{status: 401, resourceMetadata: "/relative/prm"}
			},
			wantErr: `the server's 401 names unusable resource metadata: resource_metadata "/relative/prm" is not an absolute http(s) URL`,
		},
		{
			name: "path-based, then root",
			prep: func(s *setup) challenge {
				s.f.json(prmPath, 200, map[string]any{"resource": s.server, "authorization_servers": []string{s.issuer}})
				s.f.json(asPath, 200, oaASDoc(s.issuer))
				return challenge{}
			},
			reqs: []string{"GET " + prmPath + "/mcp", "GET " + prmPath, "GET " + asPath},
			check: func(t *testing.T, s *setup, as *authServer) {
				if as.prmURL != s.f.URL+prmPath {
					t.Errorf("prmURL = %s", as.prmURL)
				}
			},
		},
		{
			name: "path-based found: root not asked",
			prep: func(s *setup) challenge {
				s.f.json(prmPath+"/mcp", 200, map[string]any{"authorization_servers": []string{s.issuer}})
				s.f.json(asPath, 200, oaASDoc(s.issuer))
				return challenge{}
			},
			reqs: []string{"GET " + prmPath + "/mcp", "GET " + asPath},
			check: func(t *testing.T, s *setup, as *authServer) {
				if as.resource != s.server { // no resource in the metadata: the server's URL
					t.Errorf("resource = %s", as.resource)
				}
			},
		},
		{
			name: "a server error is not found either",
			prep: func(s *setup) challenge {
				s.f.json(prmPath+"/mcp", 500, `oops`)
				s.f.json(prmPath, 200, map[string]any{"resource": s.server, "authorization_servers": []string{s.issuer}})
				s.f.json(asPath, 200, oaASDoc(s.issuer))
				return challenge{}
			},
			reqs: []string{"GET " + prmPath + "/mcp", "GET " + prmPath, "GET " + asPath},
		},
		{
			name: "no protected-resource metadata",
			prep: func(s *setup) challenge { return challenge{status: 401} },
			reqs: []string{"GET " + prmPath + "/mcp", "GET " + prmPath},
			wantErr: "the server publishes no protected-resource metadata (RFC 9728) at %[1]s" + prmPath + "/mcp or %[1]s" + prmPath +
				", so its authorization server is unknown",
		},
		{
			name: "no protected-resource metadata, no challenge",
			prep: func(s *setup) challenge { return challenge{status: 200} },
			reqs: []string{"GET " + prmPath + "/mcp", "GET " + prmPath},
			wantErr: "the server did not ask for authentication (it answered HTTP 200) and publishes no protected-resource metadata (RFC 9728) at %[1]s" +
				prmPath + "/mcp or %[1]s" + prmPath + ", so its authorization server is unknown",
		},
		{
			name: "protected-resource metadata not JSON",
			prep: func(s *setup) challenge {
				s.f.json(prmPath+"/mcp", 200, `<html>`)
				return challenge{}
			},
			reqs:    []string{"GET " + prmPath + "/mcp"},
			wantErr: "the metadata at %[1]s" + prmPath + "/mcp is not a valid JSON document: invalid character '<' looking for beginning of value",
		},
		{
			name: "OAuth, then OpenID inserted, then OpenID appended",
			prep: func(s *setup) challenge {
				s.issuer = s.f.URL + "/tenant"
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": s.server, "authorization_servers": []string{s.issuer}})
				s.f.json("/tenant/.well-known/openid-configuration", 200, oaASDoc(s.issuer))
				return challenge{}
			},
			reqs: []string{"GET " + prmPath + "/mcp", "GET " + asPath + "/tenant", "GET /.well-known/openid-configuration/tenant",
				"GET /tenant/.well-known/openid-configuration"},
			check: func(t *testing.T, s *setup, as *authServer) {
				if as.Issuer != s.f.URL+"/tenant" || as.TokenEndpoint != s.f.URL+"/tenant/token" {
					t.Errorf("authServer = %+v", as)
				}
			},
		},
		{
			name: "OpenID inserted",
			prep: func(s *setup) challenge {
				s.issuer = s.f.URL + "/tenant/"
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": s.server, "authorization_servers": []string{s.issuer}})
				s.f.json("/.well-known/openid-configuration/tenant", 200, oaASDoc(s.f.URL+"/tenant"))
				return challenge{}
			},
			reqs: []string{"GET " + prmPath + "/mcp", "GET " + asPath + "/tenant", "GET /.well-known/openid-configuration/tenant"},
		},
		{
			name: "no metadata at all, issuer with a path",
			prep: func(s *setup) challenge {
				s.issuer = s.f.URL + "/tenant"
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": s.server, "authorization_servers": []string{s.issuer, "https://second.example"}})
				return challenge{}
			},
			reqs: []string{"GET " + prmPath + "/mcp", "GET " + asPath + "/tenant", "GET /.well-known/openid-configuration/tenant",
				"GET /tenant/.well-known/openid-configuration"},
			wantErr: "authorization server %[1]s/tenant publishes no metadata at %[1]s" + asPath + "/tenant, %[1]s/.well-known/openid-configuration/tenant, %[1]s/tenant/.well-known/openid-configuration",
		},
		{
			name: "no metadata at all, issuer without a path",
			prep: func(s *setup) challenge {
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": s.server, "authorization_servers": []string{s.issuer}})
				return challenge{}
			},
			reqs:    []string{"GET " + prmPath + "/mcp", "GET " + asPath, "GET /.well-known/openid-configuration"},
			wantErr: "authorization server %[1]s publishes no metadata at %[1]s" + asPath + ", %[1]s/.well-known/openid-configuration",
		},
		{
			name: "authorization-server metadata not JSON",
			prep: func(s *setup) challenge {
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": s.server, "authorization_servers": []string{s.issuer}})
				s.f.json(asPath, 200, `{"issuer":`)
				return challenge{}
			},
			reqs:    []string{"GET " + prmPath + "/mcp", "GET " + asPath},
			wantErr: "the metadata at %[1]s" + asPath + " is not a valid JSON document: unexpected end of JSON input",
		},
		{
			name: "issuer mismatch",
			prep: func(s *setup) challenge {
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": s.server, "authorization_servers": []string{s.issuer}})
				doc := oaASDoc(s.issuer)
				doc["issuer"] = "https://evil.example"
				s.f.json(asPath, 200, doc)
				s.f.json("/.well-known/openid-configuration", 200, oaASDoc(s.issuer))
				return challenge{}
			},
			reqs:    []string{"GET " + prmPath + "/mcp", "GET " + asPath},
			wantErr: `the metadata at %[1]s` + asPath + ` is for issuer "https://evil.example", not "%[1]s"; refusing to use it`,
		},
		{
			name: "issuer differing by a trailing slash only",
			prep: func(s *setup) challenge {
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": s.server, "authorization_servers": []string{s.issuer}})
				s.f.json(asPath, 200, oaASDoc(s.issuer+"/"))
				return challenge{}
			},
			reqs: []string{"GET " + prmPath + "/mcp", "GET " + asPath},
		},
		{
			name: "no S256",
			prep: func(s *setup) challenge {
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": s.server, "authorization_servers": []string{s.issuer}})
				doc := oaASDoc(s.issuer)
				doc["code_challenge_methods_supported"] = []string{"plain"}
				s.f.json(asPath, 200, doc)
				return challenge{}
			},
			reqs: []string{"GET " + prmPath + "/mcp", "GET " + asPath},
			wantErr: "authorization server %[1]s: its metadata does not list S256 in code_challenge_methods_supported, " +
				"so PKCE cannot be relied on; refusing to authorize",
		},
		{
			name: "code_challenge_methods_supported absent",
			prep: func(s *setup) challenge {
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": s.server, "authorization_servers": []string{s.issuer}})
				doc := oaASDoc(s.issuer)
				delete(doc, "code_challenge_methods_supported")
				s.f.json(asPath, 200, doc)
				return challenge{}
			},
			reqs: []string{"GET " + prmPath + "/mcp", "GET " + asPath},
			wantErr: "authorization server %[1]s: its metadata does not list S256 in code_challenge_methods_supported, " +
				"so PKCE cannot be relied on; refusing to authorize",
		},
		{
			name: "no code flow",
			prep: func(s *setup) challenge {
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": s.server, "authorization_servers": []string{s.issuer}})
				doc := oaASDoc(s.issuer)
				doc["response_types_supported"] = []string{"token"}
				s.f.json(asPath, 200, doc)
				return challenge{}
			},
			reqs:    []string{"GET " + prmPath + "/mcp", "GET " + asPath},
			wantErr: "authorization server %[1]s: it does not support the authorization code flow (response_types_supported)",
		},
		{
			name: "no token endpoint",
			prep: func(s *setup) challenge {
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": s.server, "authorization_servers": []string{s.issuer}})
				doc := oaASDoc(s.issuer)
				delete(doc, "token_endpoint")
				s.f.json(asPath, 200, doc)
				return challenge{}
			},
			reqs:    []string{"GET " + prmPath + "/mcp", "GET " + asPath},
			wantErr: "authorization server %[1]s: its metadata lacks authorization_endpoint or token_endpoint",
		},
		{
			name: "resource mismatch",
			prep: func(s *setup) challenge {
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": "https://other.example/mcp", "authorization_servers": []string{s.issuer}})
				return challenge{}
			},
			reqs: []string{"GET " + prmPath + "/mcp"},
			wantErr: "the protected-resource metadata at %[1]s" + prmPath + "/mcp is for https://other.example/mcp, " +
				"not for this server (%[1]s/mcp); refusing to authorize",
		},
		{
			name: "resource: the origin",
			prep: func(s *setup) challenge {
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": s.f.URL + "/", "authorization_servers": []string{s.issuer}})
				s.f.json(asPath, 200, oaASDoc(s.issuer))
				return challenge{}
			},
			reqs: []string{"GET " + prmPath + "/mcp", "GET " + asPath},
			check: func(t *testing.T, s *setup, as *authServer) {
				if as.resource != s.f.URL+"/" { // sent as the metadata says
					t.Errorf("resource = %s", as.resource)
				}
			},
		},
		{
			name: "no authorization server",
			prep: func(s *setup) challenge {
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": s.server})
				return challenge{}
			},
			reqs:    []string{"GET " + prmPath + "/mcp"},
			wantErr: "the protected-resource metadata at %[1]s" + prmPath + "/mcp names no authorization server",
		},
		{
			name: "plain http authorization server",
			prep: func(s *setup) challenge {
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": s.server, "authorization_servers": []string{"http://as.example"}})
				return challenge{}
			},
			reqs:    []string{"GET " + prmPath + "/mcp"},
			wantErr: "authorization server http://as.example is plain http on a host that is not loopback; OAuth needs https",
		},
		{
			name: "plain http token endpoint",
			prep: func(s *setup) challenge {
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": s.server, "authorization_servers": []string{s.issuer}})
				doc := oaASDoc(s.issuer)
				doc["token_endpoint"] = "http://as.example/token"
				s.f.json(asPath, 200, doc)
				return challenge{}
			},
			reqs:    []string{"GET " + prmPath + "/mcp", "GET " + asPath},
			wantErr: "authorization server %[1]s: token_endpoint http://as.example/token is plain http on a host that is not loopback; OAuth needs https",
		},
		{
			name: "plain http revocation endpoint",
			prep: func(s *setup) challenge {
				s.f.json(prmPath+"/mcp", 200, map[string]any{"resource": s.server, "authorization_servers": []string{s.issuer}})
				doc := oaASDoc(s.issuer)
				doc["revocation_endpoint"] = "http://as.example/revoke"
				s.f.json(asPath, 200, doc)
				return challenge{}
			},
			reqs:    []string{"GET " + prmPath + "/mcp", "GET " + asPath},
			wantErr: "authorization server %[1]s: revocation_endpoint http://as.example/revoke is plain http on a host that is not loopback; OAuth needs https",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newOAFake(t)
			s := &setup{f: f, server: f.URL + "/mcp", issuer: f.URL}
			ch := c.prep(s)
			as, err := newOAuthHTTP("srv", nil).discover(context.Background(), s.server, ch)
			if got := f.requests(); !slices.Equal(got, c.reqs) {
				t.Errorf("requests:\n got %q\nwant %q", got, c.reqs)
			}
			if c.wantErr != "" {
				if as != nil {
					t.Errorf("discover = %+v", as)
				}
				if msg, want := oaAuthMsg(t, err), strings.ReplaceAll(c.wantErr, "%[1]s", f.URL); msg != want {
					t.Errorf("error:\n got %q\nwant %q", msg, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("discover: %v", err)
			}
			if c.check != nil {
				c.check(t, s, as)
			}
		})
	}
}

func TestDiscoverBadServer(t *testing.T) {
	as, err := newOAuthHTTP("srv", nil).discover(context.Background(), "not a URL", challenge{})
	if msg := oaAuthMsg(t, err); as != nil || msg != `"not a URL" is not a URL` {
		t.Errorf("discover = %v, %q", as, msg)
	}
	_, err = newOAuthHTTP("srv", nil).probeChallenge(context.Background(), &config.Target{Name: "srv", Transport: config.HTTP, URL: "http://[::1"}, "x")
	if msg := oaAuthMsg(t, err); !strings.HasPrefix(msg, "bad server URL: ") {
		t.Errorf("probe: %q", msg)
	}
}

func TestRegisterUnreachable(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	h := newOAuthHTTP("srv", nil)
	_, err := h.register(context.Background(), &authServer{asDoc: asDoc{RegistrationEndpoint: dead.URL + "/register"}}, "http://127.0.0.1:1/callback", "v")
	var ce *fail.ConnectError
	if !errors.As(err, &ce) || !strings.HasPrefix(ce.Msg, "cannot reach "+dead.URL+"/register: ") {
		t.Errorf("unreachable: %v", err)
	}
	_, err = h.register(context.Background(), &authServer{asDoc: asDoc{RegistrationEndpoint: "http://[::1/register"}}, "http://127.0.0.1:1/callback", "v")
	if msg := oaAuthMsg(t, err); !strings.HasPrefix(msg, "bad registration endpoint: ") {
		t.Errorf("bad endpoint: %q", msg)
	}
}

func TestRegister(t *testing.T) {
	const redirect = "http://127.0.0.1:5555/callback"
	for _, c := range []struct {
		name       string
		supported  []string
		status     int
		answer     string
		wantMethod string // the method asked for; "" no request
		want       clientAuth
		wantErr    string // %[1]s: the registration endpoint
	}{
		{"public client", nil, 201, `{"client_id":"c1"}`, "none", clientAuth{ID: "c1", Method: "none"}, ""},
		{"none listed", []string{"client_secret_basic", "none"}, 201, `{"client_id":"c1","token_endpoint_auth_method":"none"}`, "none",
			clientAuth{ID: "c1", Method: "none"}, ""},
		{"basic", []string{"client_secret_post", "client_secret_basic"}, 201, `{"client_id":"c2","client_secret":"s3cr3t"}`, "client_secret_basic",
			clientAuth{ID: "c2", Secret: "s3cr3t", Method: "client_secret_basic"}, ""},
		{"post", []string{"client_secret_post"}, 200, `{"client_id":"c3","client_secret":"s3","token_endpoint_auth_method":"client_secret_post"}`,
			"client_secret_post", clientAuth{ID: "c3", Secret: "s3", Method: "client_secret_post"}, ""},
		{"a secret though none was asked", []string{"none", "client_secret_post"}, 201, `{"client_id":"c4","client_secret":"s4"}`, "none",
			clientAuth{ID: "c4", Secret: "s4", Method: "client_secret_post"}, ""},
		{"a secret though none was asked, no list", nil, 201, `{"client_id":"c4","client_secret":"s4"}`, "none",
			clientAuth{ID: "c4", Secret: "s4", Method: "client_secret_basic"}, ""},
		{"the server's method wins", nil, 201, `{"client_id":"c5","client_secret":"s5","token_endpoint_auth_method":"client_secret_post"}`, "none",
			clientAuth{ID: "c5", Secret: "s5", Method: "client_secret_post"}, ""},
		{"unsupported methods only", []string{"private_key_jwt", "tls_client_auth"}, 201, `{"client_id":"c"}`, "", clientAuth{},
			"authorization server ISSUER supports none of the token endpoint auth methods mcpx has (none, client_secret_basic, client_secret_post): private_key_jwt, tls_client_auth"},
		{"no client_id", nil, 201, `{"client_secret":"s"}`, "none", clientAuth{}, "dynamic client registration at %[1]s answered no client_id"},
		{"not JSON", nil, 201, `<html>`, "none", clientAuth{}, "dynamic client registration at %[1]s answered no client_id"},
		{"unknown method registered", nil, 201, `{"client_id":"c","token_endpoint_auth_method":"private_key_jwt"}`, "none", clientAuth{},
			`the authorization server registered mcpx for token endpoint auth method "private_key_jwt", which mcpx does not have`},
		{"refused", nil, 400, `{"error":"invalid_redirect_uri","error_description":"loopback not allowed"}`, "none", clientAuth{},
			"dynamic client registration at %[1]s failed: invalid_redirect_uri: loopback not allowed (HTTP 400)"},
		{"refused without a body", nil, 403, ``, "none", clientAuth{}, "dynamic client registration at %[1]s failed: HTTP 403"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newOAFake(t)
			var body map[string]any
			var ctype, accept string
			f.handle("/register", func(w http.ResponseWriter, r *http.Request) {
				ctype, accept = r.Header.Get("Content-Type"), r.Header.Get("Accept")
				if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
					t.Errorf("registration body: %v", err)
				}
				oaWriteJSON(w, c.status, c.answer)
			})
			as := &authServer{asDoc: asDoc{Issuer: "ISSUER", RegistrationEndpoint: f.URL + "/register", TokenEndpointAuthMethodsSupported: c.supported}}
			ca, err := newOAuthHTTP("srv", nil).register(context.Background(), as, redirect, "1.2.3")
			if c.wantMethod == "" {
				if got := f.requests(); len(got) != 0 {
					t.Errorf("requests: %q", got)
				}
			} else {
				want := map[string]any{
					"client_name":                "mcpx",
					"application_type":           "native",
					"redirect_uris":              []any{redirect},
					"grant_types":                []any{"authorization_code", "refresh_token"},
					"response_types":             []any{"code"},
					"token_endpoint_auth_method": c.wantMethod,
					"software_id":                "mcpx",
					"software_version":           "1.2.3",
				}
				if !reflect.DeepEqual(body, want) {
					t.Errorf("registration request:\n got %v\nwant %v", body, want)
				}
				if ctype != "application/json" || accept != "application/json" {
					t.Errorf("Content-Type %q, Accept %q", ctype, accept)
				}
				if got := f.requests(); !slices.Equal(got, []string{"POST /register"}) {
					t.Errorf("requests: %q", got)
				}
			}
			if c.wantErr != "" {
				if msg, want := oaAuthMsg(t, err), strings.ReplaceAll(c.wantErr, "%[1]s", f.URL+"/register"); msg != want {
					t.Errorf("error:\n got %q\nwant %q", msg, want)
				}
				return
			}
			if err != nil || ca.ID != c.want.ID || ca.Secret != c.want.Secret || ca.Method != c.want.Method {
				t.Errorf("register = %+v, %v; want %+v", ca, err, c.want)
			}
		})
	}
}

// oaTokenReq is what a token endpoint saw.
type oaTokenReq struct {
	method, ctype, accept, auth string
	form                        url.Values
}

func oaTokenEndpoint(t *testing.T, status int, ctype, body string) (*oaFake, chan oaTokenReq) {
	t.Helper()
	f := newOAFake(t)
	seen := make(chan oaTokenReq, 8)
	f.handle("/token", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			t.Errorf("form: %v", err)
		}
		seen <- oaTokenReq{r.Method, r.Header.Get("Content-Type"), r.Header.Get("Accept"), r.Header.Get("Authorization"), r.PostForm}
		if ctype == "" {
			w.Header()["Content-Type"] = nil // no sniffing: no Content-Type at all
		} else {
			w.Header().Set("Content-Type", ctype)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	})
	return f, seen
}

func TestPostFormClientAuth(t *testing.T) {
	const id, secret = "my:id+ %", "s:e+c r%t"
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("my%3Aid%2B+%25:s%3Ae%2Bc+r%25t"))
	for _, c := range []struct {
		method   string
		wantAuth string
		wantForm url.Values
	}{
		{"client_secret_basic", basic, url.Values{"grant_type": {"authorization_code"}, "code": {"c"}}},
		{"client_secret_post", "", url.Values{"grant_type": {"authorization_code"}, "code": {"c"}, "client_id": {id}, "client_secret": {secret}}},
		{"none", "", url.Values{"grant_type": {"authorization_code"}, "code": {"c"}, "client_id": {id}}},
		{"", "", url.Values{"grant_type": {"authorization_code"}, "code": {"c"}, "client_id": {id}}},
	} {
		f, seen := oaTokenEndpoint(t, 200, "application/json", `{"access_token":"a","token_type":"Bearer"}`)
		tok, err := newOAuthHTTP("srv", nil).token(context.Background(), f.URL+"/token",
			url.Values{"grant_type": {"authorization_code"}, "code": {"c"}}, clientAuth{ID: id, Secret: secret, Method: c.method})
		if err != nil || tok.AccessToken != "a" {
			t.Fatalf("%s: token = %+v, %v", c.method, tok, err)
		}
		r := <-seen
		if r.method != "POST" || r.ctype != "application/x-www-form-urlencoded" || r.accept != "application/json" {
			t.Errorf("%s: request %+v", c.method, r)
		}
		if r.auth != c.wantAuth {
			t.Errorf("%s: Authorization %q, want %q", c.method, r.auth, c.wantAuth)
		}
		if !reflect.DeepEqual(r.form, c.wantForm) {
			t.Errorf("%s: form %v, want %v", c.method, r.form, c.wantForm)
		}
		if c.method == "client_secret_basic" {
			// the AS's view: form-decode both halves
			req := &http.Request{Header: http.Header{"Authorization": {r.auth}}}
			u, p, ok := req.BasicAuth()
			du, _ := url.QueryUnescape(u)
			dp, _ := url.QueryUnescape(p)
			if !ok || du != id || dp != secret {
				t.Errorf("basic credentials decode to %q, %q", du, dp)
			}
		}
	}
}

func TestTokenAnswers(t *testing.T) {
	sec := &secret.Set{}
	sec.Add("s3cr3t")
	for _, c := range []struct {
		name          string
		status        int
		ctype, body   string
		want          StoredToken // ObtainedAt and ExpiresAt aside
		life          time.Duration
		wantGrant     *grantError
		wantErr       string
		wantErrPrefix bool
	}{
		{name: "full", status: 200, ctype: "application/json",
			body: `{"access_token":"a","token_type":"Bearer","refresh_token":"r","expires_in":3600,"scope":"x y"}`,
			want: StoredToken{AccessToken: "a", TokenType: "Bearer", RefreshToken: "r", Scope: "x y"}, life: time.Hour},
		{name: "bearer in lower case", status: 200, ctype: "application/json; charset=utf-8",
			body: `{"access_token":"a","token_type":"bearer","expires_in":"120"}`,
			want: StoredToken{AccessToken: "a", TokenType: "Bearer"}, life: 2 * time.Minute},
		{name: "no token_type, no expiry, no Content-Type", status: 200, ctype: "",
			body: `{"access_token":"a"}`, want: StoredToken{AccessToken: "a", TokenType: "Bearer"}},
		{name: "fractional expiry", status: 200, ctype: "application/json",
			body: `{"access_token":"a","expires_in":59.9}`, want: StoredToken{AccessToken: "a", TokenType: "Bearer"}, life: 59 * time.Second},
		{name: "negative expiry ignored", status: 200, ctype: "application/json",
			body: `{"access_token":"a","expires_in":-5}`, want: StoredToken{AccessToken: "a", TokenType: "Bearer"}},
		{name: "null expiry", status: 200, ctype: "application/json",
			body: `{"access_token":"a","expires_in":null}`, want: StoredToken{AccessToken: "a", TokenType: "Bearer"}},
		{name: "mac", status: 200, ctype: "application/json", body: `{"access_token":"a","token_type":"mac"}`,
			wantErr: `the token endpoint issued a "mac" token; mcpx uses Bearer tokens, and DPoP ones when it proved a key`},
		{name: "DPoP", status: 200, ctype: "application/json", body: `{"access_token":"a","token_type":"DPoP"}`,
			wantErr: `the token endpoint issued a "DPoP" token; mcpx uses Bearer tokens, and DPoP ones when it proved a key`},
		{name: "HTML", status: 200, ctype: "text/html; charset=utf-8", body: `<html>{"access_token":"a"}`,
			wantErr: "the token endpoint answered text/html, not JSON"},
		{name: "form-encoded", status: 200, ctype: "application/x-www-form-urlencoded", body: `access_token=a`,
			wantErr: "the token endpoint answered application/x-www-form-urlencoded, not JSON"},
		{name: "no access_token", status: 200, ctype: "application/json", body: `{"token_type":"Bearer"}`,
			wantErr: "the token endpoint's answer has no access_token"},
		{name: "broken JSON", status: 200, ctype: "application/json", body: `{"access_token":`,
			wantErr: "the token endpoint's answer has no access_token"},
		{name: "too large", status: 200, ctype: "application/json", body: `{"access_token":"` + strings.Repeat("a", maxOAuthBody) + `"}`,
			wantErr: "TOKENURL answered more than 1048576 bytes"},
		{name: "invalid_grant", status: 400, ctype: "application/json", body: `{"error":"invalid_grant","error_description":"code used"}`,
			wantGrant: &grantError{Code: "invalid_grant", Msg: "invalid_grant: code used (HTTP 400)"}},
		{name: "invalid_client, masked", status: 401, ctype: "application/json", body: `{"error":"invalid_client","error_description":"bad secret s3cr3t"}`,
			wantGrant: &grantError{Code: "invalid_client", Msg: "invalid_client: bad secret *** (HTTP 401)"}},
		{name: "error without description", status: 400, ctype: "application/json", body: `{"error":"invalid_request"}`,
			wantGrant: &grantError{Code: "invalid_request", Msg: "invalid_request (HTTP 400)"}},
		{name: "multi-line description", status: 400, ctype: "application/json", body: `{"error":"invalid_grant","error_description":"one\nmcpx: forged"}`,
			wantGrant: &grantError{Code: "invalid_grant", Msg: `invalid_grant: one\nmcpx: forged (HTTP 400)`}},
		{name: "an error answered with HTTP 200", status: 200, ctype: "application/json", body: `{"error":"invalid_grant","error_description":"expired"}`,
			wantGrant: &grantError{Code: "invalid_grant", Msg: "invalid_grant: expired (HTTP 200)"}},
		{name: "not an OAuth error", status: 502, ctype: "text/html", body: `<html>bad gateway</html>`,
			wantGrant: &grantError{Code: "", Msg: "HTTP 502"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, seen := oaTokenEndpoint(t, c.status, c.ctype, c.body)
			before := time.Now().UTC().Truncate(time.Second)
			tok, err := newOAuthHTTP("srv", sec).token(context.Background(), f.URL+"/token", url.Values{"grant_type": {"refresh_token"}}, clientAuth{ID: "i", Method: "none"})
			after := time.Now().UTC()
			<-seen
			switch {
			case c.wantGrant != nil:
				var ge *grantError
				if !errors.As(err, &ge) || *ge != *c.wantGrant || err.Error() != c.wantGrant.Msg {
					t.Fatalf("token = %v, %v; want %+v", tok, err, c.wantGrant)
				}
			case c.wantErr != "":
				if msg, want := oaAuthMsg(t, err), strings.ReplaceAll(c.wantErr, "TOKENURL", f.URL+"/token"); msg != want || tok != nil {
					t.Fatalf("token = %v, error %q; want %q", tok, msg, want)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				got := *tok
				obtained, expires := got.ObtainedAt, got.ExpiresAt
				got.ObtainedAt, got.ExpiresAt = time.Time{}, nil
				if !reflect.DeepEqual(got, c.want) {
					t.Errorf("token = %+v, want %+v", got, c.want)
				}
				if obtained.Location() != time.UTC || obtained.Nanosecond() != 0 || obtained.Before(before) || obtained.After(after) {
					t.Errorf("ObtainedAt = %v, not in [%v, %v] whole seconds UTC", obtained, before, after)
				}
				switch {
				case c.life == 0 && expires != nil:
					t.Errorf("ExpiresAt = %v, want none", expires)
				case c.life != 0 && (expires == nil || expires.Sub(obtained) != c.life || expires.Location() != time.UTC):
					t.Errorf("ExpiresAt = %v, want ObtainedAt (%v) + %v", expires, obtained, c.life)
				}
			}
		})
	}
}

func TestOAuthHTTPFailures(t *testing.T) {
	h := newOAuthHTTP("srv", nil)
	ctx := context.Background()
	// Unreachable.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	_, err := h.token(ctx, dead.URL+"/token", url.Values{}, clientAuth{ID: "i"})
	var ce *fail.ConnectError
	if !errors.As(err, &ce) || ce.Server != "srv" || ce.Phase != "login" || !strings.HasPrefix(ce.Msg, "cannot reach "+dead.URL+"/token: ") {
		t.Errorf("unreachable: %v", err)
	}
	// A bad endpoint.
	_, err = h.token(ctx, "http://[::1/token", url.Values{}, clientAuth{ID: "i"})
	if msg := oaAuthMsg(t, err); !strings.HasPrefix(msg, `bad endpoint "http://[::1/token": `) {
		t.Errorf("bad endpoint: %q", msg)
	}
	// Redirects: followed within the origin, refused to another.
	other := newOAFake(t)
	other.json("/token", 200, `{"access_token":"other"}`)
	f := newOAFake(t)
	f.handle("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/token", http.StatusTemporaryRedirect)
	})
	f.json("/token", 200, `{"access_token":"same"}`)
	f.handle("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/token", http.StatusTemporaryRedirect)
	})
	if tok, err := h.token(ctx, f.URL+"/moved", url.Values{}, clientAuth{ID: "i"}); err != nil || tok.AccessToken != "same" {
		t.Errorf("same-origin redirect: %v, %v", tok, err)
	}
	_, err = h.token(ctx, f.URL+"/away", url.Values{}, clientAuth{ID: "i"})
	if !errors.As(err, &ce) || !strings.Contains(ce.Msg, "refusing to follow a redirect from http://"+strings.TrimPrefix(f.URL, "http://")+" to another origin") {
		t.Errorf("cross-origin redirect: %v", err)
	}
	if got := other.requests(); len(got) != 0 {
		t.Errorf("the other origin was asked: %q", got)
	}
	// A cancelled context is the context's error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := h.getJSON(cctx, f.URL+"/token", &struct{}{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// getJSON: a bad URL; the status without a document.
	if _, err := h.getJSON(ctx, "http://[::1/x", &struct{}{}); err == nil || !strings.HasPrefix(oaAuthMsg(t, err), `bad metadata URL "http://[::1/x": `) {
		t.Errorf("bad metadata URL: %v", err)
	}
	var v map[string]any
	if st, err := h.getJSON(ctx, f.URL+"/nothing", &v); st != 404 || err != nil || v != nil {
		t.Errorf("getJSON 404 = %d, %v, %v", st, err, v)
	}
}

func TestRevoke(t *testing.T) {
	for _, c := range []struct {
		status  int
		body    string
		wantErr string
	}{
		{200, ``, ""},
		{400, `{"error":"unsupported_token_type"}`, "unsupported_token_type (HTTP 400)"},
		{503, `busy`, "HTTP 503"},
	} {
		f, seen := oaTokenEndpoint(t, c.status, "application/json", c.body)
		err := newOAuthHTTP("srv", nil).revoke(context.Background(), f.URL+"/token", "tok", "refresh_token",
			clientAuth{ID: "id", Secret: "sec", Method: "client_secret_post"})
		if (err == nil) != (c.wantErr == "") || err != nil && err.Error() != c.wantErr {
			t.Errorf("revoke (HTTP %d) = %v, want %q", c.status, err, c.wantErr)
		}
		r := <-seen
		want := url.Values{"token": {"tok"}, "token_type_hint": {"refresh_token"}, "client_id": {"id"}, "client_secret": {"sec"}}
		if !reflect.DeepEqual(r.form, want) || r.auth != "" {
			t.Errorf("revocation request %+v", r)
		}
	}
}
