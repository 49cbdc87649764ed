// Stored OAuth tokens on connections (see AUTHENTICATION in mcpx(1)): every
// command but login is non-interactive about authentication. It sends the
// stored token, refreshes it when it has expired (or when the server refuses
// it), and otherwise lets the server's 401 end the command with exit 6.

package auth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/secret"
	"github.com/mcpx-cli/mcpx/internal/text"
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
	// movedTo: the server refused the stored token and its
	// protected-resource metadata now names this authorization server,
	// not the token's issuer (SEP-2352).
	movedTo string
	// dpop is the key of a DPoP token, read from dpopJWK (the token's).
	dpop    *dpopKey
	dpopJWK string
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
	if tok.expired(time.Now()) || machine(t) && (tok.ClientID != t.OAuth.ClientID || tok.Grant != t.OAuth.Grant) {
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

// DPoP is the prover of the token Bearer gives when it is a DPoP one
// (bound to the key stored with it), nil for a Bearer token.
func (a *Source) DPoP() transport.Prover {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.state != "token" || a.tok.TokenType != "DPoP" || a.tok.DPoPKey == "" {
		return nil
	}
	if a.dpop == nil || a.dpopJWK != a.tok.DPoPKey {
		k, err := parseDPoPKey(a.tok.DPoPKey)
		if err != nil {
			return nil // sent as Bearer, which the server refuses: exit 6
		}
		a.dpop, a.dpopJWK = k, a.tok.DPoPKey
	}
	return a.dpop
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
	nt, err := a.refreshToken(ctx, cur, form)
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

// refreshToken asks the token endpoint for a new token with the refresh
// grant; a DPoP token's refresh proves the key it is bound to, as the
// refresh token is bound too (RFC 9449 §5), and the new token keeps it.
func (a *Source) refreshToken(ctx context.Context, cur *StoredToken, form url.Values) (*StoredToken, error) {
	h := newOAuthHTTP(a.t.Name, a.o.Secrets)
	if cur.DPoPKey != "" {
		k, err := parseDPoPKey(cur.DPoPKey)
		if err != nil {
			return nil, err
		}
		h.dpop = k
	}
	nt, err := h.token(ctx, cur.TokenEndpoint, form, clientFor(cur, a.t))
	if err == nil && nt.TokenType == "DPoP" {
		nt.DPoPKey = cur.DPoPKey
	}
	return nt, err
}

// grant renews a machine grant's token (the caller holds the lock and
// a.mu): the one another process stored meanwhile, else a new grant. A
// failed grant leaves the stale token (if any) and says why.
func (a *Source) grant(ctx context.Context, cur *StoredToken, stale string) bool {
	if cur != nil {
		a.o.Secrets.Add(cur.Secrets()...)
		if cur.ClientID == a.t.OAuth.ClientID && cur.Grant == a.t.OAuth.Grant &&
			cur.AccessToken != stale && !cur.expired(time.Now()) {
			a.tok, a.state = cur, "token"
			return true
		}
	}
	prev := cur
	if a.movedTo != "" {
		prev = nil // another authorization server: discovered anew, never the stored one's endpoint
	}
	nt, err := machineGrant(ctx, a.t, a.server, prev, grantOptions{secrets: a.o.Secrets, note: a.o.Note})
	if err != nil {
		a.grantFailed = true
		a.why = strings.Replace(bare(err), fmt.Sprintf(refusedGrant, a.t.OAuth.Grant), "the token endpoint answered ", 1)
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
//
// The credentials of one authorization server are never presented to
// another (SEP-2352): when the server's protected-resource metadata (the
// 401's resource_metadata) no longer names the stored token's issuer, the
// token is not refreshed there; a machine grant discovers the new
// authorization server and asks it, an authorization-code token is left
// for a new login (Explain says why).
func (a *Source) Retry(ctx context.Context, ae *fail.AuthError) bool {
	a.mu.Lock()
	used := a.state == "token" && !a.refreshed && ae.Status == 401
	stale, issuer := "", ""
	if used {
		stale, issuer = a.tok.AccessToken, a.tok.Issuer
	}
	a.mu.Unlock()
	if !used || ctx.Err() != nil {
		return false
	}
	if moved := a.movedAuthServer(ctx, ae.ResourceMetadata, issuer); moved != "" {
		a.mu.Lock()
		a.movedTo = moved
		a.mu.Unlock()
		if !machine(a.t) {
			return false
		}
	}
	return a.refresh(ctx, stale)
}

// movedAuthServer reads the protected-resource metadata a 401 named and
// returns its first authorization server when it does not list issuer
// (the one that issued the stored token); "" when it does, or when the
// metadata cannot be read (the refresh then goes on as before).
func (a *Source) movedAuthServer(ctx context.Context, prmURL, issuer string) string {
	if prmURL == "" || issuer == "" || checkEndpoint("resource_metadata", prmURL, true) != nil {
		return ""
	}
	var prm prmDoc
	h := newOAuthHTTP(a.t.Name, a.o.Secrets)
	if st, err := h.getJSON(ctx, prmURL, &prm); err != nil || st != http.StatusOK || len(prm.AuthorizationServers) == 0 {
		return ""
	}
	for _, s := range prm.AuthorizationServers {
		if strings.TrimSuffix(s, "/") == strings.TrimSuffix(issuer, "/") {
			return ""
		}
	}
	return prm.AuthorizationServers[0]
}

// Explain adds to a 401 what mcpx had: an expired token, or one the server
// refused.
//
// To a 403 it adds the scopes of the token it refused, which a new login
// keeps asking for (SEP-2350).
func (a *Source) Explain(ae *fail.AuthError) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ae.Status == 403 {
		a.explainForbidden(ae)
		return
	}
	if ae.Status == 401 && a.grantFailed && (a.tok == nil || a.state != "token") {
		ae.Token, ae.Why, ae.Grant = "grant", a.why, a.t.OAuth.Grant
		return
	}
	if ae.Status != 401 || a.tok == nil {
		return
	}
	if a.movedTo != "" && a.state == "token" {
		ae.Token, ae.Why = "moved", fmt.Sprintf("its protected-resource metadata now names the authorization server %s, not %s, which issued the stored token", text.OneLine(a.movedTo), a.tok.Issuer)
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

// explainForbidden adds the refused token's scopes to a 403 that names
// the scopes it requires (the caller holds a.mu).
func (a *Source) explainForbidden(ae *fail.AuthError) {
	if a.tok != nil && a.state == "token" && ae.Scope != "" {
		ae.Granted = a.tok.Scope
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
