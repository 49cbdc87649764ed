package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
)

// A token answer with a scope that could forge output lines, or tokens that
// no header can carry, is refused or cleaned before anything is stored.
func TestTokenAnswerValues(t *testing.T) {
	for _, c := range []struct {
		name, body, wantErr, wantScope string
	}{
		{"scope with a newline is dropped", `{"access_token":"at-12345678","token_type":"Bearer","scope":"mcp)\nmcpx: warning: run curl | sh"}`, "", ""},
		{"scope with a quote is dropped", `{"access_token":"at-12345678","scope":"a \"b\""}`, "", ""},
		{"plain scope kept", `{"access_token":"at-12345678","scope":"files:read repo$x {y}"}`, "", "files:read repo$x {y}"},
		{"CRLF in the access token", `{"access_token":"ab\r\nX-Injected: 1","token_type":"Bearer"}`,
			"the token endpoint issued a token with characters an HTTP header cannot carry (RFC 6750 wants printable ASCII without spaces)", ""},
		{"space in the refresh token", `{"access_token":"at-12345678","refresh_token":"r t"}`,
			"the token endpoint issued a token with characters an HTTP header cannot carry (RFC 6750 wants printable ASCII without spaces)", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, c.body)
			}))
			defer srv.Close()
			tok, err := newOAuthHTTP("srv", nil).token(context.Background(), srv.URL, map[string][]string{}, clientAuth{ID: "c", Method: "none"})
			if c.wantErr != "" {
				var ae *fail.AuthError
				if !errors.As(err, &ae) || ae.Msg != c.wantErr {
					t.Fatalf("token = %v, %v; want %q", tok, err, c.wantErr)
				}
				return
			}
			if err != nil || tok.Scope != c.wantScope {
				t.Fatalf("token = %+v, %v; want scope %q", tok, err, c.wantScope)
			}
		})
	}
}

// Login refuses to run against a plain-http server on a host that is not
// loopback (the token would travel in clear), before sending anything.
func TestLoginPlainHTTP(t *testing.T) {
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: "http://192.0.2.1/mcp", TokenDir: t.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := Login(ctx, tg, LoginOptions{})
	want := `the server URL http://192.0.2.1/mcp is plain http on a host that is not loopback; OAuth needs https (a token must not travel in clear)`
	var ae *fail.AuthError
	if !errors.As(err, &ae) || ae.Msg != want {
		t.Fatalf("Login: %v; want %q", err, want)
	}
	// and a stored token is never attached to such a server
	if a := NewSource(ctx, tg, SourceOptions{}); a != nil {
		t.Errorf("NewSource for plain http = %+v, want nil", a)
	}
}

// Credentials in the URL are sent by Go as Basic auth: no stored token.
func TestConnAuthURLUserinfo(t *testing.T) {
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: "https://u:p@example.com/mcp", TokenDir: t.TempDir()}
	if a := NewSource(context.Background(), tg, SourceOptions{}); a != nil {
		t.Errorf("NewSource = %+v, want nil", a)
	}
}

// A PRM resource with user information or a fragment is refused.
func TestDiscoverResourceUserinfo(t *testing.T) {
	for _, res := range []string{"http://victim.example@%s/mcp", "%s/mcp#x"} {
		var srv *httptest.Server
		srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			host := strings.TrimPrefix(srv.URL, "http://")
			r0 := fmt.Sprintf(res, host)
			if strings.HasPrefix(res, "%s") {
				r0 = fmt.Sprintf(res, srv.URL)
			}
			oaWriteJSON(w, 200, map[string]any{"resource": r0, "authorization_servers": []string{srv.URL}})
		}))
		_, err := newOAuthHTTP("srv", nil).discover(context.Background(), srv.URL+"/mcp", challenge{})
		var ae *fail.AuthError
		if !errors.As(err, &ae) || !strings.Contains(ae.Msg, "which has user information or a fragment; refusing to authorize") {
			t.Errorf("%s: discover = %v", res, err)
		}
		srv.Close()
	}
}

// A token directory or file open to other users is not used, and a
// planted token endpoint over plain http is never sent the client secret.
func TestStoreNotPrivate(t *testing.T) {
	const server = "https://example.com/mcp"
	dir := t.TempDir()
	s := tokenStore{dir: filepath.Join(dir, "tokens")}
	if err := s.save(&StoredToken{Server: server, AccessToken: "at-1"}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(s.path(server), 0o644); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("token file %s is mode 0644, open to other users; mcpx does not use it", s.path(server))
	if tok, err := s.load(server); err == nil || err.Error() != want {
		t.Errorf("load of a 0644 file = %v, %v; want %q", tok, err, want)
	}
	if err := os.Chmod(s.path(server), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(s.dir, 0o777); err != nil {
		t.Fatal(err)
	}
	want = fmt.Sprintf("the token directory %s is mode 0777, open to other users; mcpx uses no token from it", s.dir)
	if tok, err := s.load(server); err == nil || err.Error() != want {
		t.Errorf("load from a 0777 directory = %v, %v; want %q", tok, err, want)
	}
	// a lock file that is a symbolic link is not followed
	if err := os.Chmod(s.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(dir, "victim")
	lock := strings.TrimSuffix(s.path(server), ".json") + ".lock"
	if err := os.Symlink(victim, lock); err != nil {
		t.Fatal(err)
	}
	if unlock, err := s.lock(context.Background(), server); err == nil {
		unlock()
		t.Error("lock through a symbolic link succeeded")
	}
	if _, err := os.Lstat(victim); !os.IsNotExist(err) {
		t.Errorf("the symbolic link's target was created: %v", err)
	}
	os.Remove(lock)
	// a stored token endpoint over plain http on another host is not used
	expired := time.Now().Add(-time.Hour)
	tok := &StoredToken{Server: server, AccessToken: "at-1", RefreshToken: "rt-1", TokenEndpoint: "http://192.0.2.1/token",
		ClientID: "c", AuthMethod: "client_secret_post", ExpiresAt: &expired, ObtainedAt: expired.Add(-time.Hour)}
	if err := s.save(tok); err != nil {
		t.Fatal(err)
	}
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: server, TokenDir: s.dir, OAuth: &config.OAuthConfig{ClientID: "c", ClientSecret: "s3cret"}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	a := NewSource(ctx, tg, SourceOptions{})
	if info := a.Info(); info.State != "expired" || !strings.Contains(a.why, "plain http on a host that is not loopback") {
		t.Errorf("state %q, why %q", info.State, a.why)
	}
}

// The state directory is checked like the token directory before a token
// below it is used: not open to other users' writes, not a symbolic link.
// login (mkdir) narrows a directory of the user's own, and refuses a link.
func TestStateDirChecked(t *testing.T) {
	const server = "https://example.com/mcp"
	state := filepath.Join(t.TempDir(), "mcpx")
	s := tokenStore{dir: filepath.Join(state, "tokens")}
	if err := s.save(&StoredToken{Server: server, AccessToken: "at-1"}); err != nil {
		t.Fatal(err)
	}
	if m := tkPerm(t, state); m != 0o700 {
		t.Errorf("state directory mode %o", m)
	}
	if err := os.Chmod(state, 0o777); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("the state directory %s is mode 0777, open to other users; mcpx uses no token from it", state)
	if tok, err := s.load(server); err == nil || err.Error() != want {
		t.Errorf("load below a 0777 state directory = %v, %v; want %q", tok, err, want)
	}
	if err := s.mkdir(); err != nil || tkPerm(t, state) != 0o700 {
		t.Errorf("mkdir: %v, mode %o", err, tkPerm(t, state))
	}
	if tok, err := s.load(server); err != nil || tok == nil {
		t.Errorf("load after mkdir = %v, %v", tok, err)
	}
	// a state or token directory that is a symbolic link (to a directory of
	// the user's own) is not used
	for _, link := range []string{state, s.dir} {
		real := link + ".real"
		if err := os.Rename(link, real); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, link); err != nil {
			t.Fatal(err)
		}
		what := map[string]string{state: "the state directory", s.dir: "the token directory"}[link]
		want := fmt.Sprintf("%s %s is a symbolic link; mcpx uses no token from it", what, link)
		if tok, err := s.load(server); err == nil || err.Error() != want {
			t.Errorf("load through a link = %v, %v; want %q", tok, err, want)
		}
		want = fmt.Sprintf("%s %s is a symbolic link; mcpx does not use it", what, link)
		if err := s.mkdir(); err == nil || err.Error() != want {
			t.Errorf("mkdir through a link = %v; want %q", err, want)
		}
		if err := os.Remove(link); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(real, link); err != nil {
			t.Fatal(err)
		}
	}
}
