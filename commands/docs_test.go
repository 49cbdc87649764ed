package commands

import (
	"os"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"
)

// TestManPageCoversCommands fails when a command, flag or environment
// variable is missing from man/mcpx.1. The page is generated from DocRoot
// (scripts/genman, whose TestManPageIsCurrent fails when it is stale); this
// checks the committed page independently of the generator.
func TestManPageCoversCommands(t *testing.T) {
	man, err := os.ReadFile("../man/mcpx.1")
	if err != nil {
		t.Fatal(err)
	}
	page := strings.ReplaceAll(string(man), `\-`, "-")
	root := DocRoot()
	// A subcommand's heading names it after its parent ("task get").
	full := map[*cli.Command]string{}
	_ = root.Walk(func(c *cli.Command) error {
		for _, sub := range c.Commands {
			full[sub] = strings.TrimSpace(full[c] + " " + sub.Name)
		}
		return nil
	})
	_ = root.Walk(func(c *cli.Command) error {
		if c.Hidden {
			if c != root && strings.Contains(page, `.SS "`+c.Name) {
				t.Errorf("man page documents the hidden command %q", c.Name)
			}
			return nil
		}
		if c != root && !strings.Contains(page, `.SS "`+full[c]) {
			t.Errorf("man page lacks the command %q", full[c])
		}
		for _, f := range c.VisibleFlags() {
			for _, name := range f.Names() {
				dash := "--"
				if len(name) == 1 {
					dash = "-"
				}
				if !strings.Contains(page, dash+name) {
					t.Errorf("man page lacks %s%s (command %q)", dash, name, c.Name)
				}
			}
		}
		return nil
	})
	for _, s := range []string{"--help", "--version",
		"MCPX_CONFIG", "MCPX_CACHE_DIR", "MCPX_COMPLETE_TIMEOUT", "MCPX_FORCE_TTY", "NO_COLOR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
		".SH CONFIGURATION", ".SH CONTENT POLICY", ".SH LIMITS", ".SH SHELL COMPLETION", ".SH ENVIRONMENT", ".SH EXIT STATUS", ".SH EXAMPLES"} {
		if !strings.Contains(page, s) {
			t.Errorf("man page lacks %s", s)
		}
	}
}

// TestDocRoot: the documentation hook gives the real tree, hidden commands
// included (the generator leaves them out), and a fresh one each call, so a
// generator may change it.
func TestDocRoot(t *testing.T) {
	a, b := DocRoot(), DocRoot()
	if a == b || a.Commands[0] == b.Commands[0] {
		t.Fatal("DocRoot shares its tree between calls")
	}
	hidden := map[string]bool{}
	for _, c := range a.Commands {
		hidden[c.Name] = c.Hidden
	}
	for name, want := range map[string]bool{"serve-demo": true, completeCommand: true, "read": false, "completion": false} {
		if h, ok := hidden[name]; !ok || h != want {
			t.Errorf("DocRoot: command %q present %v, hidden %v; want present, hidden %v", name, ok, h, want)
		}
	}
}
