package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// hostEntry is one server of a host's file, translated to mcpx's terms:
// its keys are those of an mcpx entry, its strings use mcpx's ${VAR}
// syntax, and nothing is expanded yet.
type hostEntry struct {
	Name     string
	Type     string // "", stdio, http or sse ("": inferred, as in mcpx's own files)
	Command  string
	Args     []string
	Env      map[string]string
	Cwd      string
	URL      string
	Headers  map[string]string
	Timeout  time.Duration
	Disabled bool
	// Problem says why mcpx cannot use the entry as written (a value it
	// cannot express); it is reported when the server is used, and mcpx
	// import does not copy the entry.
	Problem string
}

// MCPXEntry is a server entry in mcpx's own format (the keys of
// CONFIGURATION in mcpx(1)), as mcpx import writes it.
type MCPXEntry struct {
	Type     string            `json:"type,omitempty"`
	Command  string            `json:"command,omitempty"`
	Args     []string          `json:"args,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	Cwd      string            `json:"cwd,omitempty"`
	URL      string            `json:"url,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Timeout  string            `json:"timeout,omitempty"`
	Disabled bool              `json:"disabled,omitempty"`
}

func (e *hostEntry) mcpx() MCPXEntry {
	m := MCPXEntry{Type: e.Type, Command: e.Command, Args: e.Args, Env: e.Env, Cwd: e.Cwd,
		URL: e.URL, Headers: e.Headers, Disabled: e.Disabled}
	if e.Timeout > 0 {
		m.Timeout = e.Timeout.String()
	}
	return m
}

// server turns the entry into a Server of source f, through the parser of
// mcpx's own entries, so that a host's entry means what the same entry in
// mcpx's file would.
func (e *hostEntry) server(f hostFile, p platform) *Server {
	data, _ := marshalEntry(e.mcpx())
	s := parseEntry(e.Name, data)
	s.Source, s.Origin = f.Path, f.Source
	// Relative paths: against the project directory for a project file
	// (the hosts start servers there), else against the file's directory.
	s.Dir = filepath.Dir(f.Path)
	if f.Project && p.cwd != "" {
		s.Dir = p.cwd
	}
	s.workspace = p.cwd
	s.entry = e
	if e.Problem != "" {
		s.err = Invalid(e.Name, e.Problem)
	}
	return s
}

// marshalEntry writes an entry as JSON, keeping & < > as they are.
func marshalEntry(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// hostType maps a host's transport type name to mcpx's. ok is false for a
// name mcpx does not know.
func hostType(t string) (string, bool) {
	switch strings.ToLower(t) {
	case "stdio", "local":
		return Stdio, true
	case "http", "streamable-http", "streamable_http", "streamablehttp":
		return HTTP, true
	case "sse":
		return SSE, true
	case "remote": // OpenCode: streamable HTTP, falling back to SSE, as mcpx infers
		return "", true
	}
	return "", false
}

// Variable syntaxes of the hosts, translated to mcpx's ${VAR}; compiled
// on first use, not at start-up.
var (
	reBraced   = lazyRegexp(`\$\{([^}]*)\}`)
	reGemini   = lazyRegexp(`\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([^}]*)\})`)
	reOpenCode = lazyRegexp(`\{(env|file):([^}]*)\}`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// vars translates a string of a host's file to mcpx's variable syntax. A
// reference mcpx cannot express is a problem (the file's content, in
// Windsurf's ${file:...} and OpenCode's {file:...}).
type vars struct {
	dialect string
	p       platform
	problem string
}

func (v *vars) tr(field, s string) string {
	switch v.dialect {
	case "vscode", "vscode-settings", "cursor", "windsurf":
		return reBraced().ReplaceAllStringFunc(s, func(m string) string {
			expr := m[2 : len(m)-1]
			switch {
			case strings.HasPrefix(expr, "env:"):
				return "${" + expr[len("env:"):] + "}"
			case expr == "userHome" && v.p.home != "":
				return v.p.home
			case expr == "workspaceFolderBasename" && v.p.cwd != "":
				return filepath.Base(v.p.cwd)
			case expr == "pathSeparator" || expr == "/":
				if v.p.goos == "windows" {
					return `\`
				}
				return "/"
			case strings.HasPrefix(expr, "file:"):
				v.fail(field, m)
			}
			return m
		})
	case "gemini":
		return reGemini().ReplaceAllStringFunc(s, func(m string) string {
			if strings.HasPrefix(m, "${") {
				return m
			}
			return "${" + m[1:] + "}"
		})
	case "opencode":
		return reOpenCode().ReplaceAllStringFunc(s, func(m string) string {
			sub := reOpenCode().FindStringSubmatch(m)
			if sub[1] == "file" {
				v.fail(field, m)
				return m
			}
			return "${" + strings.TrimSpace(sub[2]) + "}"
		})
	}
	return s
}

func (v *vars) fail(field, ref string) {
	if v.problem == "" {
		v.problem = fmt.Sprintf("%s: %s reads a file, which mcpx does not do; put the value in an environment variable and use ${VAR}", field, ref)
	}
}

// translate applies the dialect's variable syntax to every string of e
// that mcpx expands.
func (e *hostEntry) translate(dialect string, p platform) {
	v := &vars{dialect: dialect, p: p}
	e.Command = v.tr("command", e.Command)
	for i, a := range e.Args {
		e.Args[i] = v.tr(fmt.Sprintf("args[%d]", i), a)
	}
	for k, val := range e.Env {
		e.Env[k] = v.tr("env."+k, val)
	}
	e.Cwd = v.tr("cwd", e.Cwd)
	e.URL = v.tr("url", e.URL)
	for k, val := range e.Headers {
		e.Headers[k] = v.tr("headers."+k, val)
	}
	if e.Problem == "" {
		e.Problem = v.problem
	}
}

// seconds turns a host's timeout number into a duration; nonsense (not
// positive, or over a day) is no timeout.
func seconds(n float64, unit time.Duration) time.Duration {
	d := time.Duration(n * float64(unit))
	if n <= 0 || d <= 0 || d > 24*time.Hour {
		return 0
	}
	return d
}
