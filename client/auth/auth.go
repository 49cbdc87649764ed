// Stored OAuth tokens on connections (see AUTHENTICATION in mcpx(1)): every
// command but login is non-interactive about authentication. It sends the
// stored token, refreshes it when it has expired (or when the server refuses
// it), and otherwise lets the server's 401 end the command with exit 6.

package auth

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/secret"
)

// Info is the OAuth state of a server as a connection saw it.
type Info struct {
	// State: "none" (no stored token was used), "token" (a stored token
	// was used), "expired" (the stored token had expired and could not be
	// refreshed), "required" (the server asked for authentication).
	State     string
	ExpiresAt *time.Time // the token's expiry, when it has one
}

// SourceOptions are what a token source needs from the connection.
type SourceOptions struct {
	// Secrets are masked before a message cuts a server's text short, and
	// the stored tokens are added to them as they are read (nil: neither).
	Secrets *secret.Set
	Note    func(string, ...any) // notes always shown
	// Unusable, when set, is told of a stored token that cannot be used
	// (its file unreadable, unsafe or broken): the server's name as the
	// user gives it, and why. The connection goes on without a token.
	Unusable func(server string, err error)
}

// Source gives a connection the server's stored token.
type Source struct {
	t      *config.Target
	o      SourceOptions
	store  tokenStore
	server string

	mu        sync.Mutex
	tok       *StoredToken
	state     string // "none", "token", "expired"
	why       string // why the last refresh failed
	refreshed bool   // one refresh per connection at most
	// grantFailed: the client_credentials grant failed (why says how).
	grantFailed bool
}

// NewSource loads the stored token of an http or sse target, refreshing
// it when it has expired. It returns nil when tokens do not apply: a stdio
// server, no token directory, or an Authorization header the user gave
// (static credentials win).
func NewSource(ctx context.Context, t *config.Target, o SourceOptions) *Source {
	if t.Transport == config.Stdio || t.TokenDir == "" {
		return nil
	}
	for k := range t.Headers {
		if strings.EqualFold(k, "Authorization") {
			return nil
		}
	}
	if u, err := url.Parse(t.URL); err != nil || u.User != nil {
		return nil // credentials in the URL: Go sends them as Basic auth
	}
	if checkEndpoint("server", t.URL, true) != nil {
		return nil // no bearer over plain http to a host that is not loopback
	}
	server, err := transport.CanonicalURL(t.URL)
	if err != nil {
		return nil
	}
	a := &Source{t: t, o: o, store: tokenStore{dir: t.TokenDir}, server: server, state: "none"}
	tok, err := a.store.load(server)
	if err != nil {
		if o.Unusable != nil {
			o.Unusable(t.Name, err)
		}
		if !machine(t) {
			return a
		}
		tok = nil // the grant replaces it
	}
	if tok == nil {
		if machine(t) && !t.NoRefresh {
			a.refresh(ctx, "")
		}
		return a
	}
	o.Secrets.Add(tok.Secrets()...)
	a.tok, a.state = tok, "token"
	if tok.expired(time.Now()) || machine(t) && tok.ClientID != t.OAuth.ClientID {
		a.refresh(ctx, tok.AccessToken)
	}
	return a
}

// Bearer is the token to send ("" for none).
func (a *Source) Bearer() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.state != "token" {
		return ""
	}
	return a.tok.AccessToken
}

// refresh replaces the token whose access token is stale: by the one
// another process stored meanwhile, else through the refresh token. The
// store's lock makes concurrent processes refresh once: the second finds
// the first one's token.
func (a *Source) refresh(ctx context.Context, stale string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.refreshed = true
	expire := func(why string) bool {
		a.why = why
		if a.tok == nil {
			a.state = "none"
		} else if a.tok.expired(time.Now()) {
			a.state = "expired"
		}
		return false
	}
	if a.t.NoRefresh {
		return expire("")
	}
	unlock, err := a.store.lock(ctx, a.server)
	if err != nil {
		return expire(err.Error())
	}
	defer unlock()
	cur, err := a.store.load(a.server)
	if err != nil && !machine(a.t) {
		return expire(err.Error())
	}
	if machine(a.t) {
		return a.grant(ctx, cur, stale)
	}
	if cur == nil { // logged out meanwhile
		a.tok, a.state = nil, "none"
		return false
	}
	a.o.Secrets.Add(cur.Secrets()...)
	if cur.AccessToken != stale && !cur.expired(time.Now()) {
		a.tok, a.state = cur, "token"
		return true
	}
	a.tok = cur
	if cur.RefreshToken == "" {
		return expire("")
	}
	if err := checkEndpoint("the stored token endpoint", cur.TokenEndpoint, true); err != nil {
		return expire(err.Error())
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {cur.RefreshToken}}
	if cur.Resource != "" {
		form.Set("resource", cur.Resource)
	}
	h := newOAuthHTTP(a.t.Name, a.o.Secrets)
	nt, err := h.token(ctx, cur.TokenEndpoint, form, clientFor(cur, a.t))
	if err != nil {
		return expire(bare(err))
	}
	a.o.Secrets.Add(nt.Secrets()...)
	nt.Server, nt.Resource, nt.Issuer = cur.Server, cur.Resource, cur.Issuer
	nt.TokenEndpoint, nt.RevocationEndpoint = cur.TokenEndpoint, cur.RevocationEndpoint
	nt.ClientID, nt.ClientSecret, nt.Registered, nt.AuthMethod = cur.ClientID, cur.ClientSecret, cur.Registered, cur.AuthMethod
	if nt.RefreshToken == "" {
		nt.RefreshToken = cur.RefreshToken
	}
	if nt.Scope == "" {
		nt.Scope = cur.Scope
	}
	if err := a.store.save(nt); err != nil && a.o.Note != nil {
		a.o.Note("server %q: the refreshed token is used but could not be stored: %v", a.t.Name, err)
	}
	a.tok, a.state = nt, "token"
	return true
}

// grant renews a client_credentials token (the caller holds the lock and
// a.mu): the one another process stored meanwhile, else a new grant. A
// failed grant leaves the stale token (if any) and says why.
func (a *Source) grant(ctx context.Context, cur *StoredToken, stale string) bool {
	if cur != nil {
		a.o.Secrets.Add(cur.Secrets()...)
		if cur.ClientID == a.t.OAuth.ClientID && cur.Grant == config.GrantClientCredentials &&
			cur.AccessToken != stale && !cur.expired(time.Now()) {
			a.tok, a.state = cur, "token"
			return true
		}
	}
	nt, err := clientCredentials(ctx, a.t, a.server, cur, grantOptions{secrets: a.o.Secrets, note: a.o.Note})
	if err != nil {
		a.grantFailed = true
		a.why = strings.Replace(bare(err), refusedGrant, "the token endpoint answered ", 1)
		if a.tok != nil && a.tok.expired(time.Now()) {
			a.state = "expired"
		} else if a.tok == nil {
			a.state = "none"
		}
		return false
	}
	if err := a.store.save(nt); err != nil && a.o.Note != nil {
		a.o.Note("server %q: the new token is used but could not be stored: %v", a.t.Name, err)
	}
	a.tok, a.state, a.grantFailed, a.why = nt, "token", false, ""
	return true
}

// Retry reports whether a refused connection is worth one more attempt: a
// 401 to a stored token that a refresh has now replaced.
func (a *Source) Retry(ctx context.Context, ae *fail.AuthError) bool {
	a.mu.Lock()
	used := a.state == "token" && !a.refreshed && ae.Status == 401
	stale := ""
	if used {
		stale = a.tok.AccessToken
	}
	a.mu.Unlock()
	return used && ctx.Err() == nil && a.refresh(ctx, stale)
}

// Explain adds to a 401 what mcpx had: an expired token, or one the server
// refused.
func (a *Source) Explain(ae *fail.AuthError) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ae.Status == 401 && a.grantFailed && (a.tok == nil || a.state != "token") {
		ae.Token, ae.Why = "grant", a.why
		return
	}
	if ae.Status != 401 || a.tok == nil {
		return
	}
	switch a.state {
	case "expired":
		ae.Token, ae.Why = "expired", a.why
		if a.tok.ExpiresAt != nil {
			ae.ExpiredAt = *a.tok.ExpiresAt
		}
	case "token":
		ae.Token, ae.Why = "rejected", a.why
	}
}

// Info is the state for servers --probe.
func (a *Source) Info() Info {
	if a == nil {
		return Info{State: "none"}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.tok == nil || a.state == "none" {
		return Info{State: "none"}
	}
	return Info{State: a.state, ExpiresAt: a.tok.ExpiresAt}
}
