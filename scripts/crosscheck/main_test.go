package main

import (
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCheckPlatformOnlyFiles: a compile error and a vet finding in files
// built only on Windows are reported for windows/amd64, not for linux/amd64,
// the vet finding through a printf wrapper of another file (a fact).
func TestCheckPlatformOnlyFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks part of the standard library twice")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":                 "module probe\n\ngo 1.25\n",
		"logf/logf.go":           "package logf\n\nimport \"fmt\"\n\nfunc Logf(format string, args ...any) { fmt.Printf(format, args...) }\n",
		"kill/kill.go":           "package kill\n",
		"kill/kill_windows.go":   "package kill\n\nimport \"syscall\"\n\nfunc Stop(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }\n",
		"count/count_windows.go": "package count\n\nimport \"probe/logf\"\n\nfunc Report() { logf.Logf(\"%d servers\\n\", \"two\") }\n",
		"count/count_other.go":   "//go:build !windows\n\npackage count\n",
	}
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	c := &checker{dir: dir, fset: token.NewFileSet()}

	got, err := c.check("windows", "amd64", []string{"./..."})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(dir, "kill", "kill_windows.go") + ":5:43: undefined: syscall.Kill",
		filepath.Join(dir, "count", "count_windows.go") + `:5:17: probe/logf.Logf format %d has arg "two" of wrong type string (printf)`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("windows/amd64: got %q\nwant %q", got, want)
	}
	got, err = c.check("linux", "amd64", []string{"./..."})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("linux/amd64: got %q, want nothing", got)
	}
}
