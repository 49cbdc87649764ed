package daemon

// A session is one target: its server started (or its HTTP client set
// up), its callers, its death (lost), and its stop.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/client/transport"
)

// session is one target: its server and the callers attached to it.
type session struct {
	d    *daemon
	spec *Spec
	key  string                              // spec.Key()
	proc *transport.Process                  // a stdio server's (nil for HTTP and SSE)
	tr   mcptransport.Interface              // the server's pipes, or its HTTP client
	bidi mcptransport.BidirectionalInterface // tr, when it carries server requests
	rt   *transport.HTTP                     // an HTTP or SSE server's round tripper
	// life is the connection's: it ends with it (an SSE endpoint awaited
	// at start, the SSE stream)
	life    context.Context
	endLife context.CancelFunc
	limit   *transport.Limit
	cache   *Cache
	since   time.Time

	// ready is closed once the server is started (or failed to start:
	// startErr): the session is in d.sessions from the first attach on, so
	// that concurrent attaches of the target wait for one start, and no
	// lock is held meanwhile.
	ready    chan struct{}
	startErr error

	lastUse atomic.Int64 // unix ns
	calls   atomic.Int64
	nextID  atomic.Int64 // ids of the requests sent to the server
	nextTok atomic.Int64
	// ended: the server's stdout ended (a stdio server); set before the
	// transport fails what is in flight
	ended atomic.Bool
	// stdin is a stdio server's, counting the messages written to it
	stdin *countedWriter

	// lossTaken: the daemon recorded the session's loss (under d.mu: see
	// daemon.lose)
	lossTaken bool

	mu        sync.Mutex
	keep      time.Duration
	callers   map[*caller]bool
	tokens    map[string]tokenRoute // daemon progress token → the caller's
	stopping  bool
	dead      chan struct{}
	deadOnce  sync.Once
	deadWhy   string
	oneshot   bool // dead at its handshake: its callers connect one-shot
	initSent  bool
	bearer    string                                 // the latest OAuth token a caller gave (http, sse)
	hsMu      map[string]*sync.Mutex                 // one handshake request of each method at a time
	hs        map[string]json.RawMessage             // handshake results by method
	hsReq     map[string]mcptransport.JSONRPCRequest // the requests they answer (replayed to a successor)
	lastInUse *caller                                // the caller whose request started last
	// early: what the daemon had to say before the first caller was
	// registered (the server's first stderr and skipped lines), at most
	// earlyMax of them and earlyMaxBytes
	early      []mcp.JSONRPCNotification
	earlyBytes int
	hadCaller  bool

	// discoverRefused: the server's error answer to server/discover,
	// replayed to later callers once the legacy handshake has succeeded
	discoverRefused *mcptransport.JSONRPCResponse
	// modern: the server answered server/discover (the 2026-07-28 era: no
	// session, and over HTTP an aborted POST is the cancellation)
	modern bool

	// The server's log level, the connection's state (see setLevel): the
	// params and result of the last logging/setLevel that the server
	// answered with no other in flight, levelSeq counting those sent.
	levelParams  json.RawMessage
	levelResult  json.RawMessage
	levelSeq     int64
	levelPending int
}

// Bounds on what the daemon keeps for the first caller of a target.
const (
	earlyMax      = 100
	earlyMaxBytes = 1 << 20
)

type tokenRoute struct {
	c   *caller
	tok json.RawMessage
}

// newSession makes the session of a target, not started yet (start).
func (d *daemon) newSession(spec *Spec, key, bearer string) *session {
	s := &session{d: d, spec: spec, key: key, since: time.Now(), callers: map[*caller]bool{}, tokens: map[string]tokenRoute{},
		hs: map[string]json.RawMessage{}, hsReq: map[string]mcptransport.JSONRPCRequest{}, hsMu: map[string]*sync.Mutex{},
		dead: make(chan struct{}), ready: make(chan struct{}), bearer: bearer, cache: NewCache(nil)}
	s.life, s.endLife = context.WithCancel(context.Background())
	s.lastUse.Store(time.Now().UnixNano())
	return s
}

// start starts the target's server (or sets up the client of an HTTP or
// SSE server), with no lock held: a slow start delays only the target's
// own callers. It closes ready.
func (s *session) start() error {
	err := s.open()
	s.mu.Lock()
	s.startErr = err
	stopped := s.stopping
	s.mu.Unlock()
	close(s.ready)
	if err == nil && stopped {
		// Stopped while it started: what was started goes too.
		s.closeWire()
		if s.proc != nil {
			s.proc.Stop()
		}
	}
	return err
}

func (s *session) open() error {
	spec := s.spec
	if spec.Transport != "stdio" {
		return s.openHTTP()
	}
	p, err := transport.StartProcess(transport.Command{Path: spec.Command, Argv0: spec.Argv0, Args: spec.Args, Env: spec.Env, Dir: spec.Dir, DieWithParent: true,
		AsCaller: spec.AsCaller}, s.stderrLine)
	if err != nil {
		return err
	}
	s.proc = p
	out := &endReader{r: p.Stdout(), end: func() {
		s.ended.Store(true) // before the transport fails what is in flight
		go s.serverEnded()
	}}
	s.limit = &transport.Limit{}
	s.stdin = &countedWriter{w: p.Stdin()}
	st := transport.NewStdio(out, s.stdin, transport.StdioOptions{MessageCeiling: spec.MessageCeiling, Limit: s.limit,
		OnSkip: func(line string) {
			p.Skipped(line)
			s.toCallers(MethodSkipped, map[string]any{"line": line})
		}})
	s.tr = st
	s.bidi = s.tr.(mcptransport.BidirectionalInterface)
	s.tr.SetNotificationHandler(s.serverNotification)
	s.bidi.SetRequestHandler(s.serverRequest)
	_ = s.tr.Start(context.Background())
	go p.WatchDeath(func(status string) { s.died("the server " + status) })
	go s.watchWire(st.Done())
	s.d.log.printf("started %s (pid %d)", spec.Name, p.Pid())
	return nil
}

// countedWriter is a server's stdin, counting the writes (each one a
// message: see transport.Stdio) that went through whole.
type countedWriter struct {
	w     io.WriteCloser
	n     atomic.Int64 // writes
	bytes atomic.Int64 // bytes written
}

func (c *countedWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.bytes.Add(int64(n))
	if err == nil {
		c.n.Add(1)
	}
	return n, err
}

// unreadSince reports whether the server has read none of what was
// written since mark (a count of bytes written): whatever was written
// after it still waits in the pipe. False when that cannot be told.
func (c *countedWriter) unreadSince(mark int64) bool {
	since := c.bytes.Load() - mark
	return since == 0 || since > 0 && unread(c.w) >= since
}

func (c *countedWriter) Close() error { return c.w.Close() }

// SetWriteDeadline lets a write be given up on (see transport.Stdio).
func (c *countedWriter) SetWriteDeadline(t time.Time) error {
	if d, ok := c.w.(interface{ SetWriteDeadline(time.Time) error }); ok {
		return d.SetWriteDeadline(t)
	}
	return errors.ErrUnsupported
}

// written is how many bytes were written to the server (0 for HTTP).
func (s *session) written() int64 {
	if s.stdin == nil {
		return 0
	}
	return s.stdin.bytes.Load()
}

// neverRead reports whether a stdio server read nothing of what was
// written to it since mark (see written): a server that died meanwhile
// never got a request written then (a process killed may take its pipe
// with it only a moment after it is seen dead).
func (s *session) neverRead(mark int64) bool {
	return s.stdin != nil && s.stdin.unreadSince(mark)
}

// started waits until the session is started, and returns the start's
// error.
func (s *session) started() error {
	<-s.ready
	return s.startErr
}

// isReady reports whether the session has been started (or failed to).
func (s *session) isReady() bool {
	select {
	case <-s.ready:
		return true
	default:
		return false
	}
}

func (s *session) keepAlive() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keep
}

// askKeepAlive: an attach asks for the target to stay d once idle (0: a
// minute). The target's keep-alive is the longest any attach asked for: a
// TAB's short one never shortens what a command asked.
func (s *session) askKeepAlive(d time.Duration) {
	if d <= 0 {
		d = time.Minute
	}
	s.mu.Lock()
	s.keep = max(s.keep, d)
	s.mu.Unlock()
}

// idleFor is how long no caller has been attached (0 while one is).
func (s *session) idleFor(now time.Time) time.Duration {
	s.mu.Lock()
	n := len(s.callers)
	s.mu.Unlock()
	if n > 0 {
		return 0
	}
	if s.isDead() {
		return 1<<63 - 1
	}
	return now.Sub(time.Unix(0, s.lastUse.Load()))
}

func (s *session) status(now time.Time) Target {
	s.mu.Lock()
	n := len(s.callers)
	keep := s.keep
	s.mu.Unlock()
	left := keep - s.idleFor(now)
	pid := 0
	if s.proc != nil {
		pid = s.proc.Pid()
	}
	return Target{Server: s.spec.Name, Transport: s.spec.Transport, Pid: pid, Since: s.since,
		LastUse: time.Unix(0, s.lastUse.Load()), Calls: s.calls.Load(), Callers: n, IdleLeft: max(left, 0)}
}

func (s *session) isDead() bool {
	select {
	case <-s.dead:
		return true
	default:
		return false
	}
}

// oneShot reports whether the session failed its handshake (its callers
// connect one-shot).
func (s *session) oneShot() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.oneshot
}

// stop closes the connection with the usual stop sequence. A session
// still starting is stopped once started (an SSE endpoint awaited is given
// up at once).
func (s *session) stop() {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	s.endLife()
	if s.started() != nil {
		return
	}
	s.mu.Lock()
	callers := make([]*caller, 0, len(s.callers))
	for c := range s.callers {
		callers = append(callers, c)
	}
	s.mu.Unlock()
	for _, c := range callers {
		c.close()
	}
	s.closeWire()
	if s.proc == nil {
		s.d.log.printf("closed %s", s.spec.Name)
		return
	}
	s.proc.Stop()
	s.d.log.printf("stopped %s (pid %d)", s.spec.Name, s.proc.Pid())
}

// watchWire ends the session as soon as its transport stops reading
// (done) for what the server sent: a framing violation or a message over
// the ceiling ends the connection, as it does a one-shot one, while the
// server lives on with its stdout open. Without it the session would
// look alive, and the next caller would wait for a death that never comes
// and be told the server closed its stdout.
func (s *session) watchWire(done <-chan struct{}) {
	<-done
	why := s.limit.Violation()
	if e := s.limit.Get(); why == "" && e != nil {
		why = e.Msg
	}
	if why != "" {
		s.died(why)
	}
}

// serverEnded: the server's stdout ended; it died unless being stopped.
func (s *session) serverEnded() {
	select {
	case <-s.proc.Exited():
	case <-time.After(200 * time.Millisecond):
	}
	why := "the server closed its stdout"
	if st := s.proc.ExitStatus(); st != "" {
		why = "the server " + st
	}
	s.died(why)
}

// died marks the server dead. The daemon remembers the loss (see
// daemon.lose): the next caller of the target gets a new server with a
// note that its state was lost. A caller attached is told and cut off as
// a one-shot connection would be when the server has answered it (it may
// wait for the server's notifications); one whose requests are in flight
// is told by them (see caller.forwardOn: one the server never got goes to
// the new server); one the server never served yet goes on with the new
// server, with the note (see caller.live).
func (s *session) died(why string) { s.end(why, true) }

// forgotten marks dead an HTTP session that the server no longer knows
// (a restarted server): its callers go on with a new session at their
// next request, with the note (see caller.live); none is cut off.
func (s *session) forgotten() { s.end("the server ended the session", false) }

// end marks the session dead (see died); tell: the callers the server
// served are told and cut off.
func (s *session) end(why string, tell bool) {
	s.deadOnce.Do(func() {
		s.mu.Lock()
		stopping := s.stopping
		s.deadWhy = why
		close(s.dead)
		callers := make([]*caller, 0, len(s.callers))
		for c := range s.callers {
			callers = append(callers, c)
		}
		s.mu.Unlock()
		s.endLife()
		if stopping {
			return
		}
		s.d.log.printf("%s died: %s", s.spec.Name, s.spec.mask(why))
		s.d.lose(s, s.spec.mask(why))
		var lost map[string]any
		for _, c := range callers {
			if tell && c.served.Load() == s && !c.busyOn(s) {
				if lost == nil {
					lost = s.lostParams()
				}
				c.drop(lost)
			}
		}
		if s.proc != nil {
			go s.proc.Stop()
		} else {
			go s.closeWire()
		}
	})
}

// awaitDeath waits (at most a second) for the server, whose stdout ended
// or whose stdin broke, to be found dead; past that it is declared so.
func (s *session) awaitDeath(why string) {
	select {
	case <-s.dead:
	case <-time.After(time.Second):
		s.died(why)
	}
}

// sendInitialized sends notifications/initialized, the legacy handshake's
// last step, once per session (the first caller's; a successor's by the
// daemon itself).
func (s *session) sendInitialized(ctx context.Context) {
	s.mu.Lock()
	sent := s.initSent
	s.initSent = true
	s.mu.Unlock()
	if sent || s.isDead() {
		return
	}
	if s.rt != nil {
		// A server may send its first requests (roots/list) on the
		// standalone GET stream as soon as it is initialized, and drop
		// them when no stream is open, so the stream is opened and
		// answered first (at most transport.ListenWait), as a one-shot
		// connection does.
		s.rt.OpenGate()
		s.awaitListen(ctx)
	}
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: string(mcp.MethodNotificationInitialized)}}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_ = s.tr.SendNotification(ctx, n)
}

// lostParams are the params of MethodLost: why the server died, its last
// stderr lines, and what the framer met, if anything.
func (s *session) lostParams() map[string]any {
	s.mu.Lock()
	why := s.deadWhy
	s.mu.Unlock()
	if why == "" {
		why = "the server was stopped"
	}
	lost := map[string]any{"why": why, "stderr": []string{}}
	if s.proc != nil {
		s.proc.StderrQuiet(10*time.Millisecond, 200*time.Millisecond) // its last words, read
		lost["stderr"] = s.proc.Stderr(10)
	}
	if v := s.limit.Violation(); v != "" {
		lost["violation"] = v
	}
	if e := s.limit.Get(); e != nil {
		lost["limit"] = map[string]any{"limit": e.Limit, "value": e.Value, "msg": e.Msg}
	}
	return lost
}

func (s *session) stderrLine(line string) {
	s.toCallers(MethodStderr, map[string]any{"line": line})
}

// toCallers sends one of the daemon's notifications to every caller
// attached (kept for the first one when none has been yet).
func (s *session) toCallers(method string, params map[string]any) {
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: method, Params: mcp.NotificationParams{AdditionalFields: params}}}
	s.mu.Lock()
	if !s.hadCaller {
		line, _ := params["line"].(string)
		if size := len(line); len(s.early) < earlyMax && s.earlyBytes+size <= earlyMaxBytes {
			s.early = append(s.early, n)
			s.earlyBytes += size
		}
		s.mu.Unlock()
		return
	}
	to := make([]*caller, 0, len(s.callers))
	for c := range s.callers {
		to = append(to, c)
	}
	s.mu.Unlock()
	for _, c := range to {
		c.forward(n)
	}
}

func (s *session) cancelOnServer(id mcp.RequestId, reason string) {
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: string(mcp.MethodNotificationCancelled),
		Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": reason}},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
	defer cancel()
	_ = s.tr.SendNotification(ctx, n)
}

// postCancels reports whether the request's aborted POST is its
// cancellation: an HTTP server in the 2026-07-28 era, to which nothing
// else is sent (as a one-shot connection sends nothing).
func (s *session) postCancels() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc == nil && s.modern
}
