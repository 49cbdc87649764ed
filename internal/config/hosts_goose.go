package config

import (
	"fmt"
	"sort"
	"time"

	"go.yaml.in/yaml/v3"
)

// Goose keeps its servers in YAML, under "extensions":
//
//	extensions:
//	  github:
//	    enabled: true
//	    type: stdio            # or sse, streamable_http; builtin and platform are Goose's own
//	    cmd: npx
//	    args: [-y, "@modelcontextprotocol/server-github"]
//	    envs: {GITHUB_API_URL: https://api.github.com}
//	    env_keys: [GITHUB_PERSONAL_ACCESS_TOKEN]   # values in Goose's keyring or the environment
//	    uri: https://...       # sse and streamable_http
//	    headers: {K: V}
//	    timeout: 300           # seconds
//
// go.yaml.in/yaml/v3 (the YAML organization's continuation of
// gopkg.in/yaml.v3) parses it; it bounds nesting and alias expansion.

type gooseExtension struct {
	Enabled *bool             `yaml:"enabled"`
	Type    string            `yaml:"type"`
	Cmd     string            `yaml:"cmd"`
	Args    []string          `yaml:"args"`
	Envs    map[string]string `yaml:"envs"`
	EnvKeys []string          `yaml:"env_keys"`
	URI     string            `yaml:"uri"`
	Headers map[string]string `yaml:"headers"`
	Timeout *float64          `yaml:"timeout"`
	Config  *gooseExtension   `yaml:"config"` // an older layout nests the server here
}

// parseGoose reads the servers of a Goose config.yaml.
func parseGoose(data []byte) ([]hostEntry, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err // "yaml: line N: ..."
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d, column %d: the file must hold a mapping", root.Line, root.Column)
	}
	var ext *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "extensions" {
			ext = root.Content[i+1]
		}
	}
	if ext == nil || ext.Tag == "!!null" {
		return nil, nil
	}
	if ext.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d, column %d: \"extensions\" must be a mapping of extensions", ext.Line, ext.Column)
	}
	var out []hostEntry
	for i := 0; i+1 < len(ext.Content); i += 2 {
		name := ext.Content[i].Value
		var g gooseExtension
		e := hostEntry{Name: name}
		if err := ext.Content[i+1].Decode(&g); err != nil {
			e.Problem = fmt.Sprintf("line %d, column %d: the entry does not have the shape of a Goose extension", ext.Content[i+1].Line, ext.Content[i+1].Column)
			out = append(out, e)
			continue
		}
		if g.Config != nil && g.Cmd == "" && g.URI == "" {
			enabled := g.Enabled
			g = *g.Config
			if enabled != nil {
				g.Enabled = enabled
			}
		}
		switch g.Type {
		case "stdio":
			e.Type = Stdio
		case "sse":
			e.Type = SSE
		case "streamable_http", "streamable-http", "http":
			e.Type = HTTP
		case "":
		default:
			// builtin, platform, frontend, inline_python: Goose runs them
			// itself; they are not servers another client can start.
			continue
		}
		e.Command, e.Args, e.Env, e.URL, e.Headers = g.Cmd, g.Args, g.Envs, g.URI, g.Headers
		for _, k := range g.EnvKeys {
			if _, set := e.Env[k]; !set {
				if e.Env == nil {
					e.Env = map[string]string{}
				}
				e.Env[k] = "${" + k + "}"
			}
		}
		e.Disabled = g.Enabled != nil && !*g.Enabled
		if g.Timeout != nil {
			e.Timeout = seconds(*g.Timeout, time.Second)
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out, nil
}
