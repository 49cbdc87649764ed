package daemon

// A warm http or sse target's proxy and certificate authorities are its
// caller's, as a one-shot connection's are mcpx's own environment's (see
// WARM CONNECTIONS in mcpx(1)): the caller sends the variables (Spec.NetEnv),
// and the daemon's connection obeys them as Go's HTTP client and TLS obey
// a process's environment, never the daemon's own.

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// NetEnvNames are the proxy and CA variables that a one-shot connection
// to an http or sse server obeys (the proxy and CA variables of a stdio
// server's environment that Go's client reads).
var NetEnvNames = []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR"}

// NetEnv is what of environ (NAME=value) a target's connection obeys: the
// variables of NetEnvNames that are set and not empty, sorted.
func NetEnv(environ []string) []string {
	var env []string
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && v != "" && slices.Contains(NetEnvNames, k) {
			env = append(env, kv)
		}
	}
	slices.Sort(env)
	return slices.Compact(env)
}

// envMap is env (NAME=value) as a map, the last value of a name winning.
func envMap(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// netTransport is the round tripper of a target whose caller's variables
// are env: http.DefaultTransport's settings, with the proxy of env (none
// when it names none) and, where Go reads them, the certificate
// authorities SSL_CERT_FILE and SSL_CERT_DIR name.
func netTransport(env []string) (*http.Transport, error) {
	m := envMap(env)
	t := http.DefaultTransport.(*http.Transport).Clone()
	p, err := newProxyConfig(m)
	if err != nil {
		return nil, err
	}
	t.Proxy = p.proxy
	roots, err := rootsFrom(m)
	if err != nil {
		return nil, err
	}
	if roots != nil {
		t.TLSClientConfig = &tls.Config{RootCAs: roots}
	}
	return t, nil
}

// proxyConfig is the proxy settings of an environment, read as Go's
// http.ProxyFromEnvironment reads a process's.
type proxyConfig struct {
	http, https *url.URL
	no          []string
}

func newProxyConfig(m map[string]string) (*proxyConfig, error) {
	get := func(names ...string) string {
		for _, n := range names {
			if v := m[n]; v != "" {
				return v
			}
		}
		return ""
	}
	p := &proxyConfig{}
	var err error
	if p.http, err = parseProxy(get("HTTP_PROXY", "http_proxy")); err != nil {
		return nil, err
	}
	if p.https, err = parseProxy(get("HTTPS_PROXY", "https_proxy")); err != nil {
		return nil, err
	}
	for _, e := range strings.Split(get("NO_PROXY", "no_proxy"), ",") {
		if e = strings.ToLower(strings.TrimSpace(e)); e != "" {
			p.no = append(p.no, e)
		}
	}
	return p, nil
}

// parseProxy reads a proxy variable's value: a URL, or a host[:port]
// taken as http://.
func parseProxy(v string) (*url.URL, error) {
	if v == "" {
		return nil, nil
	}
	u, err := url.Parse(v)
	if err != nil || u.Scheme == "" || u.Host == "" {
		if u2, err2 := url.Parse("http://" + v); err2 == nil {
			return u2, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("invalid proxy address %q: %v", v, err)
	}
	return u, nil
}

// proxy is the proxy of a request (nil: none), for http.Transport.Proxy.
func (p *proxyConfig) proxy(req *http.Request) (*url.URL, error) {
	var u *url.URL
	port := req.URL.Port()
	switch req.URL.Scheme {
	case "https":
		u = p.https
		if port == "" {
			port = "443"
		}
	case "http":
		u = p.http
		if port == "" {
			port = "80"
		}
	}
	if u == nil || !p.useProxy(strings.ToLower(req.URL.Hostname()), port) {
		return nil, nil
	}
	return u, nil
}

// useProxy reports whether a request to host:port goes through the
// proxy: never to localhost or a loopback address, nor to what NO_PROXY
// names ("*", an address, a network, a domain and its subdomains, with or
// without a port).
func (p *proxyConfig) useProxy(host, port string) bool {
	if host == "localhost" {
		return false
	}
	ip := net.ParseIP(host)
	if ip != nil && ip.IsLoopback() {
		return false
	}
	for _, e := range p.no {
		if noProxyMatch(e, host, port, ip) {
			return false
		}
	}
	return true
}

func noProxyMatch(e, host, port string, ip net.IP) bool {
	if e == "*" {
		return true
	}
	if _, n, err := net.ParseCIDR(e); err == nil {
		return ip != nil && n.Contains(ip)
	}
	h, eport := e, ""
	if hh, pp, err := net.SplitHostPort(e); err == nil {
		h, eport = hh, pp
	}
	if eport != "" && eport != port {
		return false
	}
	if eip := net.ParseIP(h); eip != nil {
		return ip != nil && eip.Equal(ip)
	}
	h = strings.TrimPrefix(h, "*")
	if strings.HasPrefix(h, ".") {
		return strings.HasSuffix(host, h)
	}
	return host == h || strings.HasSuffix(host, "."+h)
}

// Where Go's TLS finds the system's certificate authorities when
// SSL_CERT_FILE or SSL_CERT_DIR does not say (see crypto/x509).
var (
	linuxCertFiles = []string{"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
		"/etc/ssl/ca-bundle.pem", "/etc/pki/tls/cacert.pem", "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
		"/etc/ssl/cert.pem"}
	linuxCertDirs = []string{"/etc/ssl/certs", "/etc/pki/tls/certs"}
	bsdCertFiles  = []string{"/usr/local/etc/ssl/cert.pem", "/etc/ssl/cert.pem", "/usr/local/share/certs/ca-root-nss.crt",
		"/etc/openssl/certs/ca-certificates.crt"}
	bsdCertDirs = []string{"/etc/ssl/certs", "/usr/local/share/certs", "/etc/openssl/certs"}
)

// rootsFrom is the pool of certificate authorities that Go's TLS would
// trust in a process whose environment is m, when m sets SSL_CERT_FILE or
// SSL_CERT_DIR (nil otherwise, and where Go asks the system instead:
// macOS, Windows): the file named (else the first of the system's that
// reads), and the certificates of the directories named (else the
// system's).
func rootsFrom(m map[string]string) (*x509.CertPool, error) {
	file, dir := m["SSL_CERT_FILE"], m["SSL_CERT_DIR"]
	files, dirs, ok := systemCertPaths()
	if !ok || file == "" && dir == "" {
		return nil, nil
	}
	if file != "" {
		files = []string{file}
	}
	if dir != "" {
		dirs = filepath.SplitList(dir)
	}
	pool := x509.NewCertPool()
	if !addCerts(pool, files, dirs) {
		return nil, fmt.Errorf("no certificate authority found where SSL_CERT_FILE and SSL_CERT_DIR say (%q, %q)", file, dir)
	}
	return pool, nil
}

// systemCertPaths are where Go looks for the system's certificate
// authorities on this system; ok is false where it asks the system.
func systemCertPaths() (files, dirs []string, ok bool) {
	switch runtime.GOOS {
	case "linux":
		return linuxCertFiles, linuxCertDirs, true
	case "freebsd", "openbsd", "netbsd", "dragonfly":
		return bsdCertFiles, bsdCertDirs, true
	}
	return nil, nil, false
}

// addCerts adds to pool the certificates of the first of files that
// reads and of every file in dirs, and reports whether it added any.
func addCerts(pool *x509.CertPool, files, dirs []string) bool {
	found := false
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil {
			found = pool.AppendCertsFromPEM(data)
			break
		}
	}
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if data, err := os.ReadFile(filepath.Join(d, e.Name())); err == nil {
				found = pool.AppendCertsFromPEM(data) || found
			}
		}
	}
	return found
}
