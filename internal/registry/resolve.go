package registry

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcpx-cli/mcpx/internal/fail"
)

// Entry is how to run or reach a server: a command line, or a URL.
type Entry struct {
	Type    string // "" (stdio), "http" or "sse"
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
	// Via says what was chosen: "npm package PKG@VERSION", "remote URL".
	Via string
	// Export are the environment variables the entry refers to (${NAME}),
	// which the user has to set; Secret those of them that are secrets.
	Export []Input
	// Unset are values given (--var) that were not written: secrets.
	Unset []string
}

// varsMissing is a server that needs values --var did not give (exit 2).
func varsMissing(server string, missing []Input) *fail.Error {
	names := make([]string, len(missing))
	for i, m := range missing {
		names[i] = m.Name
		if m.Description != "" {
			names[i] += " (" + m.Description + ")"
		}
	}
	return &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("%s needs %s: give each with --var NAME=VALUE", server, strings.Join(names, ", "))}
}

// cannotRun is a server.json with nothing mcpx knows how to run (exit 5).
func cannotRun(server string, have []string) *fail.Error {
	msg := fmt.Sprintf("%s offers only what mcpx cannot run: %s", server, strings.Join(have, ", "))
	if len(have) == 0 {
		msg = fmt.Sprintf("%s lists no packages and no remotes", server)
	}
	return &fail.Error{Code: fail.Unsupported, Message: msg}
}

// runners are the package registry types mcpx runs, in the order it
// prefers them.
var runners = []string{"npm", "pypi", "oci", "nuget"}

// Resolve chooses how to run s: its first package mcpx can run over
// stdio (npm, PyPI, OCI, NuGet, in that order of preference), else its first
// remote (streamable HTTP before SSE). vars fills remote URL variables,
// required arguments and non-secret environment variables; secrets are
// always ${NAME} references, never values.
func Resolve(s *Server, vars map[string]string) (*Entry, error) {
	for _, kind := range runners {
		for i := range s.Packages {
			p := &s.Packages[i]
			if p.RegistryType == kind && (p.Transport.Type == "" || p.Transport.Type == "stdio") {
				return resolvePackage(s.Name, p, vars)
			}
		}
	}
	for _, kind := range []string{"streamable-http", "sse"} {
		for i := range s.Remotes {
			if s.Remotes[i].Type == kind {
				return resolveRemote(s.Name, &s.Remotes[i], vars)
			}
		}
	}
	return nil, cannotRun(s.Name, unsupported(s))
}

// unsupported describes what s offers that mcpx does not run.
func unsupported(s *Server) []string {
	var have []string
	for _, p := range s.Packages {
		t := p.Transport.Type
		if t == "" {
			t = "stdio"
		}
		have = append(have, fmt.Sprintf("%s package over %s", p.RegistryType, t))
	}
	for _, r := range s.Remotes {
		have = append(have, r.Type+" remote")
	}
	return have
}

// envRef is a ${NAME} reference.
func envRef(name string) string { return "${" + name + "}" }

func resolvePackage(server string, p *Package, vars map[string]string) (*Entry, error) {
	e := &Entry{Env: map[string]string{}}
	var missing []Input
	env := e.environment(p.EnvironmentVariables, vars)
	runtime := arguments(p.RuntimeArguments, vars, &missing)
	pkgArgs := arguments(p.PackageArguments, vars, &missing)
	if len(missing) > 0 {
		return nil, varsMissing(server, missing)
	}
	ref := p.Identifier
	switch p.RegistryType {
	case "npm":
		e.Command, ref = "npx", withVersion(p.Identifier, "@", p.Version)
		if len(runtime) == 0 {
			runtime = []string{"-y"}
		}
	case "pypi":
		e.Command, ref = "uvx", withVersion(p.Identifier, "==", p.Version)
	case "oci":
		e.Command, ref = "docker", imageRef(p.Identifier, p.Version)
		if len(runtime) == 0 {
			runtime = dockerRun(env)
		}
	case "nuget":
		e.Command, ref = "dnx", withVersion(p.Identifier, "@", p.Version)
		pkgArgs = append([]string{"--yes"}, pkgArgs...)
	}
	if p.RuntimeHint != "" && p.RegistryType != "oci" {
		e.Command = p.RuntimeHint
	}
	e.Args = append(append(runtime, ref), pkgArgs...)
	e.Via = fmt.Sprintf("the %s package %s", p.RegistryType, ref)
	if len(e.Env) == 0 {
		e.Env = nil
	}
	return e, nil
}

// imageRef is an OCI image with its tag: the identifier's own, else the
// package's version.
func imageRef(image, version string) string {
	if strings.Contains(image[strings.LastIndex(image, "/")+1:], ":") || strings.Contains(image, "@") || version == "" {
		return image
	}
	return image + ":" + version
}

// dockerRun is docker's arguments before the image: the environment
// variables env passed through by name.
func dockerRun(env []string) []string {
	args := []string{"run", "-i", "--rm"}
	for _, name := range env {
		args = append(args, "-e", name)
	}
	return args
}

// withVersion is PKG, SEP and VERSION ("PKG" when there is no version).
func withVersion(pkg, sep, version string) string {
	if version == "" || version == "latest" {
		return pkg
	}
	return pkg + sep + version
}

// environment writes the package's environment variables into e.Env: a
// required or secret one as a ${NAME} reference (a non-secret one given
// by --var as its value); the others are left to their defaults. It
// returns the names written, sorted.
func (e *Entry) environment(vars []Input, given map[string]string) []string {
	var names []string
	for _, v := range vars {
		val, ok := given[v.Name]
		switch {
		case v.IsSecret:
			e.Env[v.Name] = envRef(v.Name)
			e.Export = append(e.Export, v)
			if ok {
				e.Unset = append(e.Unset, v.Name)
			}
		case ok:
			e.Env[v.Name] = val
		case v.IsRequired && v.Default != "":
			e.Env[v.Name] = v.Default
		case v.IsRequired:
			e.Env[v.Name] = envRef(v.Name)
			e.Export = append(e.Export, v)
		default:
			continue
		}
		names = append(names, v.Name)
	}
	slices.Sort(names)
	return names
}

// arguments are the command-line arguments of args: a fixed value, else
// --var's of its name (or value hint), else its default; a required one
// with none of them is missing.
func arguments(args []Argument, vars map[string]string, missing *[]Input) []string {
	var out []string
	for _, a := range args {
		key := a.ValueHint
		if key == "" {
			key = strings.TrimLeft(a.Name, "-")
		}
		val := a.Value
		if val == "" {
			if v, ok := vars[key]; ok && key != "" {
				val = v
			} else {
				val = a.Default
			}
		}
		if val == "" && a.IsRequired {
			*missing = append(*missing, Input{Name: key, Description: "the argument " + strings.TrimSpace(a.Name+" "+a.ValueHint)})
			continue
		}
		switch {
		case a.Type == "named" && a.Name != "":
			out = append(out, a.Name)
			if val != "" {
				out = append(out, val)
			}
		case val != "":
			out = append(out, val)
		}
	}
	return out
}

var urlVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([A-Za-z0-9_]+)\}`) })

func resolveRemote(server string, r *Remote, vars map[string]string) (*Entry, error) {
	e := &Entry{Type: "http", Headers: map[string]string{}}
	if r.Type == "sse" {
		e.Type = "sse"
	}
	var missing []Input
	e.URL = urlVar().ReplaceAllStringFunc(r.URL, func(m string) string {
		name := m[1 : len(m)-1]
		v := r.Variables[name]
		v.Name = name
		if val, ok := vars[name]; ok {
			return val
		}
		if v.Default != "" {
			return v.Default
		}
		missing = append(missing, v)
		return m
	})
	if len(missing) > 0 {
		return nil, varsMissing(server, missing)
	}
	for _, h := range r.Headers {
		switch {
		case h.IsSecret || (h.IsRequired && h.Value == ""):
			env := headerEnv(h.Name)
			e.Headers[h.Name] = envRef(env)
			e.Export = append(e.Export, Input{Name: env, Description: h.Description, IsSecret: h.IsSecret, IsRequired: h.IsRequired})
		case h.Value != "":
			e.Headers[h.Name] = h.Value
		}
	}
	if len(e.Headers) == 0 {
		e.Headers = nil
	}
	e.Via = "the " + r.Type + " remote " + e.URL
	return e, nil
}

var notEnv = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Z0-9_]+`) })

// headerEnv is the environment variable a header's value is read from:
// its name in upper case, dashes as underscores (X-API-Key: X_API_KEY).
func headerEnv(header string) string {
	return strings.Trim(notEnv().ReplaceAllString(strings.ToUpper(header), "_"), "_")
}
