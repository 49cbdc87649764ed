package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/mcpx-cli/mcpx/internal/fail"
)

// layouts places each file of testdata/hosts.txtar at its host's
// documented path, per platform: under the home directory, or (@PROJ@/) in
// the project directory.
var layouts = map[string]map[string]string{
	"linux": {
		"claude-desktop.json":  ".config/Claude/claude_desktop_config.json",
		"claude-code.json":     ".claude.json",
		"cursor.json":          ".cursor/mcp.json",
		"vscode.json":          ".config/Code/User/mcp.json",
		"vscode-settings.json": ".config/Code/User/settings.json",
		"windsurf.json":        ".codeium/windsurf/mcp_config.json",
		"codex.toml":           ".codex/config.toml",
		"gemini.json":          ".gemini/settings.json",
		"zed.json":             ".config/zed/settings.json",
		"opencode.json":        ".config/opencode/opencode.json",
		"goose.yaml":           ".config/goose/config.yaml",
		"cline.json":           ".config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
	},
	"darwin": {
		"claude-desktop.json":  "Library/Application Support/Claude/claude_desktop_config.json",
		"claude-code.json":     ".claude.json",
		"cursor.json":          ".cursor/mcp.json",
		"vscode.json":          "Library/Application Support/Code/User/mcp.json",
		"vscode-settings.json": "Library/Application Support/Code/User/settings.json",
		"windsurf.json":        ".codeium/windsurf/mcp_config.json",
		"codex.toml":           ".codex/config.toml",
		"gemini.json":          ".gemini/settings.json",
		"zed.json":             ".config/zed/settings.json",
		"opencode.json":        ".config/opencode/opencode.json",
		"goose.yaml":           ".config/goose/config.yaml",
		"cline.json":           "Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
	},
	"windows": {
		"claude-desktop.json":  "AppData/Roaming/Claude/claude_desktop_config.json",
		"claude-code.json":     ".claude.json",
		"cursor.json":          ".cursor/mcp.json",
		"vscode.json":          "AppData/Roaming/Code/User/mcp.json",
		"vscode-settings.json": "AppData/Roaming/Code/User/settings.json",
		"windsurf.json":        ".codeium/windsurf/mcp_config.json",
		"codex.toml":           ".codex/config.toml",
		"gemini.json":          ".gemini/settings.json",
		"zed.json":             "AppData/Roaming/Zed/settings.json",
		"opencode.json":        ".config/opencode/opencode.json",
		"goose.yaml":           "AppData/Roaming/Block/goose/config/config.yaml",
		"cline.json":           "AppData/Roaming/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
	},
}

var projectLayout = map[string]string{
	"cursor-project.json": ".cursor/mcp.json",
	"vscode-project.json": ".vscode/mcp.json",
	"codex-project.toml":  ".codex/config.toml",
	"gemini-project.json": ".gemini/settings.json",
}

// fixtureHome lays out testdata/hosts.txtar for goos under a new home and
// project directory, and returns them and the environment of that platform.
func fixtureHome(t *testing.T, goos string) (home, proj string, getenv func(string) string) {
	t.Helper()
	ar, err := txtar.ParseFile("testdata/hosts.txtar")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	home, proj = filepath.Join(root, "home"), filepath.Join(root, "work", "proj")
	for _, f := range ar.Files {
		data := strings.ReplaceAll(string(f.Data), "@PROJ@", filepath.ToSlash(proj))
		if rel, ok := layouts[goos][f.Name]; ok {
			writeFile(t, filepath.Join(home, filepath.FromSlash(rel)), data)
		} else if rel, ok := projectLayout[f.Name]; ok {
			writeFile(t, filepath.Join(proj, filepath.FromSlash(rel)), data)
		} else {
			t.Fatalf("%s has no place in the %s layout", f.Name, goos)
		}
	}
	if goos == "windows" {
		return home, proj, env("USERPROFILE", home, "APPDATA", filepath.Join(home, "AppData", "Roaming"))
	}
	return home, proj, env("HOME", home)
}

// listing is one line per entry: source, name, transport, status, target.
func listing(cfg *Config) string {
	var b strings.Builder
	for _, s := range cfg.All {
		status := "active"
		switch {
		case cfg.Shadowed(s):
			status = "shadowed"
		case s.Disabled:
			status = "disabled"
		}
		fmt.Fprintf(&b, "%s %s %s %s %s\n", s.Origin, s.Name, s.Transport, status, s.Target())
	}
	return b.String()
}

const wantHosts = `claude-desktop filesystem stdio active npx -y @modelcontextprotocol/server-filesystem /Users/username/Desktop /Users/username/Downloads
claude-desktop weather stdio active uv --directory /ABSOLUTE/PATH/TO/PARENT/FOLDER/weather run weather.py
claude-code-local airtable stdio active npx -y airtable-mcp-server --local
claude-code airtable stdio shadowed npx -y airtable-mcp-server
claude-code api-server sse active ${API_BASE_URL:-https://api.example.com}/mcp
claude-code sentry http active https://mcp.sentry.dev/mcp
cursor github stdio active npx -y @modelcontextprotocol/server-github
cursor homebin stdio active @HOMEBIN@ --root ${workspaceFolder} --name proj
cursor userjot http active https://api.userjot.com/v1/mcp
cursor-project projcursor stdio active ./tools/serve.sh --stdio
vscode Perplexity stdio active npx -y @modelcontextprotocol/server-perplexity-ask
vscode fetch stdio active uvx mcp-server-fetch
vscode github http shadowed https://api.githubcopilot.com/mcp/
vscode legacy-sse sse active http://localhost:3000/sse
vscode-project projvscode stdio active node ${workspaceFolder}/server.js
windsurf brave-search stdio active npx -y @modelcontextprotocol/server-brave-search
windsurf figma http active https://mcp.figma.com/mcp
windsurf parked stdio disabled parked-server
codex docs stdio active docs-server --port 4000
codex figma http shadowed https://mcp.figma.com/mcp
codex parked-codex stdio disabled parked
codex-project projcodex stdio active project-codex-server
gemini excludedOne stdio disabled excluded-server
gemini httpServer http active http://localhost:3000/mcp
gemini pythonTools stdio active python -m my_mcp_server --port 8080
gemini sseServer sse active http://localhost:8080/sse
gemini-project projgemini stdio active gemini-project-server
zed hexdocs-mcp stdio active npx -y hexdocs-mcp@0.5.0
zed legacy-zed stdio active some-command arg-1 arg-2
zed remote-zed http disabled https://mcp.example.com/mcp
opencode from-file stdio active keyed
opencode my-local stdio active npx -y my-mcp-command
opencode my-remote http active https://my-mcp-server.com
opencode off-opencode stdio disabled off
goose github stdio shadowed npx -y @modelcontextprotocol/server-github
goose remote-goose http disabled https://example.com/goose/mcp
cline legacy-cline sse active https://example.com/cline/sse
cline remote-cline http disabled https://example.com/cline/mcp
cline weather stdio shadowed node /path/to/weather-server/build/index.js
`

// Every host's file, at its documented place on each platform, with no
// mcpx config at all: every entry is read, in the documented order.
func TestLoadHostsEveryPlatform(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "windows"} {
		t.Run(goos, func(t *testing.T) {
			home, proj, getenv := fixtureHome(t, goos)
			cfg, err := Load(LoadOptions{Project: true, Cwd: proj, Getenv: getenv, GOOS: goos})
			if err != nil {
				t.Fatal(err)
			}
			sep := "/"
			if goos == "windows" {
				sep = `\`
			}
			want := strings.ReplaceAll(wantHosts, "@HOMEBIN@", shellQuote(home+sep+"bin"+sep+"srv"))
			if got := listing(cfg); got != want {
				t.Errorf("entries:\n%s\nwant:\n%s", got, want)
			}
			if len(cfg.Warns)+len(cfg.HostWarns) > 0 || len(cfg.Notes) > 0 {
				t.Errorf("warnings %q, notes %q", cfg.Warns, cfg.Notes)
			}
		})
	}
}

// resolved loads the linux fixture and resolves one entry (NAME or
// NAME@SOURCE) with environ.
func resolved(t *testing.T, ref string, environ ...string) (*Target, error) {
	t.Helper()
	_, proj, getenv := fixtureHome(t, "linux")
	cfg, err := Load(LoadOptions{Project: true, Cwd: proj, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	s, err := cfg.Lookup(ref, "mcpx")
	if err != nil {
		return nil, err
	}
	return Resolve(s, ResolveOptions{Getenv: getenv, Environ: environ})
}

func envOf(t *Target, k string) (string, bool) {
	for _, kv := range t.Env {
		if v, ok := strings.CutPrefix(kv, k+"="); ok {
			return v, true
		}
	}
	return "", false
}

// Each host's dialect means what the host means: variable syntax, URL
// keys, types, timeouts, forwarded variables and headers.
func TestHostDialects(t *testing.T) {
	tg, err := resolved(t, "github", "GITHUB_TOKEN=ghp_1")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := envOf(tg, "GITHUB_PERSONAL_ACCESS_TOKEN"); v != "ghp_1" || !slices.Contains(tg.Secrets, "ghp_1") {
		t.Errorf("cursor ${env:GITHUB_TOKEN}: %q, secrets %q", v, tg.Secrets)
	}
	tg, err = resolved(t, "homebin")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(tg.Command, "/home/bin/srv") || !strings.HasSuffix(tg.Args[1], "/work/proj") || tg.Args[3] != "proj" {
		t.Errorf("cursor ${userHome}, ${workspaceFolder}, ${workspaceFolderBasename}: %q %q", tg.Command, tg.Args)
	}
	// Claude Code's ${VAR:-default}, and its type sse
	tg, err = resolved(t, "api-server", "API_KEY=k1")
	if err != nil {
		t.Fatal(err)
	}
	if tg.Transport != SSE || tg.URL != "https://api.example.com/mcp" || tg.Headers["Authorization"] != "Bearer k1" {
		t.Errorf("claude-code api-server: %+v", tg)
	}
	// Windsurf's serverUrl and ${env:...}; its ${file:...} cannot be expressed
	tg, err = resolved(t, "figma", "FIGMA_TOKEN=f1")
	if err != nil || tg.URL != "https://mcp.figma.com/mcp" || tg.Headers["X-Figma-Token"] != "f1" || !tg.Fallback {
		t.Errorf("windsurf figma: %+v %v", tg, err)
	}
	if _, err := resolved(t, "brave-search"); err == nil || !strings.Contains(err.Error(), "${file:/home/me/.brave-key} reads a file") {
		t.Errorf("windsurf ${file:}: %v", err)
	}
	// Codex: env_vars, bearer_token_env_var, http_headers, env_http_headers, timeouts
	tg, err = resolved(t, "docs", "LOG_LEVEL=debug")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := envOf(tg, "LOG_LEVEL"); v != "debug" || tg.Timeout != 60*time.Second {
		t.Errorf("codex docs: LOG_LEVEL %q, timeout %s", v, tg.Timeout)
	}
	if v, _ := envOf(tg, "API_KEY"); v != "value" {
		t.Errorf("codex env: %q", v)
	}
	tg, err = resolved(t, "docs")
	if v, set := envOf(tg, "LOG_LEVEL"); err != nil || !set || v != "" {
		t.Errorf("codex env_vars of an unset variable: %q %v %v", v, set, err)
	}
	tg, err = resolved(t, "figma@codex", "FIGMA_OAUTH_TOKEN=tok", "FIGMA_TEAM=team")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Authorization": "Bearer tok", "X-Figma-Region": "us-east-1", "X-Team": "team"}
	if tg.Transport != HTTP || tg.Fallback || fmt.Sprint(tg.Headers) != fmt.Sprint(want) {
		t.Errorf("codex figma: %s %v %v", tg.Transport, tg.Fallback, tg.Headers)
	}
	if _, err := resolved(t, "figma@codex", "FIGMA_TEAM=team"); err == nil || !strings.Contains(err.Error(), "FIGMA_OAUTH_TOKEN is not set") {
		t.Errorf("codex bearer_token_env_var unset: %v", err)
	}
	// Gemini CLI: $VAR and ${VAR}, cwd, timeout in milliseconds, httpUrl
	tg, err = resolved(t, "pythonTools", "DB_CONNECTION_STRING=db", "EXTERNAL_API_KEY=ext")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := envOf(tg, "DATABASE_URL"); v != "db" || tg.Timeout != 15*time.Second || !strings.HasSuffix(tg.Dir, "/.gemini/mcp-servers/python") {
		t.Errorf("gemini pythonTools: DATABASE_URL %q, timeout %s, dir %s", v, tg.Timeout, tg.Dir)
	}
	tg, err = resolved(t, "sseServer", "SSE_TOKEN=s")
	if err != nil || tg.Transport != SSE || tg.Headers["Authorization"] != "Bearer s" {
		t.Errorf("gemini sseServer: %+v %v", tg, err)
	}
	tg, err = resolved(t, "httpServer")
	if err != nil || tg.Transport != HTTP || tg.Fallback || tg.Timeout != 5*time.Second {
		t.Errorf("gemini httpServer: %+v %v", tg, err)
	}
	// Zed's older command shape
	tg, err = resolved(t, "legacy-zed")
	if v, _ := envOf(tg, "ZED_X"); err != nil || tg.Command != "some-command" || v != "1" {
		t.Errorf("zed legacy: %+v %v", tg, err)
	}
	// OpenCode: command arrays, environment, {env:...}, remote (falls back to SSE)
	tg, err = resolved(t, "my-remote", "MY_API_KEY=m")
	if err != nil || tg.Headers["Authorization"] != "Bearer m" || !tg.Fallback {
		t.Errorf("opencode my-remote: %+v %v", tg, err)
	}
	tg, err = resolved(t, "my-local")
	if v, _ := envOf(tg, "MY_ENV_VAR"); err != nil || v != "my_env_var_value" {
		t.Errorf("opencode my-local: %+v %v", tg, err)
	}
	if _, err := resolved(t, "from-file"); err == nil || !strings.Contains(err.Error(), "{file:~/.secrets/key} reads a file") {
		t.Errorf("opencode {file:}: %v", err)
	}
	// Goose: env_keys come from the environment; timeout in seconds
	tg, err = resolved(t, "github@goose", "GITHUB_PERSONAL_ACCESS_TOKEN=g")
	if v, _ := envOf(tg, "GITHUB_PERSONAL_ACCESS_TOKEN"); err != nil || v != "g" || tg.Timeout != 300*time.Second {
		t.Errorf("goose github: %+v %v", tg, err)
	}
	// Cline: timeout in seconds, transportType
	tg, err = resolved(t, "weather@cline")
	if err != nil || tg.Timeout != 90*time.Second {
		t.Errorf("cline weather: %+v %v", tg, err)
	}
	// VS Code: ${input:...} asks VS Code for a value
	if _, err := resolved(t, "Perplexity"); err == nil || !strings.Contains(err.Error(), "${input:perplexity-key} asks VS Code") {
		t.Errorf("vscode ${input:}: %v", err)
	}
	// a project file's relative command resolves against the project
	tg, err = resolved(t, "projcursor")
	if err != nil || !strings.HasSuffix(tg.Command, "/work/proj/tools/serve.sh") {
		t.Errorf("cursor project relative command: %+v %v", tg, err)
	}
}

// Disabled entries are listed, never started: using one is a config error
// (exit 2) naming the file. NAME@SOURCE reaches a shadowed entry; an
// unknown one is not found.
func TestHostDisabledAndRefs(t *testing.T) {
	for _, ref := range []string{"parked", "parked-codex", "remote-cline", "excludedOne", "off-opencode", "remote-zed", "remote-goose"} {
		_, err := resolved(t, ref)
		if !fail.Is(err, fail.Usage) || !strings.Contains(err.Error(), "is disabled in") {
			t.Errorf("%s: %v, want a disabled Error", ref, err)
		}
	}
	tg, err := resolved(t, "airtable@claude-code")
	if err != nil || tg.Args[len(tg.Args)-1] != "airtable-mcp-server" {
		t.Errorf("airtable@claude-code: %+v %v", tg, err)
	}
	_, err = resolved(t, "nosuch@cursor")
	nf, ok := fail.As(err, fail.NotFound)
	if !ok || nf.Name != "nosuch@cursor" {
		t.Errorf("nosuch@cursor: %v", err)
	}
	_, err = resolved(t, "github@zed")
	if nf, ok = fail.As(err, fail.NotFound); !ok || nf.Source != "zed" || strings.Join(nf.Known, ", ") != "github@cursor, github@vscode, github@goose" {
		t.Errorf("github@zed: %v %v", err, nf)
	}
}

// Project-level files of every host follow the trust rule of ./.mcp.json:
// untrusted, they are skipped with one note naming them.
func TestHostProjectTrust(t *testing.T) {
	home, proj, getenv := fixtureHome(t, "linux")
	cfg, err := Load(LoadOptions{Cwd: proj, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cfg.All {
		if strings.HasSuffix(s.Origin, "-project") {
			t.Errorf("untrusted %s read: %s", s.Origin, s.Name)
		}
	}
	want := []string{"./.cursor/mcp.json", "./.vscode/mcp.json", "./.codex/config.toml", "./.gemini/settings.json"}
	if cfg.Untrusted != proj || !slices.Equal(cfg.Skipped, want) {
		t.Errorf("untrusted %q skipped %q, want %q %q", cfg.Untrusted, cfg.Skipped, proj, want)
	}
	// trustedProjects in the user file trusts them
	writeFile(t, filepath.Join(home, ".config", "mcpx", "config.json"), `{"trustedProjects": ["`+proj+`"]}`)
	cfg, err = Load(LoadOptions{Cwd: proj, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cfg.Servers["projgemini"]; !ok || len(cfg.Notes) != 0 || cfg.Untrusted != "" {
		t.Errorf("trusted project: notes %q, servers %v", cfg.Notes, cfg.Names())
	}
}

// "import" in the user file limits the hosts read; [] reads none; an
// unknown host is a warning. --config reads no host.
func TestHostImportFilter(t *testing.T) {
	home, proj, getenv := fixtureHome(t, "linux")
	user := filepath.Join(home, ".config", "mcpx", "config.json")
	origins := func(cfg *Config) []string {
		var out []string
		for _, s := range cfg.All {
			if !slices.Contains(out, s.Origin) {
				out = append(out, s.Origin)
			}
		}
		return out
	}
	writeFile(t, user, `{"import": ["codex", "zed", "nosuch"], "mcpServers": {"mine": {"command": "m"}}}`)
	cfg, err := Load(LoadOptions{Project: true, Cwd: proj, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	if got := origins(cfg); !slices.Equal(got, []string{"mcpx", "codex", "codex-project", "zed"}) {
		t.Errorf("import [codex zed]: %q", got)
	}
	if len(cfg.Warns) != 1 || !strings.Contains(cfg.Warns[0], `names "nosuch", which is not a host mcpx reads`) {
		t.Errorf("warnings %q", cfg.Warns)
	}
	writeFile(t, user, `{"import": [], "mcpServers": {"mine": {"command": "m"}}}`)
	if cfg, _ = Load(LoadOptions{Project: true, Cwd: proj, Getenv: getenv}); !slices.Equal(origins(cfg), []string{"mcpx"}) {
		t.Errorf("import []: %q", origins(cfg))
	}
	if cfg, _ = Load(LoadOptions{File: user, Project: true, Cwd: proj, Getenv: getenv}); !slices.Equal(origins(cfg), []string{"mcpx"}) {
		t.Errorf("--config: %q", origins(cfg))
	}
	// mcpx's own entries come first: "github" in the user file shadows every host's
	writeFile(t, user, `{"mcpServers": {"github": {"command": "mine"}}}`)
	cfg, _ = Load(LoadOptions{Cwd: proj, Getenv: getenv})
	if s := cfg.Servers["github"]; s.Origin != "mcpx" || len(cfg.Refs()) == 0 {
		t.Errorf("github resolves to %s", s.Origin)
	}
}

// The platform paths: a pure function of the platform, home and
// environment.
func TestHostFilesPaths(t *testing.T) {
	cases := []struct {
		goos string
		env  []string
		want map[string]string // source: first path
	}{
		{"linux", []string{"HOME", "/h"}, map[string]string{
			"claude-desktop": "/h/.config/Claude/claude_desktop_config.json",
			"claude-code":    "/h/.claude.json",
			"vscode":         "/h/.config/Code/User/mcp.json",
			"zed":            "/h/.config/zed/settings.json",
			"goose":          "/h/.config/goose/config.yaml",
			"codex":          "/h/.codex/config.toml",
		}},
		{"linux", []string{"HOME", "/h", "XDG_CONFIG_HOME", "/x", "CODEX_HOME", "/c", "CLAUDE_CONFIG_DIR", "/cc"}, map[string]string{
			"claude-desktop": "/x/Claude/claude_desktop_config.json",
			"claude-code":    "/cc/.claude.json",
			"vscode":         "/x/Code/User/mcp.json",
			"zed":            "/x/zed/settings.json",
			"opencode":       "/x/opencode/opencode.json",
			"goose":          "/x/goose/config.yaml",
			"codex":          "/c/config.toml",
			"cline":          "/x/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
		}},
		{"linux", []string{"HOME", "/h", "XDG_CONFIG_HOME", "relative"}, map[string]string{
			"zed": "/h/.config/zed/settings.json",
		}},
		{"darwin", []string{"HOME", "/Users/u", "XDG_CONFIG_HOME", "/x"}, map[string]string{
			"claude-desktop": "/Users/u/Library/Application Support/Claude/claude_desktop_config.json",
			"vscode":         "/Users/u/Library/Application Support/Code/User/mcp.json",
			"zed":            "/Users/u/.config/zed/settings.json",
			"goose":          "/x/goose/config.yaml",
			"cursor":         "/Users/u/.cursor/mcp.json",
		}},
		{"windows", []string{"USERPROFILE", "/C/Users/u", "APPDATA", "/C/Users/u/AppData/Roaming"}, map[string]string{
			"claude-desktop": "/C/Users/u/AppData/Roaming/Claude/claude_desktop_config.json",
			"claude-code":    "/C/Users/u/.claude.json",
			"zed":            "/C/Users/u/AppData/Roaming/Zed/settings.json",
			"goose":          "/C/Users/u/AppData/Roaming/Block/goose/config/config.yaml",
			"opencode":       "/C/Users/u/.config/opencode/opencode.json",
			"windsurf":       "/C/Users/u/.codeium/windsurf/mcp_config.json",
		}},
	}
	for _, c := range cases {
		files := hostFiles(platform{goos: c.goos, home: homeDir(c.goos, env(c.env...)), cwd: "/p", getenv: env(c.env...)})
		got := map[string]string{}
		for _, f := range files {
			if _, ok := got[f.Source]; !ok {
				got[f.Source] = filepath.ToSlash(f.Path)
			}
		}
		for src, want := range c.want {
			if got[src] != want {
				t.Errorf("%s %v: %s at %q, want %q", c.goos, c.env, src, got[src], want)
			}
		}
		if got["cursor-project"] != "/p/.cursor/mcp.json" {
			t.Errorf("%s: cursor-project at %q", c.goos, got["cursor-project"])
		}
	}
	// no home directory: nothing under it is read, never a guess
	for _, f := range hostFiles(platform{goos: "linux", cwd: "/p", getenv: env()}) {
		if !f.Project {
			t.Errorf("no HOME, yet %s at %s", f.Source, f.Path)
		}
	}
}

// A malformed, huge, binary, deeply nested, non-regular or unreadable host
// file is a warning naming the file (and line and column where there is
// one); the other sources are still used. Nothing panics or blocks.
func TestHostHostileFiles(t *testing.T) {
	home := t.TempDir()
	getenv := env("HOME", home)
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	codex := filepath.Join(home, ".codex", "config.toml")
	goose := filepath.Join(home, ".config", "goose", "config.yaml")
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"), `{"mcpServers": {"ok": {"command": "fine"}}}`)
	load := func() *Config {
		t.Helper()
		cfg, err := Load(LoadOptions{Cwd: t.TempDir(), Getenv: getenv})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := cfg.Servers["ok"]; !ok {
			t.Errorf("the other sources were not used: %v", cfg.Names())
		}
		return cfg
	}
	check := func(name, want string) {
		t.Helper()
		cfg := load()
		if ws := cfg.HostWarnings(true); len(ws) != 1 || len(cfg.Warns) != 0 || !strings.Contains(ws[0], want) {
			t.Errorf("%s: warnings %q %q, want one containing %q", name, cfg.Warns, ws, want)
		}
	}
	writeFile(t, cursor, "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",,}\n  }\n}\n")
	check("malformed", "cursor config "+cursor+": line 3, column 27: invalid character '}' looking for beginning of object key string")
	writeFile(t, cursor, "{\"mcpServers\": [1, 2]}")
	check("wrong type", `line 1, column 16: "mcpServers" must be an object of servers`)
	writeFile(t, cursor, "{\n/* never closed\n")
	check("unterminated comment", "line 2, column 1: unterminated /* comment")
	writeFile(t, cursor, "\x00\x01\x02\xff\xfe binary")
	check("binary", "line 1, column 1: invalid character")
	writeFile(t, cursor, `{"mcpServers": `+strings.Repeat("[", 1<<20))
	check("deeply nested", "exceeded max depth")
	if err := os.Truncate(cursor, maxHostFile+1); err != nil {
		t.Fatal(err)
	}
	check("huge", "it is larger than 16 MiB")
	os.Remove(cursor)
	if err := os.Mkdir(cursor, 0o755); err != nil {
		t.Fatal(err)
	}
	check("directory", "it is not a regular file")
	os.Remove(cursor)
	if err := mkfifo(cursor, 0o644); err != nil {
		t.Fatal(err)
	}
	check("fifo", "it is not a regular file") // and does not block
	os.Remove(cursor)
	// a symbolic link is followed (dotfile managers link these files)
	target := filepath.Join(t.TempDir(), "dotfiles-cursor.json")
	writeFile(t, target, `{"mcpServers": {"linked": {"command": "l"}}}`)
	if err := os.Symlink(target, cursor); err != nil {
		t.Fatal(err)
	}
	if cfg := load(); cfg.Servers["linked"] == nil || len(cfg.Warns)+len(cfg.HostWarns) != 0 {
		t.Errorf("symlink: %v %q", cfg.Names(), cfg.Warns)
	}
	os.Remove(target)
	if cfg := load(); len(cfg.Warns)+len(cfg.HostWarns) != 0 {
		t.Errorf("dangling symlink: %q", cfg.Warns) // a link to nothing is no file
	}
	os.Remove(cursor)
	if os.Geteuid() != 0 {
		writeFile(t, cursor, `{}`)
		if err := os.Chmod(cursor, 0); err != nil {
			t.Fatal(err)
		}
		check("unreadable", "cannot read it: permission denied")
		os.Remove(cursor)
	}
	writeFile(t, codex, "model = \"x\"\n[mcp_servers.a]\ncommand = = 1\n")
	check("toml", "codex config "+codex+": line 3, column 11:")
	writeFile(t, codex, "a = "+strings.Repeat("[", 1<<20))
	check("toml nested", "nested more than the maximum")
	writeFile(t, codex, "mcp_servers = 5\n")
	check("toml type", "mcp_servers must be a table of servers")
	os.Remove(codex)
	writeFile(t, goose, "extensions:\n  a:\n    cmd: x\n\tbad: tab\n")
	check("yaml", "goose config "+goose+": yaml: line 3: found a tab character that violates indentation")
	writeFile(t, goose, "extensions: "+strings.Repeat("[", 1<<20))
	check("yaml nested", "exceeded max depth")
	writeFile(t, goose, "extensions:\n  - a\n")
	check("yaml type", `line 2, column 3: "extensions" must be a mapping`)
	os.Remove(goose)
	// an entry of the wrong shape fails that server alone, when used
	writeFile(t, cursor, `{"mcpServers": {"bad": {"command": "x", "args": "not-a-list"}, "good": {"command": "g"}}}`)
	cfg := load()
	if _, err := Resolve(cfg.Servers["bad"], ResolveOptions{Getenv: getenv}); err == nil || !strings.Contains(err.Error(), `"args" must be an array of strings`) {
		t.Errorf("bad entry: %v", err)
	}
	if _, err := Resolve(cfg.Servers["good"], ResolveOptions{Getenv: getenv}); err != nil {
		t.Errorf("good entry: %v", err)
	}
}

func TestJWCC(t *testing.T) {
	in := "\xef\xbb\xbf{ // a comment with \"quotes\"\n  \"url\": \"http://x//y/*z*/\", /* block\n comment */ \"a\": [1, 2,],\n  \"s\": \"esc\\\"aped,]\",\n}\n"
	out, err := jwcc([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := "   {                           \n  \"url\": \"http://x//y/*z*/\",         \n            \"a\": [1, 2 ],\n  \"s\": \"esc\\\"aped,]\" \n}\n"
	if string(out) != want {
		t.Errorf("jwcc:\n%q\nwant\n%q", out, want)
	}
	if len(out) != len(in) {
		t.Errorf("offsets moved: %d bytes, want %d", len(out), len(in))
	}
}

// Every source name, the project-level ones too, in precedence order.
func TestSources(t *testing.T) {
	want := []string{"mcpx", "project", "claude-desktop", "claude-code-local", "claude-code",
		"cursor", "cursor-project", "vscode", "vscode-project", "windsurf", "codex", "codex-project",
		"gemini", "gemini-project", "zed", "zed-project", "opencode", "opencode-project", "goose", "cline"}
	if got := Sources(); !slices.Equal(got, want) {
		t.Errorf("Sources() = %q, want %q", got, want)
	}
	if !IsHostSource("cursor-project") || IsHostSource("mcpx") || IsHostSource("nope") {
		t.Error("IsHostSource")
	}
}

// ~/.claude.json is decoded once for both of its sources; a file the quick
// decoding refuses (a comment, another project's entry of the wrong type)
// is read by the general reader, which still finds the servers.
func TestClaudeCodeFallback(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	getenv := env("HOME", home)
	for _, data := range []string{
		`{"mcpServers": {"u": {"command": "user"}}, "projects": {"` + cwd + `": {"mcpServers": {"l": {"command": "local"}}}}}`,
		`{"mcpServers": {"u": {"command": "user"}}, "projects": {"/other": [1], "` + cwd + `": {"mcpServers": {"l": {"command": "local"}}}}}`,
		"// a comment\n" + `{"mcpServers": {"u": {"command": "user"}}, "projects": {"` + cwd + `": {"mcpServers": {"l": {"command": "local"}}}}}`,
	} {
		writeFile(t, filepath.Join(home, ".claude.json"), data)
		cfg, err := Load(LoadOptions{Cwd: cwd, Getenv: getenv})
		if err != nil {
			t.Fatal(err)
		}
		if got := listing(cfg); got != "claude-code-local l stdio active local\nclaude-code u stdio active user\n" || len(cfg.Warns) > 0 {
			t.Errorf("%s:\n%s%q", data, got, cfg.Warns)
		}
	}
}
