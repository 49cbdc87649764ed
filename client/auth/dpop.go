// DPoP (RFC 9449; see AUTHENTICATION in mcpx(1)): when the authorization
// server advertises it (dpop_signing_alg_values_supported with ES256),
// login makes a P-256 key for the server, proves possession of it at the
// token endpoint, and stores it (its private part) with the token it bound,
// in the 0600 token file; a refresh keeps it, since the token stays bound
// to it. Every request then carries "Authorization: DPoP <token>" and a
// fresh proof, a JWS of its own jti, method, URL and time, with the hash of
// the token (ath) for the resource server, and the last nonce a server gave
// (its DPoP-Nonce): a use_dpop_nonce answer is retried once with it.
//
// The standard library does it: a JWS of two small JSON objects, signed
// with crypto/ecdsa, and a JWK of an EC public key, need no JOSE library.

package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// dpopAlg is the one proof algorithm mcpx signs with.
const dpopAlg = "ES256"

// dpopKey is a server's DPoP key, with the nonces its servers gave.
type dpopKey struct {
	key *ecdsa.PrivateKey
	jwk map[string]string // the public key as a JWK

	mu     sync.Mutex
	nonces map[string]string // by origin
}

// newDPoPKey makes a fresh P-256 key.
func newDPoPKey() (*dpopKey, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("making the DPoP key: %v", err)
	}
	return dpopFrom(k)
}

func dpopFrom(k *ecdsa.PrivateKey) (*dpopKey, error) {
	pub, err := k.PublicKey.Bytes() // 0x04 || X || Y
	if err != nil || len(pub) != 65 {
		return nil, errors.New("the DPoP key is not an uncompressed P-256 key")
	}
	jwk := map[string]string{"kty": "EC", "crv": "P-256", "x": b64(pub[1:33]), "y": b64(pub[33:])}
	return &dpopKey{key: k, jwk: jwk, nonces: map[string]string{}}, nil
}

// storedJWK is the key as the token file holds it: a private JWK.
func (d *dpopKey) storedJWK() string {
	raw, _ := d.key.Bytes()
	m := map[string]string{"d": b64(raw)}
	for k, v := range d.jwk {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// parseDPoPKey reads a stored private JWK.
func parseDPoPKey(s string) (*dpopKey, error) {
	var m map[string]string
	if err := json.Unmarshal([]byte(s), &m); err != nil || m["kty"] != "EC" || m["crv"] != "P-256" {
		return nil, errors.New("the stored DPoP key is not a P-256 JWK")
	}
	raw, err := base64.RawURLEncoding.DecodeString(m["d"])
	if err != nil {
		return nil, errors.New("the stored DPoP key is damaged")
	}
	k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), raw)
	if err != nil {
		return nil, errors.New("the stored DPoP key is damaged")
	}
	d, err := dpopFrom(k)
	if err == nil && (d.jwk["x"] != m["x"] || d.jwk["y"] != m["y"]) {
		return nil, errors.New("the stored DPoP key's public part does not match its private part")
	}
	return d, err
}

// offersDPoP reports whether authorization-server metadata advertises DPoP
// with the algorithm mcpx signs with.
func offersDPoP(md *asDoc) bool { return slices.Contains(md.DPoPSigningAlgValuesSupported, dpopAlg) }

// htu is a request URL as a proof names it: without query and fragment
// (RFC 9449 §4.2).
func htu(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.RawQuery, u.Fragment, u.RawFragment, u.ForceQuery = "", "", "", false
	return u.String()
}

// originOf is the nonce's key: scheme and host.
func nonceKey(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// Proof is a fresh proof for a request (method, URL) with the access token
// it carries ("" at the token endpoint), and the last nonce of the URL's
// server.
func (d *dpopKey) Proof(method, rawURL, accessToken string) (string, error) {
	d.mu.Lock()
	nonce := d.nonces[nonceKey(rawURL)]
	d.mu.Unlock()
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	claims := map[string]any{"jti": hex.EncodeToString(jti), "htm": method, "htu": htu(rawURL), "iat": time.Now().Unix()}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = b64(sum[:])
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	hb, _ := json.Marshal(map[string]any{"typ": "dpop+jwt", "alg": dpopAlg, "jwk": d.jwk})
	cb, _ := json.Marshal(claims)
	input := b64(hb) + "." + b64(cb)
	digest := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, d.key, digest[:])
	if err != nil {
		return "", fmt.Errorf("signing the DPoP proof: %v", err)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + b64(sig), nil
}

// SetNonce keeps the nonce a server gave (DPoP-Nonce) for the next proofs
// to its origin; it reports whether it is new (a retry is worth it).
func (d *dpopKey) SetNonce(rawURL, nonce string) bool {
	if nonce == "" || !tokenChars(nonce) {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	k := nonceKey(rawURL)
	if d.nonces[k] == nonce {
		return false
	}
	d.nonces[k] = nonce
	return true
}
