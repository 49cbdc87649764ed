package daemon

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

// Test scaffolding that several of the package's tests share.

// runDir is a runtime directory for in-process daemons (skipped where
// there are no Unix sockets).
func runDir(t *testing.T) string {
	t.Helper()
	run, err := os.MkdirTemp("", "mcpxd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	if ln, err := net.Listen("unix", filepath.Join(run, "probe")); err != nil {
		t.Skipf("no Unix sockets here: %v", err)
	} else {
		ln.Close()
	}
	return run
}

// runGetenv is the environment of an in-process daemon and its callers
// with run as the runtime directory and its state below it.
func runGetenv(run string) func(string) string {
	return func(k string) string {
		switch k {
		case "XDG_RUNTIME_DIR", "LOCALAPPDATA":
			return run
		case "XDG_STATE_HOME":
			return filepath.Join(run, "state")
		}
		return ""
	}
}
