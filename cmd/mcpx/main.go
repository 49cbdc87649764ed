// Command mcpx makes Model Context Protocol servers scriptable.
package main

import (
	"os"

	"github.com/mcpx-cli/mcpx/commands"
	"github.com/mcpx-cli/mcpx/output"
)

func main() {
	os.Exit(commands.Main(os.Args, output.System()))
}
