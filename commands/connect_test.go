package commands

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/output"
)

func TestRoots(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"sub", "other dir"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	base := "file://" + filepath.ToSlash(dir)
	for _, tc := range []struct {
		name   string
		roots  []string // --root
		server []string // the server's "roots", as Resolve makes them
		want   []client.Root
		err    string
	}{
		{"none by default (never the current directory)", nil, nil, nil, ""},
		{"relative to the current directory", []string{"sub", "./other dir/", filepath.Join(dir, "sub")}, nil,
			[]client.Root{{URI: base + "/sub", Name: "sub"}, {URI: base + "/other%20dir", Name: "other dir"}, {URI: base + "/sub", Name: "sub"}}, ""},
		{"the server's", nil, []string{filepath.Join(dir, "other dir"), dir + "/sub/"},
			[]client.Root{{URI: base + "/other%20dir", Name: "other dir"}, {URI: base + "/sub", Name: "sub"}}, ""},
		{"--root replaces the server's", []string{"sub"}, []string{filepath.Join(dir, "other dir")},
			[]client.Root{{URI: base + "/sub", Name: "sub"}}, ""},
		{"a file", []string{"sub", "file"}, nil, nil, "--root " + file + ": not a directory"},
		{"missing", []string{filepath.Join(dir, "gone")}, nil, nil, "--root " + filepath.Join(dir, "gone") + ": not a directory"},
		{"missing relative", []string{"gone/x"}, nil, nil, "--root " + filepath.Join(dir, "gone", "x") + ": not a directory"},
		{"the server's missing", nil, []string{filepath.Join(dir, "sub"), filepath.Join(dir, "gone")}, nil,
			`server "s": roots[1] ` + filepath.Join(dir, "gone") + ": not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := elApp(nil, false)
			a.cwd, a.g.roots = dir, tc.roots
			got, err := a.roots(&config.Target{Name: "s", Roots: tc.server})
			if tc.err != "" {
				if err == nil || err.Error() != tc.err || got != nil {
					t.Fatalf("roots() = %+v, %T %v; want error %q", got, err, err, tc.err)
				}
				if r := classify(err, nil); r.ExitCode != 2 || r.Code != "usage" || r.Message != tc.err {
					t.Errorf("classified %+v", r)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("roots() = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// TestRootsNoCurrentDirectory: when the current directory is unknown (it
// was removed) and no --root is given, nothing blames --root.
func TestRootsNoCurrentDirectory(t *testing.T) {
	a, _ := elApp(nil, false)
	if roots, err := a.roots(&config.Target{Name: "s"}); err != nil || roots != nil {
		t.Errorf("no --root, no current directory: %+v, %v", roots, err)
	}
}

func TestOnLog(t *testing.T) {
	for _, tc := range []struct {
		name    string
		verbose bool
		json    bool
		m       client.LogMessage
		want    string
	}{
		{"warning", false, false, client.LogMessage{Server: "s", Level: "warning", Data: raw(`"disk full"`)},
			"mcpx: note: server \"s\" logged warning: disk full\n"},
		{"error with a logger and JSON data", false, false, client.LogMessage{Server: "s", Level: "error", Logger: "db\npool", Data: raw(`{"a":[1,2]}`)},
			"mcpx: note: server \"s\" logged error: db pool: {\"a\":[1,2]}\n"},
		{"emergency", false, false, client.LogMessage{Server: "s", Level: "emergency", Data: raw(`42`)},
			"mcpx: note: server \"s\" logged emergency: 42\n"},
		{"info hidden", false, false, client.LogMessage{Server: "s", Level: "info", Data: raw(`"x"`)}, ""},
		{"notice hidden", false, false, client.LogMessage{Server: "s", Level: "notice", Data: raw(`"x"`)}, ""},
		{"debug hidden", false, false, client.LogMessage{Server: "s", Level: "debug", Data: raw(`"x"`)}, ""},
		{"debug with -v", true, false, client.LogMessage{Server: "s", Level: "debug", Data: raw(`"x"`)},
			"mcpx: note: server \"s\" logged debug: x\n"},
		{"unknown level shown", false, false, client.LogMessage{Server: "s", Level: "chatty", Data: raw(`"x"`)},
			"mcpx: note: server \"s\" logged chatty: x\n"},
		{"string data on one line", false, false, client.LogMessage{Server: "s", Level: "error", Data: raw(`"line one\n  line two"`)},
			"mcpx: note: server \"s\" logged error: line one line two\n"},
		{"no data", false, false, client.LogMessage{Server: "s", Level: "error", Data: raw(`null`)},
			"mcpx: note: server \"s\" logged error:\n"},
		{"long data clipped", false, false, client.LogMessage{Server: "s", Level: "error", Data: raw(`"` + strings.Repeat("d", 501) + `"`)},
			"mcpx: note: server \"s\" logged error: " + strings.Repeat("d", 500) + "...\n"},
		{"--json", false, true, client.LogMessage{Server: "s", Level: "critical", Logger: "l", Data: raw(`"x"`)},
			`{"note":"server \"s\" logged critical: l: x"}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, stderr := elApp(nil, false)
			a.g.verbose = tc.verbose
			a.log = output.NewLog(a.s, tc.json, tc.verbose)
			a.onLog(tc.m)
			if stderr.String() != tc.want {
				t.Errorf("stderr\n got %q\nwant %q", stderr, tc.want)
			}
		})
	}
}

func TestOnProgress(t *testing.T) {
	for _, tc := range []struct {
		p    client.Progress
		want string
	}{
		{client.Progress{Server: "s", Progress: 5, Total: 10, Message: "copying files"}, `mcpx: server "s": 5/10 (50%) copying files`},
		{client.Progress{Server: "s", Progress: 1, Total: 3}, `mcpx: server "s": 1/3 (33%)`},
		{client.Progress{Server: "s", Progress: 7, Message: "step"}, `mcpx: server "s": 7 step`},
		{client.Progress{Server: "s", Progress: 0.5}, `mcpx: server "s": 0.5`},
		{client.Progress{Server: "s", Progress: 12, Total: 10}, `mcpx: server "s": 12/10 (100%)`},
		{client.Progress{Server: "s", Progress: -1, Total: 10}, `mcpx: server "s": -1/10 (0%)`},
		{client.Progress{Server: "s", Progress: 1, Total: 1e21}, `mcpx: server "s": 1/1000000000000000000000 (0%)`},
		{client.Progress{Server: "s", Progress: 1, Total: 2, Message: "a\n\tb \x1b[2J"}, `mcpx: server "s": 1/2 (50%) a b \x1b[2J`},
		{client.Progress{Server: "s", Progress: 1, Message: strings.Repeat("x", 100)}, `mcpx: server "s": 1 ` + strings.Repeat("x", 78-20) + "…"},
	} {
		a, stderr := elApp(nil, true)
		a.onProgress(tc.p)
		if stderr.String() != tc.want {
			t.Errorf("%+v\n got %q\nwant %q", tc.p, stderr, tc.want)
		}
	}
	a, stderr := elApp(nil, false)
	a.onProgress(client.Progress{Server: "s", Progress: 1})
	if stderr.Len() != 0 {
		t.Errorf("not a terminal: %q", stderr)
	}
}
