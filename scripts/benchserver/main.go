// Command benchserver is a stdio MCP server for scripts/bench.sh: it serves
// one of mcpx's test fixtures (test/fixture), e.g. "blob-stream", whose
// resources/read streams a big blob or text (MCPX_FIXTURE_BYTES bytes)
// without holding it in memory, so the peak RSS measured is mcpx's.
//
// Usage:
//
//	benchserver MODE
package main

import (
	"fmt"
	"os"

	"github.com/mcpx-cli/mcpx/test/fixture"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: benchserver MODE")
		os.Exit(2)
	}
	if err := fixture.ServeStdio(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "benchserver:", err)
		os.Exit(1)
	}
}
