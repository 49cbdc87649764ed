package auth

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
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

// bgFake is a protected MCP server, its authorization server and an
// identity provider in one httptest server, for the jwt-bearer grants.
type bgFake struct {
	*oaFake
	mu        sync.Mutex
	forms     map[string][]url.Values // by path: /token, /idp/token
	auths     map[string][]string
	tokenFail string // the AS's token endpoint answers this error
	dpop      bool   // the metadata advertises DPoP; a proved token is a DPoP one
	proofs    []string
}

func newBGFake(t *testing.T) *bgFake {
	f := &bgFake{oaFake: newOAFake(t), forms: map[string][]url.Values{}, auths: map[string][]string{}}
	f.handle("/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+f.URL+`/.well-known/oauth-protected-resource/mcp"`)
		w.WriteHeader(401)
	})
	f.json("/.well-known/oauth-protected-resource/mcp", 200, map[string]any{"resource": f.URL + "/mcp", "authorization_servers": []string{f.URL + "/as"}})
	md := oaASDoc(f.URL + "/as")
	md["token_endpoint"] = f.URL + "/token"
	md["grant_types_supported"] = []string{grantJWTBearer}
	md["token_endpoint_auth_methods_supported"] = []string{"client_secret_basic"}
	f.handle("/.well-known/oauth-authorization-server/as", func(w http.ResponseWriter, r *http.Request) {
		doc := map[string]any{}
		for k, v := range md {
			doc[k] = v
		}
		if f.dpop {
			doc["dpop_signing_alg_values_supported"] = []string{"ES256"}
		}
		oaWriteJSON(w, 200, doc)
	})
	f.json("/idp/.well-known/openid-configuration", 200, map[string]any{"issuer": f.URL + "/idp", "token_endpoint": f.URL + "/idp/token"})
	record := func(r *http.Request) url.Values {
		_ = r.ParseForm()
		f.mu.Lock()
		defer f.mu.Unlock()
		f.forms[r.URL.Path] = append(f.forms[r.URL.Path], r.PostForm)
		f.auths[r.URL.Path] = append(f.auths[r.URL.Path], r.Header.Get("Authorization"))
		return r.PostForm
	}
	f.handle("/token", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		if f.tokenFail != "" {
			oaWriteJSON(w, 400, map[string]any{"error": f.tokenFail})
			return
		}
		if p := r.Header.Get("DPoP"); p != "" && f.dpop {
			f.mu.Lock()
			f.proofs = append(f.proofs, p)
			f.mu.Unlock()
			oaWriteJSON(w, 200, `{"access_token":"at-1","token_type":"DPoP","expires_in":3600}`)
			return
		}
		oaWriteJSON(w, 200, `{"access_token":"at-1","token_type":"Bearer","expires_in":3600}`)
	})
	f.handle("/idp/token", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		oaWriteJSON(w, 200, `{"access_token":"the-id-jag","issued_token_type":"urn:ietf:params:oauth:token-type:id-jag","token_type":"N_A"}`)
	})
	return f
}

func (f *bgFake) sent(path string) ([]url.Values, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.forms[path]), slices.Clone(f.auths[path])
}

// Workload identity: the identity token from a file (read at each grant)
// or a variable, forwarded as the assertion; the client named by its id.
func TestJWTBearerGrant(t *testing.T) {
	f := newBGFake(t)
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("eyJ.workload.jwt\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: f.URL + "/mcp", TokenDir: filepath.Join(t.TempDir(), "tokens"),
		OAuth: &config.OAuthConfig{Grant: config.GrantJWTBearer, ClientID: "workload", AssertionFile: file}}
	secrets := &secret.Set{}
	a := NewSource(context.Background(), tg, SourceOptions{Secrets: secrets})
	if a.Bearer() != "at-1" {
		t.Fatalf("bearer %q, info %+v", a.Bearer(), a.Info())
	}
	forms, auths := f.sent("/token")
	want := url.Values{"grant_type": {grantJWTBearer}, "assertion": {"eyJ.workload.jwt"}, "resource": {f.URL + "/mcp"}, "client_id": {"workload"}}
	if len(forms) != 1 || !reflect.DeepEqual(forms[0], want) || auths[0] != "" {
		t.Errorf("token requests %v (%q)\nwant %v", forms, auths, want)
	}
	if secrets.Mask("eyJ.workload.jwt") == "eyJ.workload.jwt" {
		t.Errorf("the assertion is not a secret")
	}
	st := caLoadServer(t, tg, f.URL+"/mcp")
	if st.Grant != config.GrantJWTBearer || st.Issuer != f.URL+"/as" || st.TokenEndpoint != f.URL+"/token" {
		t.Errorf("stored %+v", st)
	}

	// The variable's value (read when the config was), and no client id.
	tg.OAuth = &config.OAuthConfig{Grant: config.GrantJWTBearer, AssertionEnv: "WIF", Assertion: "eyJ.from.env"}
	tg.TokenDir = filepath.Join(t.TempDir(), "tokens")
	if a := NewSource(context.Background(), tg, SourceOptions{}); a.Bearer() != "at-1" {
		t.Fatalf("bearer %q", a.Bearer())
	}
	forms, _ = f.sent("/token")
	if got := forms[1]; got.Get("assertion") != "eyJ.from.env" || got.Has("client_id") {
		t.Errorf("second token request %v", got)
	}
}

// A refused grant is tried once: no second jwt-bearer request, no other
// grant; the 401 says why.
func TestJWTBearerRefused(t *testing.T) {
	f := newBGFake(t)
	f.tokenFail = "invalid_grant"
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: f.URL + "/mcp", TokenDir: filepath.Join(t.TempDir(), "tokens"),
		OAuth: &config.OAuthConfig{Grant: config.GrantJWTBearer, ClientID: "workload", AssertionEnv: "WIF", Assertion: "eyJ.x.y"}}
	a := NewSource(context.Background(), tg, SourceOptions{})
	ae := &fail.AuthError{Server: "srv", Status: 401}
	if a.Bearer() != "" || a.Retry(context.Background(), ae) {
		t.Fatalf("bearer %q", a.Bearer())
	}
	a.Explain(ae)
	if want := `server "srv" requires authentication (HTTP 401); the jwt-bearer grant failed: the token endpoint answered invalid_grant (HTTP 400)`; ae.Error() != want {
		t.Errorf("Error() = %q\nwant %q", ae.Error(), want)
	}
	if forms, _ := f.sent("/token"); len(forms) != 1 {
		t.Errorf("%d token requests, want 1", len(forms))
	}

	// An assertion file that is not there: no request at all.
	f2 := newBGFake(t)
	tg.URL = f2.URL + "/mcp"
	tg.OAuth = &config.OAuthConfig{Grant: config.GrantJWTBearer, AssertionFile: filepath.Join(t.TempDir(), "absent")}
	_, err := Login(context.Background(), tg, LoginOptions{})
	if msg := oaAuthMsg(t, err); !strings.HasPrefix(msg, `"oauth".assertionFile: cannot read the workload identity token: `) {
		t.Errorf("error %q", msg)
	}
	if forms, _ := f2.sent("/token"); len(forms) != 0 {
		t.Errorf("token requests %v", forms)
	}
}

// Enterprise-managed authorization: the ID token exchanged at the IdP for
// an ID-JAG for the authorization server and the resource, then the ID-JAG
// as the jwt-bearer assertion with the client's secret (Basic).
func TestIDJAGGrant(t *testing.T) {
	f := newBGFake(t)
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: f.URL + "/mcp", TokenDir: filepath.Join(t.TempDir(), "tokens"),
		OAuth: &config.OAuthConfig{Grant: config.GrantIDJAG, ClientID: "xaa-client", ClientSecret: "xaa secret",
			IdP: &config.IdPConfig{Issuer: f.URL + "/idp", ClientID: "idp-client", IDTokenEnv: "IDT", IDToken: "eyJ.id.token"}}}
	secrets := &secret.Set{}
	tok, err := Login(context.Background(), tg, LoginOptions{Secrets: secrets})
	if err != nil || tok.AccessToken != "at-1" || tok.Grant != config.GrantIDJAG {
		t.Fatalf("Login = %+v, %v", tok, err)
	}
	ex, exAuth := f.sent("/idp/token")
	wantEx := url.Values{"grant_type": {grantTokenExchange}, "subject_token": {"eyJ.id.token"}, "subject_token_type": {tokenTypeIDToken},
		"requested_token_type": {tokenTypeIDJAG}, "audience": {f.URL + "/as"}, "resource": {f.URL + "/mcp"}, "client_id": {"idp-client"}}
	if len(ex) != 1 || !reflect.DeepEqual(ex[0], wantEx) || exAuth[0] != "" {
		t.Errorf("token exchange %v (%q)\nwant %v", ex, exAuth, wantEx)
	}
	forms, auths := f.sent("/token")
	wantBasic := "Basic " + base64.StdEncoding.EncodeToString([]byte("xaa-client:xaa+secret"))
	if len(forms) != 1 || !reflect.DeepEqual(forms[0], url.Values{"grant_type": {grantJWTBearer}, "assertion": {"the-id-jag"}}) || auths[0] != wantBasic {
		t.Errorf("jwt-bearer request %v (%q)", forms, auths)
	}
	for _, s := range []string{"eyJ.id.token", "the-id-jag", "at-1"} {
		if secrets.Mask(s) == s {
			t.Errorf("%q is not a secret", s)
		}
	}
	// A renewal exchanges the ID token again (the ID-JAG is never stored).
	st := caLoadServer(t, tg, f.URL+"/mcp")
	if strings.Contains(st.AccessToken+st.RefreshToken, "the-id-jag") || st.Grant != config.GrantIDJAG {
		t.Errorf("stored %+v", st)
	}
}

// A machine grant at an authorization server that advertises DPoP: a key
// made and proved, the DPoP token stored with it; the next grant (the
// token expired) proves the same key.
func TestMachineGrantDPoP(t *testing.T) {
	f := newBGFake(t)
	f.dpop = true
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: f.URL + "/mcp", TokenDir: filepath.Join(t.TempDir(), "tokens"),
		OAuth: &config.OAuthConfig{Grant: config.GrantJWTBearer, ClientID: "workload", AssertionEnv: "WIF", Assertion: "eyJ.x.y"}}
	a := NewSource(context.Background(), tg, SourceOptions{})
	if a.Bearer() != "at-1" || a.DPoP() == nil {
		t.Fatalf("bearer %q, prover %v", a.Bearer(), a.DPoP())
	}
	st := caLoadServer(t, tg, f.URL+"/mcp")
	if st.TokenType != "DPoP" || st.DPoPKey == "" {
		t.Fatalf("stored %+v", st)
	}
	past := time.Now().Add(-time.Hour).UTC()
	st.ExpiresAt = &past
	if err := (tokenStore{dir: tg.TokenDir}).save(st); err != nil {
		t.Fatal(err)
	}
	if a := NewSource(context.Background(), tg, SourceOptions{}); a.DPoP() == nil {
		t.Fatal("no prover after the renewal")
	}
	f.mu.Lock()
	proofs := slices.Clone(f.proofs)
	f.mu.Unlock()
	if len(proofs) != 2 {
		t.Fatalf("%d proofs", len(proofs))
	}
	_, j1 := dpVerify(t, proofs[0])
	_, j2 := dpVerify(t, proofs[1])
	if j1["x"] != j2["x"] {
		t.Error("the renewal proved another key")
	}
	if back := caLoadServer(t, tg, f.URL+"/mcp"); back.DPoPKey != st.DPoPKey {
		t.Error("the renewal changed the stored key")
	}
}
