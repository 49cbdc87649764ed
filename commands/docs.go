package commands

import (
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/output"
)

// DocRoot returns mcpx's command tree as Main builds it, for documentation
// generators (scripts/genman writes man/mcpx.1 from it). Its streams discard
// everything and it sees an empty environment; it is meant to be walked, not
// run. Hidden commands are still in the tree: a generator skips them.
func DocRoot() *cli.Command {
	s := output.New(strings.NewReader(""), io.Discard, io.Discard, false, false, false)
	a := &app{s: s, log: output.NewLog(s, false, false), getenv: func(string) string { return "" }}
	return a.newRoot()
}
