package daemon

import (
	"context"
	"errors"
	"net"
)

// Supported reports whether warm connections work on this platform: not
// on Windows yet (see WARM CONNECTIONS in mcpx(1)).
const Supported = false

// ErrUnsupported is keep-alive asked for where there is no daemon.
var ErrUnsupported = errors.New("warm connections (--keep-alive) are not supported on Windows yet")

// Env: see the Unix version.
type Env struct {
	Getenv  func(string) string
	Environ []string
	Version string
	Self    string
}

// ServeOptions: see the Unix version.
type ServeOptions struct {
	Getenv  func(string) string
	Version string
}

// Attach is unsupported on Windows.
func Attach(context.Context, Env, Hello) (net.Conn, *Reply, error) { return nil, nil, ErrUnsupported }

// Ask is unsupported on Windows: no daemon runs.
func Ask(context.Context, Env, Hello) (*Reply, bool, error) { return nil, false, nil }

// Serve is unsupported on Windows.
func Serve(context.Context, ServeOptions) error { return ErrUnsupported }

// Methods of the daemon's own notifications (see the Unix version).
const (
	MethodStderr  = "notifications/mcpx/stderr"
	MethodLost    = "notifications/mcpx/lost"
	MethodFlush   = "mcpx/flush"
	MethodSkipped = "notifications/mcpx/skipped"
	ErrStart      = "start: "
)
