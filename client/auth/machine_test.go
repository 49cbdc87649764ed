package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"
)

// TestSignAssertion checks the JWT client assertion: header, claims, and a
// signature the public key verifies, for RSA and each EC curve.
func TestSignAssertion(t *testing.T) {
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]crypto.Signer{"RS256": rk}
	for alg, c := range map[string]elliptic.Curve{"ES256": elliptic.P256(), "ES384": elliptic.P384(), "ES512": elliptic.P521()} {
		k, err := ecdsa.GenerateKey(c, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		keys[alg] = k
	}
	now := time.Unix(1_800_000_000, 0)
	for alg, key := range keys {
		jwt, err := signAssertion(key, "kid-1", "client-1", "https://as.example", now)
		if err != nil {
			t.Fatalf("%s: %v", alg, err)
		}
		parts := strings.Split(jwt, ".")
		if len(parts) != 3 {
			t.Fatalf("%s: %d parts", alg, len(parts))
		}
		var header map[string]string
		var claims map[string]any
		dec := func(p string, v any) {
			b, err := base64.RawURLEncoding.DecodeString(p)
			if err != nil || json.Unmarshal(b, v) != nil {
				t.Fatalf("%s: cannot decode %q", alg, p)
			}
		}
		dec(parts[0], &header)
		dec(parts[1], &claims)
		if header["alg"] != alg || header["kid"] != "kid-1" || header["typ"] != "JWT" {
			t.Errorf("%s: header %v", alg, header)
		}
		if claims["iss"] != "client-1" || claims["sub"] != "client-1" || claims["aud"] != "https://as.example" ||
			claims["iat"] != float64(now.Unix()) || claims["exp"] != float64(now.Unix()+60) || len(claims["jti"].(string)) != 32 {
			t.Errorf("%s: claims %v", alg, claims)
		}
		sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
		input := []byte(parts[0] + "." + parts[1])
		switch k := key.(type) {
		case *rsa.PrivateKey:
			d := sha256.Sum256(input)
			if err := rsa.VerifyPKCS1v15(&k.PublicKey, crypto.SHA256, d[:], sig); err != nil {
				t.Errorf("%s: %v", alg, err)
			}
		case *ecdsa.PrivateKey:
			var d []byte
			switch alg {
			case "ES256":
				s := sha256.Sum256(input)
				d = s[:]
			case "ES384":
				s := sha512.Sum384(input)
				d = s[:]
			case "ES512":
				s := sha512.Sum512(input)
				d = s[:]
			}
			n := len(sig) / 2
			if !ecdsa.Verify(&k.PublicKey, d, new(big.Int).SetBytes(sig[:n]), new(big.Int).SetBytes(sig[n:])) {
				t.Errorf("%s: the signature does not verify", alg)
			}
		}
	}
}

// TestReadPasted checks what login --paste accepts.
func TestReadPasted(t *testing.T) {
	cb := &callback{state: "st-1", issuer: "https://as.example"}
	for _, c := range []struct{ in, code, err string }{
		{"\n  http://127.0.0.1:5/callback?code=c-1&state=st-1&iss=https%3A%2F%2Fas.example  \n", "c-1", ""},
		{"?code=c-2&state=st-1", "c-2", ""},
		{"code=c-3&state=st-1\n", "c-3", ""},
		{"c-4\n", "c-4", ""},
		{"http://127.0.0.1:5/callback?code=c&state=other", "", "the pasted URL is not the redirect of this login (wrong state); nothing was accepted"},
		{"http://127.0.0.1:5/callback?code=c", "", "the pasted URL has no state, so it cannot be checked; paste the whole URL the browser ended on, or the code alone"},
		{"http://127.0.0.1:5/callback?error=access_denied&state=st-1", "", "the authorization server refused: access_denied"},
		{"http://127.0.0.1:5/callback?code=c&state=st-1&iss=https%3A%2F%2Fevil", "", `the authorization redirect came from issuer "https://evil", not "https://as.example" (RFC 9207); nothing was accepted`},
		{"http://127.0.0.1:5/callback?code=c&state=st-1&iss=https%3A%2F%2Fas.example%2F", "", `the authorization redirect came from issuer "https://as.example/", not "https://as.example" (RFC 9207); nothing was accepted`},
		{"a code", "", "the pasted code has characters a code cannot have; paste the URL the browser ended on, or the code"},
		{"\n\n", "", "stdin ended before the redirected URL or the code was pasted; nothing was accepted"},
		{strings.Repeat("x", maxPaste+1), "", "the pasted line is longer than 65536 bytes; paste the URL the browser ended on, or the code"},
	} {
		code, err := readPasted(t.Context(), strings.NewReader(c.in), cb)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if code != c.code || msg != c.err {
			t.Errorf("readPasted(%.40q) = %q, %q; want %q, %q", c.in, code, msg, c.code, c.err)
		}
	}
}
