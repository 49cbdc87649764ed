package commands

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"
	"syscall"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/limits"
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
	exitDrift       = 12
	exitBrokenPipe  = 141
)

// The failures of commands itself are *fail.Error values too: a bad flag,
// argument or combination is a usage error (exit 2), its Hints and the
// fields it adds to the JSON error document (Details) worded here.

func usagef(format string, args ...any) error {
	return &fail.Error{Code: fail.Usage, Message: fmt.Sprintf(format, args...)}
}

// strictWarnings: --strict turned n warnings into a failure (exit 1).
func strictWarnings(n int) error {
	return &fail.Error{Code: fail.Strict, Message: "--strict: " + count(n, "warning")}
}

// incomplete: a command that is always strict (snapshot) met n warnings;
// what says what was not done (exit 1, strict).
func incomplete(what string, n int) error {
	return &fail.Error{Code: fail.Strict, Message: what + " (" + count(n, "warning") + ")"}
}

// ambiguous: an ID matches items of several kinds, the candidates (exit 2).
func ambiguous(id string, candidates []string) error {
	return &fail.Error{Code: fail.Usage, What: "id", Name: id, Candidates: candidates,
		Hints:   []string{"name one of them as KIND:ID, or pass --kind"},
		Message: fmt.Sprintf("%q is ambiguous: it names %s", id, strings.Join(candidates, ", "))}
}

// exitCodes maps each failure's code to its exit status (any other is 1).
var exitCodes = map[fail.Code]int{
	fail.Usage:       exitUsage,
	fail.Connection:  exitConnection,
	fail.NotFound:    exitNotFound,
	fail.Unsupported: exitUnsupported,
	fail.Auth:        exitAuth,
	fail.Timeout:     exitTimeout,
	fail.Limit:       exitLimit,
	fail.NoMatch:     exitNoMatch,
	fail.ServerError: exitFailed,
	fail.BadContent:  exitFailed,
	fail.ToolError:   exitFailed,
	fail.Strict:      exitFailed,
	fail.Conflict:    exitFailed,
	fail.NeedsInput:  exitNeedsInput,
	fail.Denied:      exitDenied,
	fail.Drift:       exitDrift,
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
	var f fail.Failure
	switch {
	case errors.As(err, &f):
		code := f.FailCode()
		exit, ok := exitCodes[code]
		if !ok {
			exit = exitFailed
		}
		r.Code, r.ExitCode, r.Hints, r.Lines = string(code), exit, hints(f), stderrLines(f)
		errorFields(f, r.Details)
	case errors.Is(err, context.Canceled):
		r.Code, r.ExitCode, r.Message = "interrupted", 130, "interrupted"
	default:
		r.Code, r.ExitCode = "error", exitFailed
	}
	return r
}

// errorFields adds to d the fields failure f adds to the JSON error
// document (see EXIT STATUS and JSON OUTPUT in mcpx(1)).
func errorFields(f fail.Failure, d map[string]any) {
	switch e := f.(type) {
	case *fail.Error:
		generalFields(e, d)
	case *fail.TimeoutError:
		d["phase"] = e.Phase
		if e.Pid > 0 {
			d["pid"] = e.Pid
		}
	case *fail.AuthError:
		authFields(e, d)
	case *limits.Error:
		var bytes any
		if e.Value != 0 {
			bytes = e.Value
		}
		d["limit"] = map[string]any{"name": e.Limit, "bytes": bytes}
	case *render.BadContentError:
		if e.Item >= 0 {
			d["item"] = e.Item
		}
	}
}

// generalFields are the fields of a *fail.Error: the server's error reply,
// what does exist, and what the failure is about where that is a field of
// its own.
func generalFields(e *fail.Error, d map[string]any) {
	if e.RPC != nil {
		d["rpc"] = e.RPC
	}
	if e.Candidates != nil {
		d["candidates"] = e.Candidates
	}
	switch {
	case e.What == "variable":
		d["variable"] = e.Name
	case e.What == "file" && e.Code == fail.Conflict:
		d["file"] = e.Name
	case e.What == "task" && e.Code == fail.ServerError:
		d["task_id"], d["status"] = e.Name, e.Status
	}
	if e.Code == fail.Usage && e.Server != "" { // a config error in a server's entry
		d["server"] = e.Server
	}
	maps.Copy(d, e.Details)
}

// authFields are the fields of an authentication failure: the resource
// metadata URL, the HTTP status, the scopes a 403 requires, and what mcpx
// had.
func authFields(e *fail.AuthError, d map[string]any) {
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
