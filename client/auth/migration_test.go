package auth

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
)

// SEP-2352: a server that refuses the stored token and whose
// protected-resource metadata names another authorization server gets no
// refresh at the old one; the 401 says why and a new login registers at the
// new one, never presenting the old one's client there.
func TestConnAuthAuthServerMoved(t *testing.T) {
	ts := newCATokenServer(t, caAnswer(200, `{"access_token":"a2","expires_in":3600}`))
	names := "https://as2.example"
	prm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		oaWriteJSON(w, 200, map[string]any{"resource": caServer, "authorization_servers": []string{names}})
	}))
	t.Cleanup(prm.Close)
	tg := caTarget(t)
	caSave(t, tg, caStored(ts.URL+"/token", "a1", "r1", time.Hour))
	a := NewSource(context.Background(), tg, SourceOptions{})
	ae := &fail.AuthError{Server: "srv", Status: 401, ResourceMetadata: prm.URL}
	if a.Retry(context.Background(), ae) {
		t.Error("retry = true after the authorization server moved")
	}
	if ts.hits() != 0 {
		t.Errorf("the old authorization server's token endpoint was asked %d times", ts.hits())
	}
	a.Explain(ae)
	want := `server "srv" rejected the stored token (HTTP 401): its protected-resource metadata now names the authorization server https://as2.example, not https://as.example, which issued the stored token; resource metadata: ` + prm.URL
	if ae.Error() != want || ae.Token != "moved" {
		t.Errorf("Error() = %q\nwant %q (token %q)", ae.Error(), want, ae.Token)
	}

	// The metadata still names the issuer (a trailing slash aside): refreshed.
	names = "https://as.example/"
	a = NewSource(context.Background(), tg, SourceOptions{})
	if !a.Retry(context.Background(), &fail.AuthError{Server: "srv", Status: 401, ResourceMetadata: prm.URL}) || ts.hits() != 1 || a.Bearer() != "a2" {
		t.Errorf("retry with the same issuer: hits %d, bearer %q", ts.hits(), a.Bearer())
	}
}

func TestLoginAuthServerMigration(t *testing.T) {
	as1, as2 := newCAAS(t), newCAAS(t)
	as1.regClientID, as2.regClientID = "as1-client", "as2-client"
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: as1.URL + "/mcp", TokenDir: t.TempDir()}
	var notes []string
	login := func() *StoredToken {
		t.Helper()
		open, browsed, _ := caBrowser(t, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		notes = nil
		tok, err := Login(ctx, tg, LoginOptions{Open: open, Note: func(f string, a ...any) { notes = append(notes, fmt.Sprintf(f, a...)) }})
		if err != nil {
			t.Fatalf("Login: %v", err)
		}
		<-browsed
		return tok
	}
	if tok := login(); tok.Issuer != as1.URL || tok.ClientID != "as1-client" || len(notes) != 0 {
		t.Fatalf("first login: %+v, notes %q", tok, notes)
	}
	as1.mu.Lock()
	as1.prmAS = as2.URL
	as1.mu.Unlock()
	if tok := login(); tok.Issuer != as2.URL || tok.ClientID != "as2-client" || !tok.Registered {
		t.Fatalf("second login: %+v", tok)
	}
	if want := []string{"the server's authorization server is now " + as2.URL + " (the stored token is from " + as1.URL + "): logging in there anew"}; !slices.Equal(notes, want) {
		t.Errorf("notes %q\nwant %q", notes, want)
	}
	if got := as2.requests(); !slices.Contains(got, "POST /register") {
		t.Errorf("no registration at the new authorization server: %q", got)
	}
	as2.mu.Lock()
	defer as2.mu.Unlock()
	if strings.Contains(as2.authQuery.Encode()+as2.tokenForm.Encode()+as2.tokenAuth, "as1-client") {
		t.Errorf("the old authorization server's client was presented to the new one: %v %v", as2.authQuery, as2.tokenForm)
	}
}

// SEP-2350: a 403 to a stored token carries the token's scopes, which the
// new login keeps asking for.
func TestExplainForbiddenGranted(t *testing.T) {
	tg := caTarget(t)
	caSave(t, tg, caStored("https://as.example/token", "a1", "r1", time.Hour))
	a := NewSource(context.Background(), tg, SourceOptions{})
	ae := &fail.AuthError{Server: "srv", Status: 403, Scope: "write admin"}
	a.Explain(ae)
	if ae.Granted != "read write" || !slices.Equal(ae.LoginScopes(), []string{"read", "write", "admin"}) {
		t.Errorf("granted %q, login scopes %q", ae.Granted, ae.LoginScopes())
	}
	if ae.Token != "" {
		t.Errorf("token %q", ae.Token)
	}
	if msg := ae.Error(); msg != `server "srv" refused access (HTTP 403); it requires the scope write admin` {
		t.Errorf("Error() = %q", msg)
	}
	// No scope named: nothing to add.
	bare := &fail.AuthError{Server: "srv", Status: 403}
	a.Explain(bare)
	if bare.Granted != "" {
		t.Errorf("explained %+v", bare)
	}
}
