package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The JSON hosts: Claude Desktop, Claude Code, Cursor, VS Code, Windsurf,
// Gemini CLI, Zed, OpenCode and Cline. Every one of their files is read as
// JSON with comments and trailing commas (VS Code, Zed, OpenCode and Gemini
// CLI allow them; reading them everywhere costs nothing).

// jwcc turns JSON with comments and trailing commas into JSON in place:
// comments and trailing commas become spaces (line breaks are kept), so a
// decoding error's offset is the offset in the file as written. It is a
// single loop with no recursion: a file of a million brackets costs one
// pass (encoding/json bounds the nesting itself). tailscale/hujson was
// considered: its parser recurses once per level with no bound, so a
// hostile file could exhaust the stack, which no recover catches.
func jwcc(data []byte) ([]byte, error) {
	out := bytes.Clone(data)
	if bytes.HasPrefix(out, []byte("\xef\xbb\xbf")) { // a byte order mark
		copy(out, "   ")
	}
	blank := func(from, to int) {
		for k := from; k < to; k++ {
			if out[k] != '\n' && out[k] != '\r' {
				out[k] = ' '
			}
		}
	}
	for i := 0; i < len(out); i++ {
		switch out[i] {
		case '"':
			for i++; i < len(out) && out[i] != '"'; i++ {
				if out[i] == '\\' {
					i++
				}
			}
		case '/':
			if i+1 >= len(out) {
				continue
			}
			switch out[i+1] {
			case '/':
				end := bytes.IndexByte(out[i:], '\n')
				if end < 0 {
					end = len(out) - i
				}
				blank(i, i+end)
				i += end - 1
			case '*':
				end := bytes.Index(out[i+2:], []byte("*/"))
				if end < 0 {
					return nil, fmt.Errorf("%s: unterminated /* comment", position(data, i))
				}
				blank(i, i+2+end+2)
				i += 2 + end + 1
			}
		case '}', ']':
			j := i - 1
			for j >= 0 && (out[j] == ' ' || out[j] == '\t' || out[j] == '\n' || out[j] == '\r') {
				j--
			}
			if j >= 0 && out[j] == ',' {
				out[j] = ' '
			}
		}
	}
	return out, nil
}

// position is "line L, column C" of byte offset off in data.
func position(data []byte, off int) string {
	off = max(0, min(off, len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := 1 + off - (bytes.LastIndexByte(data[:off], '\n') + 1)
	return fmt.Sprintf("line %d, column %d", line, col)
}

// jsonAt words a decoding error of data with its line and column.
func jsonAt(data []byte, base int, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("%s: %v", position(data, base+int(se.Offset)-1), err)
	case errors.As(err, &te):
		return fmt.Errorf("%s: a JSON value of the wrong type (%s where %s belongs)", position(data, base+int(te.Offset)), te.Value, jsonWord(te.Type))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: unexpected end of the file", position(data, len(data)))
	}
	return err
}

// member is a top-level key's value and its offset in the file.
type member struct {
	off int
	raw json.RawMessage
}

// topLevel reads the members of the file's top-level object (the last of a
// repeated key wins, as in the hosts, which parse with JavaScript's JSON).
func topLevel(data []byte) (map[string]member, error) {
	// A syntax error is found by a whole-file scan first: its offset
	// counts from the start of the file (a Decoder's does not).
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil && len(bytes.TrimSpace(data)) > 0 {
		return nil, jsonAt(data, 0, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return map[string]member{}, nil // an empty file configures nothing
		}
		return nil, jsonAt(data, 0, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("%s: the file must hold a JSON object", position(data, int(dec.InputOffset())-1))
	}
	out := map[string]member{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonAt(data, 0, err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, jsonAt(data, 0, err)
		}
		out[key] = member{off: int(dec.InputOffset()) - len(raw), raw: raw}
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonAt(data, 0, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: text after the JSON object", position(data, int(dec.InputOffset())))
	}
	return out, nil
}

// servers decodes the member at key as an object of server entries (nil
// when the key is absent or null).
func (m member) servers(data []byte, key string) (map[string]json.RawMessage, error) {
	if m.raw == nil || string(m.raw) == "null" {
		return nil, nil
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(m.raw, &out); err != nil {
		return nil, fmt.Errorf("%s: %q must be an object of servers", position(data, m.off), key)
	}
	return out, nil
}

// jsonHostEntry holds the keys of every JSON host's entries.
type jsonHostEntry struct {
	Type          *string           `json:"type"`
	TransportType *string           `json:"transportType"` // Cline, older
	Command       json.RawMessage   `json:"command"`       // a string; OpenCode: an array; Zed (older): an object
	Args          []string          `json:"args"`
	Env           map[string]string `json:"env"`
	Environment   map[string]string `json:"environment"` // OpenCode
	Cwd           *string           `json:"cwd"`
	URL           *string           `json:"url"`
	ServerURL     *string           `json:"serverUrl"` // Windsurf
	HTTPURL       *string           `json:"httpUrl"`   // Gemini CLI
	Headers       map[string]string `json:"headers"`
	Disabled      *bool             `json:"disabled"`
	Enabled       *bool             `json:"enabled"`
	Timeout       json.RawMessage   `json:"timeout"`
	Source        *string           `json:"source"`   // Zed: custom or extension
	Settings      json.RawMessage   `json:"settings"` // Zed: an extension's settings
}

// zedCommand is Zed's older command shape: {"command": {"path", "args", "env"}}.
type zedCommand struct {
	Path string            `json:"path"`
	Args []string          `json:"args"`
	Env  map[string]string `json:"env"`
}

// claudeDoc is what mcpx reads of Claude Code's ~/.claude.json.
type claudeDoc struct {
	MCPServers map[string]json.RawMessage `json:"mcpServers"`
	Projects   map[string]struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	} `json:"projects"`
}

// parseClaudeCode reads the servers of ~/.claude.json: the user scope, or
// the local scope of the current directory. That file also keeps Claude
// Code's history and grows to tens of megabytes, so it is decoded in one
// pass into what mcpx needs, once for both scopes; a file that does not
// decode so is read again by the general reader, which words the problem.
func parseClaudeCode(f hostFile, data []byte, p platform) ([]hostEntry, error) {
	doc, ok := p.memo.claudeDoc(f.Path)
	if !ok {
		doc = &claudeDoc{}
		if json.Unmarshal(data, doc) != nil {
			doc = nil
		}
		p.memo.setClaudeDoc(f.Path, doc)
	}
	if doc == nil {
		return parseJSONHost(f, data, p)
	}
	entries := doc.MCPServers
	if f.Dialect == "claude-code-local" {
		entries = doc.Projects[projectKey(doc.Projects, p)].MCPServers
	}
	return jsonEntries(f, entries, nil, nil, p), nil
}

// parseJSONHost reads the server entries of a JSON host's file.
func parseJSONHost(f hostFile, data []byte, p platform) ([]hostEntry, error) {
	clean, err := jwcc(data)
	if err != nil {
		return nil, err
	}
	top, err := topLevel(clean)
	if err != nil {
		return nil, err
	}
	var entries map[string]json.RawMessage
	key := "mcpServers"
	switch f.Dialect {
	case "vscode":
		key = "servers"
	case "vscode-settings", "opencode":
		key = "mcp"
	case "zed":
		key = "context_servers"
	}
	switch f.Dialect {
	case "vscode-settings":
		// "mcp": {"servers": {...}}
		m := top["mcp"]
		if m.raw != nil && string(m.raw) != "null" {
			inner, err := topLevel(m.raw)
			if err != nil {
				return nil, fmt.Errorf("%s: \"mcp\" must be an object", position(data, m.off))
			}
			s := inner["servers"]
			s.off += m.off
			entries, err = s.servers(clean, "mcp.servers")
			if err != nil {
				return nil, err
			}
		}
	case "claude-code-local":
		m := top["projects"]
		if m.raw == nil || string(m.raw) == "null" {
			return nil, nil
		}
		var projects map[string]json.RawMessage
		if err := json.Unmarshal(m.raw, &projects); err != nil {
			return nil, fmt.Errorf("%s: \"projects\" must be an object", position(data, m.off))
		}
		raw, ok := projects[projectKey(projects, p)]
		if !ok {
			return nil, nil
		}
		var proj struct {
			MCPServers map[string]json.RawMessage `json:"mcpServers"`
		}
		if err := json.Unmarshal(raw, &proj); err != nil {
			return nil, fmt.Errorf("%s: \"projects\".%q.mcpServers must be an object of servers", position(data, m.off), projectKey(projects, p))
		}
		entries = proj.MCPServers
	default:
		entries, err = top[key].servers(clean, key)
		if err != nil {
			return nil, err
		}
	}
	disabled := map[string]bool{}
	var allowed map[string]bool
	if f.Dialect == "gemini" {
		// "mcp": {"allowed": [...], "excluded": [...]} names servers to use or skip.
		var mcp struct {
			Allowed  []string `json:"allowed"`
			Excluded []string `json:"excluded"`
		}
		if m := top["mcp"]; m.raw != nil && json.Unmarshal(m.raw, &mcp) == nil {
			for _, n := range mcp.Excluded {
				disabled[n] = true
			}
			if mcp.Allowed != nil {
				allowed = map[string]bool{}
				for _, n := range mcp.Allowed {
					allowed[n] = true
				}
			}
		}
	}
	return jsonEntries(f, entries, disabled, allowed, p), nil
}

// jsonEntries translates a JSON host's entries, in name order; disabled
// and allowed (when not nil) name the entries Gemini CLI's "mcp" setting
// turns off or allows.
func jsonEntries(f hostFile, entries map[string]json.RawMessage, disabled, allowed map[string]bool, p platform) []hostEntry {
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []hostEntry
	for _, name := range names {
		e, ok := jsonEntry(f.Dialect, name, entries[name])
		if !ok {
			continue
		}
		if disabled[name] || allowed != nil && !allowed[name] {
			e.Disabled = true
		}
		e.translate(f.Dialect, p)
		out = append(out, e)
	}
	return out
}

// projectKey finds the key of the current directory in Claude Code's
// "projects" (absolute paths, written with / on every platform).
func projectKey[V any](projects map[string]V, p platform) string {
	if p.cwd == "" {
		return ""
	}
	want := []string{filepath.Clean(p.cwd), canonicalDir(p.cwd)}
	for k := range projects {
		c := filepath.Clean(filepath.FromSlash(k))
		for _, w := range want {
			if c == w || p.goos == "windows" && strings.EqualFold(c, w) {
				return k
			}
		}
	}
	return "\x00none"
}

// jsonEntry translates one entry of a JSON host. ok is false for an entry
// that is not a server mcpx can start at all (a Zed extension's server,
// whose command the extension provides).
func jsonEntry(dialect, name string, raw json.RawMessage) (hostEntry, bool) {
	e := hostEntry{Name: name}
	var j jsonHostEntry
	if err := json.Unmarshal(raw, &j); err != nil {
		e.Problem = entryProblem(err)
		return e, true
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	if dialect == "zed" && (str(j.Source) == "extension" || j.Command == nil && j.URL == nil && j.Settings != nil) {
		return e, false
	}
	e.Args, e.Env, e.Cwd, e.Headers = j.Args, j.Env, str(j.Cwd), j.Headers
	if e.Env == nil {
		e.Env = j.Environment
	}
	if len(j.Command) > 0 && string(j.Command) != "null" {
		var s string
		var arr []string
		var zc zedCommand
		switch {
		case json.Unmarshal(j.Command, &s) == nil:
			e.Command = s
		case json.Unmarshal(j.Command, &arr) == nil: // OpenCode: the whole command line
			if len(arr) > 0 {
				e.Command, e.Args = arr[0], append(arr[1:len(arr):len(arr)], e.Args...)
			}
		case json.Unmarshal(j.Command, &zc) == nil: // Zed, older
			e.Command, e.Args = zc.Path, append(zc.Args, e.Args...)
			if e.Env == nil {
				e.Env = zc.Env
			}
		default:
			e.Problem = `"command" must be a string`
		}
	}
	e.URL = str(j.URL)
	t := j.Type
	if t == nil {
		t = j.TransportType
	}
	switch dialect {
	case "windsurf":
		if j.ServerURL != nil {
			e.URL = *j.ServerURL
		}
	case "gemini":
		// httpUrl is streamable HTTP; url is SSE unless "type" says http.
		if j.HTTPURL != nil {
			e.URL, e.Type = *j.HTTPURL, HTTP
		} else if e.URL != "" && t == nil {
			e.Type = SSE
		}
	}
	if t != nil {
		typ, ok := hostType(*t)
		if !ok && e.Problem == "" {
			e.Problem = fmt.Sprintf("unknown type %q (mcpx knows stdio, http, streamable-http, streamableHttp, sse, local and remote)", *t)
		}
		if e.Type == "" {
			e.Type = typ
		}
	}
	e.Disabled = j.Disabled != nil && *j.Disabled || j.Enabled != nil && !*j.Enabled
	// Timeouts, where the host has one per server: Gemini CLI's in
	// milliseconds, Cline's and Zed's in seconds.
	var n float64
	if len(j.Timeout) > 0 && json.Unmarshal(j.Timeout, &n) == nil {
		switch dialect {
		case "gemini":
			e.Timeout = seconds(n, time.Millisecond)
		case "cline", "zed":
			e.Timeout = seconds(n, time.Second)
		}
	}
	return e, true
}

// entryProblem words why an entry could not be decoded, as mcpx's own
// entries are worded.
func entryProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("%q must be %s, not %s", te.Field, jsonWord(te.Type), te.Value)
	}
	return "entry must be a JSON object"
}
