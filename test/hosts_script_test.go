//go:build unix

package test

import (
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// replace FILE OLD NEW: replace every OLD in FILE by NEW (the scripts of
// other hosts' config files put $WORK and fixture URLs into files that
// have no variables of their own).
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	if !strings.Contains(string(data), args[1]) {
		ts.Fatalf("%s does not contain %q", args[0], args[1])
	}
	ts.Check(os.WriteFile(path, []byte(strings.ReplaceAll(string(data), args[1], args[2])), 0o644))
}
