package commands

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/internal/demo"
)

// newServeDemoCmd is the hidden command behind SRV "demo": mcpx starts
// itself as `mcpx serve-demo`, a stdio MCP server like any other.
func (a *app) newServeDemoCmd() *cli.Command {
	return &cli.Command{
		Name:   "serve-demo",
		Usage:  "serve the built-in demo MCP server on stdin/stdout",
		Hidden: true,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usagef("serve-demo takes no arguments")
			}
			return demo.Serve(ctx, version())
		},
	}
}
