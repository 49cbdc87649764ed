// Package fail is mcpx's one error model: the codes of EXIT STATUS in
// mcpx(1) (error.code under --json), the general Error of every failure
// that needs no type of its own, and the few typed failures whose data the
// commands read for their hints (a timeout's stderr tail, the scopes a
// server requires, what would let a connection be made). Every layer
// returns these; commands alone turns them into the exit status, the
// hints and the JSON error document.
//
// It imports nothing of mcpx's: every package may import it.
package fail

import (
	"encoding/json"
	"fmt"
)

// Code is a failure of EXIT STATUS in mcpx(1): error.code under --json.
type Code string

// The codes, exactly as the JSON error document spells them.
const (
	Usage       Code = "usage"        // exit 2
	Connection  Code = "connection"   // exit 3
	NotFound    Code = "not_found"    // exit 4
	Unsupported Code = "unsupported"  // exit 5
	Auth        Code = "auth"         // exit 6
	Timeout     Code = "timeout"      // exit 7
	Limit       Code = "limit"        // exit 8
	NoMatch     Code = "no_match"     // exit 9
	ServerError Code = "server_error" // exit 1: a server's error reply, or a reply that is not what the method returns
	BadContent  Code = "bad_content"  // exit 1: an item of a reply that cannot be rendered
	ToolError   Code = "tool_error"   // exit 1: a tool's result with isError: true
	Strict      Code = "strict"       // exit 1: --strict and a warning, or a probed server that failed
	Conflict    Code = "conflict"     // exit 1: a config file that another process kept changing
	NeedsInput  Code = "needs_input"  // exit 10: a server asked for input that nobody could give
	Denied      Code = "denied"       // exit 11: a tool call refused by a rule or --read-only
	Drift       Code = "drift"        // exit 12: diff found changes at or above --fail-on
)

// Failure is an error that is one of the failures of EXIT STATUS: every
// error type of this package, a named limit's (internal/limits) and an
// item that cannot be rendered (render.BadContentError).
type Failure interface {
	error
	FailCode() Code
}

// RPCError is a JSON-RPC error reply exactly as the server sent it.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// Error is a failure that needs no type of its own. Message is the whole
// message; the other fields are what a hint or the JSON error document
// reads, each set where it applies.
type Error struct {
	Code    Code
	Message string
	Server  string // the server concerned, as the user names it
	// What is what the failure is about, and Name which one: "server",
	// "tool", "resource", "source", "task" (Name its id), "method" (a
	// server's error reply to it), "result" (a reply that is not what the
	// method returns), a capability such as "prompts" (Name the method the
	// server does not know), "variable" (an unset one), "file" (the config
	// file of a conflict), "trustedProjects" (Name the user file whose
	// "trustedProjects" would trust a project's file), "--select" (Name
	// the path), "expression" (of a URI template), "protocol version".
	What string
	Name string
	// Said is what the server said (its error reply's message), as a
	// message quotes it: masked, on one line, clipped.
	Said   string
	Status string    // a task's status
	RPC    *RPCError // the server's error reply, when there was one
	Cause  error
	// Candidates, where useful, lists what does exist (the JSON error
	// document's "candidates"; nil: none given).
	Candidates []string
	// Source is the config source a NAME@SOURCE argument or an import
	// named, and Known what does exist or is concerned, for a hint or a
	// field of commands: the configured servers (no Source), the
	// NAME@SOURCE forms that do define the name, a template's variables,
	// the protocol versions a server supports.
	Source string
	Known  []string
	// Hints and Details are worded by commands alone, for its own
	// failures: what would help, and the fields the failure adds to the
	// JSON error document.
	Hints   []string
	Details map[string]any
	// Reason, when set, says why an operation this failure ended was
	// cancelled (the reason of the notifications/cancelled mcpx sends).
	Reason string
}

func (e *Error) Error() string { return e.Message }

// Unwrap is the cause, if any.
func (e *Error) Unwrap() error { return e.Cause }

// CancelReason is Reason: why the operation e ended was cancelled.
func (e *Error) CancelReason() string { return e.Reason }

// FailCode is the failure's code.
func (e *Error) FailCode() Code { return e.Code }

// As returns the first *Error of err's chain whose code is code.
func As(err error, code Code) (*Error, bool) {
	for err != nil {
		if e, ok := err.(*Error); ok && e.Code == code {
			return e, true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				if e, ok := As(inner, code); ok {
					return e, true
				}
			}
			return nil, false
		default:
			return nil, false
		}
	}
	return nil, false
}

// Is reports whether err's chain holds an *Error whose code is code.
func Is(err error, code Code) bool {
	_, ok := As(err, code)
	return ok
}

// New is a failure of code with message msg, said of server when there is
// one: the message then begins with its name.
func New(code Code, server, msg string) *Error {
	if server != "" {
		msg = fmt.Sprintf("server %q: %s", server, msg)
	}
	return &Error{Code: code, Server: server, Message: msg}
}

// Unknown is a not_found failure: the what named name does not exist, and
// detail, when given, says why.
func Unknown(what, name, detail string) *Error {
	msg := fmt.Sprintf("unknown %s %q", what, name)
	if detail != "" {
		msg += ": " + detail
	}
	return &Error{Code: NotFound, What: what, Name: name, Message: msg}
}
