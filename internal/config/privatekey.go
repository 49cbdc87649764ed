package config

// The private key of an "oauth" entry (see AUTHENTICATION in mcpx(1)): a
// PEM RSA or EC private key that signs JWT client assertions
// (private_key_jwt, RFC 7523).

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// maxKeyFile bounds a private key file: a PEM key is a few kilobytes.
const maxKeyFile = 1 << 16

// readKeyFile reads a private key file, bounded.
func readKeyFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("cannot be read: %v", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("cannot be read: %v", err)
	}
	if len(data) > maxKeyFile {
		return nil, fmt.Errorf("file %s is larger than %d bytes: not a PEM private key", name, maxKeyFile)
	}
	return data, nil
}

// pemText is a key as PEM text: an environment variable may hold it on
// one line with \n escapes.
func pemText(key string) string {
	if !strings.Contains(key, "\n") && strings.Contains(key, `\n`) {
		key = strings.ReplaceAll(key, `\n`, "\n")
	}
	return key
}

// ParsePrivateKey reads a PEM private key: PKCS #8, PKCS #1 (RSA) or SEC 1
// (EC), RSA of at least 2048 bits or EC on P-256, P-384 or P-521.
func ParsePrivateKey(key string) (crypto.Signer, error) {
	block, _ := pem.Decode([]byte(strings.TrimSpace(pemText(key))))
	if block == nil {
		return nil, errors.New("is not a PEM private key (want -----BEGIN PRIVATE KEY-----)")
	}
	if strings.Contains(block.Type, "ENCRYPTED") || block.Headers["Proc-Type"] != "" {
		return nil, errors.New("is encrypted; mcpx needs the key without a passphrase")
	}
	var k any
	var err error
	switch block.Type {
	case "RSA PRIVATE KEY":
		k, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		k, err = x509.ParseECPrivateKey(block.Bytes)
	case "PRIVATE KEY":
		k, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("is a PEM %q block, not a private key", block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("is not a valid private key: %v", err)
	}
	switch k := k.(type) {
	case *rsa.PrivateKey:
		if k.N.BitLen() < 2048 {
			return nil, fmt.Errorf("is an RSA key of %d bits; RS256 needs at least 2048", k.N.BitLen())
		}
		return k, nil
	case *ecdsa.PrivateKey:
		switch k.Curve.Params().Name {
		case "P-256", "P-384", "P-521":
			return k, nil
		}
		return nil, fmt.Errorf("is an EC key on curve %s; mcpx signs with P-256, P-384 or P-521", k.Curve.Params().Name)
	}
	return nil, fmt.Errorf("is a %T; mcpx signs with RSA or EC keys", k)
}

// PrivateKeySecrets are the values of a key that must never be shown: the
// whole text and each line of its body.
func PrivateKeySecrets(key string) []string {
	out := []string{key}
	for _, l := range strings.Split(pemText(key), "\n") {
		if l = strings.TrimSpace(l); len(l) >= 16 && !strings.HasPrefix(l, "-----") {
			out = append(out, l)
		}
	}
	return out
}
