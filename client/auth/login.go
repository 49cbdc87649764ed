// mcpx login and mcpx logout (see AUTHENTICATION in mcpx(1)): the
// authorization-code flow with PKCE on a loopback redirect, and removing (and
// revoking) the tokens.

package auth

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"

	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/secret"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// LoginOptions configure a login.
type LoginOptions struct {
	Scopes          []string                     // --scope (each may hold several, space-separated)
	ProtocolVersion string                       // for the probing initialize
	ClientVersion   string                       // software_version at registration
	Open            func(authURL string)         // shows the authorization URL (prints it, opens a browser)
	Note            func(string, ...any)         // progress notes
	Secrets         *secret.Set                  // masked in quoted answers, and given the tokens and client secrets met
	Listen          func() (net.Listener, error) // the loopback listener (tests); nil: 127.0.0.1:0
	// Paste, when set, is where the user pastes the URL the browser ended
	// on (or the code), for a browser on another machine: no listener
	// answers the redirect (login --paste).
	Paste io.Reader
}

// Login runs the OAuth authorization-code flow for an http or sse server and
// stores the tokens. ctx bounds all of it (the user's wait included).
func Login(ctx context.Context, t *config.Target, o LoginOptions) (*StoredToken, error) {
	o.fillDefaults()
	store := tokenStore{dir: t.TokenDir}
	server, err := checkLoginTarget(t, store)
	if err != nil {
		return nil, err
	}
	if machine(t) {
		// No person: the machine grant, as any command does it.
		tok, err := machineGrant(ctx, t, server, nil, grantOptions{scopes: o.Scopes, protocol: o.ProtocolVersion, secrets: o.Secrets, note: o.Note})
		if err != nil {
			return nil, err
		}
		if err := saveLocked(ctx, store, tok); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &fail.AuthError{Server: t.Name, Msg: err.Error()}
		}
		return tok, nil
	}
	h := newOAuthHTTP(t.Name, o.Secrets)
	as, challenged, err := h.findAuthServer(ctx, t, server, o)
	if err != nil {
		return nil, err
	}
	if err := h.prepareLogin(store, server, as, o); err != nil {
		return nil, err
	}
	ln, redirect, err := listenForRedirect(t.Name, o.Listen)
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	if o.Paste != nil {
		// The port only makes the redirect URI; nothing listens on it.
		ln.Close()
	}
	ca, registered, err := h.loginClient(ctx, t, as, redirect, o)
	if err != nil {
		return nil, err
	}
	scopes := selectScopes(o.Scopes, t.OAuth, challenged, as.prmScopes)
	req, err := h.authorizationRequest(as, ca.ID, redirect, scopes)
	if err != nil {
		return nil, err
	}

	cb := newCallback(req.state, as, o.Note)
	var code string
	if o.Paste != nil {
		cb.outcome = make(chan error, 2) // nobody reads it: no browser waits
		o.Open(req.url)
		if code, err = readPasted(ctx, o.Paste, cb); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &fail.AuthError{Server: t.Name, Msg: err.Error()}
		}
	} else {
		// The listener already queues connections: serving after Open
		// keeps the callback's notes after the instructions Open prints.
		o.Open(req.url)
		defer cb.serve(ln)()
		if code, err = cb.wait(ctx, t.Name); err != nil {
			return nil, err
		}
	}
	tok, err := h.redeemCode(ctx, as, ca, code, req)
	if err != nil {
		cb.done(err)
		return nil, err
	}
	if tok.TokenType == "DPoP" {
		tok.DPoPKey = h.dpop.storedJWK()
	}
	o.Secrets.Add(tok.Secrets()...)
	recordGrant(tok, server, as, ca, registered, scopes)
	if err := saveLocked(ctx, store, tok); err != nil {
		cb.done(err)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &fail.AuthError{Server: t.Name, Msg: err.Error()}
	}
	cb.done(nil)
	return tok, nil
}

// prepareLogin notes a server that moved to another authorization server
// since its stored token (SEP-2352: nothing of the old one's, its client or
// its tokens, is presented to the new one), and makes the DPoP key of the
// tokens when the authorization server advertises DPoP (RFC 9449).
func (h *oauthHTTP) prepareLogin(store tokenStore, server string, as *authServer, o LoginOptions) error {
	if prev, _ := store.load(server); prev != nil && prev.Issuer != "" && strings.TrimSuffix(prev.Issuer, "/") != strings.TrimSuffix(as.Issuer, "/") {
		o.Note("the server's authorization server is now %s (the stored token is from %s): logging in there anew", text.OneLine(as.Issuer), prev.Issuer)
	}
	if offersDPoP(&as.asDoc) {
		k, err := newDPoPKey()
		if err != nil {
			return h.fail("%v", err)
		}
		h.dpop = k
	}
	return nil
}

// fillDefaults makes the callbacks a caller left nil do nothing.
func (o *LoginOptions) fillDefaults() {
	if o.Note == nil {
		o.Note = func(string, ...any) {}
	}
	if o.Open == nil {
		o.Open = func(string) {}
	}
}

// checkLoginTarget refuses what cannot log in (a stdio server, a token
// store that cannot be made, a server URL a token would cross in clear)
// and returns the server's canonical URL, the token store's key.
func checkLoginTarget(t *config.Target, store tokenStore) (string, error) {
	if t.Transport == config.Stdio {
		return "", config.Invalid(t.Name, "login is for http and sse servers; a stdio server gets its credentials from its environment")
	}
	if err := store.mkdir(); err != nil {
		return "", &fail.AuthError{Server: t.Name, Msg: err.Error()}
	}
	server, err := transport.CanonicalURL(t.URL)
	if err != nil {
		return "", config.Invalid(t.Name, err.Error())
	}
	if err := checkEndpoint("the server URL", t.URL, true); err != nil {
		return "", &fail.AuthError{Server: t.Name, Msg: err.Error() + " (a token must not travel in clear)"}
	}
	return server, nil
}

// findAuthServer finds the server's authorization server: from the 401's
// challenge and the protected-resource metadata, else (a server of the
// 2025-03-26 spec, with no such metadata anywhere) by that spec's rules,
// with a note. It returns the scope the challenge asked for too.
func (h *oauthHTTP) findAuthServer(ctx context.Context, t *config.Target, server string, o LoginOptions) (*authServer, string, error) {
	ch, err := h.probeChallenge(ctx, t, o.ProtocolVersion)
	if err != nil {
		return nil, "", err
	}
	as, err := h.discover(ctx, server, ch)
	if np, ok := noPRM(err); ok {
		// No protected-resource metadata anywhere: a server of the
		// 2025-03-26 spec (see legacyAuthServer).
		as, err = h.legacyAuthServer(ctx, server, o.ProtocolVersion, np)
		if err == nil {
			o.Note("%s", as.legacy.note())
		}
	}
	if err != nil {
		return nil, "", err
	}
	return as, ch.scope, nil
}

// listenForRedirect opens the loopback listener the authorization server
// redirects the browser to, and returns it with the redirect URI.
func listenForRedirect(name string, listen func() (net.Listener, error)) (net.Listener, string, error) {
	if listen == nil {
		listen = func() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }
	}
	ln, err := listen()
	if err != nil {
		return nil, "", &fail.AuthError{Server: name, Msg: fmt.Sprintf("cannot listen on a loopback port for the redirect: %v", err)}
	}
	return ln, fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port), nil
}

// loginClient decides the client mcpx logs in as: the configured one, else
// the configured client ID metadata document when the authorization server
// supports them, else one registered now (RFC 7591; registered is then true
// and its secret is a secret), else none, which is an error that says how
// to configure one.
func (h *oauthHTTP) loginClient(ctx context.Context, t *config.Target, as *authServer, redirect string, o LoginOptions) (ca clientAuth, registered bool, err error) {
	switch {
	case t.OAuth != nil && t.OAuth.ClientID != "" && t.OAuth.PrivateKey != "":
		// A confidential client that authenticates with a JWT assertion.
		if ca, err = machineClient(t, as.TokenEndpointAuthMethodsSupported, as.Issuer, o.Secrets); err != nil {
			return ca, false, h.fail("%v", err)
		}
		return ca, false, nil
	case t.OAuth != nil && t.OAuth.ClientID != "":
		ca = clientAuth{ID: t.OAuth.ClientID, Secret: t.OAuth.ClientSecret, Method: t.OAuth.AuthMethod}
		if ca.Method == "" {
			ca.Method = chooseMethod(as.TokenEndpointAuthMethodsSupported, ca.Secret != "")
		}
		return ca, false, nil
	case t.OAuth != nil && t.OAuth.ClientMetadataURL != "" && as.ClientIDMetadataDocumentSupported:
		// A client ID metadata document: its URL is the client id, a
		// public client (PKCE), and nothing is registered.
		return clientAuth{ID: t.OAuth.ClientMetadataURL, Method: "none"}, false, nil
	case as.RegistrationEndpoint != "":
		if ca, err = h.register(ctx, as, redirect, o.ClientVersion); err != nil {
			var ae *fail.AuthError
			if l := as.legacy; l != nil && l.defaults && errors.As(err, &ae) {
				// A guessed endpoint: say what the guess rested on.
				return ca, false, h.fail("%s nor authorization-server metadata (RFC 8414) at %s, and the 2025-03-26 default endpoints do not work: %s",
					strings.TrimSuffix(l.noPRM, ", so its authorization server is unknown"), l.metadataURL, ae.Msg)
			}
			return ca, false, err
		}
		o.Secrets.Add(ca.Secret)
		return ca, true, nil
	}
	e := h.fail("authorization server %s offers no dynamic client registration, and no client is configured for this server", as.Issuer)
	if t.OAuth != nil && t.OAuth.ClientMetadataURL != "" {
		e.Msg = fmt.Sprintf("authorization server %s supports neither client ID metadata documents (so %s cannot be the client id) nor dynamic client registration, and no clientId is configured for this server", as.Issuer, t.OAuth.ClientMetadataURL)
	}
	e.NoClient = true
	return ca, false, e
}

// authRequest is an authorization request: the URL the user opens, and
// the secrets that tie its answer to this login.
type authRequest struct {
	url      string
	redirect string
	verifier string // the PKCE code verifier
	state    string
}

// authorizationRequest builds the authorization URL: code flow with PKCE
// (S256), a fresh state, the RFC 8707 resource, and the scopes if any.
func (h *oauthHTTP) authorizationRequest(as *authServer, clientID, redirect, scopes string) (authRequest, error) {
	r := authRequest{redirect: redirect}
	var err error
	if r.verifier, err = mcpclient.GenerateCodeVerifier(); err != nil {
		return r, err
	}
	if r.state, err = mcpclient.GenerateState(); err != nil {
		return r, err
	}
	authURL, err := url.Parse(as.AuthorizationEndpoint)
	if err != nil {
		return r, h.fail("bad authorization endpoint: %v", err)
	}
	q := authURL.Query()
	q.Set("response_type", "code")
	q.Set("client_id", clientID)
	q.Set("redirect_uri", redirect)
	q.Set("code_challenge", mcpclient.GenerateCodeChallenge(r.verifier))
	q.Set("code_challenge_method", "S256")
	q.Set("state", r.state)
	q.Set("resource", as.resource)
	if scopes != "" {
		q.Set("scope", scopes)
	}
	authURL.RawQuery = q.Encode()
	r.url = authURL.String()
	return r, nil
}

// redeemCode exchanges the authorization code for tokens.
func (h *oauthHTTP) redeemCode(ctx context.Context, as *authServer, ca clientAuth, code string, req authRequest) (*StoredToken, error) {
	tok, err := h.token(ctx, as.TokenEndpoint, url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {req.redirect},
		"code_verifier": {req.verifier},
		"resource":      {as.resource},
	}, ca)
	var ge *grantError
	if errors.As(err, &ge) {
		return nil, h.fail("the token endpoint refused the authorization code: %s", ge.Msg)
	}
	return tok, err
}

// recordGrant files with the tokens what a refresh or a logout needs: the
// server, resource and issuer, the endpoints, the client (a registered
// client's secret too: nothing else knows it), and the scopes asked for
// when the answer names none.
func recordGrant(tok *StoredToken, server string, as *authServer, ca clientAuth, registered bool, scopes string) {
	tok.Server, tok.Resource, tok.Issuer = server, as.resource, as.Issuer
	tok.TokenEndpoint, tok.RevocationEndpoint = as.TokenEndpoint, as.RevocationEndpoint
	tok.ClientID, tok.AuthMethod, tok.Registered = ca.ID, ca.Method, registered
	if registered {
		tok.ClientSecret = ca.Secret
	}
	if tok.Scope == "" {
		tok.Scope = scopes
	}
}

// saveLocked stores a token under the server's lock, so a login never
// interleaves with another process's refresh of the same server.
func saveLocked(ctx context.Context, store tokenStore, tok *StoredToken) error {
	unlock, err := store.lock(ctx, tok.Server)
	if err != nil {
		return err
	}
	defer unlock()
	return store.save(tok)
}

// selectScopes: --scope, else the config's "scopes", else the 401's scope,
// else the protected-resource metadata's scopes_supported, else none.
func selectScopes(flag []string, oc *config.OAuthConfig, challenged string, supported []string) string {
	pick := func(list []string) string {
		var out []string
		seen := map[string]bool{}
		for _, s := range list {
			for _, f := range strings.Fields(s) {
				if !seen[f] {
					seen[f] = true
					out = append(out, f)
				}
			}
		}
		return strings.Join(out, " ")
	}
	if s := pick(flag); s != "" {
		return s
	}
	if oc != nil {
		if s := pick(oc.Scopes); s != "" {
			return s
		}
	}
	if s := pick([]string{challenged}); s != "" {
		return s
	}
	return pick(supported)
}

// callback is the loopback redirect target.
type callback struct {
	state, issuer string
	issRequired   bool // the metadata promises iss (RFC 9207 §2.4)
	note          func(string, ...any)
	answered      atomic.Bool         // the first redirect decides; later ones get 409
	results       chan callbackResult // the first redirect's result
	outcome       chan error          // how the login ended, for the browser
}

type callbackResult struct {
	code string
	err  error
}

func newCallback(state string, as *authServer, note func(string, ...any)) *callback {
	return &callback{state: state, issuer: as.Issuer, issRequired: as.AuthorizationResponseIssParameter, note: note,
		results: make(chan callbackResult, 1), outcome: make(chan error, 1)}
}

// serve answers redirects on ln until the returned stop is called; stop
// gives the browser's page at most 2 seconds to be written.
func (cb *callback) serve(ln net.Listener) (stop func()) {
	srv := &http.Server{Handler: cb, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = srv.Serve(ln) }()
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}
}

// wait returns the code of the first redirect with the right state. A
// redirect that carries an error ends the login (and the browser is told).
func (cb *callback) wait(ctx context.Context, name string) (string, error) {
	var res callbackResult
	select {
	case res = <-cb.results:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	if res.err != nil {
		cb.done(res.err)
		return "", &fail.AuthError{Server: name, Msg: res.err.Error()}
	}
	return res.code, nil
}

// done tells the browser waiting on the redirect how the login ended
// (nil: logged in).
func (cb *callback) done(err error) { cb.outcome <- err }

func (cb *callback) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/callback" {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	if q.Get("state") != cb.state {
		// A forged or stale redirect (another tab, a page probing local
		// ports): refused, and the login goes on waiting for the real one.
		cb.note("ignored a request to the callback with the wrong state (a forged or stale redirect); still waiting")
		http.Error(w, "mcpx: this is not the redirect of the login in progress (wrong state)", http.StatusBadRequest)
		return
	}
	res := cb.check(q)
	if !cb.answered.CompareAndSwap(false, true) { // a second redirect: the first decides
		http.Error(w, "mcpx: this login has already been answered", http.StatusConflict)
		return
	}
	cb.results <- res
	var err error
	select {
	case err = <-cb.outcome:
	case <-r.Context().Done():
		return
	case <-time.After(time.Minute):
		err = errors.New("timed out")
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, "<!doctype html><title>mcpx login failed</title><p>mcpx login failed: %s</p>\n", html.EscapeString(err.Error()))
		return
	}
	fmt.Fprint(w, "<!doctype html><title>mcpx login</title><p>mcpx is logged in. You can close this tab.</p>\n")
}

// check reads a redirect with the right state: its code, or why it
// carries none (an error from the server, an issuer that is not ours).
func (cb *callback) check(q url.Values) callbackResult {
	var res callbackResult
	switch {
	case q.Get("error") != "":
		msg := q.Get("error")
		if d := q.Get("error_description"); d != "" {
			msg += ": " + d
		}
		res.err = fmt.Errorf("the authorization server refused: %s", text.OneLine(msg))
	case q.Get("iss") != "" && q.Get("iss") != cb.issuer:
		// Simple string comparison (RFC 9207 §2.4): no case folding, port
		// elision, trailing slash or percent-decoding.
		res.err = fmt.Errorf("the authorization redirect came from issuer %q, not %q (RFC 9207); nothing was accepted", text.OneLine(q.Get("iss")), cb.issuer)
	case q.Get("iss") == "" && cb.issRequired:
		res.err = fmt.Errorf("the authorization redirect lacks the iss parameter its server's metadata promises (RFC 9207); nothing was accepted")
	case q.Get("code") == "":
		res.err = errors.New("the authorization redirect carried no code")
	default:
		res.code = q.Get("code")
	}
	return res
}

// maxPaste bounds a pasted line.
const maxPaste = 64 << 10

// readPasted reads what the user pastes (login --paste): the URL the
// browser ended on (http://127.0.0.1:PORT/callback?code=...&state=...),
// its query alone, or the bare code. A URL or a query must carry the
// login's state; a bare code cannot be checked, as the user chose it.
// Empty lines are skipped; the end of stdin, or ctx, ends the wait.
func readPasted(ctx context.Context, in io.Reader, cb *callback) (string, error) {
	type line struct {
		text string
		err  error
	}
	lines := make(chan line, 1)
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 4096), maxPaste)
		for sc.Scan() {
			if t := strings.TrimSpace(sc.Text()); t != "" {
				lines <- line{text: t}
				return
			}
		}
		err := sc.Err()
		if err == nil {
			err = io.EOF
		}
		lines <- line{err: err}
	}()
	var l line
	select {
	case l = <-lines:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	switch {
	case errors.Is(l.err, io.EOF):
		return "", errors.New("stdin ended before the redirected URL or the code was pasted; nothing was accepted")
	case errors.Is(l.err, bufio.ErrTooLong):
		return "", fmt.Errorf("the pasted line is longer than %d bytes; paste the URL the browser ended on, or the code", maxPaste)
	case l.err != nil:
		return "", fmt.Errorf("reading stdin: %v", l.err)
	}
	var q url.Values
	switch t := l.text; {
	case strings.Contains(t, "://"):
		u, err := url.Parse(t)
		if err != nil {
			return "", errors.New("the pasted text is not a URL; paste the URL the browser ended on, or the code")
		}
		q = u.Query()
	case strings.Contains(t, "="):
		var err error
		if q, err = url.ParseQuery(strings.TrimPrefix(t, "?")); err != nil {
			return "", errors.New("the pasted text is not a URL query; paste the URL the browser ended on, or the code")
		}
	default:
		if !tokenChars(t) {
			return "", errors.New("the pasted code has characters a code cannot have; paste the URL the browser ended on, or the code")
		}
		return t, nil
	}
	if !q.Has("state") {
		return "", errors.New("the pasted URL has no state, so it cannot be checked; paste the whole URL the browser ended on, or the code alone")
	}
	if q.Get("state") != cb.state {
		return "", errors.New("the pasted URL is not the redirect of this login (wrong state); nothing was accepted")
	}
	res := cb.check(q)
	if res.err != nil {
		return "", res.err
	}
	return res.code, nil
}

// LogoutResult says what logout did.
type LogoutResult struct {
	Removed bool     // a token file was removed
	Revoked []string // the kinds revoked ("refresh", "access")
	Warns   []string // revocations that failed
}

// Logout revokes a server's stored tokens where the authorization server
// offers revocation, then removes them; a failed revocation is a warning,
// and the tokens are removed all the same.
func Logout(ctx context.Context, t *config.Target, sec *secret.Set) (LogoutResult, error) {
	var r LogoutResult
	if t.Transport == config.Stdio {
		return r, config.Invalid(t.Name, "logout is for http and sse servers")
	}
	server, err := transport.CanonicalURL(t.URL)
	if err != nil {
		return r, config.Invalid(t.Name, err.Error())
	}
	store := tokenStore{dir: t.TokenDir}
	unlock, err := store.lock(ctx, server)
	if err != nil {
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		return r, &fail.AuthError{Server: t.Name, Msg: err.Error()}
	}
	defer unlock()
	tok, err := store.load(server)
	if err != nil {
		// A damaged file is removed all the same.
		removed, rerr := store.remove(server)
		r.Removed = removed
		if rerr != nil {
			return r, &fail.AuthError{Server: t.Name, Msg: rerr.Error()}
		}
		r.Warns = append(r.Warns, err.Error())
		return r, nil
	}
	if tok == nil {
		return r, nil
	}
	if tok.RevocationEndpoint != "" && checkEndpoint("revocation_endpoint", tok.RevocationEndpoint, true) == nil {
		h := newOAuthHTTP(t.Name, sec)
		ca := clientFor(tok, t)
		for _, k := range []struct{ hint, value string }{{"refresh_token", tok.RefreshToken}, {"access_token", tok.AccessToken}} {
			if k.value == "" {
				continue
			}
			if err := h.revoke(ctx, tok.RevocationEndpoint, k.value, k.hint, ca); err != nil {
				r.Warns = append(r.Warns, fmt.Sprintf("revoking the %s failed: %s", strings.ReplaceAll(k.hint, "_", " "), bare(err)))
				continue
			}
			r.Revoked = append(r.Revoked, strings.TrimSuffix(k.hint, "_token"))
		}
	}
	removed, err := store.remove(server)
	r.Removed = removed
	if err != nil {
		return r, &fail.AuthError{Server: t.Name, Msg: err.Error()}
	}
	return r, nil
}

// clientFor is the client a stored token was issued to: a registered
// client's secret is in the file; a configured client's comes from the
// config (so a rotated secret is used at once).
func clientFor(tok *StoredToken, t *config.Target) clientAuth {
	ca := clientAuth{ID: tok.ClientID, Secret: tok.ClientSecret, Method: tok.AuthMethod}
	if !tok.Registered && t.OAuth != nil && t.OAuth.ClientID == tok.ClientID {
		ca.Secret = t.OAuth.ClientSecret
		if ca.Method == config.AuthPrivateKeyJWT && t.OAuth.PrivateKey != "" {
			ca.Key, _ = config.ParsePrivateKey(t.OAuth.PrivateKey) // checked when the config was read
			ca.KeyID, ca.Audience = t.OAuth.KeyID, tok.Issuer
		}
	}
	return ca
}

// bare is an error's message without the "server X:" its type adds, for a
// message that names the server already.
func bare(err error) string {
	var ce *fail.ConnectError
	var ae *fail.AuthError
	switch {
	case errors.As(err, &ce):
		return ce.Msg
	case errors.As(err, &ae) && ae.Msg != "":
		return ae.Msg
	}
	return text.OneLine(err.Error())
}
