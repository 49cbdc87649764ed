package client

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpx-cli/mcpx/internal/oneline"
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
	Hints   []string // what the server did that may explain it
	// Stderr is the last lines a stdio server wrote on stderr when it
	// did not initialize in time (a proxy that cannot reach its upstream
	// says why only there).
	Stderr []string
}

func (e *TimeoutError) Error() string {
	if e.Server == "" { // a deadline of several servers (catalog --all)
		return fmt.Sprintf("timed out after %s during %s", e.Timeout, e.Phase)
	}
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
	shown  string // RPC.Message as the message shows it: masked, one line, clipped
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("server %q: %s failed: %s (code %d)", e.Server, e.Method, shownOr(e.shown, e.RPC.Message), e.RPC.Code)
}

// Shown is the server's error message as a human message quotes it: secrets
// masked, on one line, at most maxShown characters.
func (e *ServerError) Shown() string { return shownOr(e.shown, e.RPC.Message) }

// UnsupportedError: the server does not offer what was asked (exit 5).
type UnsupportedError struct {
	Server string
	What   string // e.g. "resources"
	Method string
	RPC    *RPCError
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
func shellArg(s string) string { return quoteWord(s, "-_./:=@%+,") }

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

// maxShown bounds how much of one server-originated string a human message
// quotes; rpcMessageLimit bounds a server's error message kept whole for
// --json (error.rpc.message) and error.rpc.data.
const (
	maxShown        = 500
	rpcMessageLimit = 64 << 10
)

// oneLine makes a server's text fit in a human message: on one line, its
// line breaks shown escaped (see oneline.Escape), so that it can never
// forge a line of its own (an "mcpx: ..." line, say), yet nothing after
// its first line is lost (a TypeScript server's validation error is
// pretty-printed JSON whose first line is "["); at most maxShown
// characters (then "..."). Masking, where needed, comes first (see
// Conn.shown): a secret must never be cut into a printable prefix.
func oneLine(s string) string {
	// Only what can be shown is escaped (one character more, so that the
	// clip still says there is more): never all of a huge s.
	return clipRunes(oneline.Escape(runePrefix(strings.TrimSpace(s), maxShown+1)), maxShown)
}

func shownOr(shown, raw string) string {
	if shown != "" {
		return shown
	}
	return oneLine(raw)
}

// clipRunes shortens s to n characters, then "...", without converting
// all of a huge s.
func clipRunes(s string, n int) string {
	if p := runePrefix(s, n); len(p) < len(s) {
		return p + "..."
	}
	return s
}

// runePrefix is the first n characters of s (all of it when shorter).
func runePrefix(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// clipBytes shortens s to at most n bytes, on a character boundary, then
// "...".
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
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
