package config

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A large host file's skimmed members are remembered in the state
// directory for the version of the file they were read from, and used
// only while the file is that version and the state is the user's own.
func TestHostStateRemembersSkims(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	getenv := env("HOME", home)
	claude := filepath.Join(home, ".claude.json")
	history := `"history": ["` + strings.Repeat("x", cacheMin) + `"]`
	writeFile(t, claude, `{`+history+`, "mcpServers": {"real": {"command": "r"}}}`)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(claude, old, old); err != nil {
		t.Fatal(err)
	}
	names := func() string {
		t.Helper()
		cfg, err := Load(LoadOptions{Cwd: cwd, Getenv: getenv})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(cfg.Names(), " ")
	}
	if got := names(); got != "real" {
		t.Fatalf("servers %q", got)
	}
	state := hostState{stateDirFor(runtime.GOOS, getenv)}
	file := state.file(claude, "skim-claude-code")
	data, err := os.ReadFile(file)
	if err != nil || len(data) > 200 || bytes.Contains(data, []byte("xxx")) {
		t.Fatalf("state file %q: %v", data, err)
	}
	// What is remembered is what is used: a different body shows.
	header := data[:bytes.IndexByte(data, '\n')+1]
	poisoned := append(bytes.Clone(header), `{"mcpServers": {"remembered": {"command": "p"}}}`...)
	if err := os.WriteFile(file, poisoned, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := names(); got != "remembered" {
		t.Fatalf("with the state file: %q", got)
	}
	// ... unless others could have written it, or the directories
	if runtime.GOOS != "windows" {
		for _, p := range []string{file, state.dir(), state.state} {
			mode := os.FileMode(0o700)
			if p == file {
				mode = 0o600
			}
			if err := os.Chmod(p, mode|0o022); err != nil {
				t.Fatal(err)
			}
			if got := names(); got != "real" {
				t.Errorf("%s open to others: %q", p, got)
			}
			if err := os.Chmod(p, mode); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, poisoned, 0o600); err != nil { // the skim wrote it again
				t.Fatal(err)
			}
		}
		if got := names(); got != "remembered" {
			t.Fatalf("with the state file: %q", got)
		}
	}
	// ... or the file changed.
	newer := old.Add(time.Second)
	if err := os.Chtimes(claude, newer, newer); err != nil {
		t.Fatal(err)
	}
	if got := names(); got != "real" {
		t.Errorf("after the file changed: %q", got)
	}
	// A file modified a moment ago is not remembered: the clock's tick
	// could hide the next rewrite.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	writeFile(t, claude, `{`+history+`, "mcpServers": {"fresh": {"command": "f"}}}`)
	if got := names(); got != "fresh" {
		t.Errorf("fresh file: %q", got)
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("a file modified a moment ago was remembered")
	}
}
