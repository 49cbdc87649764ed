// Command mcpx makes Model Context Protocol servers scriptable.
package main

import (
	"os"

	"github.com/mcpx-cli/mcpx/commands"
	"github.com/mcpx-cli/mcpx/internal/ascaller"
	"github.com/mcpx-cli/mcpx/output"
)

func main() {
	// Started by the mcpx daemon to run a warm server as its caller
	// (umask, resource limits): that is all this process does.
	ascaller.Trampoline()
	os.Exit(commands.Main(os.Args, output.System()))
}
