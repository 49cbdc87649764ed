package commands

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/output"
	"github.com/mcpx-cli/mcpx/render"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		sig  syscall.Signal
		code int
		name string
	}{
		{&fail.Error{Code: fail.Usage, Message: "x"}, 0, 2, "usage"},
		{fail.New(fail.Usage, "", "x"), 0, 2, "usage"},
		{ambiguous("x", []string{"tool:x", "prompt:x"}), 0, 2, "usage"},
		{&fail.ConnectError{Msg: "x"}, 0, 3, "connection"},
		{fmt.Errorf("wrapped: %w", fail.Unknown("server", "x", "")), 0, 4, "not_found"},
		{client.Unsupported("s", "prompts"), 0, 5, "unsupported"},
		{&fail.AuthError{Status: 401}, 0, 6, "auth"},
		{&fail.TimeoutError{Phase: "initialize"}, 0, 7, "timeout"},
		{&limits.Error{Limit: "message ceiling", Value: 1}, 0, 8, "limit"},
		{&fail.Error{Code: fail.NoMatch, What: "--select", Name: "x"}, 0, 9, "no_match"},
		{&fail.Error{Code: fail.ServerError, What: "method", RPC: &fail.RPCError{}}, 0, 1, "server_error"},
		{client.TaskEnded("s", "t", client.TaskFailed, "m", nil), 0, 1, "server_error"},
		{strictWarnings(2), 0, 1, "strict"},
		{probeFailed([]string{"a"}), 0, 1, "strict"},
		{toolError("s", "t"), 0, 1, "tool_error"},
		{noWarm([]string{"a"}, false), 0, 4, "not_found"},
		{context.Canceled, syscall.SIGINT, 130, "interrupted"},
		{context.Canceled, syscall.SIGTERM, 143, "interrupted"},
		{nil, syscall.SIGHUP, 129, "interrupted"},
		{fmt.Errorf("write: %w", output.ErrStdoutClosed), 0, 141, ""},
		{&fail.ConnectError{Msg: "x", Err: syscall.EPIPE}, 0, 3, "connection"},
		{errors.New("something else"), 0, 1, "error"},
	} {
		var r output.ErrorReport
		if tc.sig != 0 {
			r = classify(tc.err, tc.sig)
		} else {
			r = classify(tc.err, nil)
		}
		if r.ExitCode != tc.code || r.Code != tc.name {
			t.Errorf("%T %v: got %d %q, want %d %q", tc.err, tc.err, r.ExitCode, r.Code, tc.code, tc.name)
		}
	}
}

// TestClassifyDetails: each error type carries its own JSON details, and
// the two layers that meet a limit share one type.
func TestClassifyDetails(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&limits.Error{Limit: "message ceiling", Value: 1024, Msg: "x"}, `{"limit":{"bytes":1024,"name":"message ceiling"}}`},
		{&limits.Error{Limit: "spill directory", Msg: "x"}, `{"limit":{"bytes":null,"name":"spill directory"}}`},
		{&render.BadContentError{Item: 2, Msg: "x", Server: "s", Method: "resources/read"}, `{"item":2}`},
		{&render.BadContentError{Item: -1, Msg: "x"}, `{}`},
		{&fail.TimeoutError{Phase: "tools/call"}, `{"phase":"tools/call"}`},
		{&fail.Error{Code: fail.ServerError, What: "method", RPC: &fail.RPCError{Code: -32000, Message: "m"}}, `{"rpc":{"code":-32000,"message":"m","data":null}}`},
		{client.TaskEnded("s", "t", "cancelled", "m", nil), `{"status":"cancelled","task_id":"t"}`},
		{client.TaskEnded("s", "t", client.TaskFailed, "m", &fail.RPCError{Code: 1, Message: "m"}), `{"rpc":{"code":1,"message":"m","data":null},"status":"failed","task_id":"t"}`},
		{fail.Unknown("task", "t", ""), `{}`},
		{client.Unsupported("s", "prompts"), `{}`},
		{&fail.AuthError{Status: 403, Scope: "a b", Token: "rejected"}, `{"scopes":["a","b"],"status":403,"token":"rejected"}`},
		{&fail.AuthError{Status: 403, Scope: "b c", Granted: "a b"}, `{"login_scopes":["a","b","c"],"scopes":["b","c"],"status":403}`},
		{&fail.Error{Code: fail.Usage, Server: "s", What: "variable", Name: "V", Message: "x"}, `{"server":"s","variable":"V"}`},
		{&fail.Error{Code: fail.NotFound, What: "task", Name: "t", RPC: &fail.RPCError{Code: -32602, Message: "m"}, Candidates: []string{}}, `{"candidates":[],"rpc":{"code":-32602,"message":"m","data":null}}`},
		{&fail.Error{Code: fail.Conflict, What: "file", Name: "/c.json"}, `{"file":"/c.json"}`},
		{ambiguous("x", []string{"tool:x"}), `{"candidates":["tool:x"]}`},
		{probeFailed([]string{"a", "b"}), `{"failed":["a","b"]}`},
		{noWarm([]string{"a"}, true), `{"servers":["a"]}`},
		{toolError("s", "t"), `{}`},
		{strictWarnings(1), `{}`},
		{&fail.Error{Code: fail.Usage, Message: "x", Details: map[string]any{"allowed": []string{"a"}}}, `{"allowed":["a"]}`},
	} {
		r := classify(tc.err, nil)
		got, err := output.Marshal(r.Details)
		if err != nil || string(got) != tc.want {
			t.Errorf("%T: details %s (%v), want %s", tc.err, got, err, tc.want)
		}
	}
}

// TestExitCodesCoverEveryFailure: a failure whose code is missing from
// exitCodes would exit 1 silently; every code of internal/fail is listed
// here, and the typed failures say theirs.
func TestExitCodesCoverEveryFailure(t *testing.T) {
	for _, code := range []fail.Code{
		fail.Usage, fail.Connection, fail.NotFound, fail.Unsupported, fail.Auth, fail.Timeout,
		fail.Limit, fail.NoMatch, fail.ServerError, fail.BadContent, fail.ToolError, fail.Strict, fail.Conflict,
		fail.NeedsInput, fail.Denied,
	} {
		if _, ok := exitCodes[code]; !ok {
			t.Errorf("code %q has no exit status", code)
		}
	}
	for _, f := range []fail.Failure{&fail.TimeoutError{}, &fail.AuthError{}, &fail.ConnectError{}, &limits.Error{}, &render.BadContentError{}} {
		if _, ok := exitCodes[f.FailCode()]; !ok {
			t.Errorf("%T: code %q has no exit status", f, f.FailCode())
		}
	}
}
