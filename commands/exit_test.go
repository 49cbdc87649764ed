package commands

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/client/auth"
	"github.com/mcpx-cli/mcpx/client/config"
	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/output"
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
		{&transport.ConnectError{Msg: "x"}, 0, 3, "connection"},
		{fmt.Errorf("wrapped: %w", &config.NotFoundError{What: "server"}), 0, 4, "not_found"},
		{&client.UnsupportedError{What: "prompts"}, 0, 5, "unsupported"},
		{&auth.Error{Status: 401}, 0, 6, "auth"},
		{&client.TimeoutError{Phase: "initialize"}, 0, 7, "timeout"},
		{&transport.LimitError{Limit: "message ceiling", Value: 1}, 0, 8, "limit"},
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
