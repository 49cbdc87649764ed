// Package hermetic keeps a package's tests off the files of the machine
// that runs them: the user's mcpx config, the hosts' config files
// (~/.claude.json, ~/.cursor/mcp.json, ...), the state directory with its
// tokens, the daemon's socket directory and the cache. A test that forgets
// to give mcpx an environment of its own would otherwise read them, and
// pass or fail by what the machine holds.
//
// Every package whose tests reach config, state or the daemon wraps its
// TestMain's testing.M with M:
//
//	func TestMain(m *testing.M) { os.Exit(hermetic.M(m).Run()) }
//
// Run then points HOME, the XDG directories and the Windows profile
// directories into a new temporary directory, drops mcpx's own variables
// (MCPX_CONFIG, MCPX_KEEP_ALIVE, ...) and the hosts' (CLAUDE_CONFIG_DIR,
// CODEX_HOME), and keeps the Go tool's own directories where they are
// (GOPATH, GOMODCACHE, GOCACHE, GOENV), so that tests that build still find
// the module and build caches. Processes the tests start inherit it; a test
// binary started by a hermetic test (a helper process) keeps its parent's
// environment.
package hermetic

import (
	"fmt"
	"os"
	"path/filepath"
)

// marker is set in a hermetic test process's environment.
const marker = "MCPX_TEST_HERMETIC"

// Runner is what testing.M is to TestMain (testscript.Main takes one too).
type Runner interface{ Run() int }

type runner struct{ m Runner }

// M returns m, whose Run first makes the environment hermetic.
func M(m Runner) Runner { return runner{m} }

// dropped are the variables that would make mcpx read or write somewhere
// else than the tests say.
var dropped = []string{
	"MCPX_CONFIG", "MCPX_CACHE_DIR", "MCPX_KEEP_ALIVE", "MCPX_COMPLETE_TIMEOUT", "MCPX_READ_ONLY",
	"TRACEPARENT", "TRACESTATE",
	"CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_DIRS", "XDG_CONFIG_DIRS",
}

func (r runner) Run() int {
	if os.Getenv(marker) != "" {
		return r.m.Run() // a helper process of a hermetic test
	}
	root, err := os.MkdirTemp("", "mcpx-tests-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "hermetic:", err)
		return 1
	}
	defer os.RemoveAll(root)
	if err := setup(root); err != nil {
		fmt.Fprintln(os.Stderr, "hermetic:", err)
		return 1
	}
	return r.m.Run()
}

func setup(root string) error {
	// The Go tool's directories default to places under HOME: pin them.
	if err := keepGo(); err != nil {
		return err
	}
	home := filepath.Join(root, "home")
	dirs := map[string]string{
		"HOME":            home,
		"USERPROFILE":     home,
		"APPDATA":         filepath.Join(home, "AppData", "Roaming"),
		"LOCALAPPDATA":    filepath.Join(home, "AppData", "Local"),
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
		"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
		"XDG_RUNTIME_DIR": filepath.Join(root, "run"),
	}
	for k, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
		if err := os.Setenv(k, d); err != nil {
			return err
		}
	}
	for _, k := range dropped {
		if err := os.Unsetenv(k); err != nil {
			return err
		}
	}
	return os.Setenv(marker, root)
}

// keepGo sets GOPATH, GOMODCACHE, GOCACHE and GOENV to where the Go tool
// finds them now, when they are not set.
func keepGo() error {
	home, herr := os.UserHomeDir()
	cache, cerr := os.UserCacheDir()
	config, ferr := os.UserConfigDir()
	gopath := os.Getenv("GOPATH")
	if gopath == "" && herr == nil {
		gopath = filepath.Join(home, "go")
	}
	want := map[string]string{"GOPATH": gopath}
	if gopath != "" {
		want["GOMODCACHE"] = filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod")
	}
	if cerr == nil {
		want["GOCACHE"] = filepath.Join(cache, "go-build")
	}
	if ferr == nil {
		want["GOENV"] = filepath.Join(config, "go", "env")
	}
	for k, v := range want {
		if os.Getenv(k) == "" && v != "" {
			if err := os.Setenv(k, v); err != nil {
				return err
			}
		}
	}
	return nil
}
