package commands

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/client/auth"
	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/config"
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
		{&UsageError{Msg: "x"}, 0, 2, "usage"},
		{&config.Error{Msg: "x"}, 0, 2, "usage"},
		{&AmbiguousError{ID: "x", Candidates: []string{"tool:x", "prompt:x"}}, 0, 2, "usage"},
		{&client.UnsupportedWarmError{Err: errors.New("x")}, 0, 2, "usage"},
		{&transport.ConnectError{Msg: "x"}, 0, 3, "connection"},
		{fmt.Errorf("wrapped: %w", &config.NotFoundError{What: "server"}), 0, 4, "not_found"},
		{&client.UnsupportedError{What: "prompts"}, 0, 5, "unsupported"},
		{&auth.Error{Status: 401}, 0, 6, "auth"},
		{&client.TimeoutError{Phase: "initialize"}, 0, 7, "timeout"},
		{&limits.Error{Limit: "message ceiling", Value: 1}, 0, 8, "limit"},
		{&output.NoMatchError{Path: "x"}, 0, 9, "no_match"},
		{&client.ServerError{}, 0, 1, "server_error"},
		{&StrictError{N: 2}, 0, 1, "strict"},
		{context.Canceled, syscall.SIGINT, 130, "interrupted"},
		{context.Canceled, syscall.SIGTERM, 143, "interrupted"},
		{nil, syscall.SIGHUP, 129, "interrupted"},
		{fmt.Errorf("write: %w", output.ErrStdoutClosed), 0, 141, ""},
		{&transport.ConnectError{Msg: "x", Err: syscall.EPIPE}, 0, 3, "connection"},
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
		{&client.TimeoutError{Phase: "tools/call"}, `{"phase":"tools/call"}`},
		{&client.ServerError{RPC: transport.RPCError{Code: -32000, Message: "m"}}, `{"rpc":{"code":-32000,"message":"m","data":null}}`},
		{&client.UnsupportedError{What: "prompts"}, `{}`},
		{&auth.Error{Status: 403, Scope: "a b", Token: "rejected"}, `{"scopes":["a","b"],"status":403,"token":"rejected"}`},
		{&config.Error{Server: "s", Var: "V", Msg: "x"}, `{"server":"s","variable":"V"}`},
		{&AmbiguousError{ID: "x", Candidates: []string{"tool:x"}}, `{"candidates":["tool:x"]}`},
		{&UsageError{Msg: "x", Details: map[string]any{"allowed": []string{"a"}}}, `{"allowed":["a"]}`},
	} {
		r := classify(tc.err, nil)
		got, err := output.Marshal(r.Details)
		if err != nil || string(got) != tc.want {
			t.Errorf("%T: details %s (%v), want %s", tc.err, got, err, tc.want)
		}
	}
}

// TestExitCodesCoverEveryFailure: a failure whose code is missing from
// exitCodes would exit 1 silently; every error type of mcpx is listed here.
func TestExitCodesCoverEveryFailure(t *testing.T) {
	for _, f := range []failure{
		&UsageError{}, &StrictError{}, &AmbiguousError{}, &ToolError{},
		&config.Error{}, &config.NotFoundError{}, &auth.Error{},
		&client.TimeoutError{}, &client.ServerError{}, &client.UnsupportedError{},
		&client.BadReplyError{}, &transport.ConnectError{}, &limits.Error{},
		&render.BadContentError{}, &output.NoMatchError{},
	} {
		if _, ok := exitCodes[f.ErrorCode()]; !ok {
			t.Errorf("%T: code %q has no exit status", f, f.ErrorCode())
		}
	}
}
