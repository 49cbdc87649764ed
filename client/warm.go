package client

// Warm connections: a server held by the mcpx daemon (see WARM
// CONNECTIONS in mcpx(1), and internal/daemon). The connection is made as
// any other, over a transport that is the daemon's socket (daemon.Open)
// instead of the server's pipes or HTTP client: the handshake, the
// operations, the server's requests and every error are handled here
// exactly as for a one-shot connection. What is the daemon's to say (the
// server's stderr, its death, a handshake to make again one-shot) comes
// through warmEvents.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"sync"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/ascaller"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/daemon"
	"github.com/mcpx-cli/mcpx/internal/fail"
)

// Warm asks for a warm connection.
type Warm struct {
	KeepAlive time.Duration // idle time of the connection once no mcpx uses it
	Refresh   bool          // ignore cached listings
	Getenv    func(string) string
	Environ   []string
	Version   string
	// Required: a failure to reach the daemon is an error (--keep-alive),
	// else the connection is made one-shot (keep-alive from the
	// environment, the config or completion).
	Required bool
	// OnFallback, when set, is told why a daemon that is not Required
	// cannot be used, before the connection is made one-shot (the
	// command's one note). Not called where the platform has no daemon.
	OnFallback func(why string)
	// MaxWarm bounds the targets the daemon holds ("maxWarm"; 0: the
	// daemon's default).
	MaxWarm int
	// Existing: use the warm connection the daemon holds to the target,
	// alive, and never start one (nor the daemon): a task command, whose
	// task a new server cannot know. None is ErrNoWarmTarget.
	Existing bool
	// Listings are the listings (KindTool, ...) the command will ask for:
	// the daemon sends their pages it has cached with its reply, and no
	// round trip is made for them.
	Listings []string
}

// ErrNoWarmTarget: Warm.Existing asked for the daemon's connection to a
// target, and no daemon holds one.
var ErrNoWarmTarget = errors.New("no warm connection to the server is open")

// Warm reports whether the connection is a warm one: held by the mcpx
// daemon, it outlives this process (a detached task stays reachable).
func (c *Conn) Warm() bool { return c.warm }

// errOneShot: the daemon could not start the server; the connection is
// made one-shot instead, for the error a one-shot connection gives.
var errOneShot = errors.New("connect one-shot")

// openWarm attaches to the daemon's connection to c's target and returns
// the socket as a transport.
func (c *Conn) openWarm(ctx context.Context, o Options) (mcptransport.Interface, error) {
	w, t := o.Warm, c.T
	c.warmStderr = &stderrTail{}
	tr, rep, err := daemon.Open(ctx, daemon.CallerOptions{
		Env:   daemon.Env{Getenv: w.Getenv, Environ: w.Environ, Version: w.Version},
		Hello: c.warmHello(o),
		Stdio: transport.StdioOptions{MessageCeiling: o.MessageCeiling, Limit: c.limit,
			Secrets: o.Secrets, Logger: o.Logger},
		Events: &warmEvents{conn: c, lost: c.lost, onStderr: o.OnStderr, debug: o.Debug, note: o.Note},
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, c.classify(ctx, "start", ctx.Err())
		}
		if w.Existing {
			// Whatever keeps the daemon from answering, it holds no
			// connection this process can use.
			return nil, ErrNoWarmTarget
		}
		if errors.Is(err, daemon.ErrStart) {
			return nil, errOneShot
		}
		if errors.Is(err, daemon.ErrUnsupported) {
			if w.Required {
				// keep-alive asked for on the command line where the platform has
				// no daemon: a usage error, as --keep-alive is where warm
				// connections are not supported at all.
				return nil, fail.New(fail.Usage, "", err.Error())
			}
			return nil, errOneShot
		}
		if !w.Required {
			// Nobody asked for this daemon on the command line: whatever
			// keeps it from being used (no private directory, a daemon
			// that does not start, or drains), the call is made one-shot.
			if w.OnFallback != nil {
				w.OnFallback(c.shown(err.Error()))
			}
			return nil, errOneShot
		}
		return nil, &fail.ConnectError{Server: t.Name, Phase: "start", Msg: "cannot reach the mcpx daemon: " + c.shown(err.Error()), Err: err}
	}
	if rep.Note != "" && o.Note != nil {
		o.Note("%s", c.shown(rep.Note))
	}
	c.warm = true
	if c.kind != config.Stdio {
		// Stands in for the HTTP transport the daemon holds: what it met
		// (a 401 and its challenge) is recorded here for the errors.
		c.rt = transport.NewHTTP(transport.HTTPOptions{URL: t.URL, MessageCeiling: o.MessageCeiling, Limit: c.limit})
	}
	return tr, nil
}

// warmHello is the attach of c's target: the resolved entry (a stdio
// server's command, environment and directory, or an http or sse server's
// URL and headers), what else makes the connection (identity), what of
// this process the connection is made as (a stdio server's umask and
// resource limits, an http or sse server's proxy and CA variables), and
// how long it stays.
func (c *Conn) warmHello(o Options) daemon.Hello {
	w, t := o.Warm, c.T
	dir := t.Dir
	if dir == "" && c.kind == config.Stdio {
		// A one-shot server runs in mcpx's directory: so does a warm one,
		// and another directory is another target.
		if wd, err := os.Getwd(); err == nil {
			dir = wd
		}
	}
	spec := &daemon.Spec{Name: t.Name, Transport: "stdio", Command: t.Command, Argv0: t.Argv0, Args: t.Args,
		Env: t.Env, Dir: dir, MessageCeiling: o.MessageCeiling, Secrets: t.Secrets,
		Identity: c.identity(o), AsCaller: ascaller.Capture()}
	if c.kind != config.Stdio {
		spec = &daemon.Spec{Name: t.Name, Transport: c.kind, URL: t.URL, Headers: t.Headers,
			MessageCeiling: o.MessageCeiling, Secrets: t.Secrets, Identity: c.identity(o),
			NetEnv: daemon.NetEnv(w.Environ)}
	}
	hello := daemon.Hello{Spec: spec, KeepAlive: w.KeepAlive, Refresh: w.Refresh, MaxWarm: w.MaxWarm, Existing: w.Existing}
	for _, k := range w.Listings {
		if spec, ok := listSpecs[k]; ok {
			hello.Listings = append(hello.Listings, spec.method)
		}
	}
	if c.kind != config.Stdio && c.tokens != nil {
		// The credential identity is the token store's entry (in the
		// target); the token itself goes with each attach, refreshed here.
		if b := c.tokens.Bearer(); b != "" {
			hello.Bearer = b
			spec.Secrets = append(spec.Secrets, b)
			spec.Identity = append(spec.Identity, "credential "+t.TokenDir+" "+t.URL)
		}
	}
	return hello
}

// identity is what, besides the server entry, makes the connection what it
// is: the protocol version, the roots and the capabilities offered.
func (c *Conn) identity(o Options) []string {
	id := []string{"protocol " + o.ProtocolVersion}
	caps, _ := json.Marshal(c.hooks.capabilities(c.kind))
	id = append(id, "capabilities "+string(caps))
	for _, r := range o.Roots {
		id = append(id, "root "+r.URI)
	}
	return id
}

// warmStderrLines bounds the server's stderr lines a warm connection keeps
// (the tail an error quotes).
const warmStderrLines = 10

// stderrTail is the tail of a warm server's stderr: the lines the daemon
// sent, or those it quoted when the server died.
type stderrTail struct {
	mu    sync.Mutex
	lines []string
}

func (t *stderrTail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > warmStderrLines {
		t.lines = t.lines[len(t.lines)-warmStderrLines:]
	}
}

func (t *stderrTail) set(lines []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines[:0], lines...)
}

// last returns (a copy of) the last n lines.
func (t *stderrTail) last(n int) []string {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.lines[max(len(t.lines)-n, 0):]...)
}

// flushStderr asks the daemon for what the server wrote on stderr during
// the call, before the connection closes (-v).
func (c *Conn) flushStderr() {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, _ = c.tap.inner.SendRequest(ctx, mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: c.tap.nextID(), Method: daemon.MethodFlush})
}

// warmEvents takes what the daemon says of c's connection besides the
// server's messages (see daemon.Events).
type warmEvents struct {
	conn     *Conn
	lost     *lostSignal // the connection's own (see lostSignal)
	onStderr func(string)
	debug    func(string, ...any)
	note     func(string, ...any)
}

func (e *warmEvents) Stderr(line string) {
	e.conn.warmStderr.add(line)
	if e.onStderr != nil {
		e.onStderr(line)
	}
}

func (e *warmEvents) Skipped(line string) {
	if e.debug != nil {
		e.debug("server %q: skipped a non-JSON line on stdout: %s", e.conn.T.Name, line)
	}
}

// Auth records the 401 or 403 the daemon met for the errors.
func (e *warmEvents) Auth(status int, challenge []string) {
	if e.conn.rt != nil {
		e.conn.rt.SetAuth(status, challenge)
	}
}

func (e *warmEvents) BrokenReply(how string) error { return brokenReply(how) }

// OneShot: Connect connects again one-shot (or over SSE, see
// connectFallback).
func (e *warmEvents) OneShot(why string, firstPost int) {
	e.conn.warmFirstPost.Store(int64(firstPost))
	e.conn.warmRetry.Store(true)
	e.conn.lost.mark(why)
}

func (e *warmEvents) Lost(l daemon.Lost) {
	c := e.conn
	if l.Stderr != nil {
		c.warmStderr.set(l.Stderr)
	}
	// What the daemon's framer met is this connection's, as if its own
	// framer had met it (exit 8 for a limit, 3 for a violation).
	if l.Violation != "" {
		c.limit.SetViolation(l.Violation)
	}
	if l.Limit != nil {
		c.limit.Set(l.Limit)
	}
	c.lost.mark(l.Why)
}

// Note shows the daemon's note (a server that died since the last call:
// the connection goes on with a new one).
func (e *warmEvents) Note(note string) {
	if e.note != nil {
		e.note("%s", e.conn.shown(note))
	}
}

func (e *warmEvents) Closed() { e.lost.mark("the mcpx daemon closed the connection") }
