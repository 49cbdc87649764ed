package auth

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Error: the server wants authentication or refused it, or a login
// failed (exit 6).
type Error struct {
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
}

func (e *Error) Error() string {
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
func (e *Error) Scopes() []string { return strings.Fields(e.Scope) }

// LoginScopes are the scopes a new login asks for after a 403: those of
// the refused token, then those the 403 names, each once.
func (e *Error) LoginScopes() []string {
	var out []string
	for _, s := range strings.Fields(e.Granted + " " + e.Scope) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// ErrorCode is error.code under --json (see EXIT STATUS in mcpx(1)).
func (e *Error) ErrorCode() string { return "auth" }

// ErrorDetails are the error's fields under --json: the resource metadata
// URL, the HTTP status, the scopes a 403 requires (and those a new login
// asks for: the refused token's too), and what mcpx had.
func (e *Error) ErrorDetails() map[string]any {
	d := map[string]any{}
	if e.ResourceMetadata != "" {
		d["resource_metadata"] = e.ResourceMetadata
	}
	if e.Status != 0 {
		d["status"] = e.Status
	}
	if s := e.Scopes(); len(s) > 0 {
		d["scopes"] = s
		if e.Granted != "" {
			d["login_scopes"] = e.LoginScopes()
		}
	}
	if e.Token != "" {
		d["token"] = e.Token
	}
	return d
}
