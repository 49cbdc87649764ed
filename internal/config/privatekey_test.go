package config

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"
)

func TestParsePrivateKey(t *testing.T) {
	pemOf := func(typ string, der []byte) string {
		return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
	}
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecDER, _ := x509.MarshalECPrivateKey(ec)
	p8, _ := x509.MarshalPKCS8PrivateKey(ec)
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	ec224, _ := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	ec224DER, _ := x509.MarshalECPrivateKey(ec224)
	for _, c := range []struct{ key, err string }{
		{pemOf("EC PRIVATE KEY", ecDER), ""},
		{pemOf("PRIVATE KEY", p8), ""},
		{strings.ReplaceAll(pemOf("PRIVATE KEY", p8), "\n", `\n`), ""}, // one line, \n escapes
		{pemOf("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(small)), "is an RSA key of 1024 bits; RS256 needs at least 2048"},
		{pemOf("EC PRIVATE KEY", ec224DER), "is an EC key on curve P-224; mcpx signs with P-256, P-384 or P-521"},
		{pemOf("ENCRYPTED PRIVATE KEY", p8), "is encrypted; mcpx needs the key without a passphrase"},
		{pemOf("PUBLIC KEY", p8), `is a PEM "PUBLIC KEY" block, not a private key`},
		{"not a key", "is not a PEM private key (want -----BEGIN PRIVATE KEY-----)"},
	} {
		_, err := ParsePrivateKey(c.key)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if msg != c.err {
			t.Errorf("ParsePrivateKey(%.30q): %q, want %q", c.key, msg, c.err)
		}
	}
	secrets := PrivateKeySecrets(pemOf("PRIVATE KEY", p8))
	if len(secrets) < 3 || strings.Contains(strings.Join(secrets[1:], ""), "-----") {
		t.Errorf("PrivateKeySecrets: %q", secrets)
	}
}

func TestCheckClientMetadataURL(t *testing.T) {
	for _, c := range []struct{ u, err string }{
		{"https://mcpx.example/client.json", ""},
		{"https://mcpx.example:8443/a/b?x=1", ""},
		{"http://127.0.0.1/client.json", `"http://127.0.0.1/client.json" is not an https URL (the authorization server fetches it; a client ID metadata document is https only)`},
		{"https://mcpx.example", `"https://mcpx.example" has no path (the document's URL names a file, such as /mcpx/client.json)`},
		{"https://mcpx.example/a/../b", `"https://mcpx.example/a/../b" has a dot segment in its path`},
		{"https://mcpx.example/a#f", `"https://mcpx.example/a#f" has a fragment`},
		{"https://u:secret@mcpx.example/a", `"https://u:xxxxx@mcpx.example/a" has user information`},
		{"client.json", `"client.json" is not an absolute URL`},
	} {
		err := CheckClientMetadataURL(c.u)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if msg != c.err {
			t.Errorf("CheckClientMetadataURL(%q): %q, want %q", c.u, msg, c.err)
		}
	}
}
