package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/secret"
)

// dpVerify checks a DPoP proof's form and signature (RFC 9449 §4.2) and
// returns its claims and the public JWK of its header.
func dpVerify(t *testing.T, proof string) (map[string]any, map[string]string) {
	t.Helper()
	parts := strings.Split(proof, ".")
	if len(parts) != 3 {
		t.Fatalf("proof %q is not a compact JWS", proof)
	}
	var hdr struct {
		Typ string            `json:"typ"`
		Alg string            `json:"alg"`
		JWK map[string]string `json:"jwk"`
	}
	var claims map[string]any
	hb, _ := base64.RawURLEncoding.DecodeString(parts[0])
	cb, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if json.Unmarshal(hb, &hdr) != nil || json.Unmarshal(cb, &claims) != nil {
		t.Fatalf("proof %q: header or claims not JSON", proof)
	}
	if hdr.Typ != "dpop+jwt" || hdr.Alg != "ES256" || hdr.JWK["kty"] != "EC" || hdr.JWK["crv"] != "P-256" || hdr.JWK["d"] != "" {
		t.Errorf("proof header %+v", hdr)
	}
	x, _ := base64.RawURLEncoding.DecodeString(hdr.JWK["x"])
	y, _ := base64.RawURLEncoding.DecodeString(hdr.JWK["y"])
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
	if err != nil {
		t.Fatalf("proof jwk: %v", err)
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if len(sig) != 64 || !ecdsa.Verify(pub, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		t.Errorf("proof signature does not verify")
	}
	return claims, hdr.JWK
}

// dpClaims is a proof's claims as JSON (for the fake servers).
func dpClaims(t *testing.T, proof string) string {
	parts := strings.Split(proof, ".")
	if len(parts) != 3 {
		return ""
	}
	b, _ := base64.RawURLEncoding.DecodeString(parts[1])
	return string(b)
}

func TestDPoPProof(t *testing.T) {
	k, err := newDPoPKey()
	if err != nil {
		t.Fatal(err)
	}
	k.SetNonce("https://RS.example/x", "n-1")
	p1, _ := k.Proof("POST", "https://rs.example/mcp?q=1#f", "at-1")
	p2, _ := k.Proof("GET", "https://as.example/token", "")
	c1, jwk := dpVerify(t, p1)
	c2, _ := dpVerify(t, p2)
	sum := sha256.Sum256([]byte("at-1"))
	if c1["htm"] != "POST" || c1["htu"] != "https://rs.example/mcp" || c1["ath"] != base64.RawURLEncoding.EncodeToString(sum[:]) || c1["nonce"] != "n-1" {
		t.Errorf("claims %v", c1)
	}
	if c2["htm"] != "GET" || c2["htu"] != "https://as.example/token" || c2["ath"] != nil || c2["nonce"] != nil {
		t.Errorf("claims %v", c2)
	}
	if c1["jti"] == c2["jti"] || len(c1["jti"].(string)) < 16 {
		t.Errorf("jti %v, %v", c1["jti"], c2["jti"])
	}
	if iat := int64(c1["iat"].(float64)); time.Since(time.Unix(iat, 0)).Abs() > time.Minute {
		t.Errorf("iat %d", iat)
	}
	if k.SetNonce("https://rs.example/other", "n-1") || !k.SetNonce("https://rs.example", "n-2") || k.SetNonce("https://rs.example", "bad nonce") {
		t.Error("SetNonce: a known nonce is new, or a new one is not, or a bad one is kept")
	}
	// The stored form gives the same key back; a damaged one is refused.
	back, err := parseDPoPKey(k.storedJWK())
	if err != nil || back.jwk["x"] != jwk["x"] || back.jwk["y"] != jwk["y"] {
		t.Errorf("parseDPoPKey = %+v, %v", back, err)
	}
	for _, bad := range []string{"", "{}", `{"kty":"EC","crv":"P-256","d":"!!"}`, strings.Replace(k.storedJWK(), `"x":"`, `"x":"A`, 1)} {
		if _, err := parseDPoPKey(bad); err == nil {
			t.Errorf("parseDPoPKey(%q) accepted", bad)
		}
	}
}

// Login with an authorization server that advertises DPoP: a key, a proof
// at the token endpoint (again with the nonce it asks for), a DPoP token
// stored with the private key in the 0600 file; the refresh proves the
// same key and keeps the binding; requests get the DPoP prover.
func TestLoginDPoP(t *testing.T) {
	as := newCAAS(t)
	as.dpop, as.dpopNonce = true, "as-nonce"
	tg := &config.Target{Name: "srv", Transport: config.HTTP, URL: as.URL + "/mcp", TokenDir: t.TempDir()}
	open, browsed, _ := caBrowser(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	secrets := &secret.Set{}
	tok, err := Login(ctx, tg, LoginOptions{Open: open, Secrets: secrets})
	if err != nil {
		t.Fatalf("Login: %v", err)
	}
	<-browsed
	as.mu.Lock()
	proofs := as.proofs
	as.mu.Unlock()
	if tok.TokenType != "DPoP" || tok.DPoPKey == "" || len(proofs) != 2 {
		t.Fatalf("token %+v, %d proofs", tok, len(proofs))
	}
	c1, jwk := dpVerify(t, proofs[0])
	c2, jwk2 := dpVerify(t, proofs[1])
	if c1["htu"] != as.URL+"/token" || c1["nonce"] != nil || c2["nonce"] != "as-nonce" || c1["jti"] == c2["jti"] || jwk["x"] != jwk2["x"] {
		t.Errorf("proofs %v, %v", c1, c2)
	}
	key, _ := parseDPoPKey(tok.DPoPKey)
	if key.jwk["x"] != jwk["x"] {
		t.Error("the stored key is not the one proved")
	}
	raw, _ := key.key.Bytes()
	if secrets.Mask(b64(raw)) == b64(raw) {
		t.Error("the private key is not a secret")
	}
	p := tokenStore{dir: tg.TokenDir}.path(as.URL + "/mcp")
	if m := tkPerm(t, p); m != 0o600 {
		t.Errorf("token file mode %o", m)
	}
	if data, _ := os.ReadFile(p); !strings.Contains(string(data), `"dpop_key"`) || !strings.Contains(string(data), `"token_type": "DPoP"`) {
		t.Errorf("token file %s", data)
	}

	// A connection: the prover of the stored key.
	a := NewSource(ctx, tg, SourceOptions{})
	if pr := a.DPoP(); pr == nil || a.Bearer() != "at-1" {
		t.Fatalf("DPoP() = %v, bearer %q", pr, a.Bearer())
	}
	proof, _ := a.DPoP().Proof("POST", as.URL+"/mcp", "at-1")
	if _, j := dpVerify(t, proof); j["x"] != jwk["x"] {
		t.Error("requests are not proved with the stored key")
	}
	// Bearer tokens have no prover.
	if b := (&Source{state: "token", tok: &StoredToken{AccessToken: "x", TokenType: "Bearer"}}); b.DPoP() != nil {
		t.Error("a Bearer token has a prover")
	}
}

// A refresh of a DPoP token proves the stored key (with the nonce the
// token endpoint asks for) and keeps it with the new token.
func TestRefreshDPoP(t *testing.T) {
	k, _ := newDPoPKey()
	var proofs []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proofs = append(proofs, r.Header.Get("DPoP"))
		if !strings.Contains(dpClaims(t, r.Header.Get("DPoP")), `"nonce":"n-9"`) {
			w.Header().Set("DPoP-Nonce", "n-9")
			oaWriteJSON(w, 400, `{"error":"use_dpop_nonce"}`)
			return
		}
		oaWriteJSON(w, 200, `{"access_token":"a2","token_type":"DPoP","expires_in":3600}`)
	}))
	t.Cleanup(ts.Close)
	tg := caTarget(t)
	st := caStored(ts.URL+"/token", "a1", "r1", -time.Minute)
	st.TokenType, st.DPoPKey = "DPoP", k.storedJWK()
	caSave(t, tg, st)
	a := NewSource(context.Background(), tg, SourceOptions{})
	if a.Bearer() != "a2" || a.DPoP() == nil || len(proofs) != 2 {
		t.Fatalf("bearer %q, %d proofs", a.Bearer(), len(proofs))
	}
	for _, p := range proofs {
		if _, jwk := dpVerify(t, p); jwk["x"] != k.jwk["x"] {
			t.Error("the refresh proved another key")
		}
	}
	if got := caLoad(t, tg); got.TokenType != "DPoP" || got.DPoPKey != st.DPoPKey || got.AccessToken != "a2" {
		t.Errorf("stored %+v", got)
	}
}
