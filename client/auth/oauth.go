// The OAuth 2.1 protocol pieces (see AUTHENTICATION in mcpx(1)): metadata
// discovery (RFC 9728 protected-resource metadata, then RFC 8414 / OpenID
// authorization-server metadata), dynamic client registration (RFC 7591), the
// token endpoint (authorization code with PKCE, refresh) and revocation (RFC
// 7009).
//
// mcp-go has an OAuth handler, but it does not fit a CLI that stores tokens
// between processes: its discovery tries one protected-resource URL (no root
// fallback) and then guesses 2025-03-26 default endpoints; a configured
// authorization-server URL loses the RFC 8707 resource; its refresh is
// coordinated inside one process only; and it has no revocation. mcpx uses
// its PKCE and state generators and does the rest here.
//
// Beyond what AUTHENTICATION in mcpx(1) promises, a server of the 2025-03-26
// authorization spec (no protected-resource metadata at all) is still logged
// in to by that spec's rules (legacyAuthServer): the authorization server at
// the server's origin, its RFC 8414 metadata there, else the default endpoints
// /authorize, /token and /register. Unlike mcp-go, mcpx takes that path only
// when the server asked for authentication (401), named no metadata, and every
// well-known protected-resource URL answered 404: a PRM that exists but is
// invalid or is for another resource is still refused.

package auth

import (
	"bytes"
	"context"
	"crypto"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/secret"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// maxOAuthBody bounds a metadata, registration or token answer.
const maxOAuthBody = 1 << 20

// oauthHTTP makes the requests of an OAuth flow: redirects only within an
// origin, every body bounded, every failure worded for the user.
type oauthHTTP struct {
	hc      *http.Client
	server  string      // the server's name, for messages
	secrets *secret.Set // masked in quoted answers
	// machine: a client_credentials grant, which needs no authorization
	// endpoint nor PKCE from the metadata.
	machine bool
	// dpop, when set, proves possession of the key at the token endpoint
	// (RFC 9449 §5), which then issues DPoP tokens bound to it.
	dpop *dpopKey
}

func newOAuthHTTP(server string, sec *secret.Set) *oauthHTTP {
	base := http.DefaultTransport.(*http.Transport).Clone()
	return &oauthHTTP{hc: &http.Client{Transport: base, CheckRedirect: transport.SameOrigin}, server: server, secrets: sec}
}

// do sends req and reads at most maxOAuthBody of the answer.
func (h *oauthHTTP) do(req *http.Request) (*http.Response, []byte, error) {
	resp, err := h.hc.Do(req)
	if err != nil {
		if ctxErr := req.Context().Err(); ctxErr != nil {
			return nil, nil, ctxErr
		}
		return nil, nil, &fail.ConnectError{Server: h.server, Phase: "login", Msg: fmt.Sprintf("cannot reach %s: %v", req.URL.Redacted(), unwrapURLError(err)), Err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxOAuthBody+1))
	if err != nil {
		if ctxErr := req.Context().Err(); ctxErr != nil {
			return nil, nil, ctxErr
		}
		return nil, nil, &fail.ConnectError{Server: h.server, Phase: "login", Msg: fmt.Sprintf("reading the answer of %s: %v", req.URL.Redacted(), err), Err: err}
	}
	if len(body) > maxOAuthBody {
		return nil, nil, h.fail("%s answered more than %d bytes", req.URL.Redacted(), maxOAuthBody)
	}
	return resp, body, nil
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// fail is an authentication failure of the flow (exit 6).
func (h *oauthHTTP) fail(format string, args ...any) *fail.AuthError {
	return &fail.AuthError{Server: h.server, Msg: fmt.Sprintf(format, args...)}
}

// getJSON fetches a metadata document. It returns the HTTP status; v is
// filled only on 200.
func (h *oauthHTTP) getJSON(ctx context.Context, u string, v any) (int, error) {
	return h.getJSONWith(ctx, u, v, nil)
}

// getJSONWith is getJSON with extra request headers.
func (h *oauthHTTP) getJSONWith(ctx context.Context, u string, v any, header http.Header) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, h.fail("bad metadata URL %q: %v", u, err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Accept", "application/json")
	resp, body, err := h.do(req)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return resp.StatusCode, h.fail("the metadata at %s is not a valid JSON document: %s", u, text.OneLine(err.Error()))
	}
	return resp.StatusCode, nil
}

// challenge is what the server's 401 said.
type challenge struct {
	status           int
	resourceMetadata string
	scope            string
}

// probeChallenge sends the request a client starts with (an initialize POST;
// for SSE the stream's GET) without a token, to read the server's
// WWW-Authenticate challenge. A streamable HTTP server that lets initialize
// through unchallenged (a 2xx, or the 400 of a server without initialize)
// and asks for a token only for operations, each maybe with its own scope,
// gets a tools/list too, as the first operation
// of a client: its challenge is the one that counts.
func (h *oauthHTTP) probeChallenge(ctx context.Context, t *config.Target, protocol string) (challenge, error) {
	if t.Transport == config.SSE {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.URL, nil)
		if err != nil {
			return challenge{}, h.fail("bad server URL: %v", err)
		}
		req.Header.Set("Accept", "text/event-stream")
		c, _, err := h.probe(t, req)
		return c, err
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"mcpx","version":"login"}}}`, protocol)
	req, err := probePost(ctx, t.URL, body)
	if err != nil {
		return challenge{}, h.fail("bad server URL: %v", err)
	}
	c, session, err := h.probe(t, req)
	if err != nil || c.status >= 300 && c.status != http.StatusBadRequest {
		// A challenge, or no MCP endpoint at all; a 400 may be a server
		// of the 2026-07-28 era, which has no initialize.
		return c, err
	}
	// The first operation, as a client of protocol would send it: in the
	// 2026-07-28 era stateless, with the version header and _meta.
	params := ""
	if protocol >= "2026" {
		params = fmt.Sprintf(`,"params":{"_meta":{%q:%q,%q:{},%q:{"name":"mcpx","version":"login"}}}`,
			mcp.MetaKeyProtocolVersion, protocol, mcp.MetaKeyClientCapabilities, mcp.MetaKeyClientInfo)
	}
	req, _ = probePost(ctx, t.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/list"`+params+`}`)
	req.Header.Set("Mcp-Protocol-Version", protocol)
	req.Header.Set("Mcp-Method", "tools/list")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if c2, _, err := h.probe(t, req); err != nil || c2.status == http.StatusUnauthorized || c2.status == http.StatusForbidden {
		return c2, err
	}
	return c, nil
}

// probePost is a JSON-RPC POST of a probe.
func probePost(ctx context.Context, u, body string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	return req, err
}

// probe sends a probe with the target's headers (never its Authorization)
// and reads the status, the challenge and the session id given.
func (h *oauthHTTP) probe(t *config.Target, req *http.Request) (challenge, string, error) {
	ctx := req.Context()
	for k, v := range t.Headers {
		if !strings.EqualFold(k, "Authorization") {
			req.Header.Set(k, v)
		}
	}
	// The answer may be an event stream that never ends: read the status
	// and the headers only.
	resp, err := h.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return challenge{}, "", ctx.Err()
		}
		return challenge{}, "", &fail.ConnectError{Server: h.server, Phase: "login", Msg: fmt.Sprintf("cannot reach the server: %v", unwrapURLError(err)), Err: err}
	}
	resp.Body.Close()
	c := challenge{status: resp.StatusCode}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		for _, v := range resp.Header.Values("WWW-Authenticate") {
			if m := transport.ChallengeParam(v, "resource_metadata"); m != "" && c.resourceMetadata == "" {
				c.resourceMetadata = m
			}
			if s := transport.ChallengeParam(v, "scope"); s != "" && c.scope == "" {
				c.scope = s
			}
		}
	}
	return c, resp.Header.Get("Mcp-Session-Id"), nil
}

// prmDoc is RFC 9728 protected-resource metadata.
type prmDoc struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// asDoc is RFC 8414 authorization-server metadata (or OpenID discovery).
type asDoc struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	AuthorizationResponseIssParameter bool     `json:"authorization_response_iss_parameter_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	DPoPSigningAlgValuesSupported     []string `json:"dpop_signing_alg_values_supported"`
}

// authServer is what discovery found.
type authServer struct {
	resource  string // the RFC 8707 resource parameter
	prmURL    string
	prmScopes []string
	asDoc
	// legacy is set when the server has no protected-resource metadata and
	// the 2025-03-26 rules found the authorization server (legacyAuthServer).
	legacy *legacyFallback
}

// legacyFallback says how the 2025-03-26 rules found the authorization server.
type legacyFallback struct {
	noPRM       string // why there is no PRM (discover's message)
	origin      string // the authorization base URL: the server's origin
	metadataURL string // <origin>/.well-known/oauth-authorization-server
	defaults    bool   // no metadata there either: the default endpoints
}

// note is the stderr note of a login by the 2025-03-26 rules.
func (l *legacyFallback) note() string {
	const head = "the server publishes no protected-resource metadata (RFC 9728), so mcpx falls back to the 2025-03-26 authorization rules: "
	if l.defaults {
		return head + fmt.Sprintf("no authorization-server metadata at %s either, so the default endpoints %s/authorize, /token and /register", l.metadataURL, l.origin)
	}
	return head + "the authorization server's metadata at " + l.metadataURL
}

// errNoPRM is the cause of discover's refusal of a server that looks like
// one of the 2025-03-26 spec: it asked for authentication (401) without
// naming resource_metadata, and every well-known protected-resource URL
// answered 404. Login then applies the 2025-03-26 rules (legacyAuthServer).
var errNoPRM = errors.New("no protected-resource metadata")

// noPRM returns discover's refusal for errNoPRM, if err is one.
func noPRM(err error) (*fail.AuthError, bool) {
	var ae *fail.AuthError
	if errors.As(err, &ae) && ae.Cause == errNoPRM {
		return ae, true
	}
	return nil, false
}

// wellKnown returns the URL with /.well-known/NAME inserted between the
// host and the path (RFC 8414 §3.1, RFC 9728 §3.1), and, when there is a
// path, the root one too.
func wellKnown(raw, name string) (inserted, root string, err error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", "", fmt.Errorf("%q is not a URL", raw)
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	root = origin + "/.well-known/" + name
	if path == "" {
		return root, "", nil
	}
	return root + path, root, nil
}

// discover finds the server's authorization server: its protected-resource
// metadata (the 401's resource_metadata, else the path-based well-known URL,
// else the root one), then the authorization server's metadata (RFC 8414,
// then OpenID discovery, path inserted, then OpenID with the path appended).
func (h *oauthHTTP) discover(ctx context.Context, server string, ch challenge) (*authServer, error) {
	var candidates []string
	if ch.resourceMetadata != "" {
		if err := checkEndpoint("resource_metadata", ch.resourceMetadata, true); err != nil {
			return nil, h.fail("the server's 401 names unusable resource metadata: %v", err)
		}
		candidates = []string{ch.resourceMetadata}
	} else {
		pathURL, rootURL, err := wellKnown(server, "oauth-protected-resource")
		if err != nil {
			return nil, h.fail("%v", err)
		}
		candidates = []string{pathURL}
		if rootURL != "" {
			candidates = append(candidates, rootURL)
		}
	}
	var prm prmDoc
	found, notFound := "", ""
	for _, u := range candidates {
		prm = prmDoc{}
		st, err := h.getJSON(ctx, u, &prm)
		if err != nil {
			return nil, err
		}
		if st == http.StatusOK {
			found = u
			break
		}
		if st != http.StatusNotFound && notFound == "" {
			notFound = fmt.Sprintf("%s answered HTTP %d", text.OneLine(u), st)
		}
	}
	if found == "" {
		e := h.fail("the server publishes no protected-resource metadata (RFC 9728) at %s, so its authorization server is unknown", text.OneLine(strings.Join(candidates, " or ")))
		switch {
		case ch.status != http.StatusUnauthorized && ch.status != http.StatusForbidden:
			e.Msg = fmt.Sprintf("the server did not ask for authentication (it answered HTTP %d) and %s", ch.status, strings.TrimPrefix(e.Msg, "the server "))
		case ch.resourceMetadata != "":
			// It names metadata it does not serve: a broken server of a
			// later spec, not one of 2025-03-26.
		case notFound != "":
			// Not plainly absent: no 2025-03-26 fallback on a guess.
			e.Msg += fmt.Sprintf(" (%s, not 404, so mcpx does not fall back to the 2025-03-26 rules)", notFound)
		case ch.status == http.StatusUnauthorized:
			e.Cause = errNoPRM
			return nil, e
		}
		return nil, e
	}
	as := &authServer{prmURL: found, prmScopes: prm.ScopesSupported, resource: server}
	if prm.Resource != "" {
		if u, err := url.Parse(prm.Resource); err != nil || u.User != nil || u.Fragment != "" || strings.Contains(prm.Resource, "#") {
			return nil, h.fail("the protected-resource metadata at %s declares the resource %q, which has user information or a fragment; refusing to authorize", text.OneLine(found), text.OneLine(prm.Resource))
		}
		if !resourceBinds(prm.Resource, server) {
			return nil, h.fail("the protected-resource metadata at %s is for %s, not for this server (%s); refusing to authorize", text.OneLine(found), text.OneLine(prm.Resource), server)
		}
		as.resource = prm.Resource
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, h.fail("the protected-resource metadata at %s names no authorization server", text.OneLine(found))
	}
	issuer := prm.AuthorizationServers[0]
	if err := checkEndpoint("authorization server", issuer, true); err != nil {
		return nil, h.fail("%v", err)
	}
	inserted, _, err := wellKnown(issuer, "oauth-authorization-server")
	if err != nil {
		return nil, h.fail("authorization server %v", err)
	}
	oidc, _, _ := wellKnown(issuer, "openid-configuration")
	mdURLs := []string{inserted, oidc}
	if u, _ := url.Parse(issuer); strings.Trim(u.EscapedPath(), "/") != "" {
		mdURLs = append(mdURLs, strings.TrimSuffix(issuer, "/")+"/.well-known/openid-configuration")
	}
	for _, u := range mdURLs {
		var md asDoc
		st, err := h.getJSON(ctx, u, &md)
		if err != nil {
			return nil, err
		}
		if st != http.StatusOK {
			continue
		}
		if strings.TrimSuffix(md.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return nil, h.fail("the metadata at %s is for issuer %q, not %q; refusing to use it", text.OneLine(u), text.OneLine(md.Issuer), text.OneLine(issuer))
		}
		if err := md.check(h.machine); err != nil {
			return nil, h.fail("authorization server %s: %v", text.OneLine(issuer), err)
		}
		as.asDoc = md
		return as, nil
	}
	return nil, h.fail("authorization server %s publishes no metadata at %s", text.OneLine(issuer), text.OneLine(strings.Join(mdURLs, ", ")))
}

// legacyOrigin is the 2025-03-26 authorization base URL of a server: its
// URL with the path (and query) discarded.
func legacyOrigin(server string) (string, error) {
	u, err := url.Parse(server)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("%q is not a URL", server)
	}
	return u.Scheme + "://" + u.Host, nil
}

// legacyAuthServer finds the authorization server of a server that
// publishes no protected-resource metadata (np, from discover) by the
// rules of the MCP 2025-03-26 authorization spec (§2.3): the authorization
// base URL is the server URL without its path; the client fetches its RFC
// 8414 metadata at <base>/.well-known/oauth-authorization-server (with the
// MCP-Protocol-Version header, §2.3.1), and when that answers 404 uses the
// default endpoints <base>/authorize, /token and /register (§2.3.3). The
// metadata is checked as discover checks it (https or loopback endpoints,
// S256), except that its issuer may be any URL on the server's origin (the
// 2025-03-26 spec derives no issuer from the base URL; one on another
// origin is refused). The resource parameter stays the server's canonical
// URL (RFC 8707; the 2025-03-26 spec has none, and an authorization server
// that does not know it ignores it). Without metadata, PKCE is still S256.
func (h *oauthHTTP) legacyAuthServer(ctx context.Context, server, protocol string, np *fail.AuthError) (*authServer, error) {
	origin, err := legacyOrigin(server)
	if err != nil {
		return nil, h.fail("%v", err)
	}
	l := &legacyFallback{noPRM: np.Msg, origin: origin, metadataURL: origin + "/.well-known/oauth-authorization-server"}
	refuse := func(format string, args ...any) *fail.AuthError {
		return h.fail("%s; by the 2025-03-26 rules, %s", strings.TrimSuffix(np.Msg, ", so its authorization server is unknown"), fmt.Sprintf(format, args...))
	}
	if err := checkEndpoint("the authorization base URL", origin, true); err != nil {
		return nil, refuse("%v", err)
	}
	as := &authServer{resource: server, legacy: l}
	var hdr http.Header
	if protocol != "" {
		hdr = http.Header{"Mcp-Protocol-Version": {protocol}}
	}
	var md asDoc
	st, err := h.getJSONWith(ctx, l.metadataURL, &md, hdr)
	if err != nil {
		var ae *fail.AuthError
		if errors.As(err, &ae) {
			return nil, refuse("%s", ae.Msg)
		}
		return nil, err
	}
	switch st {
	case http.StatusOK:
		if !onOrigin(md.Issuer, origin) {
			return nil, refuse("the metadata at %s is for issuer %q, not one on the server's origin %s; refusing to use it", l.metadataURL, text.OneLine(md.Issuer), origin)
		}
		if err := md.check(h.machine); err != nil {
			return nil, refuse("authorization server %s: %v", text.OneLine(md.Issuer), err)
		}
		as.asDoc = md
	case http.StatusNotFound:
		l.defaults = true
		as.asDoc = asDoc{Issuer: origin, AuthorizationEndpoint: origin + "/authorize", TokenEndpoint: origin + "/token",
			RegistrationEndpoint: origin + "/register"}
	default:
		return nil, refuse("the authorization server's metadata at %s answered HTTP %d (only a 404 means the default endpoints)", l.metadataURL, st)
	}
	return as, nil
}

// onOrigin reports whether raw is an http(s) URL on origin (scheme, host
// and port), without user information, query or fragment.
func onOrigin(raw, origin string) bool {
	c, err := transport.CanonicalURL(raw)
	if err != nil || strings.ContainsAny(raw, "?#@") {
		return false
	}
	u, _ := url.Parse(c)
	o, err := transport.CanonicalURL(origin)
	return err == nil && u.Scheme+"://"+u.Host == o
}

// check refuses metadata a secure flow cannot use. A machine grant
// (client_credentials) needs the token endpoint alone.
func (md *asDoc) check(machine bool) error {
	if machine && md.TokenEndpoint == "" {
		return errors.New("its metadata lacks token_endpoint")
	}
	if !machine && (md.AuthorizationEndpoint == "" || md.TokenEndpoint == "") {
		return errors.New("its metadata lacks authorization_endpoint or token_endpoint")
	}
	for _, e := range []struct{ name, u string }{{"authorization_endpoint", md.AuthorizationEndpoint},
		{"token_endpoint", md.TokenEndpoint}, {"registration_endpoint", md.RegistrationEndpoint}, {"revocation_endpoint", md.RevocationEndpoint}} {
		if e.u == "" {
			continue
		}
		if err := checkEndpoint(e.name, e.u, true); err != nil {
			return err
		}
	}
	if machine {
		return nil
	}
	if len(md.ResponseTypesSupported) > 0 && !slices.Contains(md.ResponseTypesSupported, "code") {
		return errors.New("it does not support the authorization code flow (response_types_supported)")
	}
	if !slices.Contains(md.CodeChallengeMethodsSupported, "S256") {
		return errors.New("its metadata does not list S256 in code_challenge_methods_supported, so PKCE cannot be relied on; refusing to authorize")
	}
	return nil
}

// checkEndpoint accepts an absolute http(s) URL; with secure, plain http
// only on a loopback host (OAuth 2.1 §1.5).
func checkEndpoint(name, raw string, secure bool) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.Fragment != "" {
		return fmt.Errorf("%s %q is not an absolute http(s) URL", name, text.OneLine(raw))
	}
	if secure && u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return fmt.Errorf("%s %s is plain http on a host that is not loopback; OAuth needs https", name, u.Redacted())
	}
	return nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// resourceBinds reports whether a resource identifier names the server: the
// same scheme and host, and a path equal to the server's or a whole-segment
// prefix of it (a server at /mcp may declare its origin).
func resourceBinds(resource, server string) bool {
	r, err := transport.CanonicalURL(resource)
	if err != nil {
		return false
	}
	ru, _ := url.Parse(r)
	su, _ := url.Parse(server)
	if ru.Scheme != su.Scheme || ru.Host != su.Host || ru.RawQuery != "" && ru.RawQuery != su.RawQuery {
		return false
	}
	rp, sp := ru.EscapedPath(), su.EscapedPath()
	return rp == sp || rp == "" || strings.HasPrefix(sp, rp+"/")
}

// clientAuth is how the client authenticates at the token endpoint.
type clientAuth struct {
	ID, Secret, Method string
	// Key signs the client assertions of private_key_jwt (KeyID its kid),
	// for the audience Audience (the issuer); each assertion is given to
	// secrets.
	Key      crypto.Signer
	KeyID    string
	Audience string
	secrets  *secret.Set
}

// chooseMethod picks the token endpoint auth method for a client with or
// without a secret from what the server supports (RFC 8414: absent means
// client_secret_basic).
func chooseMethod(supported []string, hasSecret bool) string {
	if !hasSecret {
		return "none"
	}
	if len(supported) == 0 || slices.Contains(supported, "client_secret_basic") {
		return "client_secret_basic"
	}
	if slices.Contains(supported, "client_secret_post") {
		return "client_secret_post"
	}
	return "none"
}

// register registers mcpx as a client (RFC 7591).
func (h *oauthHTTP) register(ctx context.Context, as *authServer, redirect, version string) (clientAuth, error) {
	method := "none"
	if m := as.TokenEndpointAuthMethodsSupported; len(m) > 0 && !slices.Contains(m, "none") {
		method = chooseMethod(m, true)
		if method == "none" {
			return clientAuth{}, h.fail("authorization server %s supports none of the token endpoint auth methods mcpx has (none, client_secret_basic, client_secret_post): %s", text.OneLine(as.Issuer), text.OneLine(strings.Join(m, ", ")))
		}
	}
	doc := map[string]any{
		"client_name": "mcpx",
		// A native client (OpenID Connect Dynamic Registration §2, SEP-837):
		// its redirect is a loopback URI.
		"application_type":           "native",
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
		"software_id":                "mcpx",
		"software_version":           version,
	}
	body, _ := json.Marshal(doc)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, as.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return clientAuth{}, h.fail("bad registration endpoint: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, data, err := h.do(req)
	if err != nil {
		return clientAuth{}, err
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return clientAuth{}, h.fail("dynamic client registration at %s failed: %s", text.OneLine(as.RegistrationEndpoint), h.oauthErr(resp, data))
	}
	var reg struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		Method       string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(data, &reg); err != nil || reg.ClientID == "" {
		return clientAuth{}, h.fail("dynamic client registration at %s answered no client_id", text.OneLine(as.RegistrationEndpoint))
	}
	ca := clientAuth{ID: reg.ClientID, Secret: reg.ClientSecret, Method: reg.Method}
	if ca.Method == "" {
		ca.Method = method
		if ca.Secret != "" && method == "none" {
			ca.Method = chooseMethod(as.TokenEndpointAuthMethodsSupported, true)
		}
	}
	switch ca.Method {
	case "none", "client_secret_basic", "client_secret_post":
	default:
		return clientAuth{}, h.fail("the authorization server registered mcpx for token endpoint auth method %q, which mcpx does not have", text.OneLine(ca.Method))
	}
	return ca, nil
}

// oauthErr words an OAuth error answer: "invalid_grant: description (HTTP 400)".
func (h *oauthHTTP) oauthErr(resp *http.Response, body []byte) string {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	_ = json.Unmarshal(body, &e)
	msg := fmt.Sprintf("HTTP %d", resp.StatusCode)
	if e.Error != "" {
		msg = e.Error
		if e.Description != "" {
			msg += ": " + e.Description
		}
		msg = fmt.Sprintf("%s (HTTP %d)", msg, resp.StatusCode)
	}
	return text.OneLine(h.secrets.Mask(msg))
}

// tokenAnswer is a token endpoint's successful answer.
type tokenAnswer struct {
	AccessToken  string          `json:"access_token"`
	TokenType    string          `json:"token_type"`
	RefreshToken string          `json:"refresh_token"`
	ExpiresIn    json.RawMessage `json:"expires_in"`
	Scope        string          `json:"scope"`
}

// grantError is an OAuth error answer of the token endpoint.
type grantError struct {
	Code string // the "error" field, e.g. invalid_grant
	Msg  string // as shown
}

func (e *grantError) Error() string { return e.Msg }

// token calls the token endpoint with a grant and the client's
// authentication, and returns the stored form of the answer.
func (h *oauthHTTP) token(ctx context.Context, endpoint string, form url.Values, ca clientAuth) (*StoredToken, error) {
	now := time.Now()
	resp, data, err := h.postForm(ctx, endpoint, form, ca)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(data, &e)
		return nil, &grantError{Code: e.Error, Msg: h.oauthErr(resp, data)}
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "" && mt != "application/json" {
		return nil, h.fail("the token endpoint answered %s, not JSON", text.OneLine(mt))
	}
	var ans tokenAnswer
	if err := json.Unmarshal(data, &ans); err != nil || ans.AccessToken == "" {
		// Some servers answer an error with status 200.
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			return nil, &grantError{Code: e.Error, Msg: h.oauthErr(resp, data)}
		}
		return nil, h.fail("the token endpoint's answer has no access_token")
	}
	tokenType := "Bearer"
	switch {
	case h.dpop != nil && strings.EqualFold(ans.TokenType, "DPoP"):
		tokenType = "DPoP"
	case ans.TokenType != "" && !strings.EqualFold(ans.TokenType, "bearer"):
		return nil, h.fail("the token endpoint issued a %q token; mcpx uses Bearer tokens, and DPoP ones when it proved a key", text.OneLine(ans.TokenType))
	}
	if !tokenChars(ans.AccessToken) || ans.RefreshToken != "" && !tokenChars(ans.RefreshToken) {
		return nil, h.fail("the token endpoint issued a token with characters an HTTP header cannot carry (RFC 6750 wants printable ASCII without spaces)")
	}
	if !scopeChars(ans.Scope) {
		ans.Scope = "" // not an RFC 6749 scope: ignored (the scope asked for is kept)
	}
	st := &StoredToken{AccessToken: ans.AccessToken, TokenType: tokenType, RefreshToken: ans.RefreshToken, Scope: ans.Scope, ObtainedAt: now.UTC().Truncate(time.Second)}
	if secs, ok := expiresIn(ans.ExpiresIn); ok {
		at := now.Add(time.Duration(secs) * time.Second).UTC().Truncate(time.Second)
		st.ExpiresAt = &at
	}
	return st, nil
}

// tokenChars: printable ASCII without spaces, which is what an HTTP header
// value can carry.
func tokenChars(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// scopeChars: RFC 6749 §3.3 scope tokens separated by spaces.
func scopeChars(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ' ' && (c < 0x21 || c > 0x7e || c == '"' || c == '\\') {
			return false
		}
	}
	return true
}

// expiresIn reads expires_in: a number of seconds, or (seen in the wild) a
// string holding one.
func expiresIn(raw json.RawMessage) (int64, bool) {
	s := strings.Trim(string(raw), `"`)
	if s == "" || s == "null" {
		return 0, false
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || !(n >= 0 && n <= 10*365*24*3600) { // NaN fails both
		return 0, false
	}
	return int64(n), true
}

// revoke asks the server to revoke a token (RFC 7009).
func (h *oauthHTTP) revoke(ctx context.Context, endpoint, token, hint string, ca clientAuth) error {
	resp, data, err := h.postForm(ctx, endpoint, url.Values{"token": {token}, "token_type_hint": {hint}}, ca)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return errors.New(h.oauthErr(resp, data))
	}
	return nil
}

// postForm posts a form to a token or revocation endpoint, authenticating
// the client the way its method says: client_secret_basic in the
// Authorization header (RFC 6749 §2.3.1: both parts form-encoded before
// base64), client_secret_post in the form, none by client_id alone.
func (h *oauthHTTP) postForm(ctx context.Context, endpoint string, form url.Values, ca clientAuth) (*http.Response, []byte, error) {
	switch ca.Method {
	case "client_secret_post":
		form.Set("client_id", ca.ID)
		form.Set("client_secret", ca.Secret)
	case config.AuthPrivateKeyJWT:
		if ca.Key == nil {
			return nil, nil, h.fail("the client authenticates with private_key_jwt, but no \"privateKey\" is configured")
		}
		jwt, err := signAssertion(ca.Key, ca.KeyID, ca.ID, ca.Audience, time.Now())
		if err != nil {
			return nil, nil, h.fail("%v", err)
		}
		ca.secrets.Add(jwt)
		form.Set("client_id", ca.ID)
		form.Set("client_assertion_type", assertionType)
		form.Set("client_assertion", jwt)
	case "client_secret_basic":
	default:
		if ca.ID != "" { // a jwt-bearer grant may name no client
			form.Set("client_id", ca.ID)
		}
	}
	body := form.Encode()
	resp, data, err := h.postOnce(ctx, endpoint, body, ca)
	if err == nil && h.dpop != nil && useDPoPNonce(resp, data) && h.dpop.SetNonce(endpoint, resp.Header.Get("DPoP-Nonce")) {
		// RFC 9449 §8: the server wants its nonce in the proof; once more
		// with a new proof that carries it.
		return h.postOnce(ctx, endpoint, body, ca)
	}
	return resp, data, err
}

// postOnce sends a form to a token endpoint: Basic client authentication
// when the method says so, a DPoP proof when the flow has a key.
func (h *oauthHTTP) postOnce(ctx context.Context, endpoint, body string, ca clientAuth) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		return nil, nil, h.fail("bad endpoint %q: %v", endpoint, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if ca.Method == "client_secret_basic" {
		cred := url.QueryEscape(ca.ID) + ":" + url.QueryEscape(ca.Secret)
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(cred)))
	}
	if h.dpop != nil {
		proof, err := h.dpop.Proof(http.MethodPost, endpoint, "")
		if err != nil {
			return nil, nil, h.fail("%v", err)
		}
		req.Header.Set("DPoP", proof)
	}
	return h.do(req)
}

// useDPoPNonce reports whether a token endpoint's answer is the
// use_dpop_nonce error (RFC 9449 §8).
func useDPoPNonce(resp *http.Response, body []byte) bool {
	if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusUnauthorized {
		return false
	}
	var e struct {
		Error string `json:"error"`
	}
	return json.Unmarshal(body, &e) == nil && e.Error == "use_dpop_nonce"
}
