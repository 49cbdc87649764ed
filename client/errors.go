package client

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
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

// TimeoutError: the deadline expired (exit 7).
type TimeoutError struct {
	Server  string
	Phase   string
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("server %q: timed out after %s during %s", e.Server, e.Timeout, e.Phase)
}

// RPCError is a JSON-RPC error reply exactly as the server sent it.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// ServerError: the server answered a request with an error (exit 1).
type ServerError struct {
	Server string
	Method string
	RPC    RPCError
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("server %q: %s failed: %s (code %d)", e.Server, e.Method, oneLine(e.RPC.Message), e.RPC.Code)
}

// UnsupportedError: the server does not offer what was asked (exit 5).
type UnsupportedError struct {
	Server string
	What   string // e.g. "resources"
	Method string
	RPC    *RPCError
}

func (e *UnsupportedError) Error() string {
	if e.RPC != nil {
		return fmt.Sprintf("server %q does not support %s: %s", e.Server, e.Method, oneLine(e.RPC.Message))
	}
	return fmt.Sprintf("server %q does not offer %s", e.Server, e.What)
}

// AuthError: the server wants authentication or refused it (exit 6).
type AuthError struct {
	Server           string
	Status           int
	ResourceMetadata string
	Scope            string
}

func (e *AuthError) Error() string {
	msg := fmt.Sprintf("server %q requires authentication (HTTP %d)", e.Server, e.Status)
	if e.Status == 403 {
		msg = fmt.Sprintf("server %q refused access (HTTP 403)", e.Server)
		if e.Scope != "" {
			msg += "; it requires the scope " + e.Scope
		}
	}
	if e.ResourceMetadata != "" {
		msg += "; resource metadata: " + e.ResourceMetadata
	}
	return msg
}

// Hints suggests what to do.
func (e *AuthError) Hints() []string {
	return []string{"pass credentials with -H 'Authorization: Bearer TOKEN', or set \"headers\" in the server's config entry"}
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i] + " ..."
	}
	return s
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
