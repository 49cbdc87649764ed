package test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// envReaders are the functions that read the process's environment or
// the user's directories from it.
var envReaders = []string{"Getenv", "LookupEnv", "Environ", "ExpandEnv", "UserHomeDir", "UserCacheDir", "UserConfigDir"}

// envAllowed are the files that may call them: Main hands os.Getenv and
// os.Environ to every command (the app's getenv), the streams read the
// terminal's COLUMNS and MCPX_FORCE_TTY, and the trampoline that starts a
// warm server as its caller (before any command runs) reads its own mark
// and passes the rest of the environment on, unread.
var envAllowed = []string{"commands/root.go", "output/streams.go", "internal/ascaller/ascaller_unix.go"}

// TestEnvironmentReadInOnePlace: mcpx reads its environment in one place
// and hands it down (the getenv of config.LoadOptions, auth.TokenDir,
// daemon.Env, ...), so that a test that gives its own environment is
// hermetic: no package falls back to the real home directory of the
// machine that runs the tests (the unit tests' TestMain makes the process
// environment hermetic too; see internal/hermetic).
func TestEnvironmentReadInOnePlace(t *testing.T) {
	for _, dir := range []string{"client", "commands", "render", "output", "completions", "internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join("..", dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel("..", path)
			rel = filepath.ToSlash(rel)
			if d.IsDir() && (rel == "internal/hermetic" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || slices.Contains(envAllowed, rel) {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok && (x.Name == "os" || x.Name == "syscall") && slices.Contains(envReaders, sel.Sel.Name) {
					t.Errorf("%s calls %s.%s: take the environment from the caller (a getenv), as the rest of mcpx does", rel, x.Name, sel.Sel.Name)
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
