// The jwt-bearer grants (see AUTHENTICATION in mcpx(1)): workload identity
// federation, where a platform's identity token of the workload (a CI job's
// OIDC token, a Kubernetes service-account token) is the assertion of the
// JWT-bearer grant (RFC 7523 §2.1); and enterprise-managed authorization,
// where the user's ID token from the enterprise identity provider is first
// exchanged there (RFC 8693) for an identity assertion authorization grant
// (ID-JAG), which is then the assertion. mcpx signs nothing here: it
// forwards what it was given. Neither ever asks a person; a refused grant is
// not tried again, nor replaced by another grant.

package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/secret"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// The URNs of the grants and token types.
const (
	grantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
)

// maxAssertion bounds an assertion or ID token read from a file.
const maxAssertion = 64 << 10

// jwtBearer obtains a token with the jwt-bearer grant and the workload's
// identity token (assertionEnv's value, or assertionFile read now: such
// tokens rotate). The client is the configured one: with a secret or a
// key it authenticates, else it is named by client_id alone (none).
func jwtBearer(ctx context.Context, t *config.Target, server string, prev *StoredToken, o grantOptions) (*StoredToken, error) {
	h, as, scopes, err := machineAuthServer(ctx, t, server, prev, &o, grantJWTBearer)
	if err != nil {
		return nil, err
	}
	assertion, err := readCredential("\"oauth\".assertionFile", t.OAuth.AssertionFile, t.OAuth.Assertion, "the workload identity token")
	if err != nil {
		return nil, h.fail("%v", err)
	}
	o.secrets.Add(assertion)
	ca, err := bearerClient(t, as, o.secrets)
	if err != nil {
		return nil, h.fail("%v", err)
	}
	form := url.Values{"grant_type": {grantJWTBearer}, "assertion": {assertion}, "resource": {as.resource}}
	return machineToken(ctx, h, t, server, as, ca, form, scopes, o)
}

// bearerClient is the client of a jwt-bearer grant: the configured one
// with its secret or key, else a public one (client_id only, if any).
func bearerClient(t *config.Target, as *authServer, secrets *secret.Set) (clientAuth, error) {
	if t.OAuth.ClientSecret == "" && t.OAuth.PrivateKey == "" {
		return clientAuth{ID: t.OAuth.ClientID, Method: "none"}, nil
	}
	return machineClient(t, as.TokenEndpointAuthMethodsSupported, as.Issuer, secrets)
}

// readCredential is a token given by a variable (value, read when the
// config was) or by a file (read now, bounded, surrounding space trimmed).
func readCredential(field, file, value, what string) (string, error) {
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return "", fmt.Errorf("%s: cannot read %s: %v", field, what, unwrapPathError(err))
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, maxAssertion+1))
		if err != nil {
			return "", fmt.Errorf("%s: cannot read %s: %v", field, what, err)
		}
		if len(data) > maxAssertion {
			return "", fmt.Errorf("%s %s holds more than %d bytes, which is not %s", field, file, maxAssertion, what)
		}
		value = strings.TrimSpace(string(data))
		if value == "" {
			return "", fmt.Errorf("%s %s is empty: no %s", field, file, what)
		}
	}
	if !tokenChars(value) {
		return "", fmt.Errorf("%s has characters a token cannot have (it must be printable ASCII without spaces, as a JWT is)", what)
	}
	return value, nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// idJAG obtains a token by enterprise-managed authorization: the user's ID
// token is exchanged at the IdP's token endpoint for an ID-JAG whose
// audience is the authorization server's issuer and whose resource is the
// server's (RFC 8693), and the ID-JAG is the assertion of the jwt-bearer
// grant at the authorization server, where the configured client
// authenticates. The ID-JAG lives minutes and is never stored: each renewal
// exchanges the ID token again.
func idJAG(ctx context.Context, t *config.Target, server string, prev *StoredToken, o grantOptions) (*StoredToken, error) {
	h, as, scopes, err := machineAuthServer(ctx, t, server, prev, &o, grantJWTBearer)
	if err != nil {
		return nil, err
	}
	jag, err := h.exchangeIDToken(ctx, t.OAuth.IdP, as, scopes, o.secrets)
	if err != nil {
		return nil, err
	}
	ca, err := machineClient(t, as.TokenEndpointAuthMethodsSupported, as.Issuer, o.secrets)
	if err != nil {
		return nil, h.fail("%v", err)
	}
	form := url.Values{"grant_type": {grantJWTBearer}, "assertion": {jag}}
	return machineToken(ctx, h, t, server, as, ca, form, scopes, o)
}

// exchangeIDToken is the token exchange at the IdP (RFC 8693 §2.1): the
// ID token for an ID-JAG for the authorization server as.
func (h *oauthHTTP) exchangeIDToken(ctx context.Context, p *config.IdPConfig, as *authServer, scopes string, secrets *secret.Set) (string, error) {
	idToken, err := readCredential("\"oauth\".idp.idTokenFile", p.IDTokenFile, p.IDToken, "the ID token")
	if err != nil {
		return "", h.fail("%v", err)
	}
	secrets.Add(idToken)
	endpoint, methods, err := h.idpTokenEndpoint(ctx, p)
	if err != nil {
		return "", err
	}
	form := url.Values{"grant_type": {grantTokenExchange}, "subject_token": {idToken}, "subject_token_type": {tokenTypeIDToken},
		"requested_token_type": {tokenTypeIDJAG}, "audience": {as.Issuer}, "resource": {as.resource}}
	if scopes != "" {
		form.Set("scope", scopes)
	}
	ca := clientAuth{ID: p.ClientID, Secret: p.ClientSecret, Method: chooseMethod(methods, p.ClientSecret != "")}
	resp, data, err := h.postForm(ctx, endpoint, form, ca)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", h.fail("the identity provider refused to exchange the ID token for an ID-JAG: %s", h.oauthErr(resp, data))
	}
	var ans struct {
		AccessToken     string `json:"access_token"`
		IssuedTokenType string `json:"issued_token_type"`
	}
	if err := json.Unmarshal(data, &ans); err != nil || ans.AccessToken == "" {
		return "", h.fail("the identity provider's token exchange answer has no access_token (the ID-JAG)")
	}
	if ans.IssuedTokenType != "" && ans.IssuedTokenType != tokenTypeIDJAG {
		return "", h.fail("the identity provider issued a %q, not an ID-JAG (%s)", text.OneLine(ans.IssuedTokenType), tokenTypeIDJAG)
	}
	if !tokenChars(ans.AccessToken) {
		return "", h.fail("the identity provider issued an ID-JAG with characters a token cannot have")
	}
	secrets.Add(ans.AccessToken)
	return ans.AccessToken, nil
}

// idpTokenEndpoint is the IdP's token endpoint: configured, else from its
// OpenID (then RFC 8414) metadata, whose issuer must be the one configured;
// with the auth methods the metadata lists.
func (h *oauthHTTP) idpTokenEndpoint(ctx context.Context, p *config.IdPConfig) (string, []string, error) {
	if p.TokenEndpoint != "" {
		if err := checkEndpoint("\"oauth\".idp.tokenEndpoint", p.TokenEndpoint, true); err != nil {
			return "", nil, h.fail("%v", err)
		}
		return p.TokenEndpoint, nil, nil
	}
	if err := checkEndpoint("\"oauth\".idp.issuer", p.Issuer, true); err != nil {
		return "", nil, h.fail("%v", err)
	}
	oidc, _, _ := wellKnown(p.Issuer, "openid-configuration")
	rfc, _, _ := wellKnown(p.Issuer, "oauth-authorization-server")
	urls := []string{oidc, rfc, strings.TrimSuffix(p.Issuer, "/") + "/.well-known/openid-configuration"}
	for _, u := range urls {
		var md asDoc
		st, err := h.getJSON(ctx, u, &md)
		if err != nil {
			return "", nil, err
		}
		if st != http.StatusOK {
			continue
		}
		if strings.TrimSuffix(md.Issuer, "/") != strings.TrimSuffix(p.Issuer, "/") {
			return "", nil, h.fail("the metadata at %s is for issuer %q, not the identity provider %q; refusing to use it", text.OneLine(u), text.OneLine(md.Issuer), p.Issuer)
		}
		if err := checkEndpoint("the identity provider's token_endpoint", md.TokenEndpoint, true); err != nil {
			return "", nil, h.fail("%v", err)
		}
		return md.TokenEndpoint, md.TokenEndpointAuthMethodsSupported, nil
	}
	return "", nil, h.fail("the identity provider %s publishes no metadata at %s", text.OneLine(p.Issuer), strings.Join(urls, ", "))
}
