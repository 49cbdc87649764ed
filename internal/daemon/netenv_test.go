package daemon

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpx-cli/mcpx/internal/ascaller"
)

func TestNetEnvPicksProxyAndCA(t *testing.T) {
	got := NetEnv([]string{"PATH=/bin", "https_proxy=http://p:1", "HTTP_PROXY=", "SSL_CERT_FILE=/ca.pem", "NO_PROXY=a", "HOME=/h"})
	want := []string{"NO_PROXY=a", "SSL_CERT_FILE=/ca.pem", "https_proxy=http://p:1"}
	if len(got) != len(want) {
		t.Fatalf("NetEnv = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("NetEnv = %q, want %q", got, want)
		}
	}
}

func TestProxyFromCallerEnv(t *testing.T) {
	env := []string{"HTTP_PROXY=proxy:3128", "https_proxy=https://sproxy:443",
		"NO_PROXY=.internal, skip.example, 10.0.0.0/8, 192.168.1.1, port.example:8080"}
	tr, err := netTransport(env)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ url, want string }{
		{"http://mcp.example/mcp", "http://proxy:3128"},
		{"https://mcp.example/mcp", "https://sproxy:443"},
		{"http://localhost:80/mcp", ""},
		{"http://127.0.0.1:9/mcp", ""},
		{"http://[::1]:9/mcp", ""},
		{"http://a.internal/mcp", ""},
		{"http://internal/mcp", "http://proxy:3128"},
		{"http://skip.example/mcp", ""},
		{"http://x.skip.example/mcp", ""},
		{"http://noskip.example/mcp", "http://proxy:3128"},
		{"http://10.1.2.3/mcp", ""},
		{"http://192.168.1.1/mcp", ""},
		{"http://192.168.1.2/mcp", "http://proxy:3128"},
		{"http://port.example:8080/mcp", ""},
		{"http://port.example/mcp", "http://proxy:3128"},
	} {
		req, _ := http.NewRequest(http.MethodPost, c.url, nil)
		u, err := tr.Proxy(req)
		got := ""
		if u != nil {
			got = u.String()
		}
		if err != nil || got != c.want {
			t.Errorf("proxy of %s = %q, %v; want %q", c.url, got, err, c.want)
		}
	}
	// no variable: no proxy, whatever the daemon's own environment says
	t.Setenv("HTTP_PROXY", "http://daemon:1")
	tr, _ = netTransport(nil)
	req, _ := http.NewRequest(http.MethodPost, "http://mcp.example/", nil)
	if u, _ := tr.Proxy(req); u != nil {
		t.Errorf("proxy with no caller variables = %s, want none", u)
	}
}

func TestKeyHoldsCallerAttrsAndNetEnv(t *testing.T) {
	base := func() *Spec {
		return &Spec{Name: "s", Transport: "stdio", Command: "x", Env: []string{"B=2", "A=1"},
			AsCaller: &ascaller.Attrs{Umask: 0o22, Limits: []ascaller.Limit{{Name: "nofile", Cur: 64, Max: 64}, {Name: "as", Cur: 1, Max: 2}}}}
	}
	k := base().Key()
	same := base()
	same.Env = []string{"A=1", "B=2"}
	same.AsCaller.Limits[0], same.AsCaller.Limits[1] = same.AsCaller.Limits[1], same.AsCaller.Limits[0]
	if same.Key() != k {
		t.Error("the key depends on the order of the environment or the limits")
	}
	umask := base()
	umask.AsCaller.Umask = 0o77
	limit := base()
	limit.AsCaller.Limits[0].Cur = 32
	net := base()
	net.NetEnv = []string{"HTTP_PROXY=p"}
	for name, s := range map[string]*Spec{"umask": umask, "limit": limit, "net env": net} {
		if s.Key() == k {
			t.Errorf("another %s, the same key", name)
		}
	}
}

func TestCAFromCallerEnv(t *testing.T) {
	if _, _, ok := systemCertPaths(); !ok {
		t.Skip("Go asks the system for its roots here")
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemData := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(ca, pemData, 0o600); err != nil {
		t.Fatal(err)
	}
	get := func(env []string) error {
		tr, err := netTransport(env)
		if err != nil {
			return err
		}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := get([]string{"SSL_CERT_FILE=" + ca}); err != nil {
		t.Errorf("with the caller's CA file: %v", err)
	}
	if err := get([]string{"SSL_CERT_DIR=" + filepath.Dir(ca)}); err != nil {
		t.Errorf("with the caller's CA directory: %v", err)
	}
	if err := get(nil); err == nil {
		t.Error("without the caller's CA, the server's certificate was trusted")
	}
	if _, err := netTransport([]string{"SSL_CERT_FILE=/nonexistent", "SSL_CERT_DIR=/nonexistent"}); err == nil {
		t.Error("no CA where the variables say: no error")
	}
}
