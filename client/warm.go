package client

// Warm connections: a stdio server held by the mcpx daemon (see WARM
// CONNECTIONS in mcpx(1), and internal/daemon). The connection is made as
// any other, over a transport that is the daemon's socket instead of the
// server's pipes: the handshake, the operations, the server's requests and
// every error are handled here exactly as for a one-shot connection.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/client/config"
	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/daemon"
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
	// environment or the config, where the platform has no daemon).
	Required bool
}

// UnsupportedWarmError is keep-alive asked for on the command line where
// the platform has no daemon (exit 2).
type UnsupportedWarmError struct{ Err error }

func (e *UnsupportedWarmError) Error() string { return e.Err.Error() }

// ErrorCode: a usage error, as --keep-alive is where warm connections are
// not supported at all.
func (e *UnsupportedWarmError) ErrorCode() string { return "usage" }

func (e *UnsupportedWarmError) ErrorDetails() map[string]any { return nil }

// Warm reports whether the connection is a warm one: held by the mcpx
// daemon, it outlives this process (a detached task stays reachable).
func (c *Conn) Warm() bool { return c.warm }

// oneShotFallback: the daemon could not start the server; the connection
// is made one-shot instead, for the error a one-shot connection gives.
var errOneShot = errors.New("connect one-shot")

// openWarm attaches to the daemon's connection to c's target and returns
// the socket as a transport.
func (c *Conn) openWarm(ctx context.Context, o Options) (mcptransport.Interface, error) {
	w := o.Warm
	t := c.T
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
		Identity: c.identity(o)}
	if c.kind != config.Stdio {
		spec = &daemon.Spec{Name: t.Name, Transport: c.kind, URL: t.URL, Headers: t.Headers,
			MessageCeiling: o.MessageCeiling, Secrets: t.Secrets, Identity: c.identity(o)}
	}
	hello := daemon.Hello{Spec: spec, KeepAlive: w.KeepAlive, Refresh: w.Refresh, Verbose: o.OnStderr != nil}
	if c.kind != config.Stdio && c.tokens != nil {
		// The credential identity is the token store's entry (in the
		// target); the token itself goes with each attach, refreshed here.
		if b := c.tokens.Bearer(); b != "" {
			hello.Bearer = b
			spec.Secrets = append(spec.Secrets, b)
			spec.Identity = append(spec.Identity, "credential "+t.TokenDir+" "+t.URL)
		}
	}
	nc, rep, err := daemon.Attach(ctx, daemon.Env{Getenv: w.Getenv, Environ: w.Environ, Version: w.Version}, hello)
	if err != nil {
		if ctx.Err() != nil {
			return nil, c.classify(ctx, "start", ctx.Err())
		}
		if errors.Is(err, daemon.ErrStart) {
			return nil, errOneShot
		}
		if errors.Is(err, daemon.ErrUnsupported) {
			if w.Required {
				return nil, &UnsupportedWarmError{Err: err}
			}
			return nil, errOneShot
		}
		return nil, &transport.ConnectError{Server: t.Name, Phase: "start", Msg: "cannot reach the mcpx daemon: " + c.shown(err.Error()), Err: err}
	}
	if rep.Note != "" && o.Note != nil {
		o.Note("%s", c.shown(rep.Note))
	}
	c.warm = true
	lost := c.lost
	in := &socketReader{r: nc, end: func() { lost.mark("the mcpx daemon closed the connection") }}
	st := transport.NewStdio(in, nc, transport.StdioOptions{MessageCeiling: o.MessageCeiling, Limit: c.limit,
		Mask: o.Mask, MaskIn: o.MaskIn, Logger: o.Logger})
	wt := &warmTransport{Stdio: st, conn: c, onStderr: o.OnStderr, debug: o.Debug, fails: map[string]chan error{}}
	// The daemon's own notifications are taken from the first byte on,
	// before mcp-go sets its handler.
	st.SetNotificationHandler(wt.notification)
	if c.kind != config.Stdio {
		// Stands in for the HTTP transport the daemon holds: what it met
		// (a 401 and its challenge) is recorded here for the errors.
		c.rt = transport.NewHTTP(transport.HTTPOptions{URL: t.URL, MessageCeiling: o.MessageCeiling, Limit: c.limit})
		wt.headers = true
		return &warmHTTPTransport{warmTransport: wt}, nil
	}
	return wt, nil
}

// warmHTTPTransport is the daemon's socket standing in for an HTTP or SSE
// transport: it takes the protocol version mcp-go's client negotiates, and
// each request's HTTP headers go to the daemon with it (see
// warmTransport.SendRequest).
type warmHTTPTransport struct {
	*warmTransport
}

var _ mcptransport.HTTPConnection = (*warmHTTPTransport)(nil)

// SetProtocolVersion records the version an HTTP transport would send in
// its Mcp-Protocol-Version header.
func (w *warmHTTPTransport) SetProtocolVersion(v string) {
	w.vmu.Lock()
	w.version = v
	w.vmu.Unlock()
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

// socketReader calls end once when the daemon's socket ends.
type socketReader struct {
	r    io.Reader
	once sync.Once
	end  func()
}

func (s *socketReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil {
		s.once.Do(s.end)
		if errors.Is(err, net.ErrClosed) {
			err = io.EOF // closed by Close: the end of the stream
		}
	}
	return n, err
}

// warmTransport is the daemon's socket as a stdio transport; the daemon's
// own notifications (the server's stderr lines, its death) are handled
// here and never reach mcp-go.
type warmTransport struct {
	*transport.Stdio
	conn     *Conn
	onStderr func(string)
	debug    func(string, ...any)

	hmu sync.RWMutex
	h   func(mcp.JSONRPCNotification) // mcp-go's

	fmu   sync.Mutex
	fails map[string]chan error // requests in flight, for MethodFailed

	// headers: each request's HTTP headers, and the protocol version,
	// go to the daemon before it (an HTTP or SSE server's).
	headers bool
	vmu     sync.Mutex
	version string
}

// sendHeaders announces req's HTTP headers to the daemon (MethodHeaders):
// those the caller made (the 2026-07-28 era's Mcp-Method, Mcp-Name and
// Mcp-Param-*), and Mcp-Protocol-Version, which an HTTP transport sets
// itself. The daemon's transport adds the target's own.
func (w *warmTransport) sendHeaders(ctx context.Context, req mcptransport.JSONRPCRequest) error {
	w.vmu.Lock()
	version := w.version
	w.vmu.Unlock()
	h := req.Header.Clone()
	if version != "" {
		if h == nil {
			h = http.Header{}
		}
		h.Set(mcptransport.HeaderKeyProtocolVersion, version)
	}
	if len(h) == 0 {
		return nil
	}
	return w.Stdio.SendNotification(ctx, mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: daemon.MethodHeaders, Params: mcp.NotificationParams{AdditionalFields: map[string]any{"id": req.ID, "headers": h}}}})
}

// SendRequest sends req through the daemon; a MethodFailed for it ends it
// with the error the daemon met.
func (w *warmTransport) SendRequest(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
	key := req.ID.String()
	ch := make(chan error, 1)
	w.fmu.Lock()
	w.fails[key] = ch
	w.fmu.Unlock()
	defer func() {
		w.fmu.Lock()
		delete(w.fails, key)
		w.fmu.Unlock()
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if w.headers && req.Method != daemon.MethodFlush {
		if err := w.sendHeaders(ctx, req); err != nil {
			return nil, err
		}
	}
	type result struct {
		resp *mcptransport.JSONRPCResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := w.Stdio.SendRequest(ctx, req)
		done <- result{resp, err}
	}()
	select {
	case r := <-done:
		return r.resp, r.err
	case err := <-ch:
		return nil, err
	}
}

// failed ends the request a MethodFailed names.
func (w *warmTransport) failed(n mcp.JSONRPCNotification) {
	f := n.Params.AdditionalFields
	raw, _ := json.Marshal(f["id"])
	var id mcp.RequestId
	if json.Unmarshal(raw, &id) != nil {
		return
	}
	var err error
	if how, _ := f["broken"].(string); how != "" {
		err = &brokenReplyError{How: how}
	} else {
		msg, _ := f["message"].(string)
		err = errors.New(msg)
	}
	w.auth(f)
	w.fmu.Lock()
	ch := w.fails[id.String()]
	w.fmu.Unlock()
	if ch != nil {
		select {
		case ch <- err:
		default:
		}
	}
}

func (w *warmTransport) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	w.hmu.Lock()
	w.h = h
	w.hmu.Unlock()
}

func (w *warmTransport) notification(n mcp.JSONRPCNotification) {
	str := func(k string) string {
		v, _ := n.Params.AdditionalFields[k].(string)
		return v
	}
	switch n.Method {
	case daemon.MethodStderr:
		line := str("line")
		w.conn.addStderr(line)
		if w.onStderr != nil {
			w.onStderr(line)
		}
	case daemon.MethodSkipped:
		if w.debug != nil {
			w.debug("server %q: skipped a non-JSON line on stdout: %s", w.conn.T.Name, str("line"))
		}
	case daemon.MethodFailed:
		w.failed(n)
	case daemon.MethodOneShot:
		// The daemon's connection to an http or sse server failed its
		// handshake: Connect connects again one-shot, unless the server
		// refused it (401, 403): then the requests fail with that.
		if w.auth(n.Params.AdditionalFields) {
			w.failAll(errors.New(str("why")))
			return
		}
		if st, ok := n.Params.AdditionalFields["first_post"].(float64); ok {
			w.conn.warmFirstPost.Store(int64(st))
		}
		w.conn.warmRetry.Store(true)
		w.conn.lost.mark(str("why"))
	case daemon.MethodLost:
		if tail, ok := n.Params.AdditionalFields["stderr"].([]any); ok {
			w.conn.mu.Lock()
			w.conn.warmStderr = w.conn.warmStderr[:0]
			for _, l := range tail {
				if s, ok := l.(string); ok {
					w.conn.warmStderr = append(w.conn.warmStderr, s)
				}
			}
			w.conn.mu.Unlock()
		}
		// What the daemon's framer met is this connection's, as if its own
		// framer had met it (exit 8 for a limit, 3 for a violation).
		if v := str("violation"); v != "" {
			w.conn.limit.SetViolation(v)
		}
		if l, ok := n.Params.AdditionalFields["limit"].(map[string]any); ok {
			e := &transport.LimitError{}
			e.Limit, _ = l["limit"].(string)
			e.Msg, _ = l["msg"].(string)
			if v, ok := l["value"].(float64); ok {
				e.Value = int64(v)
			}
			w.conn.limit.Set(e)
		}
		w.conn.lost.mark(str("why"))
	default:
		w.hmu.RLock()
		h := w.h
		w.hmu.RUnlock()
		if h != nil {
			h(n)
		}
	}
}

// warmStderrLines bounds the server's stderr lines a warm connection keeps
// (the tail an error quotes).
const warmStderrLines = 10

func (c *Conn) addStderr(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.warmStderr = append(c.warmStderr, line)
	if len(c.warmStderr) > warmStderrLines {
		c.warmStderr = c.warmStderr[len(c.warmStderr)-warmStderrLines:]
	}
}

// flushStderr asks the daemon for what the server wrote on stderr during
// the call, before the connection closes (-v).
func (c *Conn) flushStderr() {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, _ = c.tap.inner.SendRequest(ctx, mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: c.tap.nextID(), Method: daemon.MethodFlush})
}

// auth records the 401 or 403 the daemon met, if the params say so.
func (w *warmTransport) auth(f map[string]any) bool {
	st, ok := f["auth_status"].(float64)
	if !ok || w.conn.rt == nil {
		return false
	}
	var challenge []string
	if l, ok := f["challenge"].([]any); ok {
		for _, v := range l {
			if s, ok := v.(string); ok {
				challenge = append(challenge, s)
			}
		}
	}
	w.conn.rt.SetAuth(int(st), challenge)
	return true
}

// failAll ends every request in flight with err.
func (w *warmTransport) failAll(err error) {
	w.fmu.Lock()
	defer w.fmu.Unlock()
	for _, ch := range w.fails {
		select {
		case ch <- err:
		default:
		}
	}
}
