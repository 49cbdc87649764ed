package client

import (
	"fmt"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// The failures of the connection's operations, as *fail.Error values (see
// internal/fail): what each sets is what the hints and the JSON error
// document read.

// serverError: the server answered method with an error reply (exit 1,
// server_error). shown is the reply's message as a message quotes it
// (masked, one line, clipped); "" for the raw message on one line.
func serverError(server, method string, rpc fail.RPCError, shown string) *fail.Error {
	shown = shownOr(shown, rpc.Message)
	return &fail.Error{Code: fail.ServerError, Server: server, What: "method", Name: method, Said: shown, RPC: &rpc,
		Message: fmt.Sprintf("server %q: %s failed: %s (code %d)", server, method, shown, rpc.Code)}
}

// AsServerError returns the server's error reply to a request in err's
// chain: a server_error whose What is "method", Name the method, RPC the
// reply and Said its message as shown.
func AsServerError(err error) (*fail.Error, bool) {
	if e, ok := fail.As(err, fail.ServerError); ok && e.What == "method" {
		return e, true
	}
	return nil, false
}

// unsupported: the server does not offer what, a capability such as
// "resources" (exit 5). With an error reply (rpc not nil), it refused
// method: What is the capability, Name the method.
func unsupported(server, what, method string, rpc *fail.RPCError, shown string) *fail.Error {
	e := &fail.Error{Code: fail.Unsupported, Server: server, What: what, Name: method, RPC: rpc,
		Message: fmt.Sprintf("server %q does not offer %s", server, what)}
	if rpc != nil {
		e.Said = shownOr(shown, rpc.Message)
		e.Message = fmt.Sprintf("server %q does not support %s: %s", server, method, e.Said)
	}
	return e
}

// Unsupported is a server that does not offer what, a capability such as
// "prompts" (exit 5).
func Unsupported(server, what string) *fail.Error { return unsupported(server, what, "", nil, "") }

// rpcMessageLimit bounds a server's error message kept whole for --json
// (error.rpc.message) and error.rpc.data.
const rpcMessageLimit = 64 << 10

func shownOr(shown, raw string) string {
	if shown != "" {
		return shown
	}
	return text.OneLine(raw)
}

// badReply: the server answered, but not with what method returns (a
// list result that is not an object, items that are not an array): a
// server_error whose What is "result" and Name the method.
func badReply(server, method, msg string) *fail.Error {
	return &fail.Error{Code: fail.ServerError, Server: server, What: "result", Name: method,
		Message: fmt.Sprintf("server %q: %s %s", server, method, msg)}
}

// TaskEnded: a task ended without a result (exit 1): it failed, or was
// cancelled, or cannot be cancelled any more. A server_error whose What is
// "task", Name the task's id and Status its status; msg is the server's
// status message or error as shown, rpc the server's error when it sent
// one.
func TaskEnded(server, id, status, msg string, rpc *fail.RPCError) *fail.Error {
	what := "failed"
	switch status {
	case taskCancelled:
		what = "was cancelled"
	case taskCompleted:
		what = "has completed"
	}
	m := fmt.Sprintf("server %q: task %s %s", server, shownID(id), what)
	if msg != "" {
		m += ": " + msg
	}
	return &fail.Error{Code: fail.ServerError, Server: server, What: "task", Name: id, Status: status, Said: msg, RPC: rpc, Message: m}
}

// IsTaskFailure reports whether err is a task that ended without a result
// (see TaskEnded).
func IsTaskFailure(err error) bool {
	e, ok := fail.As(err, fail.ServerError)
	return ok && e.What == "task"
}
