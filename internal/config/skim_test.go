package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// skimDialects are the JSON dialects, each with a file of the fixture.
var skimDialects = map[string]string{
	"claude":            "claude-desktop.json",
	"claude-code":       "claude-code.json",
	"claude-code-local": "claude-code.json",
	"cursor":            "cursor.json",
	"vscode":            "vscode.json",
	"vscode-settings":   "vscode-settings.json",
	"windsurf":          "windsurf.json",
	"gemini":            "gemini.json",
	"zed":               "zed.json",
	"opencode":          "opencode.json",
	"cline":             "cline.json",
}

// skimCases are files skim must read as the whole-file reader does: good
// ones (skimmed), and odd and broken ones (read whole, the same warning).
var skimCases = []string{
	`{}`,
	"\xef\xbb\xbf{\"mcpServers\": {\"a\": {\"command\": \"x\"}}}",
	"// a comment\n{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": [\"1\",],},}, /* c */ \"other\": [1, 2, /* x */],}\n",
	`{"mcp\u0053ervers": {"a": {"command": "x"}}}`,
	`{"mcpServers": {"a": {"command": "x"}}, "mcpServers": {"b": {"command": "y"}}}`,
	`{"mcpServers": {"a": {"command": "x"}}, "history": [{"t": "line\n\"q\" \\ \u00e9 \/ ` + "\u00e9\u2028" + `", "n": -1.5e+3, "z": 0, "f": false, "t2": true, "nil": null}]}`,
	`{"MCPSERVERS": {"a": {"command": "x"}}, "Projects": {"@PROJ@": {"McpServers": {"l": {"command": "l"}}}}, "mcpServers": {"b": {"command": "y"}}}`,
	"{\"mcp\u017fervers\": {\"a\": {\"command\": \"x\"}}}",
	`{"mcpServers": [1]}`,
	`{"mcpServers": {"a": 5}}`,
	`{"mcpServers": null}`,
	`{"projects": {"@PROJ@": {"mcpServers": {"local": {"command": "l"}}, "history": ["x"]}, "/other": {"mcpServers": {"o": {"command": "o"}}}}, "mcpServers": {"u": {"url": "https://u"}}}`,
	`{"projects": {"@PROJ@": {"mcpServers": "x"}}}`,
	`{"projects": {"/other": {"mcpServers": "x"}}, "mcpServers": {"u": {"url": "https://u"}}}`,
	`{"projects": {"@PROJ@": 5}}`,
	`{"projects": []}`,
	`{"projects": {"/other": 5}, "mcpServers": {"u": {"url": "https://u"}}}`,
	`{"servers": {"s": {"command": "x"}}, "mcp": {"servers": {"t": {"command": "y"}}, "allowed": ["t"]}, "context_servers": {"z": {"command": "z"}}}`,
	`{"mcp": {"excluded": ["a"]}, "mcpServers": {"a": {"command": "x"}, "b": {"httpUrl": "https://b"}}}`,
	`{"mcp": {"m": {"type": "local", "command": ["a", "b"]}}}`,
	`{"other": [,], "mcpServers": {"a": {"command": "x"}}}`,
	`{bad`,
	`{"mcpServers": {}} trailing`,
	`{"a": "unterminated`,
	`{"a": 1 /* unterminated`,
	"{\"a\": \"a control \x01 character\"}",
	`{"a": "a bad \x escape"}`,
	`{"a": "\u12G4"}`,
	`{"a": 01}`, `{"a": 1.}`, `{"a": -}`, `{"a": 1e}`, `{"a": .5}`, `{"a": tru}`, `{"a": nulls}`,
	`{"a" 1}`, `{"a": 1 "b": 2}`, `{,}`, `{"a": [1 2]}`, `{"a": /}`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	`{"a": ` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
	``, "  \n", `[]`, `"x"`, `null`,
	`{"mcpServers": {"a": {"command": "x"}}}` + "\n// after\n",
	`{"mcpServers": {"a": {"command": "x"}}} /* after */`,
}

// fixtureCases adds the files of the host fixture to skimCases.
func fixtureCases(t testing.TB) map[string][]byte {
	ar, err := txtar.ParseFile("testdata/hosts.txtar")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range ar.Files {
		out[f.Name] = f.Data
	}
	return out
}

// wholeRead is how a host file was read before skim: all of it.
func wholeRead(f hostFile, data []byte, p platform) ([]hostEntry, string) {
	entries, err := parseHost(f, data, p)
	if err != nil {
		return nil, err.Error()
	}
	return entries, ""
}

// checkSkim reads data as dialect through readHost and as a whole, and
// requires the same entries and the same problem.
func checkSkim(t *testing.T, dialect string, data []byte) (skimmed bool) {
	t.Helper()
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	data = bytes.ReplaceAll(data, []byte("@PROJ@"), []byte(filepath.ToSlash(proj)))
	path := filepath.Join(dir, "host.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f := hostFile{Source: dialect, Host: dialect, Path: path, Dialect: dialect, Max: maxClaudeCodeFile}
	p := platform{goos: "linux", home: dir, cwd: proj, getenv: func(string) string { return "" }}
	wantEntries, wantProblem := wholeRead(f, data, p)
	p.memo = newHostMemo()
	r := readHost(f, p)
	if r.problem != wantProblem || !reflect.DeepEqual(r.entries, wantEntries) {
		t.Errorf("%s %q:\nskimmed: %+v %q\nwhole:   %+v %q", dialect, data, r.entries, r.problem, wantEntries, wantProblem)
	}
	_, err := skim(bytes.NewReader(data), skimKeep(dialect))
	if err != nil && !errors.Is(err, errSkim) {
		t.Errorf("%s %q: skim: %v", dialect, data, err)
	}
	return err == nil
}

func TestSkimReadsAsTheWholeFile(t *testing.T) {
	for dialect, name := range skimDialects {
		if !checkSkim(t, dialect, fixtureCases(t)[name]) {
			t.Errorf("%s: the fixture's %s was not skimmed", dialect, name)
		}
		for _, c := range skimCases {
			checkSkim(t, dialect, []byte(c))
		}
	}
	// Files of the usual shape take the skim, not the whole read.
	for _, c := range skimCases[:6] {
		if !checkSkim(t, "claude-code", []byte(c)) {
			t.Errorf("%q was not skimmed", c)
		}
	}
}

// A skimmed file is read through a buffer: its size does not matter, its
// servers do. The reduced document holds the servers and nothing of the
// history.
func TestSkimKeepsOnlyServers(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"numStartups": 3, "projects": {`)
	for i := 0; i < 200; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"/p` + strings.Repeat("x", i%7) + `": {"history": [`)
		for j := 0; j < 50; j++ {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString(`{"display": "` + strings.Repeat(`a line \"quoted\" \\ \n`, 40) + `"}`)
		}
		b.WriteString(`], "mcpServers": {}}`)
	}
	b.WriteString(`}, "mcpServers": {"sentry": {"type": "http", "url": "https://mcp.sentry.dev/mcp"}}}`)
	reduced, err := skim(&b, skimKeep("claude-code"))
	if err != nil {
		t.Fatal(err)
	}
	if len(reduced) > 8192 || !bytes.Contains(reduced, []byte(`"sentry": {"type": "http"`)) || bytes.Contains(reduced, []byte("history")) {
		t.Errorf("reduced to %d bytes: %.300s", len(reduced), reduced)
	}
}

func FuzzSkim(f *testing.F) {
	for _, c := range skimCases {
		f.Add(c)
	}
	for _, data := range fixtureCases(f) {
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, data string) {
		for _, dialect := range []string{"claude-code", "claude-code-local", "gemini", "vscode-settings"} {
			checkSkim(t, dialect, []byte(data))
		}
	})
}
