//go:build unix

package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// readmeSkipped are the README's first-hour commands this test does not
// run: they install into system directories, or run every test.
var readmeSkipped = []string{"make install", "make test"}

// TestReadmeFirstHour runs what a newcomer runs first, as the README shows
// it, on a machine with no mcpx config: the examples at the top, the quick
// start, and the completion set-up lines that need no interactive shell.
// Each command must succeed and print something (an example that prints
// nothing on a fresh machine teaches nothing). "go run ./cmd/mcpx" is run
// as the mcpx under test; "go install ./cmd/mcpx" is run for real (into
// $WORK/gobin, with the module proxy turned off) unless -short.
func TestReadmeFirstHour(t *testing.T) {
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	var cmds []string
	cmds = append(cmds, codeLines(section(readme, "# mcpx", "## "))...)
	cmds = append(cmds, codeLines(section(readme, "## Quick start", "## "))...)
	for _, c := range codeLines(section(readme, "## Shell completion", "## ")) {
		if !strings.HasPrefix(c, "source ") && !strings.Contains(c, "<TAB>") {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) < 10 {
		t.Fatalf("found only %d commands in the README: %q", len(cmds), cmds)
	}

	var script strings.Builder
	script.WriteString("env HOME=$WORK/home\nenv GOBIN=$WORK/gobin\nenv GOFLAGS=-mod=readonly\nenv GOPROXY=off\nenv GOTOOLCHAIN=local\n")
	script.WriteString("env PATH=$GOBIN:$PATH\nmkdir $HOME\n")
	if !testing.Short() {
		// The module and build caches of this machine: "after the first
		// run, nothing needs the network".
		out, err := exec.Command("go", "env", "GOMODCACHE", "GOCACHE").Output()
		if err != nil {
			t.Fatal(err)
		}
		caches := strings.Fields(string(out))
		if len(caches) != 2 {
			t.Fatalf("go env: %q", out)
		}
		script.WriteString("env GOMODCACHE=" + caches[0] + "\nenv GOCACHE=" + caches[1] + "\n")
	}
	ran := 0
	for _, c := range cmds {
		switch {
		case slices.Contains(readmeSkipped, c):
			continue
		case strings.HasPrefix(c, "go install "):
			if testing.Short() {
				continue
			}
			script.WriteString("cd " + repo + "\n")
			script.WriteString("exec " + c + "\n")
			script.WriteString("exists $GOBIN/mcpx\ncd $WORK\n")
			ran++
			continue
		case strings.HasPrefix(c, "export PATH="):
			continue // done above with env
		case strings.HasPrefix(c, "go run ./cmd/mcpx "):
			c = "mcpx " + strings.TrimPrefix(c, "go run ./cmd/mcpx ")
		}
		script.WriteString("# " + c + "\n")
		script.WriteString("exec sh -c '" + strings.ReplaceAll(c, "'", "''") + "'\n")
		if strings.Contains(c, "completion fish") {
			script.WriteString("exists $HOME/.config/fish/completions/mcpx.fish\n")
		} else {
			script.WriteString("stdout .\n")
		}
		ran++
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "readme.txtar"), []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d README commands:\n%s", ran, script.String())
	testscript.Run(t, params(dir))
}

// section is the text of README from the heading start to the next heading
// that begins with next (the heading itself excluded).
func section(readme, start, next string) string {
	i := strings.Index(readme, start+"\n")
	if i < 0 {
		return ""
	}
	rest := readme[i+len(start)+1:]
	if j := strings.Index(rest, "\n"+next); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

var trailingComment = regexp.MustCompile(`\s{2,}#.*$`)

// codeLines are the commands of the indented code blocks of text, their
// comments removed.
func codeLines(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "    ") {
			continue
		}
		c := strings.TrimSpace(trailingComment.ReplaceAllString(line, ""))
		if c != "" && !strings.HasPrefix(c, "[") {
			out = append(out, c)
		}
	}
	return out
}
