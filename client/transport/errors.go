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
	Hints  []string
	Err    error
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("server %q: %s", e.Server, e.Msg)
}

func (e *ConnectError) Unwrap() error { return e.Err }

// RPCError is a JSON-RPC error reply exactly as the server sent it.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}
