package test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestStartupInitIsLazy checks that the libraries mcpx carries patched
// copies of (third_party/, see its README) do not build their tables at
// start-up, which every mcpx command, `mcpx --version` included, paid for:
// the JSON Schema library linked through mcp-go's server package compiled its
// metaschemas (1.7 MB of allocations, most of the start-up time), the one
// linked through mcp-go's mcp package reflected over its Schema type (81 kB),
// and the YAML library built its resolve tables and compiled two regular
// expressions (26 kB). The copies build them on first use; this fails when a
// build uses an unpatched module (go.work removed, or GOWORK=off).
func TestStartupInitIsLazy(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", os.Args[0], err, out)
	}
	for _, c := range []struct {
		pkg, copy string
		most      int // bytes; upstream's init allocates several times more
	}{
		{"github.com/santhosh-tekuri/jsonschema/v6", "third_party/jsonschema", 100_000},
		{"github.com/google/jsonschema-go/jsonschema", "third_party/jsonschema-go", 10_000},
		{"go.yaml.in/yaml/v3", "third_party/yaml", 5_000},
	} {
		m := regexp.MustCompile(`(?m)^init ` + regexp.QuoteMeta(c.pkg) + ` @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`).FindSubmatch(out)
		if m == nil {
			t.Errorf("no init line for %s in the init trace:\n%s", c.pkg, out)
			continue
		}
		bytes, _ := strconv.Atoi(string(m[1]))
		if bytes > c.most {
			t.Errorf("the init of %s allocates %d bytes (%s allocs); want <= %d: is the patched copy in %s used (see go.work)?", c.pkg, bytes, m[2], c.most, c.copy)
		}
	}
}

// TestNoRegexpCompiledAtInit checks that no package linked into mcpx
// compiles a regular expression in a package-level variable: every
// command, `mcpx --version` included, would pay for it at start-up. Such
// expressions are compiled on first use instead (sync.OnceValue).
func TestNoRegexpCompiledAtInit(t *testing.T) {
	fset := token.NewFileSet()
	var found []string
	for _, dir := range []string{"client", "commands", "completions", "internal", "output", "render", "cmd"} {
		err := filepath.WalkDir(filepath.Join("..", dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.VAR {
					continue
				}
				for _, spec := range gd.Specs {
					for _, v := range spec.(*ast.ValueSpec).Values {
						ast.Inspect(v, func(n ast.Node) bool {
							switch n := n.(type) {
							case *ast.FuncLit:
								return false // runs when called, not at init
							case *ast.SelectorExpr:
								if x, ok := n.X.(*ast.Ident); ok && x.Name == "regexp" && strings.HasPrefix(n.Sel.Name, "MustCompile") {
									found = append(found, fset.Position(n.Pos()).String())
								}
							}
							return true
						})
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, pos := range found {
		t.Errorf("%s: a regexp compiled at init; compile it on first use (sync.OnceValue)", pos)
	}
}

// TestHelpWithoutTemplates checks that mcpx prints the same help, for every
// command, whether it is built with the urfave_cli_no_template tag (make
// build, releases: the CLI library prints help without text/template, which
// makes the binary 16% smaller and faster to start) or without it (go install
// of a version, which takes no tags).
func TestHelpWithoutTemplates(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcpx twice")
	}
	t.Parallel()
	goTool, err := exec.LookPath("go") // go test puts its own go first on PATH
	if err != nil {
		t.Fatalf("go is not on PATH (%v): needed to build mcpx", err)
	}
	dir := t.TempDir()
	builds := map[string]string{"": "", "urfave_cli_no_template": ""}
	for tags := range builds {
		bin := filepath.Join(dir, "mcpx-"+strings.ReplaceAll(tags+"templates", "_", "-"))
		cmd := exec.Command(goTool, "build", "-tags="+tags, "-o", bin, "./cmd/mcpx")
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build -tags=%q ./cmd/mcpx: %v\n%s", tags, err, out)
		}
		builds[tags] = bin
	}
	help := func(bin string, args ...string) string {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// every command and subcommand, from the COMMANDS sections of the help
	var walk func(path []string)
	checked := 0
	walk = func(path []string) {
		for _, flag := range []string{"--help", "-h"} {
			args := append(append([]string(nil), path...), flag)
			want, got := help(builds[""], args...), help(builds["urfave_cli_no_template"], args...)
			if got != want {
				t.Errorf("mcpx %s differs without templates:\n--- with text/template:\n%s\n--- without:\n%s", strings.Join(args, " "), want, got)
			}
			checked++
		}
		text := help(builds[""], append(path, "--help")...)
		_, cmds, ok := strings.Cut(text, "\nCOMMANDS:\n")
		if !ok {
			return
		}
		for _, line := range strings.Split(cmds, "\n") {
			if !strings.HasPrefix(line, "   ") {
				break
			}
			name := strings.TrimSuffix(strings.Fields(line)[0], ",")
			walk(append(append([]string(nil), path...), name))
		}
	}
	walk(nil)
	if checked < 30 {
		t.Errorf("only %d help texts compared: the COMMANDS sections were not found", checked)
	}
	if got, want := help(builds["urfave_cli_no_template"], "help", "invoke"), help(builds[""], "help", "invoke"); got != want {
		t.Errorf("mcpx help invoke differs without templates:\n%s\n---\n%s", want, got)
	}
}
