// Machine-to-machine authentication (see AUTHENTICATION in mcpx(1)): the
// client_credentials grant (OAuth 2.1 §4.2), with the client's secret
// (client_secret_basic or client_secret_post) or a JWT client assertion
// signed with its private key (private_key_jwt, RFC 7523 §2.2). Any command
// obtains and renews such a token itself; nobody is asked anything.
//
// The assertion is signed with the standard library (crypto/rsa,
// crypto/ecdsa): a JWT of three fixed claims sets needs no JWT library.
// Its audience is the authorization server's issuer identifier, as
// draft-ietf-oauth-rfc7523bis asks (RFC 7523 allows it; the token endpoint
// URL is the other value some servers take).

package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/secret"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// assertionType is client_assertion_type for a JWT (RFC 7523 §2.2).
const assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// refusedGrant starts the message of a refused machine grant (%s: the
// grant's name).
const refusedGrant = "the token endpoint refused the %s grant: "

// assertionLife is how long a client assertion is valid.
const assertionLife = 60 * time.Second

// machine reports whether a target's tokens come from a grant that needs
// no person: client_credentials, jwt-bearer (workload identity) or id-jag
// (enterprise-managed authorization).
func machine(t *config.Target) bool {
	if t.OAuth == nil {
		return false
	}
	switch t.OAuth.Grant {
	case config.GrantClientCredentials, config.GrantJWTBearer, config.GrantIDJAG:
		return true
	}
	return false
}

// machineGrant obtains a token with the target's machine grant.
func machineGrant(ctx context.Context, t *config.Target, server string, prev *StoredToken, o grantOptions) (*StoredToken, error) {
	switch t.OAuth.Grant {
	case config.GrantJWTBearer:
		return jwtBearer(ctx, t, server, prev, o)
	case config.GrantIDJAG:
		return idJAG(ctx, t, server, prev, o)
	}
	return clientCredentials(ctx, t, server, prev, o)
}

// signAssertion makes a JWT client assertion (RFC 7523 §3): iss and sub the
// client id, aud the authorization server, a fresh jti, iat and a short exp.
func signAssertion(key crypto.Signer, keyID, clientID, audience string, now time.Time) (string, error) {
	alg, h, size, err := jwsAlg(key)
	if err != nil {
		return "", err
	}
	header := map[string]string{"alg": alg, "typ": "JWT"}
	if keyID != "" {
		header["kid"] = keyID
	}
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	claims := map[string]any{"iss": clientID, "sub": clientID, "aud": audience, "jti": hex.EncodeToString(jti),
		"iat": now.Unix(), "exp": now.Add(assertionLife).Unix()}
	hb, _ := json.Marshal(header)
	cb, _ := json.Marshal(claims)
	input := b64(hb) + "." + b64(cb)
	h.Write([]byte(input))
	digest := h.Sum(nil)
	var sig []byte
	switch k := key.(type) {
	case *rsa.PrivateKey:
		sig, err = rsa.SignPKCS1v15(rand.Reader, k, hashOf(alg), digest)
	case *ecdsa.PrivateKey:
		r, s, e := ecdsa.Sign(rand.Reader, k, digest)
		if err = e; err == nil {
			// JWS wants R and S as fixed-size big-endian numbers (RFC 7518 §3.4).
			sig = make([]byte, 2*size)
			r.FillBytes(sig[:size])
			s.FillBytes(sig[size:])
		}
	}
	if err != nil {
		return "", fmt.Errorf("signing the client assertion: %v", err)
	}
	return input + "." + b64(sig), nil
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// jwsAlg is the JWS algorithm of a key: RS256 for RSA, ES256, ES384 or ES512
// by the EC curve; with the hash and, for EC, the size of R and S.
func jwsAlg(key crypto.Signer) (string, hash.Hash, int, error) {
	switch k := key.(type) {
	case *rsa.PrivateKey:
		return "RS256", sha256.New(), 0, nil
	case *ecdsa.PrivateKey:
		switch k.Curve.Params().Name {
		case "P-256":
			return "ES256", sha256.New(), 32, nil
		case "P-384":
			return "ES384", sha512.New384(), 48, nil
		case "P-521":
			return "ES512", sha512.New(), 66, nil
		}
	}
	return "", nil, 0, errors.New("the private key is neither RSA nor EC on P-256, P-384 or P-521")
}

func hashOf(alg string) crypto.Hash {
	if alg == "RS256" {
		return crypto.SHA256
	}
	return 0
}

// machineClient is the client of a client_credentials grant: its id, and
// its secret or private key; method is the configured one, else
// private_key_jwt for a key, else what the metadata allows for a secret.
func machineClient(t *config.Target, supported []string, audience string, sec *secret.Set) (clientAuth, error) {
	oc := t.OAuth
	ca := clientAuth{ID: oc.ClientID, Secret: oc.ClientSecret, Method: oc.AuthMethod, Audience: audience, KeyID: oc.KeyID, secrets: sec}
	if oc.PrivateKey != "" {
		key, err := config.ParsePrivateKey(oc.PrivateKey)
		if err != nil {
			return ca, fmt.Errorf("\"oauth\".privateKey %v", err)
		}
		ca.Key, ca.Method = key, config.AuthPrivateKeyJWT
		return ca, nil
	}
	if ca.Method == "" {
		ca.Method = chooseMethod(supported, true)
		if ca.Method == "none" {
			return ca, fmt.Errorf("the authorization server supports neither client_secret_basic nor client_secret_post (token_endpoint_auth_methods_supported: %s); a client with a secret cannot authenticate", text.OneLine(strings.Join(supported, ", ")))
		}
	}
	return ca, nil
}

// grantOptions are what a client_credentials grant needs besides the target.
type grantOptions struct {
	scopes   []string // login --scope
	protocol string
	secrets  *secret.Set
	note     func(string, ...any)
}

// clientCredentials obtains a token with the client_credentials grant. A
// stored token of the same client (prev) gives the token endpoint, the
// issuer and the resource; else discovery finds them, as login does.
func clientCredentials(ctx context.Context, t *config.Target, server string, prev *StoredToken, o grantOptions) (*StoredToken, error) {
	h, as, scopes, err := machineAuthServer(ctx, t, server, prev, &o, config.GrantClientCredentials)
	if err != nil {
		return nil, err
	}
	ca, err := machineClient(t, as.TokenEndpointAuthMethodsSupported, as.Issuer, o.secrets)
	if err != nil {
		return nil, h.fail("%v", err)
	}
	form := url.Values{"grant_type": {config.GrantClientCredentials}, "resource": {as.resource}}
	return machineToken(ctx, h, t, server, as, ca, form, scopes, o)
}

// machineAuthServer finds the authorization server of a machine grant: the
// one of a stored token of the same client and grant (prev), else by
// discovery, as login does; one whose metadata lists grant_types_supported
// without the grant (its URN, for wire) is refused. It returns the scopes
// to ask for too.
func machineAuthServer(ctx context.Context, t *config.Target, server string, prev *StoredToken, o *grantOptions, wire string) (*oauthHTTP, *authServer, string, error) {
	h := newOAuthHTTP(t.Name, o.secrets)
	h.machine = true
	if prev != nil && prev.Grant == t.OAuth.Grant && prev.ClientID == t.OAuth.ClientID && prev.TokenEndpoint != "" &&
		checkEndpoint("the stored token endpoint", prev.TokenEndpoint, true) == nil {
		as := &authServer{resource: prev.Resource, asDoc: asDoc{Issuer: prev.Issuer, TokenEndpoint: prev.TokenEndpoint, RevocationEndpoint: prev.RevocationEndpoint}}
		if prev.DPoPKey != "" {
			// The authorization server gave DPoP tokens: the same key.
			h.dpop, _ = parseDPoPKey(prev.DPoPKey)
		}
		return h, as, selectScopes(o.scopes, t.OAuth, prev.Scope, nil), nil
	}
	if o.protocol == "" {
		o.protocol = mcp.LATEST_PROTOCOL_VERSION
	}
	as, challenged, err := h.findAuthServer(ctx, t, server, LoginOptions{ProtocolVersion: o.protocol, Note: o.note})
	if err != nil {
		return nil, nil, "", err
	}
	if g := as.GrantTypesSupported; len(g) > 0 && !slices.Contains(g, wire) {
		return nil, nil, "", h.fail("authorization server %s does not offer the %s grant (grant_types_supported: %s)", text.OneLine(as.Issuer), t.OAuth.Grant, text.OneLine(strings.Join(g, ", ")))
	}
	if offersDPoP(&as.asDoc) {
		if h.dpop, err = newDPoPKey(); err != nil {
			return nil, nil, "", h.fail("%v", err)
		}
	}
	return h, as, selectScopes(o.scopes, t.OAuth, challenged, as.prmScopes), nil
}

// machineToken asks the token endpoint for a machine grant's token (once:
// a refused grant is not tried again) and records it; with the DPoP key
// of h (machineAuthServer's: a stored one, else a new one when the
// authorization server advertises DPoP) bound to it.
func machineToken(ctx context.Context, h *oauthHTTP, t *config.Target, server string, as *authServer, ca clientAuth, form url.Values, scopes string, o grantOptions) (*StoredToken, error) {
	if scopes != "" {
		form.Set("scope", scopes)
	}
	tok, err := h.token(ctx, as.TokenEndpoint, form, ca)
	var ge *grantError
	if errors.As(err, &ge) {
		return nil, h.fail(refusedGrant+"%s", t.OAuth.Grant, ge.Msg)
	}
	if err != nil {
		return nil, err
	}
	if tok.TokenType == "DPoP" {
		tok.DPoPKey = h.dpop.storedJWK()
	}
	o.secrets.Add(tok.Secrets()...)
	recordGrant(tok, server, as, ca, false, scopes)
	tok.Grant = t.OAuth.Grant
	return tok, nil
}
