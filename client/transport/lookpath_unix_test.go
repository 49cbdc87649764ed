//go:build unix

package transport

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestLookPathUnixRelative: an empty or relative PATH element never finds
// a program in the current directory (as os/exec.LookPath refuses to); a
// program found only so, or only in the current directory, is named in
// the error, which is still exec.ErrNotFound.
func TestLookPathUnixRelative(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	abs := filepath.Join(dir, "abs")
	for _, p := range []string{"here", "bin/rel", "abs/both", "both"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile("plain", nil, 0o644); err != nil { // not executable
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd, path, want string
		found, elem     string
	}{
		{"both", ".:" + abs, filepath.Join(abs, "both"), "", ""},
		{"both", ":" + abs, filepath.Join(abs, "both"), "", ""},
		{"here", abs + ":", "", "./here", ""},
		{"here", ".:" + abs, "", "./here", "."},
		{"here", abs, "", "./here", ""},
		{"rel", "bin:" + abs, "", "bin/rel", "bin"},
		{"rel", "./bin/:" + abs, "", "./bin/rel", "./bin/"},
		{"plain", ".:" + abs, "", "", ""},
		{"none", ".:bin:" + abs, "", "", ""},
	} {
		got, err := lookPathUnix(tc.cmd, []string{"PATH=" + tc.path})
		var rel *RelativeOnlyError
		switch {
		case tc.want != "":
			if err != nil || got != tc.want {
				t.Errorf("lookPathUnix(%q) in %s = %q, %v; want %q", tc.cmd, tc.path, got, err, tc.want)
			}
		case !errors.Is(err, exec.ErrNotFound):
			t.Errorf("lookPathUnix(%q) in %s = %q, %v; want not found", tc.cmd, tc.path, got, err)
		case tc.found == "" && errors.As(err, &rel):
			t.Errorf("lookPathUnix(%q) in %s: %+v, want no RelativeOnlyError", tc.cmd, tc.path, rel)
		case tc.found != "" && (!errors.As(err, &rel) || rel.Found != tc.found || rel.Elem != tc.elem):
			t.Errorf("lookPathUnix(%q) in %s: err %v (%+v), want found %q through %q", tc.cmd, tc.path, err, rel, tc.found, tc.elem)
		}
	}
	_, err := lookPathUnix("here", []string{"PATH=:" + abs})
	var rel *RelativeOnlyError
	if !errors.As(withAbs(err), &rel) || rel.Abs != filepath.Join(dir, "here") {
		t.Errorf("withAbs: %+v", rel)
	}
}
