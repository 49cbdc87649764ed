package fail

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// TimeoutError: the deadline expired (exit 7).
type TimeoutError struct {
	Server  string // "" for a deadline of several servers (catalog --all)
	Phase   string // what was under way
	Timeout time.Duration
	// Stdout are the first lines a stdio server wrote on stdout that are
	// not JSON-RPC, which may explain it: a banner such as "Listening on
	// port 3000".
	Stdout []SkippedLine
	// Stderr is the last lines a stdio server wrote on stderr when it
	// did not initialize in time (a proxy that cannot reach its upstream
	// says why only there).
	Stderr []string
	// Pid is the mcpx daemon's, for a daemon that took the connection and
	// did not answer (0: not that, or not known).
	Pid int
	// Message, when set, is the whole message.
	Message string
	Cause   error
}

// SkippedLine is a line a stdio server wrote on stdout that is not a
// JSON-RPC message, as a message quotes it: masked, on one line, clipped.
type SkippedLine struct {
	Text string
	JSON bool // it is JSON (a log line), not plain text
}

func (e *TimeoutError) Error() string {
	switch {
	case e.Message != "":
		return e.Message
	case e.Server == "":
		return fmt.Sprintf("timed out after %s during %s", e.Timeout, e.Phase)
	}
	return fmt.Sprintf("server %q: timed out after %s during %s", e.Server, e.Timeout, e.Phase)
}

// Unwrap is the cause, if any.
func (e *TimeoutError) Unwrap() error { return e.Cause }

// FailCode is Timeout.
func (e *TimeoutError) FailCode() Code { return Timeout }

// AuthError: the server wants authentication or refused it, or a login
// failed (exit 6).
type AuthError struct {
	Server           string // the server as the user names it
	Status           int    // 401 or 403; 0 for a failure of the login flow
	ResourceMetadata string
	Scope            string // the scopes a 403 insufficient_scope requires
	// Granted are the scopes of the stored token a 403 refused: a new
	// login asks for them too (SEP-2350), so a step-up keeps what the
	// token could already do.
	Granted string
	// Token is what mcpx had: "" nothing stored, "expired" a stored token
	// past its expiry that could not be refreshed, "rejected" a stored
	// token the server refused, "moved" a stored token of an authorization
	// server the server no longer names (SEP-2352), "grant" a failed
	// machine grant.
	Token     string
	ExpiredAt time.Time
	Why       string // why the refresh failed
	Grant     string // the machine grant that failed (Token "grant")
	Msg       string // the whole message, for a failure of the login flow
	// NoClient: the login failed because no OAuth client is configured for
	// the server and its authorization server registers none.
	NoClient bool
	Cause    error
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
	case e.Token == "moved":
		msg = fmt.Sprintf("server %q rejected the stored token (HTTP %d): %s", e.Server, e.Status, e.Why)
	case e.Token == "grant":
		grant := e.Grant
		if grant == "" {
			grant = "client_credentials"
		}
		msg += "; the " + grant + " grant failed: " + e.Why
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

// LoginScopes are the scopes a new login asks for after a 403: those of
// the refused token, then those the 403 names, each once.
func (e *AuthError) LoginScopes() []string {
	var out []string
	for _, s := range strings.Fields(e.Granted + " " + e.Scope) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Unwrap is the cause, if any.
func (e *AuthError) Unwrap() error { return e.Cause }

// FailCode is Auth.
func (e *AuthError) FailCode() Code { return Auth }

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

// Unwrap is the cause.
func (e *ConnectError) Unwrap() error { return e.Err }

// FailCode is Connection.
func (e *ConnectError) FailCode() Code { return Connection }
