package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// Transports.
const (
	Stdio = "stdio"
	HTTP  = "http"
	SSE   = "sse"
)

// DemoName is the name of the built-in demo server.
const DemoName = "demo"

// Server is one configured server, as written in its file: nothing is
// expanded yet. Expansion happens in Resolve, only for servers that are used.
type Server struct {
	Name      string
	Transport string // stdio, http or sse ("" when the entry is broken)
	Command   string
	Args      []string
	Env       map[string]string
	Cwd       string
	URL       string
	Headers   map[string]string
	Timeout   time.Duration // 0: not set
	// KeepAlive is the entry's "keepAlive": how long a warm connection to
	// it stays idle (0: one-shot; see WARM CONNECTIONS in mcpx(1)).
	KeepAlive  time.Duration
	InheritEnv bool
	Roots      []string     // the "roots" entry: directories offered to the server as roots
	OAuth      *OAuthConfig // the "oauth" entry: a pre-registered client
	Secrets    []string     // "secrets": env and variable names whose values are secrets
	Disabled   bool         // "disabled": listed, never started
	Tools      *ToolRules   // "tools": the tools shown and callable (nil: all)
	ReadOnly   bool         // "readOnly": invoke calls only read-only tools
	Source     string       // the file that defined it, or "builtin"
	Origin     string       // the source's name: mcpx, project, builtin, or a host's (see Sources)
	Dir        string       // directory of that file: relative paths resolve against it

	explicitType bool   // type was given (no SSE fallback for an explicit http)
	disabledErr  bool   // err only says that the entry is disabled
	workspace    string // ${workspaceFolder}
	argv0        string // argv[0] for the child (the demo server re-executes mcpx)
	err          error  // a problem with the entry itself, reported when it is used

	entry *hostEntry // a host's entry, as mcpx import copies it

	defaultClientMetadata string // the user file's "oauth".clientMetadataUrl
}

// Problem is what is wrong with the entry itself, which using it reports
// (exit 2): an unknown type, a missing command or url, a value of the
// wrong kind. It is nil for an entry that can be used, or is disabled and
// nothing else; unset variables are found only when the entry is used.
func (s *Server) Problem() error {
	if s.err == nil || s.disabledErr {
		return nil
	}
	return s.err
}

// Target returns the server's target as configured, unexpanded: the command
// line or the URL. It never contains a secret that came from the
// environment, and a URL shows a literal password or token as *** (see
// displayURL), a URL in the command line a literal password (displayArg).
func (s *Server) Target() string {
	if s.Transport == Stdio || (s.Transport == "" && s.Command != "") {
		parts := append([]string{s.Command}, s.Args...)
		if s.argv0 != "" {
			parts[0] = s.argv0
		}
		for i, p := range parts {
			parts[i] = shellQuote(displayArg(p))
		}
		return strings.Join(parts, " ")
	}
	return displayURL(s.URL)
}

// shellQuote quotes a word of a configured command line for display; ${VAR}
// stays bare, as the config file writes it.
func shellQuote(s string) string { return text.QuoteWord(s, "-_./:=@%+,${}") }

// Config is the merged view of the config files an invocation reads.
type Config struct {
	Servers map[string]*Server
	Notes   []string // things worth saying about the files read
	// Untrusted is the project directory whose project files (Skipped)
	// were not read, not being trusted ("" when none was skipped).
	Untrusted string
	Skipped   []string
	Warns     []string // e.g. a project entry that a user entry shadows
	// HostWarns are the hosts' files that could not be used; HostWarnings
	// says which to show.
	HostWarns []HostWarning
	state     hostState // where shown HostWarns are remembered
	Files     []string  // the files that were read

	// All holds every entry of every source read, in precedence order,
	// the shadowed ones too (NAME@SOURCE reaches them); Servers holds,
	// for each name, the first source's entry, disabled or not.
	All []*Server

	// ClientMetadataURL is the "oauth": {"clientMetadataUrl"} of mcpx's own
	// file (the user file, or --config): the default of every server.
	ClientMetadataURL string
	// CompletionKeepAlive is the idle time of the warm connection a TAB
	// starts: the "completionKeepAlive" of mcpx's own file, else
	// DefaultCompletionKeepAlive (0: off).
	CompletionKeepAlive time.Duration
	// MaxWarm bounds the targets the mcpx daemon holds: the "maxWarm" of
	// mcpx's own file, else 0 (the daemon's default, 32).
	MaxWarm int
}

// Names returns the configured server names in order.
func (c *Config) Names() []string {
	names := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LoadOptions say where config comes from.
type LoadOptions struct {
	File    string // --config or $MCPX_CONFIG: read this file alone
	Project bool   // --project: trust ./.mcp.json (and the hosts' project files)
	Cwd     string
	Getenv  func(string) string
	GOOS    string // the platform whose host paths are read ("" for this one)
}

// UserConfigPath is $XDG_CONFIG_HOME/mcpx/config.json, default ~/.config/mcpx/config.json
// (on Windows %APPDATA%\mcpx\config.json); "" when no home directory is
// known (HOME, or on Windows USERPROFILE): then there is no user file,
// never a guess.
func UserConfigPath(getenv func(string) string) string {
	return userConfigPathFor(runtime.GOOS, getenv)
}

func userConfigPathFor(goos string, getenv func(string) string) string {
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "mcpx", "config.json")
	}
	if d := getenv("APPDATA"); goos == "windows" && filepath.IsAbs(d) {
		return filepath.Join(d, "mcpx", "config.json")
	}
	if home := homeDir(goos, getenv); filepath.IsAbs(home) {
		return filepath.Join(home, ".config", "mcpx", "config.json")
	}
	return ""
}

// Load reads the config files. A file of mcpx's own that cannot be read or
// parsed is an error (exit 2); a host's file is a warning; a broken entry
// only fails when that server is used.
func Load(o LoadOptions) (*Config, error) {
	cfg := &Config{Servers: map[string]*Server{}, CompletionKeepAlive: DefaultCompletionKeepAlive}
	if o.File != "" {
		f, err := readFile(o.File, true)
		if err != nil {
			return nil, err
		}
		cfg.Files = append(cfg.Files, f.path)
		f.addTo(cfg, SourceMCPX)
		if f.completionKeepAlive != nil {
			cfg.CompletionKeepAlive = *f.completionKeepAlive
		}
		cfg.MaxWarm = f.maxWarm
		cfg.setClientMetadata(f.clientMetadata)
		return cfg, nil
	}
	user, err := readUserFile(o)
	if err != nil {
		return nil, err
	}
	if user != nil {
		cfg.Files = append(cfg.Files, user.path)
		user.addTo(cfg, SourceMCPX)
		if user.completionKeepAlive != nil {
			cfg.CompletionKeepAlive = *user.completionKeepAlive
		}
		cfg.MaxWarm = user.maxWarm
	}
	trusted := o.Project || user != nil && user.trusts(o.Cwd, o.Getenv)
	var skipped []string
	projPath := filepath.Join(o.Cwd, ".mcp.json")
	if _, err := os.Stat(projPath); err == nil {
		if !trusted {
			skipped = append(skipped, projPath)
		} else {
			proj, err := readFile(projPath, true)
			if err != nil {
				return nil, err
			}
			cfg.Files = append(cfg.Files, proj.path)
			proj.addTo(cfg, SourceProject)
		}
	}
	var only []string
	if user != nil && user.imports != nil {
		only = *user.imports
		for _, h := range only {
			if !slices.Contains(Hosts, h) {
				cfg.Warns = append(cfg.Warns, fmt.Sprintf("\"import\" in %s names %q, which is not a host mcpx reads (%s)", user.path, h, strings.Join(Hosts, ", ")))
			}
		}
		if only == nil {
			only = []string{} // "import": [] reads no host
		}
	}
	skipped = append(skipped, loadHosts(cfg, o.platform(), only, trusted)...)
	if len(skipped) > 0 {
		for i, p := range skipped {
			if rel, err := filepath.Rel(o.Cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
				skipped[i] = "./" + filepath.ToSlash(rel)
			}
		}
		cfg.Untrusted, cfg.Skipped = o.Cwd, skipped
	}
	if user != nil {
		cfg.setClientMetadata(user.clientMetadata)
	}
	return cfg, nil
}

// UserCacheDir is where mcpx's cache goes by default, as os.UserCacheDir
// finds it but from getenv: %LOCALAPPDATA% on Windows, ~/Library/Caches on
// macOS, else $XDG_CACHE_HOME, default ~/.cache ("" when none is known).
func UserCacheDir(getenv func(string) string) string {
	return userCacheDirFor(runtime.GOOS, getenv)
}

func userCacheDirFor(goos string, getenv func(string) string) string {
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return ""
	}
	switch goos {
	case "windows":
		return abs(getenv("LOCALAPPDATA"))
	case "darwin", "ios":
		if h := abs(getenv("HOME")); h != "" {
			return filepath.Join(h, "Library", "Caches")
		}
		return ""
	}
	if d := abs(getenv("XDG_CACHE_HOME")); d != "" {
		return d
	}
	if h := abs(getenv("HOME")); h != "" {
		return filepath.Join(h, ".cache")
	}
	return ""
}

// readUserFile reads the user file of o's platform (nil when there is
// none).
func readUserFile(o LoadOptions) (*configFile, error) {
	path := userConfigPathFor(o.platform().goos, o.Getenv)
	if path == "" {
		return nil, nil
	}
	return readFile(path, false)
}

// setClientMetadata makes the user file's client ID metadata document the
// default of every server read.
func (c *Config) setClientMetadata(u string) {
	c.ClientMetadataURL = u
	for _, s := range c.All {
		s.defaultClientMetadata = u
	}
}

// ErrInvalid is the cause of every problem with a config file or a server
// entry, each a usage *fail.Error (exit 2): errors.Is tells a config error
// from the other usage errors.
var ErrInvalid = errors.New("a config error")

// Invalid is a problem with a config file or a server entry (exit 2),
// said of server when there is one.
func Invalid(server, msg string) *fail.Error {
	e := fail.New(fail.Usage, server, msg)
	e.Cause = ErrInvalid
	return e
}

type configFile struct {
	path            string
	dir             string
	servers         []*Server
	trustedProjects []string
	imports         *[]string // "import": the hosts to read (nil: all)
	clientMetadata  string    // "oauth": {"clientMetadataUrl"}: the default for every server
	// completionKeepAlive: "completionKeepAlive", when given
	completionKeepAlive *time.Duration
	warns               []string // near misses of known keys
	maxWarm             int      // "maxWarm" (0: not given)
}

type rawFile struct {
	MCPServers      map[string]json.RawMessage `json:"mcpServers"`
	Servers         map[string]json.RawMessage `json:"servers"`
	TrustedProjects []string                   `json:"trustedProjects"`
	Import          *[]string                  `json:"import"`
	// CompletionKeepAlive: see Config.CompletionKeepAlive.
	CompletionKeepAlive json.RawMessage `json:"completionKeepAlive"`
	// MaxWarm: see Config.MaxWarm.
	MaxWarm json.RawMessage `json:"maxWarm"`
	// OAuth is the file's default for every http and sse server: only
	// clientMetadataUrl.
	OAuth *struct {
		ClientMetadataURL string `json:"clientMetadataUrl"`
	} `json:"oauth"`
}

type rawEntry struct {
	Type       *string           `json:"type"`
	Command    *string           `json:"command"`
	Args       []string          `json:"args"`
	Env        map[string]string `json:"env"`
	Cwd        *string           `json:"cwd"`
	URL        *string           `json:"url"`
	Headers    map[string]string `json:"headers"`
	Timeout    json.RawMessage   `json:"timeout"`
	KeepAlive  json.RawMessage   `json:"keepAlive"`
	InheritEnv bool              `json:"inheritEnv"`
	Roots      []string          `json:"roots"`
	OAuth      *OAuthConfig      `json:"oauth"`
	Secrets    []string          `json:"secrets"`
	Disabled   bool              `json:"disabled"`
	Tools      json.RawMessage   `json:"tools"`
	ReadOnly   bool              `json:"readOnly"`
}

// OAuthConfig is a server's "oauth" entry: the client registered for mcpx
// with its authorization server, and the scopes to ask for.
type OAuthConfig struct {
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret"`
	// AuthMethod is how the client authenticates at the token endpoint
	// (client_secret_basic, client_secret_post or none), for a client
	// registered out of band whose method mcpx cannot learn; "" lets the
	// server's metadata decide.
	AuthMethod string   `json:"tokenEndpointAuthMethod"`
	Scopes     []string `json:"scopes"`
	// Grant is the OAuth grant: "" or "authorization_code" (mcpx login,
	// with a person), or "client_credentials" (machine to machine: every
	// command obtains and renews its token itself).
	Grant string `json:"grant"`
	// ClientMetadataURL is the https URL of a client ID metadata document
	// describing mcpx: the client_id at an authorization server that
	// supports such documents (client_id_metadata_document_supported).
	ClientMetadataURL string `json:"clientMetadataUrl"`
	// PrivateKey is a PEM private key (RSA or EC; "@FILE" reads it from
	// FILE) for a JWT client assertion (private_key_jwt, RFC 7523), and
	// KeyID the "kid" of its public key at the authorization server.
	PrivateKey string `json:"privateKey"`
	KeyID      string `json:"keyId"`
	// AssertionFile and AssertionEnv give the assertion of the jwt-bearer
	// grant (RFC 7523 §2.1), a workload identity token as CI systems and
	// platforms hand one out: a file, read again at each grant (such
	// tokens rotate; relative to the config file's directory), or an
	// environment variable. Exactly one, for that grant only.
	AssertionFile string `json:"assertionFile"`
	AssertionEnv  string `json:"assertionEnv"`
	// IdP is the enterprise identity provider of the id-jag grant.
	IdP *IdPConfig `json:"idp"`
	// Assertion is AssertionEnv's value, read when the entry is resolved
	// (never from a config file).
	Assertion string `json:"-"`
}

// IdPConfig is the "idp" of an id-jag grant (enterprise-managed
// authorization): the identity provider whose ID token of the user is
// exchanged there (RFC 8693) for an identity assertion authorization grant
// (ID-JAG), which the server's authorization server takes with the
// jwt-bearer grant.
type IdPConfig struct {
	// Issuer is the IdP's issuer; its OpenID metadata gives the token
	// endpoint, unless TokenEndpoint names it.
	Issuer        string `json:"issuer"`
	TokenEndpoint string `json:"tokenEndpoint"`
	// ClientID and ClientSecret are mcpx's client at the IdP.
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret"`
	// IDTokenFile and IDTokenEnv give the user's ID token from the IdP:
	// a file read at each exchange, or an environment variable. Exactly one.
	IDTokenFile string `json:"idTokenFile"`
	IDTokenEnv  string `json:"idTokenEnv"`
	// IDToken is IDTokenEnv's value, read when the entry is resolved.
	IDToken string `json:"-"`
}

// Grants and token endpoint auth methods of an "oauth" entry.
const (
	GrantCode              = "authorization_code"
	GrantClientCredentials = "client_credentials"
	// GrantJWTBearer is the jwt-bearer grant with a workload's identity
	// token (workload identity federation).
	GrantJWTBearer = "jwt-bearer"
	// GrantIDJAG is enterprise-managed authorization: a token exchange at
	// the IdP, then the jwt-bearer grant with the ID-JAG it gives.
	GrantIDJAG        = "id-jag"
	AuthPrivateKeyJWT = "private_key_jwt"
)

// checkOAuth refuses an "oauth" entry that cannot work.
func checkOAuth(o *OAuthConfig) string {
	switch {
	case o.ClientID == "" && o.ClientSecret != "":
		return "\"oauth\" has a clientSecret but no clientId"
	case o.ClientID == "" && o.PrivateKey != "":
		return "\"oauth\" has a privateKey but no clientId"
	case o.ClientSecret != "" && o.PrivateKey != "":
		return "\"oauth\" has both a clientSecret and a privateKey; give the one the client authenticates with"
	case o.AuthMethod != "" && o.AuthMethod != "none" && o.AuthMethod != "client_secret_basic" && o.AuthMethod != "client_secret_post" && o.AuthMethod != AuthPrivateKeyJWT:
		return fmt.Sprintf("\"oauth\".tokenEndpointAuthMethod %q is not one of none, client_secret_basic, client_secret_post, private_key_jwt", o.AuthMethod)
	case o.AuthMethod == AuthPrivateKeyJWT && o.PrivateKey == "":
		return "\"oauth\".tokenEndpointAuthMethod private_key_jwt needs a \"privateKey\""
	case o.PrivateKey != "" && o.AuthMethod != "" && o.AuthMethod != AuthPrivateKeyJWT:
		return fmt.Sprintf("\"oauth\" has a privateKey, which authenticates with private_key_jwt, not %s", o.AuthMethod)
	}
	if msg := checkGrant(o); msg != "" {
		return msg
	}
	if o.ClientMetadataURL != "" && !strings.Contains(o.ClientMetadataURL, "${") { // else checked once expanded
		if err := CheckClientMetadataURL(o.ClientMetadataURL); err != nil {
			return "\"oauth\".clientMetadataUrl " + err.Error()
		}
	}
	return ""
}

// checkGrant refuses a grant that lacks what it needs, or the fields of a
// grant given to another.
func checkGrant(o *OAuthConfig) string {
	switch {
	case o.Grant != "" && o.Grant != GrantCode && o.Grant != GrantClientCredentials && o.Grant != GrantJWTBearer && o.Grant != GrantIDJAG:
		return fmt.Sprintf("\"oauth\".grant %q is not one of authorization_code, client_credentials, jwt-bearer, id-jag", o.Grant)
	case o.Grant == GrantClientCredentials && o.ClientID == "":
		return "\"oauth\".grant client_credentials needs a clientId, and a clientSecret or a privateKey"
	case o.Grant == GrantClientCredentials && o.ClientSecret == "" && o.PrivateKey == "":
		return "\"oauth\".grant client_credentials needs a clientSecret or a privateKey (a client without credentials cannot use it)"
	case o.Grant == GrantJWTBearer && (o.AssertionFile == "") == (o.AssertionEnv == ""):
		return "\"oauth\".grant jwt-bearer needs exactly one of assertionFile and assertionEnv (the workload's identity token)"
	case o.Grant != GrantJWTBearer && (o.AssertionFile != "" || o.AssertionEnv != ""):
		return "\"oauth\".assertionFile and assertionEnv are for the grant jwt-bearer"
	case o.AssertionEnv != "" && !varName().MatchString(o.AssertionEnv):
		return fmt.Sprintf("\"oauth\".assertionEnv %q is not an environment variable name", o.AssertionEnv)
	case o.Grant != GrantIDJAG && o.IdP != nil:
		return "\"oauth\".idp is for the grant id-jag"
	case o.Grant == GrantIDJAG:
		return checkIdP(o)
	}
	return ""
}

// checkIdP checks an id-jag grant's client and IdP.
func checkIdP(o *OAuthConfig) string {
	p := o.IdP
	switch {
	case o.ClientID == "":
		return "\"oauth\".grant id-jag needs a clientId (mcpx's client at the server's authorization server)"
	case p == nil || p.Issuer == "" && p.TokenEndpoint == "":
		return "\"oauth\".grant id-jag needs \"idp\": {\"issuer\", \"clientId\", and idTokenFile or idTokenEnv}"
	case p.ClientID == "":
		return "\"oauth\".idp needs a clientId (mcpx's client at the identity provider)"
	case (p.IDTokenFile == "") == (p.IDTokenEnv == ""):
		return "\"oauth\".idp needs exactly one of idTokenFile and idTokenEnv (the user's ID token from the identity provider)"
	case p.IDTokenEnv != "" && !varName().MatchString(p.IDTokenEnv):
		return fmt.Sprintf("\"oauth\".idp.idTokenEnv %q is not an environment variable name", p.IDTokenEnv)
	}
	return ""
}

// CheckClientMetadataURL accepts the URL of a client ID metadata document:
// https, a host, a path other than "/", no user information, fragment, or
// dot segments (the rules of client ID metadata documents).
func CheckClientMetadataURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || u.Opaque != "":
		return fmt.Errorf("%q is not an absolute URL", raw)
	case u.Scheme != "https":
		return fmt.Errorf("%q is not an https URL (the authorization server fetches it; a client ID metadata document is https only)", raw)
	case u.User != nil:
		return fmt.Errorf("%q has user information", u.Redacted())
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return fmt.Errorf("%q has a fragment", raw)
	case u.Path == "" || u.Path == "/":
		return fmt.Errorf("%q has no path (the document's URL names a file, such as /mcpx/client.json)", raw)
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return fmt.Errorf("%q has a dot segment in its path", raw)
		}
	}
	return nil
}

func readFile(path string, mustExist bool) (*configFile, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		if !mustExist && errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, Invalid("", fmt.Sprintf("cannot read config file: %v", err))
	}
	return parseFile(abs, data)
}

// parseFile parses the mcpx config file at abs that holds data.
func parseFile(abs string, data []byte) (*configFile, error) {
	var raw rawFile
	dec := json.NewDecoder(bytes.NewReader(data))
	if len(bytes.TrimSpace(data)) == 0 {
		// An empty file configures nothing (--config /dev/null).
	} else if err := dec.Decode(&raw); err != nil {
		return nil, Invalid("", fmt.Sprintf("config file %s: %s", abs, jsonErrorAt(data, err)))
	} else if _, err := dec.Token(); err != io.EOF {
		return nil, Invalid("", fmt.Sprintf("config file %s: %s", abs, jsonErrorAt(data, fmt.Errorf("text after the JSON object"))))
	}
	f := &configFile{path: abs, dir: filepath.Dir(abs), trustedProjects: raw.TrustedProjects, imports: raw.Import}
	if raw.OAuth != nil && raw.OAuth.ClientMetadataURL != "" {
		if err := CheckClientMetadataURL(raw.OAuth.ClientMetadataURL); err != nil {
			return nil, Invalid("", fmt.Sprintf("config file %s: \"oauth\".clientMetadataUrl %v", abs, err))
		}
		f.clientMetadata = raw.OAuth.ClientMetadataURL
	}
	if len(raw.CompletionKeepAlive) > 0 && string(raw.CompletionKeepAlive) != "null" {
		d, err := ParseKeepAlive(raw.CompletionKeepAlive)
		if err != nil {
			return nil, Invalid("", fmt.Sprintf("config file %s: \"completionKeepAlive\" %v", abs, err))
		}
		f.completionKeepAlive = &d
	}
	if len(raw.MaxWarm) > 0 && string(raw.MaxWarm) != "null" {
		n, err := ParseMaxWarm(raw.MaxWarm)
		if err != nil {
			return nil, Invalid("", fmt.Sprintf("config file %s: \"maxWarm\" %v", abs, err))
		}
		f.maxWarm = n
	}
	workspace := f.dir
	if filepath.Base(workspace) == ".vscode" {
		workspace = filepath.Dir(workspace)
	}
	f.warns = nearMisses(abs, "", data, fileKeys)
	add := func(entries map[string]json.RawMessage) {
		names := make([]string, 0, len(entries))
		for n := range entries {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			f.warns = append(f.warns, nearMisses(abs, name, entries[name], entryKeys)...)
			s := parseEntry(name, entries[name])
			s.Source, s.Dir, s.workspace = abs, f.dir, workspace
			if s.Tools != nil {
				s.Tools.File = abs
			}
			f.servers = append(f.servers, s)
		}
	}
	add(raw.MCPServers)
	add(raw.Servers)
	return f, nil
}

// jsonErrorAt turns a JSON decoding error into "line L, column C: message".
func jsonErrorAt(data []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		if te.Field != "" {
			return fmt.Sprintf("%q must be %s, not %s", te.Field, jsonWord(te.Type), te.Value)
		}
		return fmt.Sprintf("the file must hold a JSON object, not %s", te.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return position(data, len(data)) + ": unexpected end of the file"
	}
	if off < 0 {
		return err.Error()
	}
	line, col := 1, 1
	for _, c := range data[:max(0, min(int(off)-1, len(data)))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d: %v", line, col, err)
}

// jsonWord names a Go type the way a JSON author thinks of it.
func jsonWord(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return "an array of strings"
		}
		if t.Elem().Kind() == reflect.Uint8 { // json.RawMessage
			return "a JSON value"
		}
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Pointer:
		return jsonWord(t.Elem())
	}
	return t.String()
}

func parseEntry(name string, data json.RawMessage) *Server {
	s := &Server{Name: name}
	var e rawEntry
	if err := json.Unmarshal(data, &e); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			what := fmt.Sprintf("%q", te.Field)
			if (te.Field == "env" || te.Field == "headers") && te.Type.Kind() == reflect.String {
				what = fmt.Sprintf("the values of %q", te.Field)
			}
			if te.Field == "roots" && te.Type.Kind() == reflect.String {
				what = `each entry of "roots"`
			}
			s.err = Invalid(name, fmt.Sprintf("%s must be %s, not %s", what, jsonWord(te.Type), te.Value))
		} else {
			s.err = Invalid(name, "entry must be a JSON object")
		}
		return s
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	s.Command, s.Args, s.Env, s.Cwd = str(e.Command), e.Args, e.Env, str(e.Cwd)
	s.URL, s.Headers, s.InheritEnv, s.OAuth, s.Roots = str(e.URL), e.Headers, e.InheritEnv, e.OAuth, e.Roots
	s.Secrets, s.Disabled, s.ReadOnly = e.Secrets, e.Disabled, e.ReadOnly
	bad := func(format string, args ...any) *Server {
		s.err = Invalid(name, fmt.Sprintf(format, args...))
		return s
	}
	if e.Type != nil {
		s.explicitType = true
		switch strings.ToLower(*e.Type) {
		case "stdio":
			s.Transport = Stdio
		case "http", "streamable-http", "streamable_http", "streamablehttp":
			s.Transport = HTTP
		case "sse":
			s.Transport = SSE
		default:
			return bad("unknown type %q (want stdio, http or sse)", *e.Type)
		}
	} else {
		switch {
		case s.Command != "" && s.URL != "":
			return bad("has both \"command\" and \"url\"; set \"type\" to say which")
		case s.Command != "":
			s.Transport = Stdio
		case s.URL != "":
			s.Transport = HTTP
		default:
			return bad("needs \"command\" (stdio) or \"url\" (http, sse)")
		}
	}
	if s.Transport == Stdio && s.Command == "" {
		return bad("type stdio needs \"command\"")
	}
	if s.Transport != Stdio && s.URL == "" {
		return bad("type %s needs \"url\"", s.Transport)
	}
	if o := e.OAuth; o != nil {
		switch {
		case s.Transport == Stdio:
			return bad("\"oauth\" is for http and sse servers, not stdio")
		default:
			if msg := checkOAuth(o); msg != "" {
				return bad("%s", msg)
			}
		}
	}
	for i, r := range e.Roots {
		if r == "" {
			return bad("\"roots\"[%d] is empty; a root names a directory", i)
		}
	}
	if len(e.Timeout) > 0 && string(e.Timeout) != "null" {
		var ts string
		if err := json.Unmarshal(e.Timeout, &ts); err != nil {
			return bad("\"timeout\" must be a duration string such as \"45s\", not %s", e.Timeout)
		}
		d, err := time.ParseDuration(ts)
		if err != nil || d <= 0 {
			return bad("\"timeout\" %q is not a positive duration such as \"45s\"", ts)
		}
		s.Timeout = d
	}
	if len(e.KeepAlive) > 0 && string(e.KeepAlive) != "null" {
		d, err := ParseKeepAlive(e.KeepAlive)
		if err != nil {
			return bad("\"keepAlive\" %v", err)
		}
		s.KeepAlive = d
	}
	rules, msg := parseToolRules(e.Tools)
	if msg != "" {
		return bad("%s", msg)
	}
	s.Tools = rules
	return s
}

// DefaultKeepAlive is the idle time of a warm connection turned on with
// "keepAlive": true or a bare --keep-alive.
const DefaultKeepAlive = 10 * time.Minute

// MaxMaxWarm is the largest "maxWarm".
const MaxMaxWarm = 1024

// ParseMaxWarm reads "maxWarm": a whole number of targets, 1 to
// MaxMaxWarm.
func ParseMaxWarm(raw json.RawMessage) (int, error) {
	var n int
	if err := json.Unmarshal(raw, &n); err != nil || n < 1 || n > MaxMaxWarm {
		return 0, fmt.Errorf("must be a whole number from 1 to %d, not %s", MaxMaxWarm, text.ClipBytes(string(raw), 40))
	}
	return n, nil
}

// DefaultCompletionKeepAlive is the idle time of the warm connection a
// TAB starts ("completionKeepAlive").
const DefaultCompletionKeepAlive = 2 * time.Minute

// ParseKeepAlive reads a "keepAlive" value: true (DefaultKeepAlive), false
// (0), or a Go duration string ("0" turns it off).
func ParseKeepAlive(raw json.RawMessage) (time.Duration, error) {
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		if b {
			return DefaultKeepAlive, nil
		}
		return 0, nil
	}
	var ds string
	if err := json.Unmarshal(raw, &ds); err != nil {
		return 0, fmt.Errorf("must be true, false or a duration string such as \"10m\", not %s", raw)
	}
	d, err := time.ParseDuration(ds)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration such as \"10m\"", ds)
	}
	return d, nil
}

func (f *configFile) addTo(cfg *Config, origin string) {
	cfg.Warns = append(cfg.Warns, f.warns...)
	for _, s := range f.servers {
		s.Origin = origin
		if old, ok := cfg.Servers[s.Name]; ok {
			if origin == SourceProject && old.Source != f.path {
				cfg.Warns = append(cfg.Warns, fmt.Sprintf("server %q in %s is ignored: the user config defines it", s.Name, f.path))
			} else {
				cfg.Warns = append(cfg.Warns, fmt.Sprintf("server %q is defined twice in %s; using the first", s.Name, f.path))
			}
		}
		cfg.add(s)
	}
}

// add appends an entry; its name resolves to it unless an earlier source
// defines the name.
func (c *Config) add(s *Server) {
	if s.Disabled && s.err == nil {
		s.err = Invalid(s.Name, fmt.Sprintf("is disabled in %s; mcpx does not start disabled servers", s.Source))
		s.disabledErr = true
	}
	c.All = append(c.All, s)
	if _, ok := c.Servers[s.Name]; !ok {
		c.Servers[s.Name] = s
	}
}

// Shadowed reports whether another entry of the same name takes its name.
func (c *Config) Shadowed(s *Server) bool { return c.Servers[s.Name] != s }

// lookupRef finds NAME@SOURCE: the entry NAME of that source. It returns
// nil, nil when arg is not of that form.
func (c *Config) lookupRef(arg string) (*Server, error) {
	i := strings.LastIndexByte(arg, '@')
	if i <= 0 || !slices.Contains(Sources(), arg[i+1:]) {
		return nil, nil
	}
	name, src := arg[:i], arg[i+1:]
	var others []string
	for _, s := range c.All {
		if s.Name == name {
			if s.Origin == src {
				return s, nil
			}
			others = append(others, name+"@"+s.Origin)
		}
	}
	e := fail.Unknown("server", arg, fmt.Sprintf("source %s defines no server %q", src, name))
	e.Source, e.Known = src, others
	return nil, e
}

func (f *configFile) trusts(dir string, getenv func(string) string) bool {
	want := canonicalDir(dir)
	for _, p := range f.trustedProjects {
		if p == "~" || strings.HasPrefix(p, "~/") {
			p = filepath.Join(getenv("HOME"), strings.TrimPrefix(p[1:], "/"))
		}
		if !filepath.IsAbs(p) {
			continue
		}
		if canonicalDir(p) == want {
			return true
		}
	}
	return false
}

func canonicalDir(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return filepath.Clean(p)
}
