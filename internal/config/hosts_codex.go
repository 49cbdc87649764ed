package config

import (
	"errors"
	"fmt"
	"sort"
	"time"

	toml "github.com/pelletier/go-toml/v2"
)

// Codex keeps its servers in TOML, one table a server:
//
//	[mcp_servers.NAME]
//	command = "npx"  args = [...]  env = {K = "V"}  env_vars = ["K"]  cwd = "..."
//	url = "https://..."  bearer_token_env_var = "VAR"
//	http_headers = {K = "V"}  env_http_headers = {K = "VAR"}
//	enabled = false  startup_timeout_sec = 10  tool_timeout_sec = 60
//
// pelletier/go-toml/v2 parses it: it bounds nesting (10000 levels) and
// reads a hostile file in linear time, and its errors carry the line and
// column. (BurntSushi/toml, also well kept, took seconds on a few thousand
// nested inline tables.)

// parseCodex reads the servers of a Codex config.toml.
func parseCodex(data []byte) ([]hostEntry, error) {
	var top map[string]any
	if err := toml.Unmarshal(data, &top); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return nil, fmt.Errorf("line %d, column %d: %v", line, col, err)
		}
		return nil, err
	}
	raw, ok := top["mcp_servers"]
	if !ok {
		return nil, nil
	}
	servers, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("mcp_servers must be a table of servers")
	}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]hostEntry, 0, len(names))
	for _, name := range names {
		out = append(out, codexEntry(name, servers[name]))
	}
	return out, nil
}

func codexEntry(name string, v any) hostEntry {
	e := hostEntry{Name: name}
	t, ok := v.(map[string]any)
	if !ok {
		e.Problem = "entry must be a table"
		return e
	}
	g := tomlGetter{t: t}
	e.Command = g.str("command")
	e.Args = g.strs("args")
	e.Env = g.strMap("env")
	e.Cwd = g.str("cwd")
	e.URL = g.str("url")
	e.Headers = g.strMap("http_headers")
	// env_vars forwards variables of mcpx's environment (empty when unset).
	for _, k := range g.strs("env_vars") {
		if _, set := e.Env[k]; !set {
			if e.Env == nil {
				e.Env = map[string]string{}
			}
			e.Env[k] = "${" + k + ":-}"
		}
	}
	for h, envVar := range g.strMap("env_http_headers") {
		if e.Headers == nil {
			e.Headers = map[string]string{}
		}
		setHeader(e.Headers, h, "${"+envVar+"}")
	}
	if tok := g.str("bearer_token_env_var"); tok != "" {
		if e.Headers == nil {
			e.Headers = map[string]string{}
		}
		setHeader(e.Headers, "Authorization", "Bearer ${"+tok+"}")
	}
	if e.URL != "" && e.Command == "" {
		e.Type = HTTP // Codex speaks streamable HTTP only
	}
	if b, ok := g.bool("enabled"); ok && !b {
		e.Disabled = true
	}
	// mcpx's timeout covers starting the server and the operation: Codex's
	// two bounds (10 s and 60 s unless set) added up, when either is set.
	start, sok := g.num("startup_timeout_sec")
	if ms, ok := g.num("startup_timeout_ms"); ok && !sok {
		start, sok = ms/1000, true
	}
	tool, tok := g.num("tool_timeout_sec")
	if sok || tok {
		if !sok {
			start = 10
		}
		if !tok {
			tool = 60
		}
		e.Timeout = seconds(start+tool, time.Second)
	}
	if e.Problem == "" {
		e.Problem = g.problem
	}
	return e
}

// tomlGetter reads typed keys of a TOML table, remembering the first key
// of the wrong type.
type tomlGetter struct {
	t       map[string]any
	problem string
}

func (g *tomlGetter) bad(key, want string) {
	if g.problem == "" {
		g.problem = fmt.Sprintf("%q must be %s", key, want)
	}
}

func (g *tomlGetter) str(key string) string {
	v, ok := g.t[key]
	if !ok {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		g.bad(key, "a string")
	}
	return s
}

func (g *tomlGetter) strs(key string) []string {
	v, ok := g.t[key]
	if !ok {
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		g.bad(key, "an array of strings")
		return nil
	}
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		s, ok := x.(string)
		if !ok {
			g.bad(key, "an array of strings")
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (g *tomlGetter) strMap(key string) map[string]string {
	v, ok := g.t[key]
	if !ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		g.bad(key, "a table of strings")
		return nil
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		s, ok := x.(string)
		if !ok {
			g.bad(key, "a table of strings")
			return nil
		}
		out[k] = s
	}
	return out
}

func (g *tomlGetter) bool(key string) (bool, bool) {
	v, ok := g.t[key]
	if !ok {
		return false, false
	}
	b, ok := v.(bool)
	if !ok {
		g.bad(key, "true or false")
	}
	return b, ok
}

func (g *tomlGetter) num(key string) (float64, bool) {
	switch v := g.t[key].(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	case nil:
		return 0, false
	}
	g.bad(key, "a number")
	return 0, false
}
