package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpx-cli/mcpx/internal/fail"
)

func TestSpliceServers(t *testing.T) {
	gh := NamedEntry{Name: "github", Entry: MCPXEntry{Command: "npx", Args: []string{"-y", "gh"}, Env: map[string]string{"T": "${T}"}}}
	web := NamedEntry{Name: "web", Entry: MCPXEntry{URL: "https://x/mcp?a=1&b=2", Headers: map[string]string{"Authorization": "Bearer ${TOK}"}}}
	cases := []struct {
		name, in string
		entries  []NamedEntry
		want     string
	}{
		{"empty file", "", []NamedEntry{gh}, `{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": [
        "-y",
        "gh"
      ],
      "env": {
        "T": "${T}"
      }
    }
  }
}
`},
		{"other keys kept in order, tab indentation", "{\n\t\"trustedProjects\": [\"/p\"],\n\t\"zzz\": {\"unknown\": true},\n\t\"mcpServers\": {\n\t\t\"a\": {\"command\": \"a\"}\n\t},\n\t\"import\": [\"cursor\"]\n}\n", []NamedEntry{web},
			"{\n\t\"trustedProjects\": [\"/p\"],\n\t\"zzz\": {\"unknown\": true},\n\t\"mcpServers\": {\n\t\t\"a\": {\"command\": \"a\"},\n\t\t\"web\": {\n\t\t\t\"url\": \"https://x/mcp?a=1&b=2\",\n\t\t\t\"headers\": {\n\t\t\t\t\"Authorization\": \"Bearer ${TOK}\"\n\t\t\t}\n\t\t}\n\t},\n\t\"import\": [\"cursor\"]\n}\n"},
		{"replaced in place", `{"mcpServers": {"github": {"command": "old"}, "b": {"command": "b"}}, "x": 1}`, []NamedEntry{{Name: "github", Entry: MCPXEntry{Command: "new"}}},
			`{"mcpServers": {"github": {"command":"new"}, "b": {"command": "b"}}, "x": 1}`},
		{"added on the line of compact members", `{"mcpServers": {"b": {"command": "b"}}}`, []NamedEntry{{Name: "c", Entry: MCPXEntry{Command: "c"}}},
			`{"mcpServers": {"b": {"command": "b"}, "c": {"command":"c"}}}`},
		{"no mcpServers yet", `{"trustedProjects": []}`, []NamedEntry{{Name: "a", Entry: MCPXEntry{Command: "a", Disabled: true}}},
			`{"trustedProjects": [],
  "mcpServers": {
    "a": {
      "command": "a",
      "disabled": true
    }
  }}`},
		{"mcpServers null", `{"mcpServers": null}`, []NamedEntry{{Name: "a", Entry: MCPXEntry{Command: "a"}}},
			`{"mcpServers": {
    "a": {
      "command": "a"
    }
  }}`},
		{"empty mcpServers", "{\n  \"mcpServers\": {}\n}", []NamedEntry{{Name: "a", Entry: MCPXEntry{Command: "a"}}},
			"{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"a\"\n    }\n  }\n}"},
	}
	for _, c := range cases {
		got, err := spliceServers([]byte(c.in), c.entries)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s:\n%s\nwant:\n%s", c.name, got, c.want)
		}
	}
	for _, bad := range []string{`[1]`, `{"mcpServers": [1]}`, `{"a": 1,}`, `{"mcpServers": {}} extra`} {
		if _, err := spliceServers([]byte(bad), []NamedEntry{gh}); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// EditServers writes through a temporary file and a rename: a new file
// is 0600 in a new directory, an existing one keeps its mode, and a link
// keeps pointing at the file it names.
func TestEditServersFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new", "mcpx", "config.json")
	e := []NamedEntry{{Name: "a", Entry: MCPXEntry{Command: "a"}}}
	if err := writeServers(path, e); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("new file: %v %v", st.Mode(), err)
	}
	if names, err := ServerNames(path); err != nil || !names["a"] {
		t.Fatalf("names %v %v", names, err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if err := writeServers(link, []NamedEntry{{Name: "b", Entry: MCPXEntry{Command: "b"}}}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
	st, _ = os.Stat(path)
	data, _ := os.ReadFile(path)
	if st.Mode().Perm() != 0o640 || !strings.Contains(string(data), `"b"`) || !strings.Contains(string(data), `"a"`) {
		t.Errorf("mode %v, content %s", st.Mode(), data)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".config.json.tmp-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// a broken file is left alone
	if err := os.WriteFile(path, []byte(`{"mcpServers": `), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeServers(path, e); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("broken file: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != `{"mcpServers": ` {
		t.Errorf("broken file changed: %s", data)
	}
}

// writeServers sets entries, whatever the file has.
func writeServers(path string, entries []NamedEntry) error {
	return EditServers(path, func(map[string]bool) ([]NamedEntry, error) { return entries, nil })
}

// An edit another program makes between EditServers' read and its write
// is not overwritten: the edit starts over from it, and plan decides again.
func TestEditServersExternalEdit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {"a": {"command": "a"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	edits := 0
	beforeReplace = func(p string) {
		if edits++; edits == 1 {
			if err := os.WriteFile(p, []byte(`{"mcpServers": {"a": {"command": "a"}, "ext": {"command": "ext"}}, "x": 1}`), 0o600); err != nil {
				t.Error(err)
			}
		}
	}
	defer func() { beforeReplace = nil }()
	var seen []map[string]bool
	err := EditServers(path, func(have map[string]bool) ([]NamedEntry, error) {
		seen = append(seen, have)
		return []NamedEntry{{Name: "b", Entry: MCPXEntry{Command: "b"}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0]["ext"] || !seen[1]["ext"] {
		t.Errorf("plan saw %v; want the file before and after the other program's edit", seen)
	}
	data, _ := os.ReadFile(path)
	if want := `{"mcpServers": {"a": {"command": "a"}, "ext": {"command": "ext"}, "b": {"command":"b"}}, "x": 1}`; string(data) != want {
		t.Errorf("file:\n%s\nwant:\n%s", data, want)
	}

	// A file that keeps changing is refused, and left as the other program wrote it.
	n := 0
	beforeReplace = func(p string) {
		n++
		if err := os.WriteFile(p, []byte(fmt.Sprintf(`{"mcpServers": {}, "n": %d}`, n)), 0o600); err != nil {
			t.Error(err)
		}
	}
	err = EditServers(path, func(map[string]bool) ([]NamedEntry, error) {
		return []NamedEntry{{Name: "c", Entry: MCPXEntry{Command: "c"}}}, nil
	})
	if ce, ok := fail.As(err, fail.Conflict); !ok || ce.Name != path || !strings.Contains(err.Error(), "changed under mcpx 5 times") {
		t.Fatalf("a file that keeps changing: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != fmt.Sprintf(`{"mcpServers": {}, "n": %d}`, n) {
		t.Errorf("file after the refusal: %s", data)
	}
}

// Writers of one file wait for each other's lock: none loses another's
// entry. (test/testdata/script/hosts_import_concurrent.txtar runs mcpx
// processes.)
func TestEditServersLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcpx", "config.json")
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- writeServers(path, []NamedEntry{{Name: fmt.Sprintf("s%02d", i), Entry: MCPXEntry{Command: "x"}}})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	names, err := ServerNames(path)
	if err != nil || len(names) != 16 {
		t.Errorf("the file has %d servers (%v), want 16", len(names), err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
	if len(left) != 2 || filepath.Base(left[0]) != ".config.json.lock" {
		t.Errorf("files beside the config: %v", left)
	}
}
