package commands

import (
	"os"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/output"
)

// TestManPageCoversCommands fails when a command or flag is missing from man/mcpx.1.
func TestManPageCoversCommands(t *testing.T) {
	man, err := os.ReadFile("../man/mcpx.1")
	if err != nil {
		t.Fatal(err)
	}
	page := strings.ReplaceAll(string(man), `\-`, "-")
	s, _, _ := output.ForTest(false)
	a := &app{s: s, log: output.NewLog(s, false, false)}
	root := a.newRoot()
	_ = root.Walk(func(c *cli.Command) error {
		if c.Hidden {
			return nil
		}
		if c != root && !strings.Contains(page, ".B "+c.Name) && !strings.Contains(page, "\n.B "+c.Name) {
			t.Errorf("man page lacks the command %q", c.Name)
		}
		for _, f := range c.Flags {
			for _, name := range f.Names() {
				if name == "help" || name == "h" || name == "version" || name == "v" && c != root {
					continue
				}
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
	for _, env := range []string{"MCPX_CONFIG", "MCPX_CACHE_DIR", "NO_COLOR", "MCPX_FORCE_TTY", "EXIT STATUS"} {
		if !strings.Contains(page, env) {
			t.Errorf("man page lacks %s", env)
		}
	}
}
