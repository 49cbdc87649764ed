//go:build unix

package test

import (
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpx-cli/mcpx/client/auth"
)

// remember-sse URL: mark URL, in the script's state directory, as one that
// answered as a legacy SSE server (as mcpx does after a fallback), so that
// a script can plant the mark on a server that speaks streamable HTTP.
func cmdRememberSSE(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: remember-sse URL")
	}
	m := auth.NewTransports(filepath.Join(ts.Getenv("XDG_STATE_HOME"), "mcpx", "transports"))
	ts.Check(m.SetSSE(args[0]))
}
