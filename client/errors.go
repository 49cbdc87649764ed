package client

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// TimeoutError: the deadline expired (exit 7).
type TimeoutError struct {
	Server  string
	Phase   string
	Timeout time.Duration
	Hints   []string // what the server did that may explain it
}

func (e *TimeoutError) Error() string {
	if e.Server == "" { // a deadline of several servers (catalog --all)
		return fmt.Sprintf("timed out after %s during %s", e.Timeout, e.Phase)
	}
	return fmt.Sprintf("server %q: timed out after %s during %s", e.Server, e.Timeout, e.Phase)
}

// ServerError: the server answered a request with an error (exit 1).
type ServerError struct {
	Server string
	Method string
	RPC    transport.RPCError
	shown  string // RPC.Message as the message shows it: masked, one line, clipped
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("server %q: %s failed: %s (code %d)", e.Server, e.Method, shownOr(e.shown, e.RPC.Message), e.RPC.Code)
}

// Shown is the server's error message as a human message quotes it: secrets
// masked, its first line only, at most text.MaxShown characters.
func (e *ServerError) Shown() string { return shownOr(e.shown, e.RPC.Message) }

// UnsupportedError: the server does not offer what was asked (exit 5).
type UnsupportedError struct {
	Server string
	What   string // e.g. "resources"
	Method string
	RPC    *transport.RPCError
	shown  string // RPC.Message as the message shows it (see ServerError)
}

func (e *UnsupportedError) Error() string {
	if e.RPC != nil {
		return fmt.Sprintf("server %q does not support %s: %s", e.Server, e.Method, shownOr(e.shown, e.RPC.Message))
	}
	return fmt.Sprintf("server %q does not offer %s", e.Server, e.What)
}

// AuthError: the server wants authentication or refused it, or a login
// failed (exit 6).
type AuthError struct {
	Server           string // the server as the user names it (for the hints)
	Status           int    // 401 or 403; 0 for a failure of the login flow
	ResourceMetadata string
	Scope            string // the scopes a 403 insufficient_scope requires
	// Token is what mcpx had: "" nothing stored, "expired" a stored token
	// past its expiry that could not be refreshed, "rejected" a stored
	// token the server refused.
	Token     string
	ExpiredAt time.Time
	Why       string // why the refresh failed
	Msg       string // the whole message, for a failure of the login flow
	hints     []string
}

func (e *AuthError) Error() string {
	if e.Msg != "" {
		return fmt.Sprintf("server %q: %s", e.Server, e.Msg)
	}
	msg := fmt.Sprintf("server %q requires authentication (HTTP %d)", e.Server, e.Status)
	switch {
	case e.Status == 403:
		msg = fmt.Sprintf("server %q refused access (HTTP 403)", e.Server)
		if e.Scope != "" {
			msg += "; it requires the scope " + e.Scope
		}
	case e.Token == "expired":
		msg += "; the stored token expired at " + e.ExpiredAt.UTC().Format(time.RFC3339)
		if e.Why != "" {
			msg += " and refreshing it failed: " + e.Why
		} else {
			msg += " and there is no refresh token"
		}
	case e.Token == "rejected":
		msg = fmt.Sprintf("server %q rejected the stored token (HTTP %d)", e.Server, e.Status)
		if e.Why != "" {
			msg += "; refreshing it failed: " + e.Why
		}
	}
	if e.ResourceMetadata != "" {
		msg += "; resource metadata: " + e.ResourceMetadata
	}
	return msg
}

// Scopes are the scopes a 403 names, one by one.
func (e *AuthError) Scopes() []string { return strings.Fields(e.Scope) }

// shellArg quotes a word of a command line that a hint asks the user to
// paste: anything but plain characters is single-quoted, so a server's
// word can never expand ($VAR, ${VAR}, $(...), `...`) in the user's shell.
func shellArg(s string) string { return text.QuoteWord(s, "-_./:=@%+,") }

// Hints suggests what to do.
func (e *AuthError) Hints() []string {
	if e.Msg != "" {
		return e.hints
	}
	login := "mcpx login " + shellArg(e.Server)
	if e.Status == 403 && e.Scope != "" {
		for _, s := range e.Scopes() {
			login += " --scope " + shellArg(s)
		}
		return []string{"log in again with the scopes it requires: " + login}
	}
	return []string{"log in with: " + login,
		"or pass credentials with -H 'Authorization: Bearer TOKEN', or set \"headers\" in the server's config entry"}
}

// rpcMessageLimit bounds a server's error message kept whole for --json
// (error.rpc.message) and error.rpc.data.
const rpcMessageLimit = 64 << 10

func shownOr(shown, raw string) string {
	if shown != "" {
		return shown
	}
	return text.FirstLine(raw)
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
