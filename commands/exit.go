package commands

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"
	"syscall"

	"github.com/mcpx-cli/mcpx/output"
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

// UsageError is a bad flag, argument or combination (exit 2).
type UsageError struct {
	Msg     string
	Hints   []string
	Details map[string]any
}

func (e *UsageError) Error() string { return e.Msg }

// ErrorCode is error.code under --json.
func (e *UsageError) ErrorCode() string { return "usage" }

// ErrorDetails are the error's fields under --json.
func (e *UsageError) ErrorDetails() map[string]any { return e.Details }

func usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// StrictError: --strict turned warnings into a failure (exit 1), or a
// command that is always strict (snapshot) met some; What says which.
type StrictError struct {
	N    int
	What string // "" for --strict
}

func (e *StrictError) Error() string {
	if e.What != "" {
		return e.What + " (" + count(e.N, "warning") + ")"
	}
	return "--strict: " + count(e.N, "warning")
}

// ErrorCode is error.code under --json.
func (e *StrictError) ErrorCode() string { return "strict" }

// ErrorDetails: none.
func (e *StrictError) ErrorDetails() map[string]any { return nil }

// failure is an error that says which failure of EXIT STATUS in mcpx(1) it
// is: its code (error.code under --json) and the fields it adds to the
// JSON error document. Every error type of mcpx is one; what would help
// is worded here, in commands (see hints).
type failure interface {
	error
	ErrorCode() string
	ErrorDetails() map[string]any
}

// exitCodes maps each failure's code to its exit status.
var exitCodes = map[string]int{
	"usage":        exitUsage,
	"connection":   exitConnection,
	"not_found":    exitNotFound,
	"unsupported":  exitUnsupported,
	"auth":         exitAuth,
	"timeout":      exitTimeout,
	"limit":        exitLimit,
	"drift":        exitDrift,
	"no_match":     exitNoMatch,
	"server_error": exitFailed,
	"bad_content":  exitFailed,
	"tool_error":   exitFailed,
	"strict":       exitFailed,
	"needs_input":  exitNeedsInput,
	"denied":       exitDenied,
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
	var f failure
	switch {
	case errors.As(err, &f):
		exit, ok := exitCodes[f.ErrorCode()]
		if !ok {
			exit = exitFailed
		}
		r.Code, r.ExitCode, r.Hints, r.Lines = f.ErrorCode(), exit, hints(f), stderrLines(f)
		maps.Copy(r.Details, f.ErrorDetails())
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

// ErrorCode is error.code under --json.
func (e *AmbiguousError) ErrorCode() string { return "usage" }

// ErrorDetails are the error's fields under --json: the items it names.
func (e *AmbiguousError) ErrorDetails() map[string]any {
	return map[string]any{"candidates": e.Candidates}
}
