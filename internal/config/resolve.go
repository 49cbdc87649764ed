package config

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpx-cli/mcpx/internal/fail"
)

// DefaultTimeout bounds connect + initialize + the operation when neither
// --timeout nor the server's "timeout" says otherwise.
const DefaultTimeout = 30 * time.Second

// Target is a server ready to connect to: every ${...} expanded, relative
// paths resolved, headers merged, the timeout decided.
type Target struct {
	Name      string // the config name, or the URL for a URL server
	SpillName string // the name spilled files are filed under (a URL server: its host)
	Transport string
	Command   string
	Argv0     string // when set, argv[0] for the child
	Args      []string
	Env       []string // the child's whole environment
	Dir       string
	URL       string
	Headers   map[string]string
	Timeout   time.Duration
	KeepAlive time.Duration // the entry's "keepAlive" (0: none)
	Roots     []string      // the "roots" entry: absolute directories
	Fallback  bool          // an http target whose type was inferred: retry over SSE on a 4xx (not 401/403)
	Secrets   []string      // values that must be shown as ***
	// Tools and ReadOnly are the entry's "tools" rules and "readOnly"
	// (see HEADLESS RUNS in mcpx(1)); Source is the file that set them.
	Tools    *ToolRules
	ReadOnly bool
	Source   string

	OAuth    *OAuthConfig // the configured client, every ${...} expanded
	TokenDir string       // the OAuth token store ("" for none)
	// NoRefresh: use a stored token only while it is valid, never refresh
	// it (completion).
	NoRefresh bool
}

// ResolveOptions carry the invocation's view of the world.
type ResolveOptions struct {
	Getenv   func(string) string
	Environ  []string      // mcpx's own environment (for the stdio child)
	Headers  []string      // -H 'K: V'
	Timeout  time.Duration // --timeout; 0 when not given
	TokenDir string        // the OAuth token store (see TokenDir)
}

// IsURL reports whether a SRV argument is an http(s) URL.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// Demo returns the built-in demo server: the mcpx binary itself, serving a
// small deterministic MCP server over stdio.
func Demo(self string) *Server {
	return &Server{Name: DemoName, Transport: Stdio, Command: self, Args: []string{"serve-demo"},
		Source: SourceBuiltin, Origin: SourceBuiltin, argv0: "mcpx"}
}

// Lookup finds the server a SRV argument names: a URL, a configured server,
// or the built-in demo.
func (c *Config) Lookup(arg, self string) (*Server, error) {
	if IsURL(arg) {
		u, err := url.Parse(arg)
		if err != nil || u.Host == "" {
			return nil, Invalid("", fmt.Sprintf("invalid server URL %q", arg))
		}
		return &Server{Name: arg, Transport: HTTP, URL: arg, Source: "command line"}, nil
	}
	if s, ok := c.Servers[arg]; ok {
		return s, nil
	}
	if s, err := c.lookupRef(arg); s != nil || err != nil {
		return s, err
	}
	if arg == DemoName {
		return Demo(self), nil
	}
	e := fail.Unknown("server", arg, "")
	e.Known = c.Names()
	return nil, e
}

var varName = lazyRegexp(`^[A-Za-z_][A-Za-z0-9_]*$`)

// expander expands ${VAR}, ${VAR:-default}, ${env:VAR} and ${workspaceFolder},
// and remembers the values that are secrets (see SECRETS in mcpx(1)): those
// of variables with a secret name, and every value while all is set (a
// header value, a secret env entry).
type expander struct {
	server    string
	lookup    func(string) (string, bool)
	workspace string
	secretVar func(name string) bool
	all       bool
	secrets   []string
}

func (x *expander) expand(field, s string) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		rest := s[i+2:]
		j := strings.IndexByte(rest, '}')
		if j < 0 {
			return "", Invalid(x.server, fmt.Sprintf("%s: unterminated \"${\" in %q", field, s))
		}
		expr := rest[:j]
		name, val, err := x.value(field, expr)
		if err != nil {
			return "", err
		}
		if val != "" && (x.all || name != "" && x.secretVar(name)) {
			x.secrets = append(x.secrets, val)
		}
		b.WriteString(val)
		s = rest[j+1:]
	}
}

// value returns the value of one ${...} expression, and the name of the
// variable it read ("" for ${workspaceFolder}).
func (x *expander) value(field, expr string) (string, string, error) {
	switch {
	case expr == "workspaceFolder":
		return "", x.workspace, nil
	case strings.HasPrefix(expr, "input:"):
		return "", "", Invalid(x.server, fmt.Sprintf("%s: ${%s} asks VS Code to prompt for a value, which mcpx cannot do; use ${VAR} and set VAR in the environment", field, expr))
	case strings.HasPrefix(expr, "env:"):
		expr = expr[len("env:"):]
	}
	name, def, hasDef := expr, "", false
	if k := strings.Index(expr, ":-"); k >= 0 {
		name, def, hasDef = expr[:k], expr[k+2:], true
	}
	if !varName().MatchString(name) {
		return "", "", Invalid(x.server, fmt.Sprintf("%s: ${%s} is not a variable reference (want ${VAR} or ${VAR:-default})", field, expr))
	}
	v, ok := x.lookup(name)
	if hasDef && v == "" {
		return name, def, nil
	}
	if !ok {
		return "", "", x.unset(name, field)
	}
	return name, v, nil
}

// unset is the error of the environment variable name, used in field and
// not set.
func (x *expander) unset(name, field string) error {
	e := Invalid(x.server, fmt.Sprintf("environment variable %s is not set (used in %s)", name, field))
	e.What, e.Name = "variable", name
	return e
}

// Resolve expands a server's entry into a Target. Only servers that an
// invocation uses are resolved, so a broken entry fails that server alone.
// The phases run in the entry's order, so the first broken field is the one
// reported: the command line and URL, env, headers, then what only a
// remote or only a stdio server has, the roots, the timeout.
func Resolve(s *Server, o ResolveOptions) (*Target, error) {
	if s.err != nil {
		return nil, s.err
	}
	x := &expander{server: s.Name, lookup: environLookup(o.Environ), workspace: s.workspace, secretVar: s.secretName}
	t := &Target{Name: s.Name, Transport: s.Transport, Argv0: s.argv0}
	if err := x.expandLaunch(s, t); err != nil {
		return nil, err
	}
	env, err := x.expandEnv(s)
	if err != nil {
		return nil, err
	}
	if t.Headers, err = x.expandHeaders(s.Headers); err != nil {
		return nil, err
	}
	if t.Transport != Stdio {
		if err := x.resolveRemote(s, t, o); err != nil {
			return nil, err
		}
	}
	if !IsURL(s.Name) { // a URL server keeps its host (set by resolveRemote)
		t.SpillName = s.Name
	}
	if t.Transport == Stdio {
		resolveLocal(s, t, env, o.Environ)
	}
	if t.Roots, err = x.expandRoots(s); err != nil {
		return nil, err
	}
	t.Timeout = chooseTimeout(o.Timeout, s.Timeout)
	t.KeepAlive = s.KeepAlive
	t.Secrets = x.secrets
	t.Tools, t.ReadOnly, t.Source = s.Tools, s.ReadOnly, s.Source
	return t, nil
}

// environLookup looks a variable up in environ (the last entry wins, as
// in the environment a process gets).
func environLookup(environ []string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		for i := len(environ) - 1; i >= 0; i-- {
			if kv := environ[i]; strings.HasPrefix(kv, k+"=") {
				return kv[len(k)+1:], true
			}
		}
		return "", false
	}
}

// expandLaunch expands what starts or reaches the server: command, args,
// cwd and url. An argument's credential-like parts are secrets.
func (x *expander) expandLaunch(s *Server, t *Target) error {
	var err error
	if t.Command, err = x.expand("command", s.Command); err != nil {
		return err
	}
	for i, a := range s.Args {
		v, err := x.expand(fmt.Sprintf("args[%d]", i), a)
		if err != nil {
			return err
		}
		t.Args = append(t.Args, v)
		x.secrets = append(x.secrets, valueSecrets(v)...)
	}
	if t.Dir, err = x.expand("cwd", s.Cwd); err != nil {
		return err
	}
	t.URL, err = x.expand("url", s.URL)
	return err
}

// expandEnv expands the entry's env, in name order. The whole value of an
// entry with a secret name is a secret.
func (x *expander) expandEnv(s *Server) (map[string]string, error) {
	env := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		secret := s.secretName(k)
		x.all = secret
		v, err := x.expand("env."+k, s.Env[k])
		x.all = false
		if err != nil {
			return nil, err
		}
		env[k] = v
		if secret {
			x.secrets = append(x.secrets, v)
		}
		x.secrets = append(x.secrets, valueSecrets(v)...)
	}
	return env, nil
}

// expandHeaders expands the entry's headers, in name order, keyed by
// canonical name. Every header value is a secret.
func (x *expander) expandHeaders(headers map[string]string) (map[string]string, error) {
	out := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(headers)) {
		x.all = true // a header value is always a secret, and so is what it holds
		v, err := x.expand("headers."+k, headers[k])
		x.all = false
		if err != nil {
			return nil, err
		}
		setHeader(out, k, v)
		x.secrets = append(x.secrets, HeaderSecrets(v)...)
	}
	return out, nil
}

// resolveRemote completes an http or sse target: the -H headers over the
// entry's, the URL checked (its credentials are secrets), the name spilled
// files go under, the SSE fallback, the token store and the OAuth client.
func (x *expander) resolveRemote(s *Server, t *Target, o ResolveOptions) error {
	for _, h := range o.Headers {
		k, v, err := ParseHeader(h)
		if err != nil {
			return err
		}
		setHeader(t.Headers, k, v)
		x.secrets = append(x.secrets, HeaderSecrets(v)...)
	}
	for _, k := range slices.Sorted(maps.Keys(t.Headers)) {
		if msg := badHeader(k, t.Headers[k]); msg != "" {
			return Invalid(s.Name, msg)
		}
	}
	u, perr := url.Parse(t.URL)
	if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Invalid(s.Name, fmt.Sprintf("url %q is not an http(s) URL", s.URL))
	}
	x.secrets = append(x.secrets, URLSecrets(u)...)
	t.SpillName = u.Hostname()
	t.Fallback = t.Transport == HTTP && !s.explicitType
	t.TokenDir = o.TokenDir
	if s.OAuth != nil {
		oc, err := x.expandOAuth(s.OAuth, s.Dir)
		if err != nil {
			return err
		}
		t.OAuth = oc
	}
	if s.defaultClientMetadata != "" {
		if t.OAuth == nil {
			t.OAuth = &OAuthConfig{}
		}
		if t.OAuth.ClientMetadataURL == "" {
			t.OAuth.ClientMetadataURL = s.defaultClientMetadata
		}
	}
	return nil
}

// expandOAuth expands a configured OAuth client. Its secret is a secret;
// its id is not: it is in every authorization URL.
func (x *expander) expandOAuth(c *OAuthConfig, dir string) (*OAuthConfig, error) {
	oc := &OAuthConfig{Scopes: c.Scopes, AuthMethod: c.AuthMethod, Grant: c.Grant, KeyID: c.KeyID}
	n := len(x.secrets)
	var err error
	if oc.ClientID, err = x.expand("oauth.clientId", c.ClientID); err != nil {
		return nil, err
	}
	if oc.ClientMetadataURL, err = x.expand("oauth.clientMetadataUrl", c.ClientMetadataURL); err != nil {
		return nil, err
	}
	if oc.ClientMetadataURL != "" && oc.ClientMetadataURL != c.ClientMetadataURL {
		if err := CheckClientMetadataURL(oc.ClientMetadataURL); err != nil {
			return nil, Invalid(x.server, "\"oauth\".clientMetadataUrl "+err.Error())
		}
	}
	x.secrets = x.secrets[:n] // a client id is public: it is in every authorization URL
	x.all = true
	oc.ClientSecret, err = x.expand("oauth.clientSecret", c.ClientSecret)
	x.all = false
	if err != nil {
		return nil, err
	}
	if oc.ClientSecret != "" {
		x.secrets = append(x.secrets, oc.ClientSecret)
	}
	if c.PrivateKey != "" {
		key, err := x.privateKey(c.PrivateKey, dir)
		if err != nil {
			return nil, err
		}
		oc.PrivateKey = key
	}
	oc.AssertionEnv, oc.AssertionFile = c.AssertionEnv, relTo(dir, c.AssertionFile)
	if oc.Assertion, err = x.envSecret("oauth.assertionEnv", c.AssertionEnv); err != nil {
		return nil, err
	}
	if c.IdP != nil {
		if oc.IdP, err = x.expandIdP(c.IdP, dir); err != nil {
			return nil, err
		}
	}
	return oc, nil
}

// expandIdP expands the IdP of an id-jag grant: its client secret and the
// ID token of IDTokenEnv are secrets.
func (x *expander) expandIdP(c *IdPConfig, dir string) (*IdPConfig, error) {
	p := &IdPConfig{IDTokenEnv: c.IDTokenEnv, IDTokenFile: relTo(dir, c.IDTokenFile)}
	var err error
	if p.Issuer, err = x.expand("oauth.idp.issuer", c.Issuer); err != nil {
		return nil, err
	}
	if p.TokenEndpoint, err = x.expand("oauth.idp.tokenEndpoint", c.TokenEndpoint); err != nil {
		return nil, err
	}
	if p.ClientID, err = x.expand("oauth.idp.clientId", c.ClientID); err != nil {
		return nil, err
	}
	n := len(x.secrets)
	x.all = true
	p.ClientSecret, err = x.expand("oauth.idp.clientSecret", c.ClientSecret)
	x.all = false
	if err != nil {
		return nil, err
	}
	if p.ClientSecret != "" && len(x.secrets) == n {
		x.secrets = append(x.secrets, p.ClientSecret)
	}
	if p.IDToken, err = x.envSecret("oauth.idp.idTokenEnv", c.IDTokenEnv); err != nil {
		return nil, err
	}
	return p, nil
}

// envSecret is the value of the environment variable name ("" for no
// name), a secret: an assertion or an ID token named by its variable.
func (x *expander) envSecret(field, name string) (string, error) {
	if name == "" {
		return "", nil
	}
	v, ok := x.lookup(name)
	if !ok || v == "" {
		return "", x.unset(name, field)
	}
	x.secrets = append(x.secrets, v)
	return v, nil
}

// relTo is a file name of the config relative to its directory.
func relTo(dir, name string) string {
	if name == "" || filepath.IsAbs(name) || dir == "" {
		return name
	}
	return filepath.Join(dir, name)
}

// privateKey reads "oauth".privateKey: "@FILE" (relative to the config
// file's directory) or a value with ${VAR}, a PEM RSA or EC private key.
// The key, and each line of it, are secrets.
func (x *expander) privateKey(v, dir string) (string, error) {
	bad := func(format string, args ...any) error {
		return Invalid(x.server, "\"oauth\".privateKey "+fmt.Sprintf(format, args...))
	}
	var key string
	if name, ok := strings.CutPrefix(v, "@"); ok {
		if name == "" {
			return "", bad("\"@\" names no file")
		}
		if !filepath.IsAbs(name) && dir != "" {
			name = filepath.Join(dir, name)
		}
		data, err := readKeyFile(name)
		if err != nil {
			return "", bad("%v", err)
		}
		key = string(data)
	} else {
		x.all = true
		k, err := x.expand("oauth.privateKey", v)
		x.all = false
		if err != nil {
			return "", err
		}
		key = k
	}
	x.secrets = append(x.secrets, PrivateKeySecrets(key)...)
	if _, err := ParsePrivateKey(key); err != nil {
		return "", bad("%v", err)
	}
	return key, nil
}

// resolveLocal completes a stdio target: a relative command path (one
// with a "/") and a relative cwd resolve against the directory of the
// config file, and the child's environment is decided.
func resolveLocal(s *Server, t *Target, env map[string]string, environ []string) {
	if strings.Contains(t.Command, "/") && !filepath.IsAbs(t.Command) && s.Dir != "" {
		t.Command = filepath.Join(s.Dir, t.Command)
	}
	if t.Dir != "" && !filepath.IsAbs(t.Dir) && s.Dir != "" {
		t.Dir = filepath.Join(s.Dir, t.Dir)
	}
	t.Env = childEnv(environ, env, s.InheritEnv)
}

// expandRoots expands the "roots" entry; a relative root resolves against
// the directory of the config file, and an empty one is an error.
func (x *expander) expandRoots(s *Server) ([]string, error) {
	var roots []string
	for i, r := range s.Roots {
		field := fmt.Sprintf("roots[%d]", i)
		v, err := x.expand(field, r)
		if err != nil {
			return nil, err
		}
		if v == "" {
			return nil, Invalid(s.Name, fmt.Sprintf("%s (%q) is empty once expanded; a root names a directory", field, r))
		}
		if !filepath.IsAbs(v) && s.Dir != "" {
			v = filepath.Join(s.Dir, v)
		}
		roots = append(roots, v)
	}
	return roots, nil
}

// chooseTimeout: --timeout, else the server's "timeout", else DefaultTimeout.
func chooseTimeout(flag, server time.Duration) time.Duration {
	switch {
	case flag > 0:
		return flag
	case server > 0:
		return server
	}
	return DefaultTimeout
}

// secretName reports whether the entry's env entry or variable name marks
// a secret: by the name rule (IsSecretName) or because the entry lists it in
// "secrets" (compared ignoring case).
func (s *Server) secretName(name string) bool {
	if IsSecretName(name) {
		return true
	}
	for _, n := range s.Secrets {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// setHeader sets a header by its canonical name, so that "authorization"
// in a config file and -H 'Authorization: ...' are one header (the later wins).
func setHeader(h map[string]string, k, v string) {
	ck := http.CanonicalHeaderKey(k)
	for old := range h {
		if http.CanonicalHeaderKey(old) == ck {
			delete(h, old)
		}
	}
	h[ck] = v
}

// badHeader says why HTTP cannot carry the header k: v (a name that is
// not a token, a value with a control character other than tab, such as
// the CR of a token copied from a file), "" when it can. The value, a
// secret, is not quoted.
func badHeader(k, v string) string {
	for _, c := range []byte(k) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return fmt.Sprintf("header name %q is not a valid HTTP header name", k)
		}
	}
	for _, c := range []byte(v) {
		if (c < ' ' && c != '\t') || c == 0x7f {
			msg := fmt.Sprintf("the value of header %s holds the control character %s, which HTTP does not allow", k, strconv.QuoteToASCII(string(c)))
			if c == '\r' || c == '\n' {
				msg += " (a line ending copied with a token?)"
			}
			return msg
		}
	}
	return ""
}

// ParseHeader parses -H 'K: V'.
func ParseHeader(h string) (string, string, error) {
	k, v, ok := strings.Cut(h, ":")
	k = strings.TrimSpace(k)
	if !ok || k == "" || strings.ContainsAny(k, " \t\r\n") {
		return "", "", Invalid("", fmt.Sprintf("-H wants 'Name: value', got %q", maskHeader(h)))
	}
	return k, strings.TrimSpace(v), nil
}

func maskHeader(h string) string {
	if k, _, ok := strings.Cut(h, ":"); ok {
		return k + ": ***"
	}
	if k, _, ok := strings.Cut(strings.TrimSpace(h), " "); ok {
		return k + " ***"
	}
	return "***"
}

// passEnv is the environment a stdio server gets from mcpx's own (plus
// LC_*): the basics, and the proxy and CA settings that servers started
// through npx or uvx need to reach their registry behind a corporate proxy.
var passEnv = map[string]bool{"HOME": true, "LOGNAME": true, "PATH": true, "SHELL": true,
	"TERM": true, "USER": true, "LANG": true, "TMPDIR": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "http_proxy": true, "https_proxy": true, "no_proxy": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "NODE_EXTRA_CA_CERTS": true}

func childEnv(environ []string, extra map[string]string, inherit bool) []string {
	var env []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if inherit || passEnv[k] || strings.HasPrefix(k, "LC_") {
			if _, overridden := extra[k]; !overridden {
				env = append(env, kv)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		env = append(env, k+"="+extra[k])
	}
	return env
}

// Self returns the path of the running mcpx binary (for the demo server).
func Self() string {
	if exe, err := os.Executable(); err == nil {
		return exe
	}
	return os.Args[0]
}
