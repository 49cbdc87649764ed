package auth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/secret"
)

// ---- connections: stored tokens, refresh, retry ----

const caServer = "https://rs.example/mcp"

func caTarget(t *testing.T) *config.Target {
	t.Helper()
	return &config.Target{Name: "srv", Transport: config.HTTP, URL: caServer, TokenDir: filepath.Join(t.TempDir(), "state", "tokens")}
}

// caTokenServer is a token endpoint that counts its requests.
type caTokenServer struct {
	*httptest.Server
	mu     sync.Mutex
	forms  []url.Values
	auths  []string
	answer func(form url.Values) (int, string)
}

func newCATokenServer(t *testing.T, answer func(form url.Values) (int, string)) *caTokenServer {
	t.Helper()
	s := &caTokenServer{answer: answer}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/token" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		_ = r.ParseForm()
		s.mu.Lock()
		s.forms = append(s.forms, r.PostForm)
		s.auths = append(s.auths, r.Header.Get("Authorization"))
		s.mu.Unlock()
		status, body := s.answer(r.PostForm)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *caTokenServer) hits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.forms)
}

func (s *caTokenServer) form(i int) url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.forms[i]
}

func caAnswer(status int, body string) func(url.Values) (int, string) {
	return func(url.Values) (int, string) { return status, body }
}

// caStored is a stored token obtained two hours ago, expiring in d (a
// negative d: expired).
func caStored(endpoint, access, refresh string, d time.Duration) *StoredToken {
	now := time.Now().UTC().Truncate(time.Second)
	exp := now.Add(d)
	return &StoredToken{Server: caServer, Resource: caServer, Issuer: "https://as.example", TokenEndpoint: endpoint,
		RevocationEndpoint: "https://as.example/revoke", ClientID: "cid", Registered: true, AuthMethod: "none",
		AccessToken: access, TokenType: "Bearer", RefreshToken: refresh, Scope: "read write", ExpiresAt: &exp, ObtainedAt: now.Add(-2 * time.Hour)}
}

func caSave(t *testing.T, tg *config.Target, tok *StoredToken) {
	t.Helper()
	if err := (tokenStore{dir: tg.TokenDir}).save(tok); err != nil {
		t.Fatal(err)
	}
}

func caLoad(t *testing.T, tg *config.Target) *StoredToken {
	t.Helper()
	tok, err := tokenStore{dir: tg.TokenDir}.load(caServer)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestConnAuthRefreshesExpired(t *testing.T) {
	for _, c := range []struct {
		name                 string
		answer               string
		wantRefresh, wantScp string
	}{
		{"answer without refresh token or scope", `{"access_token":"new-token","token_type":"Bearer","expires_in":3600}`, "refresh-1", "read write"},
		{"answer with both", `{"access_token":"new-token","token_type":"bearer","expires_in":3600,"refresh_token":"refresh-2","scope":"read"}`, "refresh-2", "read"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newCATokenServer(t, caAnswer(200, c.answer))
			tg := caTarget(t)
			old := caStored(ts.URL+"/token", "old-token", "refresh-1", -time.Minute)
			caSave(t, tg, old)
			sec := &secret.Set{}
			a := NewSource(context.Background(), tg, SourceOptions{Secrets: sec})
			if a == nil {
				t.Fatal("NewSource = nil")
			}
			if got := a.Bearer(); got != "new-token" {
				t.Errorf("bearer = %q, want new-token", got)
			}
			if ts.hits() != 1 {
				t.Fatalf("token endpoint hits = %d, want 1", ts.hits())
			}
			want := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"refresh-1"}, "resource": {caServer}, "client_id": {"cid"}}
			if got := ts.form(0); !reflect.DeepEqual(got, want) {
				t.Errorf("refresh request %v, want %v", got, want)
			}
			for _, s := range []string{"old-token", "refresh-1", "new-token"} {
				if sec.Mask(s) != secret.Masked {
					t.Errorf("secret %q not registered", s)
				}
			}
			st := caLoad(t, tg)
			if st == nil || st.ExpiresAt == nil || st.ExpiresAt.Sub(st.ObtainedAt) != time.Hour || time.Since(st.ObtainedAt) > time.Minute {
				t.Fatalf("stored %+v", st)
			}
			info := a.Info()
			if info.State != "token" || info.ExpiresAt == nil || !info.ExpiresAt.Equal(*st.ExpiresAt) {
				t.Errorf("info = %+v", info)
			}
			wantTok := *old
			wantTok.AccessToken, wantTok.RefreshToken, wantTok.Scope = "new-token", c.wantRefresh, c.wantScp
			wantTok.ExpiresAt, wantTok.ObtainedAt = st.ExpiresAt, st.ObtainedAt
			if !reflect.DeepEqual(*st, wantTok) {
				t.Errorf("stored\n %+v\nwant\n %+v", *st, wantTok)
			}
			// One refresh per connection: a 401 now is final.
			if a.Retry(context.Background(), &fail.AuthError{Server: "srv", Status: 401}) {
				t.Error("retry after a refresh = true")
			}
			if ts.hits() != 1 {
				t.Errorf("token endpoint hits = %d, want 1", ts.hits())
			}
		})
	}
}

func TestConnAuthConfiguredClient(t *testing.T) {
	// A configured client's secret comes from the config, not the file.
	ts := newCATokenServer(t, caAnswer(200, `{"access_token":"new"}`))
	tg := caTarget(t)
	tg.OAuth = &config.OAuthConfig{ClientID: "cid", ClientSecret: "from config"}
	old := caStored(ts.URL+"/token", "old", "r1", -time.Minute)
	old.Registered, old.ClientSecret, old.AuthMethod = false, "stale in file", "client_secret_basic"
	caSave(t, tg, old)
	a := NewSource(context.Background(), tg, SourceOptions{})
	if a.Bearer() != "new" || ts.hits() != 1 {
		t.Fatalf("bearer %q, hits %d", a.Bearer(), ts.hits())
	}
	if got, want := ts.auths[0], "Basic "+base64.StdEncoding.EncodeToString([]byte("cid:from+config")); got != want {
		t.Errorf("Authorization %q, want %q", got, want)
	}
	if f := ts.form(0); f.Has("client_id") || f.Has("client_secret") {
		t.Errorf("form %v", f)
	}
	if st := caLoad(t, tg); st.ClientSecret != "stale in file" || st.Registered || st.AuthMethod != "client_secret_basic" || st.ExpiresAt != nil {
		t.Errorf("stored %+v", st)
	}
}

func TestClientFor(t *testing.T) {
	for _, c := range []struct {
		tok  StoredToken
		oc   *config.OAuthConfig
		want clientAuth
	}{
		{StoredToken{ClientID: "c", ClientSecret: "s", Registered: true, AuthMethod: "client_secret_post"}, &config.OAuthConfig{ClientID: "c", ClientSecret: "cfg"},
			clientAuth{ID: "c", Secret: "s", Method: "client_secret_post"}},
		{StoredToken{ClientID: "c", AuthMethod: "client_secret_basic"}, &config.OAuthConfig{ClientID: "c", ClientSecret: "cfg"},
			clientAuth{ID: "c", Secret: "cfg", Method: "client_secret_basic"}},
		{StoredToken{ClientID: "c", AuthMethod: "client_secret_basic"}, &config.OAuthConfig{ClientID: "other", ClientSecret: "cfg"},
			clientAuth{ID: "c", Secret: "", Method: "client_secret_basic"}},
		{StoredToken{ClientID: "c", AuthMethod: "none"}, nil, clientAuth{ID: "c", Secret: "", Method: "none"}},
	} {
		if got := clientFor(&c.tok, &config.Target{OAuth: c.oc}); got.ID != c.want.ID || got.Secret != c.want.Secret || got.Method != c.want.Method {
			t.Errorf("clientFor(%+v, %+v) = %+v, want %+v", c.tok, c.oc, got, c.want)
		}
	}
}

func TestConnAuthNoRefresh(t *testing.T) {
	ts := newCATokenServer(t, caAnswer(200, `{"access_token":"new"}`))
	tg := caTarget(t)
	tg.NoRefresh = true
	old := caStored(ts.URL+"/token", "old", "r1", -time.Minute)
	caSave(t, tg, old)
	a := NewSource(context.Background(), tg, SourceOptions{})
	if got := a.Info(); got.State != "expired" || got.ExpiresAt == nil || !got.ExpiresAt.Equal(*old.ExpiresAt) {
		t.Errorf("info = %+v", got)
	}
	if a.Bearer() != "" {
		t.Errorf("bearer = %q", a.Bearer())
	}
	ae := &fail.AuthError{Server: "srv", Status: 401}
	if a.Retry(context.Background(), ae) {
		t.Error("retry = true")
	}
	a.Explain(ae)
	if ae.Token != "expired" || ae.Why != "" || !ae.ExpiredAt.Equal(*old.ExpiresAt) {
		t.Errorf("explained %+v", ae)
	}
	if ts.hits() != 0 {
		t.Errorf("token endpoint hits = %d, want 0", ts.hits())
	}
	if st := caLoad(t, tg); st.AccessToken != "old" {
		t.Errorf("stored %+v", st)
	}

	// A valid token is used as it is.
	caSave(t, tg, caStored(ts.URL+"/token", "valid", "r1", time.Hour))
	a = NewSource(context.Background(), tg, SourceOptions{})
	if a.Bearer() != "valid" || a.Info().State != "token" || ts.hits() != 0 {
		t.Errorf("bearer %q, info %+v, hits %d", a.Bearer(), a.Info(), ts.hits())
	}
}

func TestConnAuthRefreshFails(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	for _, c := range []struct {
		name     string
		status   int
		body     string
		endpoint string // "" the test server
		refresh  string
		wantWhy  string // a prefix when it ends in "..."
		wantHits int
	}{
		{"invalid_grant", 400, `{"error":"invalid_grant","error_description":"revoked"}`, "", "r1", "invalid_grant: revoked (HTTP 400)", 1},
		{"a mac token", 200, `{"access_token":"x","token_type":"mac"}`, "", "r1", `the token endpoint issued a "mac" token; mcpx uses Bearer tokens, and DPoP ones when it proved a key`, 1},
		{"no refresh token", 200, `{"access_token":"x"}`, "", "", "", 0},
		{"unreachable", 200, ``, dead.URL + "/token", "r1", `cannot reach ` + dead.URL + "/token: ...", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newCATokenServer(t, caAnswer(c.status, c.body))
			endpoint := c.endpoint
			if endpoint == "" {
				endpoint = ts.URL + "/token"
			}
			tg := caTarget(t)
			old := caStored(endpoint, "old", c.refresh, -time.Minute)
			caSave(t, tg, old)
			a := NewSource(context.Background(), tg, SourceOptions{})
			if got := a.Info(); got.State != "expired" || !got.ExpiresAt.Equal(*old.ExpiresAt) {
				t.Errorf("info = %+v", got)
			}
			if a.Bearer() != "" {
				t.Errorf("bearer = %q", a.Bearer())
			}
			if ts.hits() != c.wantHits {
				t.Errorf("token endpoint hits = %d, want %d", ts.hits(), c.wantHits)
			}
			ae := &fail.AuthError{Server: "srv", Status: 401}
			a.Explain(ae)
			if p, ok := strings.CutSuffix(c.wantWhy, "..."); ok && !strings.HasPrefix(ae.Why, p) || !ok && ae.Why != c.wantWhy {
				t.Errorf("Why = %q, want %q", ae.Why, c.wantWhy)
			}
			if ae.Token != "expired" || !ae.ExpiredAt.Equal(*old.ExpiresAt) {
				t.Errorf("explained %+v", ae)
			}
			if c.name == "invalid_grant" {
				want := fmt.Sprintf(`server "srv" requires authentication (HTTP 401); the stored token expired at %s and refreshing it failed: invalid_grant: revoked (HTTP 400)`,
					old.ExpiresAt.Format(time.RFC3339))
				if ae.Error() != want {
					t.Errorf("Error() = %q\nwant %q", ae.Error(), want)
				}
			}
			if st := caLoad(t, tg); st.AccessToken != "old" || st.RefreshToken != c.refresh {
				t.Errorf("stored %+v", st)
			}
		})
	}
}

func TestConnAuthRefreshStoreTrouble(t *testing.T) {
	ts := newCATokenServer(t, caAnswer(200, `{"access_token":"new"}`))
	// The lock held elsewhere past the connection's deadline.
	tg := caTarget(t)
	old := caStored(ts.URL+"/token", "old", "r1", -time.Minute)
	caSave(t, tg, old)
	unlock, err := tokenStore{dir: tg.TokenDir}.lock(context.Background(), caServer)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	a := NewSource(ctx, tg, SourceOptions{})
	cancel()
	unlock()
	ae := &fail.AuthError{Server: "srv", Status: 401}
	a.Explain(ae)
	if a.Info().State != "expired" || ae.Why != "context deadline exceeded" || ts.hits() != 0 {
		t.Errorf("lock held: info %+v, why %q, hits %d", a.Info(), ae.Why, ts.hits())
	}
	// The file damaged between the connection's start and its retry.
	caSave(t, tg, caStored(ts.URL+"/token", "a1", "r1", time.Hour))
	a = NewSource(context.Background(), tg, SourceOptions{})
	p := tokenStore{dir: tg.TokenDir}.path(caServer)
	if err := os.WriteFile(p, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	ae = &fail.AuthError{Server: "srv", Status: 401}
	if a.Retry(context.Background(), ae) {
		t.Error("retry = true")
	}
	a.Explain(ae)
	if want := fmt.Sprintf("token file %s is damaged", p); a.Info().State != "token" || ae.Token != "rejected" || ae.Why != want || ts.hits() != 0 {
		t.Errorf("damaged: info %+v, explained %+v, hits %d", a.Info(), ae, ts.hits())
	}
}

func TestConnAuthNotApplicable(t *testing.T) {
	base := caTarget(t)
	caSave(t, base, caStored("https://as.example/token", "tok", "r", time.Hour))
	for _, c := range []struct {
		name string
		mod  func(*config.Target)
	}{
		{"Authorization header", func(t *config.Target) { t.Headers = map[string]string{"Authorization": "Bearer static"} }},
		{"authorization header, any case", func(t *config.Target) { t.Headers = map[string]string{"X-Api": "k", "aUtHoRiZaTiOn": ""} }},
		{"stdio", func(t *config.Target) { t.Transport = config.Stdio }},
		{"no token directory", func(t *config.Target) { t.TokenDir = "" }},
		{"not a URL", func(t *config.Target) { t.URL = "rs.example/mcp" }},
	} {
		tg := *base
		c.mod(&tg)
		a := NewSource(context.Background(), &tg, SourceOptions{})
		if a != nil {
			t.Errorf("%s: NewSource = %+v, want nil", c.name, a)
		}
		if got := a.Info(); got.State != "none" || got.ExpiresAt != nil {
			t.Errorf("%s: nil info = %+v", c.name, got)
		}
	}
	tg := *base
	tg.Headers = map[string]string{"X-Api": "k"}
	tg.Transport = config.SSE
	if a := NewSource(context.Background(), &tg, SourceOptions{}); a == nil || a.Bearer() != "tok" {
		t.Errorf("other headers, SSE: %+v", a)
	}
}

func TestConnAuthNothingUsable(t *testing.T) {
	// Nothing stored.
	tg := caTarget(t)
	a := NewSource(context.Background(), tg, SourceOptions{})
	if a == nil || a.Bearer() != "" || a.Info() != (Info{State: "none"}) {
		t.Fatalf("nothing stored: %+v", a)
	}
	ae := &fail.AuthError{Server: "srv", Status: 401}
	if a.Retry(context.Background(), ae) {
		t.Error("retry = true")
	}
	a.Explain(ae)
	if ae.Token != "" || ae.Why != "" {
		t.Errorf("explained %+v", ae)
	}
	// A damaged file: a note, and no token.
	p := tokenStore{dir: tg.TokenDir}.path(caServer)
	if err := os.MkdirAll(tg.TokenDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	var notes []string
	a = NewSource(context.Background(), tg, SourceOptions{Unusable: func(server string, err error) { notes = append(notes, fmt.Sprintf("%s: %v", server, err)) }})
	if a == nil || a.Bearer() != "" || a.Info() != (Info{State: "none"}) {
		t.Errorf("damaged: %+v", a)
	}
	if want := []string{fmt.Sprintf(`srv: token file %s is damaged`, p)}; !slices.Equal(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
}

// Another process stored a fresher token while this one waited for the
// lock: it is used, and the token endpoint is not asked.
func TestConnAuthUsesFresherToken(t *testing.T) {
	ts := newCATokenServer(t, caAnswer(200, `{"access_token":"refreshed","expires_in":3600}`))
	tg := caTarget(t)
	store := tokenStore{dir: tg.TokenDir}
	caSave(t, tg, caStored(ts.URL+"/token", "old-token", "refresh-1", -time.Minute))
	unlock, err := store.lock(context.Background(), caServer)
	if err != nil {
		t.Fatal(err)
	}
	sec := &secret.Set{}
	done := make(chan *Source, 1)
	go func() {
		done <- NewSource(context.Background(), tg, SourceOptions{Secrets: sec})
	}()
	for sec.Longest() == 0 { // it read the expired token (and registered its secrets) ...
		runtime.Gosched()
	}
	time.Sleep(60 * time.Millisecond) // ... and waits for the lock
	fresh := caStored(ts.URL+"/token", "fresh", "r9", time.Hour)
	caSave(t, tg, fresh)
	unlock()
	a := <-done
	if a.Bearer() != "fresh" || a.Info().State != "token" || ts.hits() != 0 {
		t.Errorf("bearer %q, info %+v, hits %d", a.Bearer(), a.Info(), ts.hits())
	}

	// The same on a retry: the token the server refused was replaced meanwhile.
	caSave(t, tg, caStored(ts.URL+"/token", "a1", "r1", time.Hour))
	a = NewSource(context.Background(), tg, SourceOptions{})
	caSave(t, tg, caStored(ts.URL+"/token", "a2", "r2", time.Hour))
	if !a.Retry(context.Background(), &fail.AuthError{Server: "srv", Status: 401}) || a.Bearer() != "a2" || ts.hits() != 0 {
		t.Errorf("retry: bearer %q, hits %d", a.Bearer(), ts.hits())
	}
}

func TestConnAuthRetryOnce(t *testing.T) {
	ts := newCATokenServer(t, caAnswer(200, `{"access_token":"a2","expires_in":3600}`))
	tg := caTarget(t)
	caSave(t, tg, caStored(ts.URL+"/token", "a1", "r1", time.Hour))
	a := NewSource(context.Background(), tg, SourceOptions{})
	if a.Bearer() != "a1" || ts.hits() != 0 {
		t.Fatalf("bearer %q, hits %d", a.Bearer(), ts.hits())
	}
	if a.Retry(context.Background(), &fail.AuthError{Server: "srv", Status: 403}) {
		t.Error("retry on a 403 = true")
	}
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if a.Retry(cctx, &fail.AuthError{Server: "srv", Status: 401}) {
		t.Error("retry with a cancelled context = true")
	}
	if ts.hits() != 0 {
		t.Fatalf("hits = %d", ts.hits())
	}
	if !a.Retry(context.Background(), &fail.AuthError{Server: "srv", Status: 401}) {
		t.Fatal("retry on a 401 = false")
	}
	if a.Bearer() != "a2" || ts.hits() != 1 || ts.form(0).Get("refresh_token") != "r1" {
		t.Errorf("bearer %q, hits %d", a.Bearer(), ts.hits())
	}
	if a.Retry(context.Background(), &fail.AuthError{Server: "srv", Status: 401}) {
		t.Error("second retry = true")
	}
	if ts.hits() != 1 {
		t.Errorf("hits = %d, want 1", ts.hits())
	}
	if st := caLoad(t, tg); st.AccessToken != "a2" || st.RefreshToken != "r1" {
		t.Errorf("stored %+v", st)
	}
}

func TestConnAuthRetryRefused(t *testing.T) {
	// The server refused a token that had not expired, and refreshing it
	// failed: "rejected", with why.
	ts := newCATokenServer(t, caAnswer(400, `{"error":"invalid_grant","error_description":"revoked"}`))
	tg := caTarget(t)
	caSave(t, tg, caStored(ts.URL+"/token", "a1", "r1", time.Hour))
	a := NewSource(context.Background(), tg, SourceOptions{})
	ae := &fail.AuthError{Server: "srv", Status: 401}
	if a.Retry(context.Background(), ae) {
		t.Error("retry = true")
	}
	if a.Info().State != "token" || ts.hits() != 1 {
		t.Errorf("info %+v, hits %d", a.Info(), ts.hits())
	}
	a.Explain(ae)
	if want := `server "srv" rejected the stored token (HTTP 401); refreshing it failed: invalid_grant: revoked (HTTP 400)`; ae.Error() != want {
		t.Errorf("Error() = %q\nwant %q", ae.Error(), want)
	}
	// A 403 is not explained.
	ae403 := &fail.AuthError{Server: "srv", Status: 403}
	a.Explain(ae403)
	if ae403.Token != "" {
		t.Errorf("403 explained: %+v", ae403)
	}

	// Logged out meanwhile: nothing to send any more.
	caSave(t, tg, caStored(ts.URL+"/token", "a1", "r1", time.Hour))
	a = NewSource(context.Background(), tg, SourceOptions{})
	if _, err := (tokenStore{dir: tg.TokenDir}).remove(caServer); err != nil {
		t.Fatal(err)
	}
	if a.Retry(context.Background(), &fail.AuthError{Server: "srv", Status: 401}) {
		t.Error("retry after logout = true")
	}
	if a.Bearer() != "" || a.Info() != (Info{State: "none"}) {
		t.Errorf("after logout: bearer %q, info %+v", a.Bearer(), a.Info())
	}
	ae = &fail.AuthError{Server: "srv", Status: 401}
	a.Explain(ae)
	if ae.Token != "" {
		t.Errorf("explained %+v", ae)
	}
}

// Concurrent connections (each its own Source, as separate processes
// would be) on one expired token refresh once, through a token endpoint
// that rotates refresh tokens.
func TestConnAuthConcurrentRefresh(t *testing.T) {
	var mu sync.Mutex
	cur, n := "r0", 0
	var hits atomic.Int32
	ts := newCATokenServer(t, func(form url.Values) (int, string) {
		hits.Add(1)
		mu.Lock()
		if form.Get("refresh_token") != cur {
			mu.Unlock()
			return 400, `{"error":"invalid_grant","error_description":"refresh token already used"}`
		}
		n++
		cur = fmt.Sprintf("r%d", n)
		body := fmt.Sprintf(`{"access_token":"a%d","token_type":"Bearer","refresh_token":%q,"expires_in":3600}`, n, cur)
		mu.Unlock()
		time.Sleep(100 * time.Millisecond)
		return 200, body
	})
	tg := caTarget(t)
	caSave(t, tg, caStored(ts.URL+"/token", "a0", "r0", -time.Minute))
	const N = 8
	var wg sync.WaitGroup
	infos, bearers := make([]Info, N), make([]string, N)
	for i := range N {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := *tg
			a := NewSource(context.Background(), &own, SourceOptions{})
			infos[i], bearers[i] = a.Info(), a.Bearer()
		}()
	}
	wg.Wait()
	for i := range N {
		if infos[i].State != "token" || bearers[i] != "a1" {
			t.Errorf("connection %d: %+v, bearer %q", i, infos[i], bearers[i])
		}
	}
	if hits.Load() != 1 {
		t.Errorf("token endpoint hits = %d, want 1", hits.Load())
	}
	if st := caLoad(t, tg); st.AccessToken != "a1" || st.RefreshToken != "r1" {
		t.Errorf("stored %+v", st)
	}
}

// ---- messages ----

func TestAuthErrorMessages(t *testing.T) {
	at := time.Date(2025, 1, 2, 5, 4, 5, 0, time.FixedZone("EET", 2*3600))
	for _, c := range []struct {
		name string
		e    fail.AuthError
		err  string
	}{
		{"401, nothing stored", fail.AuthError{Server: "srv", Status: 401},
			`server "srv" requires authentication (HTTP 401)`},
		{"401 with resource metadata", fail.AuthError{Server: "srv", Status: 401, ResourceMetadata: "https://rs.example/.well-known/oauth-protected-resource"},
			`server "srv" requires authentication (HTTP 401); resource metadata: https://rs.example/.well-known/oauth-protected-resource`},
		{"401, expired, no refresh token", fail.AuthError{Server: "srv", Status: 401, Token: "expired", ExpiredAt: at},
			`server "srv" requires authentication (HTTP 401); the stored token expired at 2025-01-02T03:04:05Z and there is no refresh token`},
		{"401, expired, refresh failed", fail.AuthError{Server: "srv", Status: 401, Token: "expired", ExpiredAt: at, Why: "invalid_grant (HTTP 400)"},
			`server "srv" requires authentication (HTTP 401); the stored token expired at 2025-01-02T03:04:05Z and refreshing it failed: invalid_grant (HTTP 400)`},
		{"401, rejected", fail.AuthError{Server: "srv", Status: 401, Token: "rejected"},
			`server "srv" rejected the stored token (HTTP 401)`},
		{"401, rejected, refresh failed", fail.AuthError{Server: "srv", Status: 401, Token: "rejected", Why: "boom", ResourceMetadata: "https://m"},
			`server "srv" rejected the stored token (HTTP 401); refreshing it failed: boom; resource metadata: https://m`},
		{"403 with scopes", fail.AuthError{Server: "srv", Status: 403, Scope: "files:read  files:write", Token: "rejected"},
			`server "srv" refused access (HTTP 403); it requires the scope files:read  files:write`},
		{"403 without scopes", fail.AuthError{Server: "srv", Status: 403},
			`server "srv" refused access (HTTP 403)`},
		{"a URL server", fail.AuthError{Server: "https://rs.example/mcp?a=1&b=2", Status: 403, Scope: "x"},
			`server "https://rs.example/mcp?a=1&b=2" refused access (HTTP 403); it requires the scope x`},
		{"quotes", fail.AuthError{Server: `it's "x"`, Status: 403, Scope: "a'b c$d"},
			`server "it's \"x\"" refused access (HTTP 403); it requires the scope a'b c$d`},
		{"a login failure", fail.AuthError{Server: "srv", Msg: "the token endpoint refused the authorization code: x", Status: 401},
			`server "srv": the token endpoint refused the authorization code: x`},
	} {
		if got := c.e.Error(); got != c.err {
			t.Errorf("%s: Error() =\n %q\nwant\n %q", c.name, got, c.err)
		}
	}
	if got := (&fail.AuthError{Scope: " a\tb  c "}).Scopes(); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("Scopes() = %q", got)
	}
	if got := (&fail.AuthError{}).Scopes(); len(got) != 0 {
		t.Errorf("Scopes() = %q", got)
	}
}

func TestSelectScopes(t *testing.T) {
	for _, c := range []struct {
		name       string
		flag       []string
		oc         *config.OAuthConfig
		challenged string
		supported  []string
		want       string
	}{
		{"flag first, order kept, deduplicated", []string{"b a", "a", " c  b "}, &config.OAuthConfig{Scopes: []string{"cfg"}}, "ch", []string{"sup"}, "b a c"},
		{"whitespace of any kind", []string{"a\tb\nc", "d\re"}, nil, "", nil, "a b c d e"},
		{"empty flags fall through", []string{"", " \t"}, &config.OAuthConfig{Scopes: []string{"x y", "x"}}, "ch", nil, "x y"},
		{"config", nil, &config.OAuthConfig{Scopes: []string{"x"}}, "ch", []string{"sup"}, "x"},
		{"the challenge", nil, &config.OAuthConfig{ClientID: "c"}, "p  q p", []string{"sup"}, "p q"},
		{"the metadata", nil, nil, " ", []string{"s1", "s2 s1", ""}, "s1 s2"},
		{"none", nil, nil, "", nil, ""},
	} {
		if got := selectScopes(c.flag, c.oc, c.challenged, c.supported); got != c.want {
			t.Errorf("%s: selectScopes = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestTokenOfTarget(t *testing.T) {
	tg := caTarget(t)
	if tok, err := Token(tg); tok != nil || err != nil {
		t.Errorf("nothing stored: %v, %v", tok, err)
	}
	caSave(t, tg, caStored("https://as.example/token", "a", "r", time.Hour))
	other := *tg
	other.URL = "HTTPS://RS.example:443/mcp/" // the same server
	if tok, err := Token(&other); err != nil || tok == nil || tok.AccessToken != "a" {
		t.Errorf("stored: %v, %v", tok, err)
	}
	other.URL = "rs.example"
	if _, err := Token(&other); !fail.Is(err, fail.Usage) || err.Error() != `server "srv": "rs.example" is not an http(s) URL` {
		t.Errorf("bad URL: %v", err)
	}
	if err := os.WriteFile(tokenStore{dir: tg.TokenDir}.path(caServer), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	var ae *fail.AuthError
	if _, err := Token(tg); !errors.As(err, &ae) || ae.Msg != fmt.Sprintf("token file %s is damaged", tokenStore{dir: tg.TokenDir}.path(caServer)) {
		t.Errorf("damaged: %v", err)
	}
}

// ---- login ----

// caAS is an authorization server and a resource server in one, as the
// MCP authorization specification has them talk to mcpx.
type caAS struct {
	*httptest.Server
	t *testing.T

	mu          sync.Mutex
	methods     []string // token_endpoint_auth_methods_supported
	noRegister  bool
	issRequired bool                      // authorization_response_iss_parameter_supported
	state       func(string) string       // the state the redirect carries (nil: the one sent)
	iss         string                    // the redirect's iss ("" none)
	redirectErr string                    // the redirect carries this error instead of a code
	noCode      bool                      // the redirect carries no code
	tokenScope  string                    // the token answer's scope
	tokenFail   bool                      // the token endpoint refuses the code
	tokenDelay  time.Duration             // the token endpoint answers after this
	regFail     bool                      // the registration endpoint refuses
	onAuthorize func(redirect url.Values) // sees the redirect's parameters
	prmAS       string                    // the PRM's authorization server ("" this one)
	regClientID string                    // the client_id registration gives ("" dyn-client)
	dpop        bool                      // the metadata advertises DPoP; a proved token is a DPoP one
	dpopNonce   string                    // the token endpoint wants this nonce in the proof
	proofs      []string                  // the DPoP headers of the token requests

	reqs      []string
	authQuery url.Values
	regBody   map[string]any
	tokenForm url.Values
	tokenAuth string
	pkceOK    bool
}

func newCAAS(t *testing.T) *caAS {
	t.Helper()
	as := &caAS{t: t}
	as.Server = httptest.NewServer(http.HandlerFunc(as.serve))
	t.Cleanup(as.Close)
	return as
}

func (as *caAS) requests() []string {
	as.mu.Lock()
	defer as.mu.Unlock()
	return slices.Clone(as.reqs)
}

func (as *caAS) serve(w http.ResponseWriter, r *http.Request) {
	as.mu.Lock()
	defer as.mu.Unlock()
	as.reqs = append(as.reqs, r.Method+" "+r.URL.Path)
	switch r.Method + " " + r.URL.Path {
	case "POST /mcp", "POST /mcp/":
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp", scope="read write"`, as.URL))
		w.WriteHeader(401)
	case "GET /.well-known/oauth-protected-resource/mcp":
		issuer := as.URL
		if as.prmAS != "" {
			issuer = as.prmAS
		}
		oaWriteJSON(w, 200, map[string]any{"resource": as.URL + "/mcp", "authorization_servers": []string{issuer}, "scopes_supported": []string{"read", "write", "admin"}})
	case "GET /.well-known/oauth-authorization-server":
		doc := oaASDoc(as.URL)
		if as.methods != nil {
			doc["token_endpoint_auth_methods_supported"] = as.methods
		}
		if as.noRegister {
			delete(doc, "registration_endpoint")
		}
		if as.issRequired {
			doc["authorization_response_iss_parameter_supported"] = true
		}
		if as.dpop {
			doc["dpop_signing_alg_values_supported"] = []string{"RS256", "ES256"}
		}
		oaWriteJSON(w, 200, doc)
	case "POST /register":
		_ = json.NewDecoder(r.Body).Decode(&as.regBody)
		if as.regFail {
			oaWriteJSON(w, 400, `{"error":"invalid_client_metadata"}`)
		} else if as.regClientID != "" {
			oaWriteJSON(w, 201, map[string]any{"client_id": as.regClientID})
		} else if as.regBody["token_endpoint_auth_method"] == "none" {
			oaWriteJSON(w, 201, `{"client_id":"dyn-client"}`)
		} else {
			oaWriteJSON(w, 201, `{"client_id":"dyn-client","client_secret":"dyn-secret"}`)
		}
	case "GET /authorize":
		q := r.URL.Query()
		as.authQuery = q
		back := url.Values{}
		switch {
		case as.redirectErr != "":
			back.Set("error", as.redirectErr)
			back.Set("error_description", "the user said no")
		case !as.noCode:
			back.Set("code", "the-code")
		}
		st := q.Get("state")
		if as.state != nil {
			st = as.state(st)
		}
		back.Set("state", st)
		if as.iss != "" {
			back.Set("iss", as.iss)
		}
		if as.onAuthorize != nil {
			as.onAuthorize(back)
		}
		http.Redirect(w, r, q.Get("redirect_uri")+"?"+back.Encode(), http.StatusFound)
	case "POST /token":
		time.Sleep(as.tokenDelay)
		_ = r.ParseForm()
		as.tokenForm, as.tokenAuth = r.PostForm, r.Header.Get("Authorization")
		if proof := r.Header.Get("DPoP"); proof != "" {
			as.proofs = append(as.proofs, proof)
			if as.dpopNonce != "" && !strings.Contains(dpClaims(as.t, proof), `"nonce":"`+as.dpopNonce+`"`) {
				w.Header().Set("DPoP-Nonce", as.dpopNonce)
				oaWriteJSON(w, 400, `{"error":"use_dpop_nonce"}`)
				return
			}
		}
		f, q := r.PostForm, as.authQuery
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		as.pkceOK = q != nil && base64.RawURLEncoding.EncodeToString(sum[:]) == q.Get("code_challenge")
		if as.tokenFail || !as.pkceOK || f.Get("grant_type") != "authorization_code" || f.Get("code") != "the-code" ||
			f.Get("redirect_uri") != q.Get("redirect_uri") || f.Get("resource") != q.Get("resource") {
			oaWriteJSON(w, 400, `{"error":"invalid_grant","error_description":"bad code"}`)
			return
		}
		ans := map[string]any{"access_token": "at-1", "token_type": "Bearer", "refresh_token": "rt-1", "expires_in": 3600}
		if as.dpop && r.Header.Get("DPoP") != "" {
			ans["token_type"] = "DPoP"
		}
		if as.tokenScope != "" {
			ans["scope"] = as.tokenScope
		}
		oaWriteJSON(w, 200, ans)
	default:
		http.NotFound(w, r)
	}
}

// caBrowsed is what the browser got in the end.
type caBrowsed struct {
	status int
	body   string
	err    error
}

// caBrowser is a LoginOptions.Open that follows the authorization URL (and
// its redirect to mcpx) the way a browser would, after before (if any).
func caBrowser(t *testing.T, before func(authURL string)) (func(string), <-chan caBrowsed, <-chan string) {
	urls := make(chan string, 1)
	res := make(chan caBrowsed, 1)
	return func(u string) {
		urls <- u
		go func() {
			if before != nil {
				before(u)
			}
			hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
			resp, err := hc.Get(u)
			if err != nil {
				res <- caBrowsed{err: err}
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			res <- caBrowsed{status: resp.StatusCode, body: string(b)}
		}()
	}, res, urls
}

// caRedirectURI is the redirect_uri of an authorization URL.
func caRedirectURI(t *testing.T, authURL string) string {
	u, err := url.Parse(authURL)
	if err != nil {
		t.Error(err)
		return ""
	}
	return u.Query().Get("redirect_uri")
}

func caNoTokenFile(t *testing.T, dir string) {
	t.Helper()
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		if strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".token-") {
			t.Errorf("token store holds %s", e.Name())
		}
	}
}

func TestLoginRegistered(t *testing.T) {
	as := newCAAS(t)
	as.methods = []string{"client_secret_post"}
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: as.URL + "/mcp/", TokenDir: filepath.Join(t.TempDir(), "tokens")}
	sec := &secret.Set{}
	open, browsed, _ := caBrowser(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tok, err := Login(ctx, tg, LoginOptions{ProtocolVersion: "2025-06-18", ClientVersion: "9.9.9", Open: open,
		Secrets: sec})
	if err != nil {
		t.Fatalf("Login: %v", err)
	}
	b := <-browsed
	if b.err != nil || b.status != 200 || !strings.Contains(b.body, "mcpx is logged in") {
		t.Errorf("browser: %+v", b)
	}
	wantReqs := []string{"POST /mcp/", "GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-authorization-server",
		"POST /register", "GET /authorize", "POST /token"}
	if got := as.requests(); !slices.Equal(got, wantReqs) {
		t.Errorf("requests:\n got %q\nwant %q", got, wantReqs)
	}
	as.mu.Lock()
	q, reg, form, auth, pkce := as.authQuery, as.regBody, as.tokenForm, as.tokenAuth, as.pkceOK
	as.mu.Unlock()
	redirect := q.Get("redirect_uri")
	if !regexp.MustCompile(`^http://127\.0\.0\.1:[1-9][0-9]*/callback$`).MatchString(redirect) {
		t.Errorf("redirect_uri %q", redirect)
	}
	for k, v := range map[string]string{"response_type": "code", "client_id": "dyn-client", "code_challenge_method": "S256",
		"resource": as.URL + "/mcp", "scope": "read write"} {
		if q.Get(k) != v {
			t.Errorf("authorization request %s = %q, want %q", k, q.Get(k), v)
		}
	}
	if len(q.Get("state")) < 16 || len(q.Get("code_challenge")) != 43 || len(q) != 8 {
		t.Errorf("authorization request %v", q)
	}
	if !pkce {
		t.Error("the code_challenge is not S256(code_verifier)")
	}
	if reg["token_endpoint_auth_method"] != "client_secret_post" || reg["software_version"] != "9.9.9" ||
		!reflect.DeepEqual(reg["redirect_uris"], []any{redirect}) {
		t.Errorf("registration %v", reg)
	}
	wantForm := url.Values{"grant_type": {"authorization_code"}, "code": {"the-code"}, "redirect_uri": {redirect},
		"code_verifier": {form.Get("code_verifier")}, "resource": {as.URL + "/mcp"}, "client_id": {"dyn-client"}, "client_secret": {"dyn-secret"}}
	if !reflect.DeepEqual(form, wantForm) || auth != "" || len(form.Get("code_verifier")) < 43 {
		t.Errorf("token request %v (Authorization %q)", form, auth)
	}
	for _, s := range []string{"dyn-secret", "at-1", "rt-1"} {
		if sec.Mask(s) != secret.Masked {
			t.Errorf("secret %q not registered", s)
		}
	}

	// The stored file, field by field.
	p := tokenStore{dir: tg.TokenDir}.path(as.URL + "/mcp")
	if m := tkPerm(t, p); m != 0o600 {
		t.Errorf("token file mode %o", m)
	}
	if m := tkPerm(t, tg.TokenDir); m != 0o700 {
		t.Errorf("token directory mode %o", m)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	obtained, _ := time.Parse(time.RFC3339, fmt.Sprint(raw["obtained_at"]))
	expires, _ := time.Parse(time.RFC3339, fmt.Sprint(raw["expires_at"]))
	if time.Since(obtained) > time.Minute || time.Since(obtained) < -time.Second || expires.Sub(obtained) != time.Hour {
		t.Errorf("obtained_at %v, expires_at %v", raw["obtained_at"], raw["expires_at"])
	}
	delete(raw, "obtained_at")
	delete(raw, "expires_at")
	wantRaw := map[string]any{
		"server": as.URL + "/mcp", "resource": as.URL + "/mcp", "issuer": as.URL,
		"token_endpoint": as.URL + "/token", "revocation_endpoint": as.URL + "/revoke",
		"client_id": "dyn-client", "client_secret": "dyn-secret", "registered": true, "token_endpoint_auth_method": "client_secret_post",
		"access_token": "at-1", "token_type": "Bearer", "refresh_token": "rt-1", "scope": "read write",
	}
	if !reflect.DeepEqual(raw, wantRaw) {
		t.Errorf("token file:\n got %v\nwant %v", raw, wantRaw)
	}
	back, err := Token(tg)
	if err != nil || back == nil || back.AccessToken != tok.AccessToken || !back.ExpiresAt.Equal(*tok.ExpiresAt) || back.ClientSecret != tok.ClientSecret {
		t.Errorf("Token = %+v, %v; Login returned %+v", back, err, tok)
	}
}

func TestLoginConfiguredClient(t *testing.T) {
	as := newCAAS(t)
	as.tokenScope = "files:read"
	as.iss = as.URL // the issuer, exactly
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: as.URL + "/mcp", TokenDir: t.TempDir(),
		OAuth: &config.OAuthConfig{ClientID: "cfg:id", ClientSecret: "cfg secret", Scopes: []string{"ignored"}}}
	open, browsed, _ := caBrowser(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tok, err := Login(ctx, tg, LoginOptions{Open: open, Scopes: []string{"files:read  files:write", "files:read"}})
	if err != nil {
		t.Fatalf("Login: %v", err)
	}
	<-browsed
	if slices.Contains(as.requests(), "POST /register") {
		t.Error("a configured client was registered")
	}
	as.mu.Lock()
	q, form, auth := as.authQuery, as.tokenForm, as.tokenAuth
	as.mu.Unlock()
	if q.Get("client_id") != "cfg:id" || q.Get("scope") != "files:read files:write" {
		t.Errorf("authorization request %v", q)
	}
	if want := "Basic " + base64.StdEncoding.EncodeToString([]byte("cfg%3Aid:cfg+secret")); auth != want {
		t.Errorf("token request Authorization %q, want %q", auth, want)
	}
	if form.Has("client_id") || form.Has("client_secret") {
		t.Errorf("token request form %v", form)
	}
	st := caLoadServer(t, tg, as.URL+"/mcp")
	if st.ClientID != "cfg:id" || st.ClientSecret != "" || st.Registered || st.AuthMethod != "client_secret_basic" || st.Scope != "files:read" ||
		st.AccessToken != "at-1" || tok.Scope != "files:read" {
		t.Errorf("stored %+v", st)
	}
}

func caLoadServer(t *testing.T, tg *config.Target, server string) *StoredToken {
	t.Helper()
	tok, err := tokenStore{dir: tg.TokenDir}.load(server)
	if err != nil || tok == nil {
		t.Fatalf("load = %v, %v", tok, err)
	}
	return tok
}

func TestLoginPublicClient(t *testing.T) {
	as := newCAAS(t)
	as.methods = []string{"none", "client_secret_basic"}
	tg := &config.Target{Name: "srv", Transport: config.SSE, URL: as.URL + "/mcp", TokenDir: t.TempDir()}
	// The SSE probe is a GET: this server answers it 404, so discovery
	// goes by the well-known URLs.
	open, browsed, _ := caBrowser(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Login(ctx, tg, LoginOptions{Open: open})
	if err != nil {
		t.Fatalf("Login: %v", err)
	}
	<-browsed
	if got := as.requests(); got[0] != "GET /mcp" {
		t.Errorf("requests %q", got)
	}
	as.mu.Lock()
	form, auth, q := as.tokenForm, as.tokenAuth, as.authQuery
	as.mu.Unlock()
	if form.Get("client_id") != "dyn-client" || form.Has("client_secret") || auth != "" {
		t.Errorf("token request %v, Authorization %q", form, auth)
	}
	if q.Get("scope") != "read write admin" { // no challenge: the metadata's scopes
		t.Errorf("scope %q", q.Get("scope"))
	}
	st := caLoadServer(t, tg, as.URL+"/mcp")
	if st.ClientSecret != "" || !st.Registered || st.AuthMethod != "none" || st.Scope != "read write admin" {
		t.Errorf("stored %+v", st)
	}
}

func TestLoginRefused(t *testing.T) {
	for _, c := range []struct {
		name     string
		prep     func(as *caAS)
		wantMsg  string // %[1]s is the AS's URL
		noToken  bool   // the token endpoint must not be asked
		browser  int    // the status the browser gets
		noClient bool
	}{
		{"iss mismatch", func(as *caAS) { as.iss = "https://evil.example" },
			`the authorization redirect came from issuer "https://evil.example", not "%[1]s" (RFC 9207); nothing was accepted`, true, 400, false},
		// RFC 9207 §2.4: simple string comparison, no URL normalization.
		{"iss with a trailing slash", func(as *caAS) { as.iss = as.URL + "/" },
			`the authorization redirect came from issuer "%[1]s/", not "%[1]s" (RFC 9207); nothing was accepted`, true, 400, false},
		{"iss in upper case", func(as *caAS) { as.iss = strings.ToUpper(as.URL) },
			`the authorization redirect came from issuer "%[2]s", not "%[1]s" (RFC 9207); nothing was accepted`, true, 400, false},
		{"refused", func(as *caAS) { as.redirectErr = "access_denied" },
			"the authorization server refused: access_denied: the user said no", true, 400, false},
		{"no code", func(as *caAS) { as.noCode = true },
			"the authorization redirect carried no code", true, 400, false},
		{"code refused", func(as *caAS) { as.tokenFail = true },
			"the token endpoint refused the authorization code: invalid_grant: bad code (HTTP 400)", false, 400, false},
		{"registration refused", func(as *caAS) { as.regFail = true },
			"dynamic client registration at %[1]s/register failed: invalid_client_metadata (HTTP 400)", true, 0, false},
		{"no registration, no client", func(as *caAS) { as.noRegister = true },
			"authorization server %[1]s offers no dynamic client registration, and no client is configured for this server", true, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			as := newCAAS(t)
			c.prep(as)
			tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: as.URL + "/mcp", TokenDir: t.TempDir()}
			opened := false
			open, browsed, _ := caBrowser(t, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			tok, err := Login(ctx, tg, LoginOptions{Open: func(u string) { opened = true; open(u) }})
			if tok != nil {
				t.Errorf("Login = %+v", tok)
			}
			if msg, want := oaAuthMsg(t, err), strings.NewReplacer("%[1]s", as.URL, "%[2]s", strings.ToUpper(as.URL)).Replace(c.wantMsg); msg != want {
				t.Errorf("error:\n got %q\nwant %q", msg, want)
			}
			var ae *fail.AuthError
			if errors.As(err, &ae) && ae.NoClient != c.noClient {
				t.Errorf("NoClient = %v", ae.NoClient)
			}
			if c.browser != 0 {
				b := <-browsed
				if b.status != c.browser || !strings.Contains(b.body, "mcpx login failed: ") {
					t.Errorf("browser: %+v", b)
				}
			} else if opened {
				t.Error("the browser was opened")
			}
			if got := as.requests(); c.noToken && slices.Contains(got, "POST /token") {
				t.Errorf("the token endpoint was asked: %q", got)
			}
			caNoTokenFile(t, tg.TokenDir)
		})
	}
}

// RFC 9207 §2.4: when the metadata says authorization_response_iss_parameter_supported,
// a redirect without iss must be refused (the mix-up defence).
func TestLoginIssRequired(t *testing.T) {
	as := newCAAS(t)
	as.issRequired = true
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: as.URL + "/mcp", TokenDir: t.TempDir()}
	open, browsed, _ := caBrowser(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tok, err := Login(ctx, tg, LoginOptions{Open: open})
	<-browsed
	if err == nil {
		t.Fatalf("Login accepted an authorization response without iss although the metadata says "+
			"authorization_response_iss_parameter_supported: true (RFC 9207 §2.4 says to refuse it); asDoc.AuthorizationResponseIssParameter "+
			"is parsed but never used (stored token %q)", tok.AccessToken)
	}
	caNoTokenFile(t, tg.TokenDir)
}

func TestLoginCallbackPaths(t *testing.T) {
	as := newCAAS(t)
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: as.URL + "/mcp", TokenDir: t.TempDir()}
	statuses := map[string]int{}
	open, browsed, _ := caBrowser(t, func(authURL string) {
		redirect := caRedirectURI(t, authURL)
		base := strings.TrimSuffix(redirect, "/callback")
		for _, p := range []string{"/", "/other", "/callback/x", "/favicon.ico", "/Callback"} {
			resp, err := http.Get(base + p + "?state=x&code=y")
			if err != nil {
				t.Error(err)
				continue
			}
			resp.Body.Close()
			statuses[p] = resp.StatusCode
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := Login(ctx, tg, LoginOptions{Open: open}); err != nil {
		t.Fatalf("Login: %v", err)
	}
	if b := <-browsed; b.status != 200 {
		t.Errorf("browser: %+v", b)
	}
	want := map[string]int{"/": 404, "/other": 404, "/callback/x": 404, "/favicon.ico": 404, "/Callback": 404}
	if !reflect.DeepEqual(statuses, want) {
		t.Errorf("statuses %v, want %v", statuses, want)
	}
}

// A second redirect while the login is being completed (the token
// exchange) is answered at once: the first one decided.
func TestLoginSecondRedirect(t *testing.T) {
	as := newCAAS(t)
	as.tokenDelay = 400 * time.Millisecond
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: as.URL + "/mcp", TokenDir: t.TempDir()}
	type hit struct {
		status int
		took   time.Duration
	}
	first, second := make(chan hit, 1), make(chan hit, 1)
	get := func(u string, into chan<- hit) {
		start := time.Now()
		hc := &http.Client{Timeout: 4 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := hc.Get(u)
		if err != nil {
			into <- hit{0, time.Since(start)}
			return
		}
		resp.Body.Close()
		into <- hit{resp.StatusCode, time.Since(start)}
	}
	open := func(authURL string) {
		go func() {
			nofollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := nofollow.Get(authURL)
			if err != nil {
				t.Error(err)
				first <- hit{}
				second <- hit{}
				return
			}
			resp.Body.Close()
			loc := resp.Header.Get("Location")
			go get(loc, first)
			time.Sleep(150 * time.Millisecond) // the token exchange is under way
			go get(loc, second)
		}()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	if _, err := Login(ctx, tg, LoginOptions{Open: open}); err != nil {
		t.Fatalf("Login: %v", err)
	}
	took := time.Since(start)
	f, s := <-first, <-second
	if f.status != 200 {
		t.Errorf("first redirect: HTTP %d", f.status)
	}
	if s.status != 409 || s.took > time.Second || took > 1500*time.Millisecond {
		t.Fatalf("a second redirect that arrives after Login took the first one from the buffered results channel "+
			"is not refused with 409: the non-blocking send succeeds (the buffer is empty again), its handler then waits for an "+
			"outcome that is sent once only, so its tab hangs until the 1-minute timeout and shows \"mcpx login failed: timed out\", "+
			"and Login's deferred Shutdown waits its full 2 s for that handler (second redirect: HTTP %d after %v; Login took %v)",
			s.status, s.took.Round(time.Millisecond), took.Round(time.Millisecond))
	}
}

func TestLoginTimeout(t *testing.T) {
	as := newCAAS(t)
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: as.URL + "/mcp", TokenDir: t.TempDir()}
	var authURL string
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	tok, err := Login(ctx, tg, LoginOptions{Open: func(u string) { authURL = u }})
	if tok != nil || err != context.DeadlineExceeded {
		t.Fatalf("Login = %v, %v; want context.DeadlineExceeded", tok, err)
	}
	redirect := caRedirectURI(t, authURL)
	u, err := url.Parse(redirect)
	if err != nil || u.Host == "" {
		t.Fatalf("redirect_uri %q", redirect)
	}
	if c, err := net.DialTimeout("tcp", u.Host, time.Second); err == nil {
		c.Close()
		t.Errorf("the loopback port %s is still open", u.Host)
	}
	if slices.Contains(as.requests(), "POST /token") {
		t.Error("the token endpoint was asked")
	}
	caNoTokenFile(t, tg.TokenDir)
}

// A login stores its token under the server's lock: held elsewhere past
// the deadline, the login fails, and stores nothing.
func TestLoginSaveLocked(t *testing.T) {
	as := newCAAS(t)
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: as.URL + "/mcp", TokenDir: t.TempDir()}
	unlock, err := tokenStore{dir: tg.TokenDir}.lock(context.Background(), as.URL+"/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	open, browsed, _ := caBrowser(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	tok, err := Login(ctx, tg, LoginOptions{Open: open})
	if tok != nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Login = %v, %v; want context.DeadlineExceeded", tok, err)
	}
	if b := <-browsed; b.status != 400 || !strings.Contains(b.body, "mcpx login failed: context deadline exceeded") {
		t.Errorf("browser: %+v", b)
	}
	if !slices.Contains(as.requests(), "POST /token") {
		t.Error("the token endpoint was not asked")
	}
	caNoTokenFile(t, tg.TokenDir)
}

func TestLoginDiscoveryFails(t *testing.T) {
	// No metadata anywhere.
	f := newOAFake(t)
	f.handle("/mcp", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(401) })
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: f.URL + "/mcp", TokenDir: t.TempDir()}
	_, err := Login(context.Background(), tg, LoginOptions{Open: func(string) { t.Error("opened") }})
	if msg := oaAuthMsg(t, err); !strings.HasPrefix(msg, "the server publishes no protected-resource metadata (RFC 9728) at ") {
		t.Errorf("no metadata: %q", msg)
	}
	// Unreachable.
	f.Close()
	_, err = Login(context.Background(), tg, LoginOptions{Open: func(string) { t.Error("opened") }})
	var ce *fail.ConnectError
	if !errors.As(err, &ce) || !strings.HasPrefix(ce.Msg, "cannot reach the server: ") {
		t.Errorf("unreachable: %v", err)
	}
}

func TestLoginMisuse(t *testing.T) {
	_, err := Login(context.Background(), &config.Target{Name: "srv", Transport: config.Stdio, TokenDir: t.TempDir()}, LoginOptions{})
	if !fail.Is(err, fail.Usage) || err.Error() != `server "srv": login is for http and sse servers; a stdio server gets its credentials from its environment` {
		t.Errorf("stdio: %v", err)
	}
	_, err = Login(context.Background(), &config.Target{Name: "srv", Transport: config.HTTP, URL: "https://rs.example/mcp"}, LoginOptions{})
	if msg := oaAuthMsg(t, err); msg != "no token directory: set HOME or XDG_STATE_HOME" {
		t.Errorf("no token directory: %q", msg)
	}
	_, err = Login(context.Background(), &config.Target{Name: "srv", Transport: config.HTTP, URL: "rs.example", TokenDir: t.TempDir()}, LoginOptions{})
	if !fail.Is(err, fail.Usage) || err.Error() != `server "srv": "rs.example" is not an http(s) URL` {
		t.Errorf("bad URL: %v", err)
	}
	as := newCAAS(t)
	_, err = Login(context.Background(), &config.Target{Name: "srv", Transport: config.HTTP, URL: as.URL + "/mcp", TokenDir: t.TempDir()},
		LoginOptions{Open: func(string) { t.Error("opened") }, Listen: func() (net.Listener, error) { return nil, errors.New("boom") }})
	if msg := oaAuthMsg(t, err); msg != "cannot listen on a loopback port for the redirect: boom" {
		t.Errorf("listen: %q", msg)
	}
}

// ---- logout ----

type caRevocation struct {
	token, hint, auth string
	form              url.Values
}

func caRevoker(t *testing.T, status int, body string) (*httptest.Server, func() []caRevocation) {
	var mu sync.Mutex
	var got []caRevocation
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		mu.Lock()
		got = append(got, caRevocation{r.PostForm.Get("token"), r.PostForm.Get("token_type_hint"), r.Header.Get("Authorization"), r.PostForm})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s, func() []caRevocation { mu.Lock(); defer mu.Unlock(); return slices.Clone(got) }
}

func TestLogoutRevokes(t *testing.T) {
	rs, got := caRevoker(t, 200, ``)
	tg := caTarget(t)
	tok := caStored("https://as.example/token", "at", "rt", time.Hour)
	tok.RevocationEndpoint = rs.URL + "/revoke"
	tok.ClientID, tok.ClientSecret, tok.AuthMethod, tok.Registered = "c:id", "s e", "client_secret_basic", true
	caSave(t, tg, tok)
	r, err := Logout(context.Background(), tg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Removed || !slices.Equal(r.Revoked, []string{"refresh", "access"}) || r.Warns != nil {
		t.Errorf("Logout = %+v", r)
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("c%3Aid:s+e"))
	want := []caRevocation{
		{"rt", "refresh_token", basic, url.Values{"token": {"rt"}, "token_type_hint": {"refresh_token"}}},
		{"at", "access_token", basic, url.Values{"token": {"at"}, "token_type_hint": {"access_token"}}},
	}
	if g := got(); !reflect.DeepEqual(g, want) {
		t.Errorf("revocations:\n got %+v\nwant %+v", g, want)
	}
	if st, err := Token(tg); st != nil || err != nil {
		t.Errorf("after logout: %v, %v", st, err)
	}
}

func TestLogoutConfiguredClient(t *testing.T) {
	rs, got := caRevoker(t, 200, ``)
	tg := caTarget(t)
	tg.OAuth = &config.OAuthConfig{ClientID: "cid", ClientSecret: "rotated"}
	tok := caStored("https://as.example/token", "at", "", time.Hour)
	tok.RevocationEndpoint = rs.URL + "/revoke"
	tok.Registered, tok.AuthMethod = false, "client_secret_post"
	caSave(t, tg, tok)
	r, err := Logout(context.Background(), tg, nil)
	if err != nil || !r.Removed || !slices.Equal(r.Revoked, []string{"access"}) || r.Warns != nil {
		t.Errorf("Logout = %+v, %v", r, err)
	}
	want := []caRevocation{{"at", "access_token", "", url.Values{"token": {"at"}, "token_type_hint": {"access_token"}, "client_id": {"cid"}, "client_secret": {"rotated"}}}}
	if g := got(); !reflect.DeepEqual(g, want) {
		t.Errorf("revocations:\n got %+v\nwant %+v", g, want)
	}
}

func TestLogoutRevocationFails(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	for _, c := range []struct {
		name     string
		status   int
		body     string
		endpoint string
		warns    []string // a prefix when it ends in "..."
	}{
		{"503", 503, `busy`, "", []string{"revoking the refresh token failed: HTTP 503", "revoking the access token failed: HTTP 503"}},
		{"unsupported_token_type", 400, `{"error":"unsupported_token_type","error_description":"no"}`, "",
			[]string{"revoking the refresh token failed: unsupported_token_type: no (HTTP 400)", "revoking the access token failed: unsupported_token_type: no (HTTP 400)"}},
		{"unreachable", 200, ``, dead.URL + "/revoke", []string{`revoking the refresh token failed: cannot reach ` + dead.URL + `/revoke: ...`,
			`revoking the access token failed: cannot reach ` + dead.URL + `/revoke: ...`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rs, _ := caRevoker(t, c.status, c.body)
			tg := caTarget(t)
			tok := caStored("https://as.example/token", "at", "rt", time.Hour)
			tok.RevocationEndpoint = rs.URL + "/revoke"
			if c.endpoint != "" {
				tok.RevocationEndpoint = c.endpoint
			}
			caSave(t, tg, tok)
			r, err := Logout(context.Background(), tg, nil)
			if err != nil || !r.Removed || r.Revoked != nil || len(r.Warns) != len(c.warns) {
				t.Fatalf("Logout = %+v, %v", r, err)
			}
			for i, w := range c.warns {
				if p, ok := strings.CutSuffix(w, "..."); ok && !strings.HasPrefix(r.Warns[i], p) || !ok && r.Warns[i] != w {
					t.Errorf("warning %d = %q, want %q", i, r.Warns[i], w)
				}
			}
			if st, err := Token(tg); st != nil || err != nil {
				t.Errorf("after logout: %v, %v", st, err)
			}
		})
	}
}

func TestLogoutStates(t *testing.T) {
	// Nothing stored.
	tg := caTarget(t)
	r, err := Logout(context.Background(), tg, nil)
	if err != nil || r.Removed || r.Revoked != nil || r.Warns != nil {
		t.Errorf("nothing stored: %+v, %v", r, err)
	}
	// No revocation endpoint: removed, nothing revoked.
	tok := caStored("https://as.example/token", "at", "rt", time.Hour)
	tok.RevocationEndpoint = ""
	caSave(t, tg, tok)
	r, err = Logout(context.Background(), tg, nil)
	if err != nil || !r.Removed || r.Revoked != nil || r.Warns != nil {
		t.Errorf("no revocation endpoint: %+v, %v", r, err)
	}
	// A damaged file is removed, with a warning.
	p := tokenStore{dir: tg.TokenDir}.path(caServer)
	if err := os.WriteFile(p, []byte("{damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err = Logout(context.Background(), tg, nil)
	if err != nil || !r.Removed || r.Revoked != nil || !slices.Equal(r.Warns, []string{fmt.Sprintf("token file %s is damaged", p)}) {
		t.Errorf("damaged: %+v, %v", r, err)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the damaged file is still there: %v", err)
	}
	// A non-empty directory where the file should be: not removable.
	if err := os.MkdirAll(filepath.Join(p, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	r, err = Logout(context.Background(), tg, nil)
	if msg := oaAuthMsg(t, err); r.Removed || !strings.HasPrefix(msg, "cannot remove the token file: ") {
		t.Errorf("directory: %+v, %q", r, msg)
	}
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
	// Stdio; a bad URL.
	if _, err := Logout(context.Background(), &config.Target{Name: "srv", Transport: config.Stdio}, nil); !fail.Is(err, fail.Usage) || err.Error() != `server "srv": logout is for http and sse servers` {
		t.Errorf("stdio: %v", err)
	}
	if _, err := Logout(context.Background(), &config.Target{Name: "srv", Transport: config.HTTP, URL: "x"}, nil); !fail.Is(err, fail.Usage) {
		t.Errorf("bad URL: %v", err)
	}
	// The lock held elsewhere until the deadline: the context's error.
	caSave(t, tg, caStored("https://as.example/token", "at", "rt", time.Hour))
	unlock, err := tokenStore{dir: tg.TokenDir}.lock(context.Background(), caServer)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := Logout(ctx, tg, nil); err != context.DeadlineExceeded {
		t.Errorf("lock held: %v", err)
	}
	if st := caLoad(t, tg); st == nil {
		t.Error("removed without the lock")
	}
	// No token directory.
	if _, err := Logout(context.Background(), &config.Target{Name: "srv", Transport: config.HTTP, URL: caServer}, nil); oaAuthMsg(t, err) != "no token directory: set HOME or XDG_STATE_HOME" {
		t.Errorf("no token directory: %v", err)
	}
}

// TestLoginIgnoresWrongState: a request to the callback with the wrong
// state (a page probing local ports, a stale tab) is refused with 400 and
// noted; the login goes on waiting, and the real redirect still completes it.
func TestLoginIgnoresWrongState(t *testing.T) {
	as := newCAAS(t)
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: as.URL + "/mcp", TokenDir: t.TempDir()}
	var notes []string
	forged := make(chan int, 2)
	open, browsed, _ := caBrowser(t, func(authURL string) {
		cb := caRedirectURI(t, authURL)
		for _, q := range []string{"?state=forged&code=evil", "?error=access_denied"} {
			resp, err := http.Get(cb + q)
			if err != nil {
				t.Error(err)
				forged <- 0
				continue
			}
			resp.Body.Close()
			forged <- resp.StatusCode
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tok, err := Login(ctx, tg, LoginOptions{Open: open, Note: func(f string, a ...any) { notes = append(notes, fmt.Sprintf(f, a...)) }})
	if err != nil || tok == nil {
		t.Fatalf("Login = %v, %v", tok, err)
	}
	if a, b := <-forged, <-forged; a != 400 || b != 400 {
		t.Errorf("forged redirects got HTTP %d and %d, want 400", a, b)
	}
	if b := <-browsed; b.status != 200 {
		t.Errorf("browser: %+v", b)
	}
	want := "ignored a request to the callback with the wrong state (a forged or stale redirect); still waiting"
	if len(notes) != 2 || notes[0] != want || notes[1] != want {
		t.Errorf("notes = %q", notes)
	}
}

// TestLoginWrongStateOnly: when only wrong-state redirects come, the login
// waits for its bound and stores nothing.
func TestLoginWrongStateOnly(t *testing.T) {
	as := newCAAS(t)
	as.state = func(string) string { return "forged" }
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: as.URL + "/mcp", TokenDir: t.TempDir()}
	open, browsed, _ := caBrowser(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	tok, err := Login(ctx, tg, LoginOptions{Open: open})
	if tok != nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Login = %v, %v; want context.DeadlineExceeded", tok, err)
	}
	if b := <-browsed; b.status != 400 {
		t.Errorf("browser: %+v", b)
	}
	caNoTokenFile(t, tg.TokenDir)
}

// Token returns the stored token of a server, nil when there is none (the
// way every command reads it).
func Token(t *config.Target) (*StoredToken, error) {
	server, err := transport.CanonicalURL(t.URL)
	if err != nil {
		return nil, config.Invalid(t.Name, err.Error())
	}
	tok, err := tokenStore{dir: t.TokenDir}.load(server)
	if err != nil {
		return nil, &fail.AuthError{Server: t.Name, Msg: err.Error()}
	}
	return tok, nil
}
