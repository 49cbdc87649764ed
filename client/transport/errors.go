package transport

import (
	"encoding/json"
	"fmt"
)

// ConnectError: the server did not start, connect or initialize, died, or
// broke the protocol framing (exit 3).
type ConnectError struct {
	Server string
	Phase  string
	Msg    string
	Stderr []string // the last lines the server wrote on stderr
	Err    error

	// What would help, when something would:
	Command   string // the server's command, which is not installed (not on PATH)
	LegacySSE bool   // the server answered its first POST as a legacy SSE server may
	Speaks    string // a protocol version the server speaks, having refused the one asked for
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("server %q: %s", e.Server, e.Msg)
}

func (e *ConnectError) Unwrap() error { return e.Err }

// ErrorCode is error.code under --json (see EXIT STATUS in mcpx(1)).
func (e *ConnectError) ErrorCode() string { return "connection" }

// ErrorDetails: none (the stderr lines are the report's own).
func (e *ConnectError) ErrorDetails() map[string]any { return nil }

// RPCError is a JSON-RPC error reply exactly as the server sent it.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}
