package commands

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/client/auth"
	"github.com/mcpx-cli/mcpx/client/config"
	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/internal/text"
	"github.com/mcpx-cli/mcpx/output"
	"github.com/mcpx-cli/mcpx/render"
)

// Exit codes (see EXIT STATUS in mcpx(1)).
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitConnection  = 3
	exitNotFound    = 4
	exitUnsupported = 5
	exitAuth        = 6
	exitTimeout     = 7
	exitLimit       = 8
	exitNoMatch     = 9
	exitBrokenPipe  = 141
)

// UsageError is a bad flag, argument or combination (exit 2).
type UsageError struct {
	Msg     string
	Hints   []string
	Details map[string]any
}

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// StrictError: --strict turned warnings into a failure (exit 1).
type StrictError struct{ N int }

func (e *StrictError) Error() string {
	return "--strict: " + count(e.N, "warning")
}

// classify maps an error (and the signal that interrupted mcpx, if any) to the
// report and exit code of EXIT STATUS in mcpx(1). It is the only such mapping.
func classify(err error, sig os.Signal) output.ErrorReport {
	if sig != nil {
		n := 128
		if s, ok := sig.(syscall.Signal); ok {
			n += int(s)
		}
		return output.ErrorReport{Code: "interrupted", ExitCode: n, Message: fmt.Sprintf("interrupted by %s", sigName(sig))}
	}
	if errors.Is(err, output.ErrStdoutClosed) {
		return output.ErrorReport{ExitCode: exitBrokenPipe}
	}
	r := output.ErrorReport{Message: err.Error(), Details: map[string]any{}}
	var (
		usage    *UsageError
		cfgErr   *config.Error
		notFound *config.NotFoundError
		conn     *transport.ConnectError
		timeout  *client.TimeoutError
		server   *client.ServerError
		badReply *client.BadReplyError
		unsup    *client.UnsupportedError
		authErr  *auth.Error
		limit    *limits.Error
		bad      *render.BadContentError
		noMatch  *output.NoMatchError
		strict   *StrictError
		ambig    *AmbiguousError
		toolErr  *ToolError
	)
	switch {
	case errors.As(err, &ambig):
		r.Code, r.ExitCode = "usage", exitUsage
		r.Details["candidates"] = ambig.Candidates
		r.Hints = []string{"name one of them as KIND:ID, or pass --kind"}
	case errors.As(err, &usage):
		r.Code, r.ExitCode, r.Hints = "usage", exitUsage, usage.Hints
		for k, v := range usage.Details {
			r.Details[k] = v
		}
	case errors.As(err, &cfgErr):
		r.Code, r.ExitCode = "usage", exitUsage
		if cfgErr.Var != "" {
			r.Details["variable"] = cfgErr.Var
		}
		if cfgErr.Server != "" {
			r.Details["server"] = cfgErr.Server
		}
	case errors.As(err, &notFound):
		r.Code, r.ExitCode, r.Hints = "not_found", exitNotFound, notFound.Hints
		if notFound.RPC != nil {
			r.Details["rpc"] = notFound.RPC
		}
		if notFound.Candidates != nil {
			r.Details["candidates"] = notFound.Candidates
		}
	case errors.As(err, &conn):
		r.Code, r.ExitCode, r.Hints, r.Lines = "connection", exitConnection, conn.Hints, conn.Stderr
	case errors.As(err, &timeout):
		r.Code, r.ExitCode, r.Lines = "timeout", exitTimeout, timeout.Stderr
		r.Details["phase"] = timeout.Phase
		r.Hints = append(slices.Clone(timeout.Hints), "raise the bound with --timeout, or \"timeout\" in the server's config entry")
		if timeout.Phase == "login" {
			r.Hints = []string{"login waits 5 minutes for the browser unless --timeout says otherwise"}
		}
	case errors.As(err, &server):
		r.Code, r.ExitCode = "server_error", exitFailed
		r.Details["rpc"] = server.RPC
		r.Hints = urlElicitations(server.RPC)
	case errors.As(err, &badReply):
		r.Code, r.ExitCode = "server_error", exitFailed
	case errors.As(err, &unsup):
		r.Code, r.ExitCode = "unsupported", exitUnsupported
		if unsup.RPC != nil {
			r.Details["rpc"] = unsup.RPC
		}
	case errors.As(err, &authErr):
		r.Code, r.ExitCode, r.Hints = "auth", exitAuth, authErr.Hints()
		if authErr.ResourceMetadata != "" {
			r.Details["resource_metadata"] = authErr.ResourceMetadata
		}
		if authErr.Status != 0 {
			r.Details["status"] = authErr.Status
		}
		if s := authErr.Scopes(); len(s) > 0 {
			r.Details["scopes"] = s
		}
		if authErr.Token != "" {
			r.Details["token"] = authErr.Token
		}
	case errors.As(err, &limit):
		r.Code, r.ExitCode = "limit", exitLimit
		var bytes any // null for a limit that is not a size (the spill directory checks)
		if limit.Value != 0 {
			bytes = limit.Value
		}
		r.Details["limit"] = map[string]any{"name": limit.Limit, "bytes": bytes}
	case errors.As(err, &bad):
		r.Code, r.ExitCode = "bad_content", exitFailed
		if bad.Item >= 0 {
			r.Details["item"] = bad.Item
		}
	case errors.As(err, &noMatch):
		r.Code, r.ExitCode = "no_match", exitNoMatch
	case errors.As(err, &toolErr):
		r.Code, r.ExitCode = "tool_error", exitFailed
	case errors.As(err, &strict):
		r.Code, r.ExitCode = "strict", exitFailed
	case errors.Is(err, context.Canceled):
		r.Code, r.ExitCode, r.Message = "interrupted", 130, "interrupted"
	default:
		r.Code, r.ExitCode = "error", exitFailed
	}
	return r
}

func sigName(sig os.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}

// AmbiguousError: an ID matches items of several kinds (exit 2).
type AmbiguousError struct {
	ID         string
	Candidates []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q is ambiguous: it names %s", e.ID, strings.Join(e.Candidates, ", "))
}

// urlElicitationRequired is the error a server answers when the user must
// first visit a URL (URL-mode elicitation, MCP 2025-11-25).
const urlElicitationRequired = -32042

// urlElicitations returns a hint for each URL a -32042 error asks the user
// to visit (mcpx opens none itself).
func urlElicitations(rpc transport.RPCError) []string {
	if rpc.Code != urlElicitationRequired || len(rpc.Data) == 0 {
		return nil
	}
	var hints []string
	gjson.GetBytes(rpc.Data, "elicitations").ForEach(func(_, e gjson.Result) bool {
		// A URL is shown whole or not at all: one cut short is of no use,
		// and could show part of a secret that masking would not find.
		if u := text.Squash(e.Get("url").String()); u != "" && len(u) <= 2000 && len(hints) < 5 {
			hints = append(hints, "open this URL, then run the command again: "+u)
		}
		return true
	})
	return hints
}
