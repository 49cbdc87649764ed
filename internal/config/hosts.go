package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/mcpx-cli/mcpx/internal/fail"
)

// The servers users already have (see CONFIGURATION in mcpx(1)): unless
// --config or $MCPX_CONFIG is given, mcpx also reads, read-only, the MCP
// server entries of the hosts a user already configured. Each host's files
// are found at its documented paths by hostFiles, a pure function of the
// platform, the home directory and the environment, and each file is read
// by the reader of its dialect (hosts_json.go, hosts_codex.go,
// hosts_goose.go) into hostEntry values in mcpx's own terms.

// Hosts lists the hosts mcpx reads, in precedence order: their short names
// are what "import" in the user file and mcpx import take.
var Hosts = []string{"claude-desktop", "claude-code", "cursor", "vscode", "windsurf",
	"codex", "gemini", "zed", "opencode", "goose", "cline"}

// Sources of mcpx's own files and of the built-in server.
const (
	SourceMCPX    = "mcpx"    // the user file (or the --config file)
	SourceProject = "project" // ./.mcp.json
	SourceBuiltin = "builtin" // the demo server
)

// maxHostFile bounds what is read of a host's file; a bigger file is skipped
// with a warning. ~/.claude.json also keeps Claude Code's per-project state
// and grows large, so it has a larger bound.
const (
	maxHostFile       = 16 << 20
	maxClaudeCodeFile = 64 << 20
)

// hostFile is one file in which a host keeps MCP servers.
type hostFile struct {
	Source  string // the source name entries of this file have: "cursor", "cursor-project"
	Host    string // the host: "cursor"
	Path    string
	Project bool   // a project-level file: read only when the project is trusted
	Dialect string // the reader: see readHostFile
	Max     int64  // the largest file read
}

// platform is what host paths depend on.
type platform struct {
	goos   string
	home   string // "" when unknown: no file under it is read
	cwd    string
	getenv func(string) string
	memo   *hostMemo // what was read once for several sources (nil: nothing kept)
	state  hostState // what is remembered of host files
}

// homeDir is the user's home directory as the hosts find it: $HOME, and on
// Windows %USERPROFILE% when HOME is not set. It is "" when neither is set:
// then no host file under the home directory is read (never a guess).
func homeDir(goos string, getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	if goos == "windows" {
		return getenv("USERPROFILE")
	}
	return ""
}

// envDir returns $name when it is set to an absolute path (in the sense of
// the platform), else "".
func (p platform) envDir(name string) string {
	v := p.getenv(name)
	if v == "" {
		return ""
	}
	if p.goos == "windows" {
		// C:\x, C:/x or \\server\share
		if len(v) >= 3 && v[1] == ':' && (v[2] == '\\' || v[2] == '/') || strings.HasPrefix(v, `\\`) {
			return v
		}
		if filepath.IsAbs(v) { // a test of the Windows layout on another system
			return v
		}
		return ""
	}
	if strings.HasPrefix(v, "/") {
		return v
	}
	return ""
}

// underHome joins parts under the home directory ("" when it is unknown).
func (p platform) underHome(parts ...string) string {
	if p.home == "" {
		return ""
	}
	return filepath.Join(append([]string{p.home}, parts...)...)
}

// xdgConfig is $XDG_CONFIG_HOME, else ~/.config.
func (p platform) xdgConfig() string {
	if d := p.envDir("XDG_CONFIG_HOME"); d != "" {
		return d
	}
	return p.underHome(".config")
}

// appData is where desktop applications keep their settings:
// %APPDATA% on Windows, ~/Library/Application Support on macOS, and
// $XDG_CONFIG_HOME (default ~/.config) elsewhere.
func (p platform) appData() string {
	switch p.goos {
	case "windows":
		if d := p.envDir("APPDATA"); d != "" {
			return d
		}
		return p.underHome("AppData", "Roaming")
	case "darwin":
		return p.underHome("Library", "Application Support")
	}
	return p.xdgConfig()
}

func join(dir string, parts ...string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(append([]string{dir}, parts...)...)
}

// hostFiles lists every file of every host, in precedence order: the hosts
// in the order of Hosts; within a host, its user-level files before its
// project-level files, except that Claude Code's local scope (its
// per-project entries in ~/.claude.json, written by the user) comes before
// its user scope, as in Claude Code. A path is "" when it cannot be known
// (no home directory).
func hostFiles(p platform) []hostFile {
	codeUser := join(p.appData(), "Code", "User")
	claudeJSON := p.underHome(".claude.json")
	if d := p.envDir("CLAUDE_CONFIG_DIR"); d != "" {
		claudeJSON = filepath.Join(d, ".claude.json")
	}
	codexHome := p.underHome(".codex")
	if d := p.envDir("CODEX_HOME"); d != "" {
		codexHome = d
	}
	zedDir := join(p.xdgConfig(), "zed")
	switch p.goos {
	case "darwin":
		zedDir = p.underHome(".config", "zed")
	case "windows":
		zedDir = join(p.appData(), "Zed")
	}
	gooseDir := join(p.xdgConfig(), "goose")
	if p.goos == "windows" {
		gooseDir = join(p.appData(), "Block", "goose", "config")
	}
	proj := func(parts ...string) string {
		if p.cwd == "" {
			return ""
		}
		return filepath.Join(append([]string{p.cwd}, parts...)...)
	}
	u := func(source, host, path, dialect string) hostFile {
		return hostFile{Source: source, Host: host, Path: path, Dialect: dialect, Max: maxHostFile}
	}
	pr := func(source, host, path, dialect string) hostFile {
		f := u(source, host, path, dialect)
		f.Project = true
		return f
	}
	files := []hostFile{
		u("claude-desktop", "claude-desktop", join(p.appData(), "Claude", "claude_desktop_config.json"), "claude"),
		u("claude-code-local", "claude-code", claudeJSON, "claude-code-local"),
		u("claude-code", "claude-code", claudeJSON, "claude-code"),
		u("cursor", "cursor", p.underHome(".cursor", "mcp.json"), "cursor"),
		pr("cursor-project", "cursor", proj(".cursor", "mcp.json"), "cursor"),
		u("vscode", "vscode", join(codeUser, "mcp.json"), "vscode"),
		u("vscode", "vscode", join(codeUser, "settings.json"), "vscode-settings"),
		pr("vscode-project", "vscode", proj(".vscode", "mcp.json"), "vscode"),
		u("windsurf", "windsurf", p.underHome(".codeium", "windsurf", "mcp_config.json"), "windsurf"),
		u("codex", "codex", join(codexHome, "config.toml"), "codex"),
		pr("codex-project", "codex", proj(".codex", "config.toml"), "codex"),
		u("gemini", "gemini", p.underHome(".gemini", "settings.json"), "gemini"),
		pr("gemini-project", "gemini", proj(".gemini", "settings.json"), "gemini"),
		u("zed", "zed", join(zedDir, "settings.json"), "zed"),
		pr("zed-project", "zed", proj(".zed", "settings.json"), "zed"),
		u("opencode", "opencode", join(p.xdgConfig(), "opencode", "opencode.json"), "opencode"),
		u("opencode", "opencode", join(p.xdgConfig(), "opencode", "opencode.jsonc"), "opencode"),
		pr("opencode-project", "opencode", proj("opencode.json"), "opencode"),
		pr("opencode-project", "opencode", proj("opencode.jsonc"), "opencode"),
		u("goose", "goose", join(gooseDir, "config.yaml"), "goose"),
		u("cline", "cline", join(codeUser, "globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json"), "cline"),
		u("cline", "cline", p.underHome(".cline", "data", "settings", "cline_mcp_settings.json"), "cline"),
	}
	files[1].Max, files[2].Max = maxClaudeCodeFile, maxClaudeCodeFile
	// A project file that is also a user file (mcpx run in the home
	// directory) is the user file: it needs no trust and is read once.
	user := map[string]bool{}
	out := files[:0]
	for _, f := range files {
		if f.Path == "" {
			continue
		}
		if f.Project && user[filepath.Clean(f.Path)] {
			continue
		}
		if !f.Project {
			user[filepath.Clean(f.Path)] = true
		}
		out = append(out, f)
	}
	return out
}

// hostTitles are the hosts' names as their makers write them.
var hostTitles = map[string]string{"claude-desktop": "Claude Desktop", "claude-code": "Claude Code", "cursor": "Cursor",
	"vscode": "VS Code", "windsurf": "Windsurf", "codex": "Codex", "gemini": "Gemini CLI", "zed": "Zed",
	"opencode": "OpenCode", "goose": "Goose", "cline": "Cline"}

// hostTitle names a host (its project files: "Cursor project").
func hostTitle(host string, project bool) string {
	t := hostTitles[host]
	if t == "" {
		t = host
	}
	if project {
		t += " project"
	}
	return t
}

// Sources returns every source name, in precedence order: mcpx's own
// files, then each host's.
func Sources() []string {
	seen := map[string]bool{}
	out := []string{SourceMCPX, SourceProject}
	for _, f := range hostFiles(platform{goos: "linux", home: "/home", cwd: "/project", getenv: func(string) string { return "" }}) {
		if !seen[f.Source] {
			seen[f.Source] = true
			out = append(out, f.Source)
		}
	}
	return out
}

// IsHostSource reports whether name is the source name of a host's file.
func IsHostSource(name string) bool {
	for _, s := range Sources()[2:] {
		if s == name {
			return true
		}
	}
	return false
}

// hostRead is what reading one host file gave.
type hostRead struct {
	file    hostFile
	info    os.FileInfo // of the file read (nil when missing or not read)
	entries []hostEntry
	missing bool   // the file does not exist
	problem string // why it could not be used (a warning)
}

// readHost reads one host file within its bound. A missing file is
// missing; every other failure is a problem, never a panic: a file that is
// not a regular file (a FIFO would block), too big, unreadable, or that
// does not parse. Symbolic links are followed (dotfile managers link these
// files); what they point at must be a regular file.
func readHost(f hostFile, p platform) (r hostRead) {
	r.file = f
	st, err := os.Stat(f.Path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			r.missing = true
			return r
		}
		r.problem = fmt.Sprintf("cannot read it: %v", unwrapPath(err))
		return r
	}
	r.info = st
	if st.IsDir() || !st.Mode().IsRegular() {
		r.problem = "it is not a regular file"
		return r
	}
	if st.Size() > f.Max {
		r.problem = fmt.Sprintf("it is larger than %d MiB", f.Max>>20)
		return r
	}
	fh, err := os.Open(f.Path)
	if err != nil {
		r.problem = fmt.Sprintf("cannot read it: %v", unwrapPath(err))
		return r
	}
	defer fh.Close()
	defer func() {
		// The parsers are well kept, but a file is data from anywhere: a
		// parser's panic is this file's problem, not mcpx's.
		if v := recover(); v != nil {
			r.entries, r.problem = nil, fmt.Sprintf("cannot parse it (%v)", v)
		}
	}()
	if k := skimKeep(f.Dialect); k != nil {
		// A JSON file is skimmed for the members its reader looks at; a
		// file skim cannot reduce, or whose reduced members do not parse,
		// is read whole below, so that the problem is worded with its
		// line and column in the file.
		fi, err := fh.Stat()
		if err != nil {
			r.problem = fmt.Sprintf("cannot read it: %v", unwrapPath(err))
			return r
		}
		reduced, err := p.memo.skim(f, fh, fi, k, p.state)
		switch {
		case err == nil:
			if entries, err := parseHost(f, reduced, p); err == nil {
				r.entries = entries
				return r
			}
		case errors.Is(err, errTooLarge):
			r.problem = fmt.Sprintf("it is larger than %d MiB", f.Max>>20)
			return r
		case !errors.Is(err, errSkim):
			r.problem = fmt.Sprintf("cannot read it: %v", unwrapPath(err))
			return r
		}
		if _, err := fh.Seek(0, io.SeekStart); err != nil {
			r.problem = fmt.Sprintf("cannot read it: %v", unwrapPath(err))
			return r
		}
	}
	data, err := io.ReadAll(io.LimitReader(fh, f.Max+1))
	if err != nil {
		r.problem = fmt.Sprintf("cannot read it: %v", unwrapPath(err))
		return r
	}
	if int64(len(data)) > f.Max {
		r.problem = fmt.Sprintf("it is larger than %d MiB", f.Max>>20)
		return r
	}
	entries, err := parseHost(f, data, p)
	if err != nil {
		r.problem = err.Error()
		return r
	}
	r.entries = entries
	return r
}

// unwrapPath drops the path from a *fs.PathError: the warning names the file.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// parseHost parses a host file's bytes by its dialect.
func parseHost(f hostFile, data []byte, p platform) ([]hostEntry, error) {
	switch f.Dialect {
	case "codex":
		return parseCodex(data)
	case "goose":
		return parseGoose(data)
	case "claude-code", "claude-code-local":
		return parseClaudeCode(f, data, p)
	}
	return parseJSONHost(f, data, p)
}

// loadHosts adds the servers of the hosts' files to cfg, after mcpx's own.
// only, when not nil, names the hosts to read ("import" in the user file).
// Project-level files are read only when trusted; the untrusted ones that
// define servers are named in untrusted.
func loadHosts(cfg *Config, p platform, only []string, trusted bool) (untrusted []string) {
	p.memo = newHostMemo()
	cfg.state = p.state
	want := map[string]bool{}
	for _, h := range only {
		want[h] = true
	}
	for _, f := range hostFiles(p) {
		if only != nil && !want[f.Host] {
			continue
		}
		r := readHost(f, p)
		if r.missing {
			continue
		}
		if f.Project && !trusted {
			if r.problem == "" && len(r.entries) > 0 {
				untrusted = append(untrusted, f.Path)
			}
			continue
		}
		if r.problem != "" {
			w := HostWarning{Msg: fmt.Sprintf("%s config %s: %s; its servers are not used", f.Host, f.Path, r.problem), path: f.Path, kind: "warned-" + f.Source}
			if r.info != nil {
				w.id = fileID(r.info)
			}
			cfg.HostWarns = append(cfg.HostWarns, w)
			continue
		}
		cfg.Files = append(cfg.Files, f.Path)
		for i := range r.entries {
			cfg.add(r.entries[i].server(f, p))
		}
	}
	return untrusted
}

// HostWarning is a warning about a host's file that cannot be used (see
// HostWarnings).
type HostWarning struct {
	Msg            string
	path, kind, id string // the file, the source's state kind, and the version of the file
}

// HostWarnings returns the warnings about the hosts' files that cannot be
// used: all of them when all is set (mcpx servers, -v), else those not
// shown before for this version of the file, which are remembered in the
// state directory as shown (see XDG_STATE_HOME in ENVIRONMENT, mcpx(1)): a broken host file is
// worth a warning once per change, not on every command.
func (c *Config) HostWarnings(all bool) []string {
	var out []string
	for _, w := range c.HostWarns {
		if all || w.id == "" {
			out = append(out, w.Msg)
			continue
		}
		if _, seen := c.state.read(w.path, w.kind, w.id); seen {
			continue
		}
		out = append(out, w.Msg)
		c.state.write(w.path, w.kind, w.id, nil)
	}
	return out
}

// ReadSource reads the entries of one host source (mcpx import): every
// file of that source, in order. A file that cannot be read or parsed is an
// Error; none existing is not_found. A project-level source needs
// trust, like everything else read from a project.
func ReadSource(source string, o LoadOptions) ([]*Server, []string, error) {
	p := o.platform()
	var files []hostFile
	for _, f := range hostFiles(p) {
		if f.Source == source {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil, nil, Invalid("", fmt.Sprintf("unknown source %q (sources: %s)", source, strings.Join(Sources()[2:], ", ")))
	}
	if files[0].Project && !o.Project {
		user, err := readUserFile(o)
		if err != nil {
			return nil, nil, err
		}
		if user == nil || !user.trusts(o.Cwd, o.Getenv) {
			e := Invalid("", fmt.Sprintf("%s is a project file and %s is not a trusted project", source, o.Cwd))
			e.What, e.Name = "trustedProjects", userConfigPathFor(p.goos, o.Getenv)
			return nil, nil, e
		}
	}
	var servers []*Server
	var paths []string
	for _, f := range files {
		r := readHost(f, p)
		if r.missing {
			continue
		}
		if r.problem != "" {
			return nil, nil, Invalid("", fmt.Sprintf("%s config %s: %s", f.Host, f.Path, r.problem))
		}
		paths = append(paths, f.Path)
		for i := range r.entries {
			servers = append(servers, r.entries[i].server(f, p))
		}
	}
	if len(paths) == 0 {
		where := make([]string, len(files))
		for i, f := range files {
			where[i] = f.Path
		}
		return nil, nil, &fail.Error{Code: fail.NotFound, What: "source", Name: source, Source: source,
			Message: fmt.Sprintf("no %s config at %s", hostTitle(files[0].Host, files[0].Project), strings.Join(where, " or "))}
	}
	return servers, paths, nil
}

func (o LoadOptions) platform() platform {
	goos := o.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	return platform{goos: goos, home: homeDir(goos, o.Getenv), cwd: o.Cwd, getenv: o.Getenv,
		state: hostState{stateDirFor(goos, o.Getenv)}}
}

// Enabled returns the names --all covers, in order: every name whose entry
// is not disabled (a shadowed entry is not covered: its name is taken).
func (c *Config) Enabled() []string {
	var out []string
	for _, n := range c.Names() {
		if !c.Servers[n].Disabled {
			out = append(out, n)
		}
	}
	return out
}

// Refs returns NAME@SOURCE for every shadowed entry that is not disabled,
// in the order of All: completion offers them.
func (c *Config) Refs() []string {
	var out []string
	for _, s := range c.All {
		if c.Shadowed(s) && !s.Disabled {
			out = append(out, s.Name+"@"+s.Origin)
		}
	}
	return out
}
