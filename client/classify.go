// Error classification: what went wrong on a connection, as the typed
// errors of errors.go (and so as the exit codes of EXIT STATUS in mcpx(1)).

package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// isTransportFailure reports whether err came from the transport (a closed
// pipe, EOF, a write that failed) rather than from decoding a reply.
func isTransportFailure(err error) bool {
	var te *mcptransport.Error
	return errors.As(err, &te) || errors.Is(err, mcptransport.ErrTransportClosed) || errors.Is(err, io.EOF)
}

// classifyCall turns a failed request into a typed error: a JSON-RPC error
// reply (with its code and data) is a server_error (see serverError), or
// unsupported for "method not found"; refused says that mcpx answered a request of the
// server's "method not found" during the call. What is not the server's
// answer goes to classify.
func (c *Conn) classifyCall(ctx context.Context, method string, err error, refused bool) error {
	if le := c.limit.Get(); le != nil {
		return le
	}
	var reply *replyError
	isReply := errors.As(err, &reply)
	if isReply && reply.Broken != "" && c.limit.Violation() == "" {
		// Over HTTP and SSE (over stdio the framer has refused the line).
		return &fail.ConnectError{Server: c.T.Name, Phase: method, Err: err,
			Msg: fmt.Sprintf("the server answered %s with %s, which breaks JSON-RPC", method, reply.Broken)}
	}
	var input *inputError
	isInput := errors.As(err, &input)
	if isInput && input.TooMany > 0 && ctx.Err() == nil {
		return badReply(c.T.Name, method, fmt.Sprintf("returned an input_required result with %d input requests; mcpx answers at most %d at once", input.TooMany, maxInputRequests))
	}
	if ae := c.authError(); ae != nil && ctx.Err() == nil {
		// An HTTP 401 or 403, which mcp-go's transport turns into an error.
		return ae
	}
	if isReply && reply.Broken == "" && ctx.Err() == nil {
		return c.replyFailure(method, reply.Details, refused)
	}
	if isInput && input.TooMany == 0 && ctx.Err() == nil && c.limit.Violation() == "" {
		if _, lost := c.isLost(); !lost {
			// The 2026-07-28 era's input_required rounds failed: the
			// operation failed (exit 1), not the connection.
			if input.Unreadable {
				return badReply(c.T.Name, method, "returned an input_required result mcpx cannot read: "+c.shown(input.Why))
			}
			return badReply(c.T.Name, method, "asked for input mcpx does not give: "+c.shown(input.Why))
		}
	}
	return c.classify(ctx, method, err)
}

// replyFailure is the failure of the server's error reply d to method;
// refused says that mcpx answered a request of the server's "method not
// found" during the call (see classifyCall).
func (c *Conn) replyFailure(method string, d *mcp.JSONRPCErrorDetails, refused bool) error {
	// --json carries the server's message exactly, up to 64 KiB, and its
	// data when that is at most 64 KiB of JSON (else null).
	rpc := fail.RPCError{Code: d.Code, Message: text.ClipBytes(d.Message, rpcMessageLimit)}
	if d.Data != nil {
		if b, mErr := json.Marshal(d.Data); mErr == nil && len(b) <= rpcMessageLimit {
			rpc.Data = b
		}
	}
	switch d.Code {
	case mcp.UNSUPPORTED_PROTOCOL_VERSION:
		return c.versionRefused(method, rpc, d.Message)
	case mcp.HEADER_MISMATCH:
		// The server says the request's MCP headers and its body disagree
		// (SEP-2243): the protocol's framing broke between mcpx and the
		// server (a proxy that rewrites headers, say).
		return &fail.ConnectError{Server: c.T.Name, Phase: method, Err: serverError(c.T.Name, method, rpc, c.shown(d.Message)),
			Msg: fmt.Sprintf("the server answered %s that its headers do not match its body: %s (code %d)", method, c.shown(d.Message), d.Code)}
	case mcp.MISSING_REQUIRED_CLIENT_CAPABILITY:
		return c.missingCapability(method, rpc, d.Message)
	}
	// "Method not found" is the server's own method missing, unless mcpx
	// refused a request of the server's during the call (a tool that
	// asked for sampling passes mcpx's refusal on).
	if d.Code == mcp.METHOD_NOT_FOUND && !refused {
		return unsupported(c.T.Name, "", method, &rpc, c.shown(d.Message))
	}
	return serverError(c.T.Name, method, rpc, c.shown(d.Message))
}

// authError is the fail.AuthError of the last HTTP 401 or 403, nil when there
// was none.
func (c *Conn) authError() *fail.AuthError {
	if c.rt == nil {
		return nil
	}
	st, _ := c.rt.AuthChallenge("")
	if st == 0 {
		return nil
	}
	_, meta := c.rt.AuthChallenge("resource_metadata")
	_, scope := c.rt.AuthChallenge("scope")
	ae := &fail.AuthError{Server: c.T.Name, Status: st, ResourceMetadata: c.shown(meta), Scope: c.shown(scope)}
	if st == http.StatusForbidden && c.tokens != nil {
		c.tokens.Explain(ae) // the scopes of the refused token, for the hint
	}
	return ae
}

// classify turns a transport-level failure into one of the typed errors.
func (c *Conn) classify(ctx context.Context, phase string, err error) error {
	if le := c.limit.Get(); le != nil {
		return le
	}
	if why, lost := c.isLost(); lost && ctx.Err() == nil && c.limit.Violation() == "" {
		e := &fail.ConnectError{Server: c.T.Name, Phase: phase, Msg: fmt.Sprintf("%s during %s", c.shown(why), phase), Err: err}
		if c.proc != nil {
			// The server died (its leader exited while something it
			// started still holds its stdout): stop what is left of it.
			c.proc.Stop()
			e.Stderr = c.Stderr(10)
		} else if c.warm {
			e.Stderr = c.Stderr(10)
		}
		return e
	}
	if ctx.Err() != nil {
		// A context ended by a clock of the caller's own (one that stops
		// while a person answers) says so by its cause, not its Err.
		if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
			return c.timeoutError(phase)
		}
		return ctx.Err()
	}
	if ae := c.authError(); ae != nil {
		return ae
	}
	var authErr *mcptransport.AuthorizationRequiredError
	if errors.As(err, &authErr) {
		return &fail.AuthError{Server: c.T.Name, Status: http.StatusUnauthorized, ResourceMetadata: c.shown(authErr.ResourceMetadataURL)}
	}
	e := &fail.ConnectError{Server: c.T.Name, Phase: phase, Err: err}
	if v := c.limit.Violation(); v != "" {
		if c.proc != nil {
			c.proc.Stop()
			e.Stderr = c.Stderr(10)
		} else if c.warm {
			e.Stderr = c.Stderr(10)
		}
		e.Msg = fmt.Sprintf("%s (during %s); the connection is closed", v, phase)
		return e
	}
	switch {
	case c.proc != nil && isTransportFailure(err):
		// Over stdio a transport failure (EOF on its stdout, a broken pipe
		// on its stdin) means the server is going or gone: give it a moment
		// to exit by itself, so its status and its last words are known.
		select {
		case <-c.proc.Exited():
		case <-time.After(200 * time.Millisecond):
		}
		status := c.proc.ExitStatus()
		c.proc.Stop()
		if status == "" {
			status = "stopped talking (its stdout closed or its stdin broke) and was stopped"
		}
		e.Msg = fmt.Sprintf("the server %s during %s", status, phase)
		e.Stderr = c.Stderr(10)
	case errors.Is(err, mcptransport.ErrLegacySSEServer):
		st := 0
		if c.rt != nil {
			st = c.rt.FirstPostStatus()
		}
		e.Msg = fmt.Sprintf("%s answered HTTP %d to the initialize POST", c.T.URL, st)
		e.LegacySSE = sseStatus(st)
	case strings.Contains(err.Error(), "unexpected nil response"):
		// mcp-go's words for a POST's event stream that ended before
		// the answer: the server died, or dropped the request
		e.Msg = fmt.Sprintf("the server ended its event stream without answering %s", phase)
	default:
		msg := strings.TrimPrefix(err.Error(), "transport error: ")
		msg = strings.ReplaceAll(msg, "failed to send request: failed to send request: ", "failed to send request: ")
		// The error may quote what the server sent (an HTTP error body):
		// one line, clipped, secrets masked.
		msg = c.shown(msg)
		if strings.HasSuffix(msg, ": ") || strings.HasSuffix(msg, ":") {
			msg += " (empty)"
		}
		if phase != "initialize" && phase != "connect" && phase != "start" {
			msg = fmt.Sprintf("%s (during %s)", msg, phase)
		}
		e.Msg = msg
	}
	return e
}

// maxSkipShown bounds how much of a server's line on stdout a timeout quotes.
const maxSkipShown = 120

// timeoutError is the deadline passing during phase. A stdio server that
// timed out after writing something other than JSON-RPC on stdout (a
// banner such as "Listening on port 3000": a server started for another
// transport, or waiting for an option) is explained by its first such
// lines, each masked, on one line, clipped.
func (c *Conn) timeoutError(phase string) *fail.TimeoutError {
	e := &fail.TimeoutError{Server: c.T.Name, Phase: phase, Timeout: c.T.Timeout}
	if c.proc == nil {
		return e
	}
	for _, line := range c.proc.SkippedLines() {
		e.Stdout = append(e.Stdout, fail.SkippedLine{Text: text.Clip(c.shown(line), maxSkipShown), JSON: line[0] == '{' || line[0] == '['})
	}
	return e
}

// missingCapability is the error of a request the server refused because
// mcpx did not declare a client capability it needs (-32021; data.capability
// names it): the server needs what mcpx does not offer here (exit 5).
func (c *Conn) missingCapability(method string, rpc fail.RPCError, msg string) error {
	what := "a client capability mcpx does not declare"
	if name := gjson.GetBytes(rpc.Data, "capability"); name.Type == gjson.String && name.String() != "" {
		what = "the client capability " + text.QuoteClip(name.String(), 60) + ", which mcpx does not declare"
	}
	e := unsupported(c.T.Name, "", method, &rpc, c.shown(msg))
	e.Message = fmt.Sprintf("server %q: %s needs %s: %s (code %d)", c.T.Name, method, what, c.shown(msg), rpc.Code)
	return e
}

// versionRefusal is a server's refusal of the connection's protocol
// version (-32022): the cause of the connection's failure, its What
// "protocol version", RPC the reply and Known the versions the server says
// it supports (data.supported).
func versionRefusal(supported []string, rpc fail.RPCError) *fail.Error {
	return &fail.Error{Code: fail.Connection, What: "protocol version", Known: supported, RPC: &rpc,
		Message: fmt.Sprintf("unsupported protocol version (code %d)", rpc.Code)}
}

// asVersionRefusal returns the versionRefusal in err's chain, if any.
func asVersionRefusal(err error) (*fail.Error, bool) {
	if e, ok := fail.As(err, fail.Connection); ok && e.What == "protocol version" {
		return e, true
	}
	return nil, false
}

// versionRefused is the error of a request the server refused for the
// connection's protocol version: the connection failed (exit 3), never an
// operation's failure that a listing could pass over with a warning.
// Conn.callRaw connects again in the legacy era when it can.
func (c *Conn) versionRefused(method string, rpc fail.RPCError, msg string) error {
	var data struct {
		Supported []string `json:"supported"`
	}
	_ = json.Unmarshal(rpc.Data, &data)
	version := c.Protocol
	if version == "" { // during the handshake
		version = c.opts.ProtocolVersion
	}
	if method == string(mcp.MethodInitialize) && mcp.IsModernProtocol(version) {
		version = mcp.LATEST_LEGACY_PROTOCOL_VERSION // what the initialize after server/discover asks for
	}
	e := &fail.ConnectError{Server: c.T.Name, Phase: method, Err: versionRefusal(data.Supported, rpc),
		Msg: fmt.Sprintf("the server refused protocol %s during %s: %s (code %d)", version, method, c.shown(msg), rpc.Code)}
	if v := newestLegacy(data.Supported); v != "" && v != version {
		e.Speaks = v
	}
	return e
}
