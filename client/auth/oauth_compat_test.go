package auth

// The 2025-03-26 back-compat of mcpx login (legacyAuthServer): a server
// that publishes no protected-resource metadata has its authorization
// server at its origin, with RFC 8414 metadata there or else the default
// endpoints /authorize, /token and /register. Every request is asserted, in
// order, as in oauth_test.go.

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
)

const (
	ocPRMPath = "/.well-known/oauth-protected-resource"
	ocASPath  = "/.well-known/oauth-authorization-server"
)

// ocServer is an MCP server of the 2025-03-26 spec on an oaFake: /mcp
// answers 401 with a bare Bearer challenge, and the authorization endpoints
// live under prefix on the same origin ("" for the default endpoints). It
// records what the flow sent.
type ocServer struct {
	*oaFake
	prefix string

	mu        sync.Mutex
	mdHeader  http.Header // the headers of the metadata request
	authQuery url.Values
	regBody   string
	forms     []url.Values // the token requests
}

func newOCServer(t *testing.T, prefix string) *ocServer {
	t.Helper()
	s := &ocServer{oaFake: newOAFake(t), prefix: prefix}
	s.handle("/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", "Bearer")
		w.WriteHeader(401)
	})
	s.handle(prefix+"/register", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.regBody = string(b)
		s.mu.Unlock()
		oaWriteJSON(w, 201, `{"client_id":"legacy-client"}`)
	})
	s.handle(prefix+"/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		s.mu.Lock()
		s.authQuery = q
		s.mu.Unlock()
		back := url.Values{"code": {"the-code"}, "state": {q.Get("state")}}
		http.Redirect(w, r, q.Get("redirect_uri")+"?"+back.Encode(), http.StatusFound)
	})
	s.handle(prefix+"/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		s.mu.Lock()
		s.forms = append(s.forms, r.PostForm)
		q := s.authQuery
		s.mu.Unlock()
		f := r.PostForm
		if f.Get("grant_type") == "refresh_token" {
			oaWriteJSON(w, 200, `{"access_token":"at-2","token_type":"Bearer","expires_in":3600}`)
			return
		}
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		if q == nil || base64.RawURLEncoding.EncodeToString(sum[:]) != q.Get("code_challenge") || f.Get("code") != "the-code" {
			oaWriteJSON(w, 400, `{"error":"invalid_grant"}`)
			return
		}
		oaWriteJSON(w, 200, `{"access_token":"at-1","token_type":"Bearer","refresh_token":"rt-1","expires_in":3600}`)
	})
	return s
}

// metadata serves RFC 8414 metadata at the origin for issuer origin+prefix.
func (s *ocServer) metadata(edit func(doc map[string]any)) {
	doc := oaASDoc(s.URL + s.prefix)
	delete(doc, "revocation_endpoint")
	if edit != nil {
		edit(doc)
	}
	s.handle(ocASPath, func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.mdHeader = r.Header.Clone()
		s.mu.Unlock()
		oaWriteJSON(w, 200, doc)
	})
}

// ocLogin runs Login against s's /mcp with a browser that follows the
// authorization URL; it returns the token, the notes and the error.
func ocLogin(t *testing.T, s *ocServer, tg *config.Target) (*StoredToken, []string, error) {
	t.Helper()
	var notes []string
	open, browsed, _ := caBrowser(t, nil)
	opened := false
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tok, err := Login(ctx, tg, LoginOptions{ProtocolVersion: "2025-11-25", ClientVersion: "1.2.3",
		Open: func(u string) { opened = true; open(u) },
		Note: func(f string, a ...any) { notes = append(notes, fmt.Sprintf(f, a...)) }})
	if opened {
		if b := <-browsed; err == nil && (b.err != nil || b.status != 200) {
			t.Errorf("browser: %+v", b)
		}
	}
	return tok, notes, err
}

func TestLegacyMetadataAtOrigin(t *testing.T) {
	// The authorization server's metadata at the MCP server's origin, with
	// an issuer on that origin that has a path (as in the conformance
	// suite's auth/2025-03-26-oauth-metadata-backcompat).
	s := newOCServer(t, "/oauth")
	s.metadata(nil)
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: s.URL + "/v1/mcp", TokenDir: t.TempDir()}
	s.handle("/v1/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
		w.WriteHeader(401)
	})
	tok, notes, err := ocLogin(t, s, tg)
	if err != nil {
		t.Fatalf("Login: %v", err)
	}
	want := []string{"POST /v1/mcp", "GET " + ocPRMPath + "/v1/mcp", "GET " + ocPRMPath, "GET " + ocASPath,
		"POST /oauth/register", "GET /oauth/authorize", "POST /oauth/token"}
	if got := s.requests(); !slices.Equal(got, want) {
		t.Errorf("requests:\n got %q\nwant %q", got, want)
	}
	wantNote := "the server publishes no protected-resource metadata (RFC 9728), so mcpx falls back to the 2025-03-26 authorization rules: " +
		"the authorization server's metadata at " + s.URL + ocASPath
	if !slices.Equal(notes, []string{wantNote}) {
		t.Errorf("notes:\n got %q\nwant %q", notes, []string{wantNote})
	}
	s.mu.Lock()
	q, mdHeader := s.authQuery, s.mdHeader
	s.mu.Unlock()
	if v := mdHeader.Get("MCP-Protocol-Version"); v != "2025-11-25" { // 2025-03-26 §2.3.1
		t.Errorf("metadata request MCP-Protocol-Version %q", v)
	}
	for k, v := range map[string]string{"response_type": "code", "client_id": "legacy-client", "code_challenge_method": "S256",
		"resource": s.URL + "/v1/mcp"} {
		if q.Get(k) != v {
			t.Errorf("authorization request %s = %q, want %q", k, q.Get(k), v)
		}
	}
	if q.Has("scope") {
		t.Errorf("scope %q sent, with none known", q.Get("scope"))
	}
	st := caLoadServer(t, tg, s.URL+"/v1/mcp")
	if st.Issuer != s.URL+"/oauth" || st.TokenEndpoint != s.URL+"/oauth/token" || st.RevocationEndpoint != "" ||
		st.Resource != s.URL+"/v1/mcp" || st.ClientID != "legacy-client" || !st.Registered || st.AccessToken != "at-1" || tok.AccessToken != "at-1" {
		t.Errorf("stored %+v", st)
	}
}

func TestLegacyDefaultEndpoints(t *testing.T) {
	// No metadata at all (auth/2025-03-26-oauth-endpoint-fallback): the
	// default endpoints on the origin, PKCE S256 all the same, and the
	// stored token names the default token endpoint, which refreshes it.
	s := newOCServer(t, "")
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: s.URL + "/mcp", TokenDir: t.TempDir()}
	_, notes, err := ocLogin(t, s, tg)
	if err != nil {
		t.Fatalf("Login: %v", err)
	}
	want := []string{"POST /mcp", "GET " + ocPRMPath + "/mcp", "GET " + ocPRMPath, "GET " + ocASPath,
		"POST /register", "GET /authorize", "POST /token"}
	if got := s.requests(); !slices.Equal(got, want) {
		t.Errorf("requests:\n got %q\nwant %q", got, want)
	}
	wantNote := "the server publishes no protected-resource metadata (RFC 9728), so mcpx falls back to the 2025-03-26 authorization rules: " +
		"no authorization-server metadata at " + s.URL + ocASPath + " either, so the default endpoints " + s.URL + "/authorize, /token and /register"
	if !slices.Equal(notes, []string{wantNote}) {
		t.Errorf("notes:\n got %q\nwant %q", notes, []string{wantNote})
	}
	s.mu.Lock()
	q, reg, forms := s.authQuery, s.regBody, s.forms
	s.mu.Unlock()
	if q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 || q.Get("resource") != s.URL+"/mcp" {
		t.Errorf("authorization request %v", q)
	}
	if !strings.Contains(reg, `"token_endpoint_auth_method":"none"`) {
		t.Errorf("registration %s", reg)
	}
	if len(forms) != 1 || forms[0].Get("resource") != s.URL+"/mcp" || forms[0].Get("client_id") != "legacy-client" {
		t.Errorf("token requests %v", forms)
	}
	st := caLoadServer(t, tg, s.URL+"/mcp")
	if st.Issuer != s.URL || st.TokenEndpoint != s.URL+"/token" || st.RevocationEndpoint != "" || st.AuthMethod != "none" || st.RefreshToken != "rt-1" {
		t.Errorf("stored %+v", st)
	}

	// The token expires: a connection refreshes it at the stored endpoint.
	past := time.Now().Add(-time.Minute).UTC().Truncate(time.Second)
	st.ExpiresAt = &past
	if err := (tokenStore{dir: tg.TokenDir}).save(st); err != nil {
		t.Fatal(err)
	}
	a := NewSource(context.Background(), tg, SourceOptions{})
	if a == nil || a.Bearer() != "at-2" {
		t.Fatalf("after the refresh: %+v", a)
	}
	s.mu.Lock()
	forms = s.forms
	s.mu.Unlock()
	wantForm := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"rt-1"}, "resource": {s.URL + "/mcp"}, "client_id": {"legacy-client"}}
	if len(forms) != 2 || !reflect.DeepEqual(forms[1], wantForm) {
		t.Errorf("refresh request %v, want %v", forms, wantForm)
	}
	if got := s.requests(); got[len(got)-1] != "POST /token" || len(got) != len(want)+1 {
		t.Errorf("requests after the refresh: %q", got)
	}
}

func TestLegacyDefaultEndpointsConfiguredClient(t *testing.T) {
	// A configured client: nothing is registered, the default token
	// endpoint gets client_secret_basic (RFC 8414's default method).
	s := newOCServer(t, "")
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: s.URL + "/mcp", TokenDir: t.TempDir(),
		OAuth: &config.OAuthConfig{ClientID: "cfg", ClientSecret: "sec"}}
	if _, _, err := ocLogin(t, s, tg); err != nil {
		t.Fatalf("Login: %v", err)
	}
	want := []string{"POST /mcp", "GET " + ocPRMPath + "/mcp", "GET " + ocPRMPath, "GET " + ocASPath, "GET /authorize", "POST /token"}
	if got := s.requests(); !slices.Equal(got, want) {
		t.Errorf("requests:\n got %q\nwant %q", got, want)
	}
	st := caLoadServer(t, tg, s.URL+"/mcp")
	if st.ClientID != "cfg" || st.AuthMethod != "client_secret_basic" || st.TokenEndpoint != s.URL+"/token" {
		t.Errorf("stored %+v", st)
	}
}

func TestLegacyRefused(t *testing.T) {
	// What the fallback does not do: it never follows a PRM that exists
	// (invalid or for another resource), a 401 that names metadata, a
	// well-known URL that does not answer 404, or a server that did not
	// ask; and it checks the metadata at the origin as any other.
	for _, c := range []struct {
		name    string
		prep    func(s *ocServer)
		reqs    []string // after POST /mcp
		wantMsg string   // %[1]s is the server's origin
	}{
		{
			name: "PRM that is not JSON",
			prep: func(s *ocServer) {
				s.metadata(nil)
				s.json(ocPRMPath+"/mcp", 200, `<html>`)
			},
			reqs:    []string{"GET " + ocPRMPath + "/mcp"},
			wantMsg: "the metadata at %[1]s" + ocPRMPath + "/mcp is not a valid JSON document: invalid character '<' looking for beginning of value",
		},
		{
			name: "PRM without an authorization server",
			prep: func(s *ocServer) {
				s.metadata(nil)
				s.json(ocPRMPath, 200, map[string]any{"resource": s.URL + "/mcp"})
			},
			reqs:    []string{"GET " + ocPRMPath + "/mcp", "GET " + ocPRMPath},
			wantMsg: "the protected-resource metadata at %[1]s" + ocPRMPath + " names no authorization server",
		},
		{
			name: "PRM for another resource",
			prep: func(s *ocServer) {
				s.metadata(nil)
				s.json(ocPRMPath+"/mcp", 200, map[string]any{"resource": "https://evil.example/mcp", "authorization_servers": []string{s.URL}})
			},
			reqs:    []string{"GET " + ocPRMPath + "/mcp"},
			wantMsg: "the protected-resource metadata at %[1]s" + ocPRMPath + "/mcp is for https://evil.example/mcp, not for this server (%[1]s/mcp); refusing to authorize",
		},
		{
			name: "the 401 names metadata that is not there",
			prep: func(s *ocServer) {
				s.metadata(nil)
				s.handle("/mcp", func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+s.URL+`/prm"`)
					w.WriteHeader(401)
				})
			},
			reqs:    []string{"GET /prm"},
			wantMsg: "the server publishes no protected-resource metadata (RFC 9728) at %[1]s/prm, so its authorization server is unknown",
		},
		{
			name: "a well-known URL answers 500",
			prep: func(s *ocServer) {
				s.metadata(nil)
				s.json(ocPRMPath, 500, `oops`)
			},
			reqs: []string{"GET " + ocPRMPath + "/mcp", "GET " + ocPRMPath},
			wantMsg: "the server publishes no protected-resource metadata (RFC 9728) at %[1]s" + ocPRMPath + "/mcp or %[1]s" + ocPRMPath +
				", so its authorization server is unknown (%[1]s" + ocPRMPath + " answered HTTP 500, not 404, so mcpx does not fall back to the 2025-03-26 rules)",
		},
		{
			name: "403, not 401",
			prep: func(s *ocServer) {
				s.metadata(nil)
				s.handle("/mcp", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(403) })
			},
			reqs: []string{"GET " + ocPRMPath + "/mcp", "GET " + ocPRMPath},
			wantMsg: "the server publishes no protected-resource metadata (RFC 9728) at %[1]s" + ocPRMPath + "/mcp or %[1]s" + ocPRMPath +
				", so its authorization server is unknown",
		},
		{
			name: "no authentication asked",
			prep: func(s *ocServer) {
				s.metadata(nil)
				s.handle("/mcp", func(w http.ResponseWriter, r *http.Request) { oaWriteJSON(w, 200, `{}`) })
			},
			// initialize, then tools/list: neither challenged
			reqs: []string{"POST /mcp", "GET " + ocPRMPath + "/mcp", "GET " + ocPRMPath},
			wantMsg: "the server did not ask for authentication (it answered HTTP 200) and publishes no protected-resource metadata (RFC 9728) at %[1]s" +
				ocPRMPath + "/mcp or %[1]s" + ocPRMPath + ", so its authorization server is unknown",
		},
		{
			name: "metadata for an issuer on another origin",
			prep: func(s *ocServer) {
				s.metadata(func(doc map[string]any) { doc["issuer"] = "https://as.example" })
			},
			reqs: []string{"GET " + ocPRMPath + "/mcp", "GET " + ocPRMPath, "GET " + ocASPath},
			wantMsg: "the server publishes no protected-resource metadata (RFC 9728) at %[1]s" + ocPRMPath + "/mcp or %[1]s" + ocPRMPath +
				`; by the 2025-03-26 rules, the metadata at %[1]s` + ocASPath + ` is for issuer "https://as.example", not one on the server's origin %[1]s; refusing to use it`,
		},
		{
			name: "metadata naming a plain-http endpoint",
			prep: func(s *ocServer) {
				s.metadata(func(doc map[string]any) { doc["token_endpoint"] = "http://as.example/token" })
			},
			reqs: []string{"GET " + ocPRMPath + "/mcp", "GET " + ocPRMPath, "GET " + ocASPath},
			wantMsg: "the server publishes no protected-resource metadata (RFC 9728) at %[1]s" + ocPRMPath + "/mcp or %[1]s" + ocPRMPath +
				"; by the 2025-03-26 rules, authorization server %[1]s: token_endpoint http://as.example/token is plain http on a host that is not loopback; OAuth needs https",
		},
		{
			name: "metadata without S256",
			prep: func(s *ocServer) {
				s.metadata(func(doc map[string]any) { delete(doc, "code_challenge_methods_supported") })
			},
			reqs: []string{"GET " + ocPRMPath + "/mcp", "GET " + ocPRMPath, "GET " + ocASPath},
			wantMsg: "the server publishes no protected-resource metadata (RFC 9728) at %[1]s" + ocPRMPath + "/mcp or %[1]s" + ocPRMPath +
				"; by the 2025-03-26 rules, authorization server %[1]s: its metadata does not list S256 in code_challenge_methods_supported, so PKCE cannot be relied on; refusing to authorize",
		},
		{
			name: "metadata that answers 500: no default endpoints",
			prep: func(s *ocServer) { s.json(ocASPath, 500, `oops`) },
			reqs: []string{"GET " + ocPRMPath + "/mcp", "GET " + ocPRMPath, "GET " + ocASPath},
			wantMsg: "the server publishes no protected-resource metadata (RFC 9728) at %[1]s" + ocPRMPath + "/mcp or %[1]s" + ocPRMPath +
				"; by the 2025-03-26 rules, the authorization server's metadata at %[1]s" + ocASPath + " answered HTTP 500 (only a 404 means the default endpoints)",
		},
		{
			name: "default endpoints that are not there",
			prep: func(s *ocServer) { s.json("/register", 404, `{}`) },
			reqs: []string{"GET " + ocPRMPath + "/mcp", "GET " + ocPRMPath, "GET " + ocASPath, "POST /register"},
			wantMsg: "the server publishes no protected-resource metadata (RFC 9728) at %[1]s" + ocPRMPath + "/mcp or %[1]s" + ocPRMPath +
				" nor authorization-server metadata (RFC 8414) at %[1]s" + ocASPath + ", and the 2025-03-26 default endpoints do not work: " +
				"dynamic client registration at %[1]s/register failed: HTTP 404",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newOCServer(t, "")
			c.prep(s)
			tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: s.URL + "/mcp", TokenDir: t.TempDir()}
			tok, notes, err := ocLogin(t, s, tg)
			if tok != nil {
				t.Errorf("Login = %+v", tok)
			}
			if msg, want := oaAuthMsg(t, err), strings.ReplaceAll(c.wantMsg, "%[1]s", s.URL); msg != want {
				t.Errorf("error:\n got %q\nwant %q", msg, want)
			}
			if errors.Is(err, errNoPRM) {
				t.Error("Login returned discover's internal refusal")
			}
			if got, want := s.requests(), append([]string{"POST /mcp"}, c.reqs...); !slices.Equal(got, want) {
				t.Errorf("requests:\n got %q\nwant %q", got, want)
			}
			if c.name != "default endpoints that are not there" && len(notes) != 0 {
				t.Errorf("notes %q", notes)
			}
			caNoTokenFile(t, tg.TokenDir)
		})
	}
}

func TestLegacyPlainHTTPOrigin(t *testing.T) {
	// Login refuses a plain-http server on a host that is not loopback
	// before anything is sent; legacyAuthServer refuses such an origin on
	// its own too.
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: "http://mcp.example/v1/mcp", TokenDir: t.TempDir()}
	_, err := Login(context.Background(), tg, LoginOptions{})
	if msg, want := oaAuthMsg(t, err), "the server URL http://mcp.example/v1/mcp is plain http on a host that is not loopback; OAuth needs https (a token must not travel in clear)"; msg != want {
		t.Errorf("Login:\n got %q\nwant %q", msg, want)
	}
	np := &fail.AuthError{Server: "srv", Msg: "the server publishes no protected-resource metadata (RFC 9728) at X, so its authorization server is unknown", Cause: errNoPRM}
	as, err := newOAuthHTTP("srv", nil).legacyAuthServer(context.Background(), "http://mcp.example/v1/mcp", "2025-11-25", np)
	want := "the server publishes no protected-resource metadata (RFC 9728) at X; by the 2025-03-26 rules, " +
		"the authorization base URL http://mcp.example is plain http on a host that is not loopback; OAuth needs https"
	if msg := oaAuthMsg(t, err); as != nil || msg != want {
		t.Errorf("legacyAuthServer = %+v:\n got %q\nwant %q", as, msg, want)
	}
}

func TestLegacyOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.example.com/v1/mcp":   "https://api.example.com",
		"https://api.example.com:8443/a?b": "https://api.example.com:8443",
		"http://127.0.0.1:9/mcp":           "http://127.0.0.1:9",
		"https://api.example.com":          "https://api.example.com",
	} {
		if got, err := legacyOrigin(in); err != nil || got != want {
			t.Errorf("legacyOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, c := range []struct {
		raw, origin string
		want        bool
	}{
		{"https://api.example.com", "https://api.example.com", true},
		{"https://api.example.com/", "https://api.example.com", true},
		{"https://API.example.com:443/oauth", "https://api.example.com", true},
		{"https://api.example.com/oauth?x=1", "https://api.example.com", false},
		{"https://api.example.com/oauth#f", "https://api.example.com", false},
		{"https://u@api.example.com/oauth", "https://api.example.com", false},
		{"https://api.example.com:8443", "https://api.example.com", false},
		{"http://api.example.com", "https://api.example.com", false},
		{"https://api.example.com.evil", "https://api.example.com", false},
		{"", "https://api.example.com", false},
		{"/oauth", "https://api.example.com", false},
	} {
		if got := onOrigin(c.raw, c.origin); got != c.want {
			t.Errorf("onOrigin(%q, %q) = %v, want %v", c.raw, c.origin, got, c.want)
		}
	}
}
