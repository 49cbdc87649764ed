package client

import (
	"fmt"
	"time"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// TimeoutError: the deadline expired (exit 7).
type TimeoutError struct {
	Server  string
	Phase   string
	Timeout time.Duration
	// Stdout are the first lines a stdio server wrote on stdout that are
	// not JSON-RPC (at most transport.KeepSkipped), which may explain it: a
	// banner such as "Listening on port 3000".
	Stdout []SkippedLine
	// Stderr is the last lines a stdio server wrote on stderr when it
	// did not initialize in time (a proxy that cannot reach its upstream
	// says why only there).
	Stderr []string
}

// SkippedLine is a line a stdio server wrote on stdout that is not a
// JSON-RPC message, as a message quotes it: masked, on one line, clipped.
type SkippedLine struct {
	Text string
	JSON bool // it is JSON (a log line), not plain text
}

func (e *TimeoutError) Error() string {
	if e.Server == "" { // a deadline of several servers (catalog --all)
		return fmt.Sprintf("timed out after %s during %s", e.Timeout, e.Phase)
	}
	return fmt.Sprintf("server %q: timed out after %s during %s", e.Server, e.Timeout, e.Phase)
}

// ErrorCode is error.code under --json (see EXIT STATUS in mcpx(1)).
func (e *TimeoutError) ErrorCode() string { return "timeout" }

// ErrorDetails are the error's fields under --json: what was under way.
func (e *TimeoutError) ErrorDetails() map[string]any { return map[string]any{"phase": e.Phase} }

// ServerError: the server answered a request with an error (exit 1).
type ServerError struct {
	Server string
	Method string
	RPC    fail.RPCError
	shown  string // RPC.Message as the message shows it: masked, one line, clipped
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("server %q: %s failed: %s (code %d)", e.Server, e.Method, shownOr(e.shown, e.RPC.Message), e.RPC.Code)
}

// Shown is the server's error message as a human message quotes it: secrets
// masked, on one line, at most text.MaxShown characters.
func (e *ServerError) Shown() string { return shownOr(e.shown, e.RPC.Message) }

// ErrorCode is error.code under --json (see EXIT STATUS in mcpx(1)).
func (e *ServerError) ErrorCode() string { return "server_error" }

// ErrorDetails are the error's fields under --json: the error reply.
func (e *ServerError) ErrorDetails() map[string]any { return map[string]any{"rpc": e.RPC} }

// UnsupportedError: the server does not offer what was asked (exit 5).
type UnsupportedError struct {
	Server string
	What   string // e.g. "resources"
	Method string
	RPC    *fail.RPCError
	shown  string // RPC.Message as the message shows it (see ServerError)
}

func (e *UnsupportedError) Error() string {
	if e.RPC != nil {
		return fmt.Sprintf("server %q does not support %s: %s", e.Server, e.Method, shownOr(e.shown, e.RPC.Message))
	}
	return fmt.Sprintf("server %q does not offer %s", e.Server, e.What)
}

// ErrorCode is error.code under --json (see EXIT STATUS in mcpx(1)).
func (e *UnsupportedError) ErrorCode() string { return "unsupported" }

// ErrorDetails are the error's fields under --json: the error reply, when
// the server sent one.
func (e *UnsupportedError) ErrorDetails() map[string]any {
	if e.RPC == nil {
		return nil
	}
	return map[string]any{"rpc": e.RPC}
}

// rpcMessageLimit bounds a server's error message kept whole for --json
// (error.rpc.message) and error.rpc.data.
const rpcMessageLimit = 64 << 10

func shownOr(shown, raw string) string {
	if shown != "" {
		return shown
	}
	return text.OneLine(raw)
}

// BadReplyError: the server answered, but not with what the method returns
// (a list result that is not an object, items that are not an array).
type BadReplyError struct {
	Server string
	Method string
	Msg    string
}

func (e *BadReplyError) Error() string {
	return fmt.Sprintf("server %q: %s %s", e.Server, e.Method, e.Msg)
}

// ErrorCode is error.code under --json (see EXIT STATUS in mcpx(1)).
func (e *BadReplyError) ErrorCode() string { return "server_error" }

// ErrorDetails: none.
func (e *BadReplyError) ErrorDetails() map[string]any { return nil }
