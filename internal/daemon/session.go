package daemon

// A session is one target: its server started (or its HTTP client set
// up), its callers, its death (lost), and its stop.

import (
	"context"
	"encoding/json"
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
	proc *transport.Process                  // a stdio server's (nil for HTTP and SSE)
	tr   mcptransport.Interface              // the server's pipes, or its HTTP client
	bidi mcptransport.BidirectionalInterface // tr, when it carries server requests
	rt   *transport.HTTP                     // an HTTP or SSE server's round tripper
	// endWire ends what the server's transport was started with (SSE)
	endWire func()
	limit   *transport.Limit
	cache   *Cache
	since   time.Time

	lastUse atomic.Int64 // unix ns
	calls   atomic.Int64
	nextID  atomic.Int64 // ids of the requests sent to the server
	nextTok atomic.Int64

	mu        sync.Mutex
	keep      time.Duration
	callers   map[*caller]bool
	tokens    map[string]tokenRoute // daemon progress token → the caller's
	stopping  bool
	dead      chan struct{}
	deadOnce  sync.Once
	deadWhy   string
	initSent  bool
	bearer    string                     // the latest OAuth token a caller gave (http, sse)
	hsMu      map[string]*sync.Mutex     // one handshake request of each method at a time
	hs        map[string]json.RawMessage // handshake results by method
	lastInUse *caller                    // the caller whose request started last
	// early: what the daemon had to say before the first caller was
	// registered (the server's first stderr and skipped lines)
	early     []mcp.JSONRPCNotification
	hadCaller bool

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

type tokenRoute struct {
	c   *caller
	tok json.RawMessage
}

// newSession starts a target's server (or sets up the client of an HTTP
// or SSE server). Called with d.mu held.
func (d *daemon) newSession(spec *Spec, bearer string) (*session, error) {
	s := &session{d: d, spec: spec, since: time.Now(), callers: map[*caller]bool{}, tokens: map[string]tokenRoute{},
		hs: map[string]json.RawMessage{}, hsMu: map[string]*sync.Mutex{}, dead: make(chan struct{})}
	s.lastUse.Store(time.Now().UnixNano())
	if spec.Transport != "stdio" {
		s.bearer = bearer
		return s, s.openHTTP()
	}
	p, err := transport.StartProcess(transport.Command{Path: spec.Command, Argv0: spec.Argv0, Args: spec.Args, Env: spec.Env, Dir: spec.Dir, DieWithParent: true}, s.stderrLine)
	if err != nil {
		return nil, err
	}
	s.proc = p
	out := &endReader{r: p.Stdout(), end: func() { s.serverEnded() }}
	s.limit = &transport.Limit{}
	s.tr = transport.NewStdio(out, p.Stdin(), transport.StdioOptions{MessageCeiling: spec.MessageCeiling, Limit: s.limit,
		OnSkip: func(line string) {
			p.Skipped(line)
			s.toCallers(MethodSkipped, map[string]any{"line": line})
		}})
	s.bidi = s.tr.(mcptransport.BidirectionalInterface)
	s.cache = NewCache(nil)
	s.tr.SetNotificationHandler(s.serverNotification)
	s.bidi.SetRequestHandler(s.serverRequest)
	_ = s.tr.Start(context.Background())
	go p.WatchDeath(func(status string) { s.died("the server " + status) })
	d.log.printf("started %s (pid %d)", spec.Name, p.Pid())
	return s, nil
}

func (s *session) keepAlive() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keep
}

func (s *session) setKeepAlive(d time.Duration) {
	if d <= 0 {
		d = time.Minute
	}
	s.mu.Lock()
	s.keep = d
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

// stop closes the connection with the usual stop sequence.
func (s *session) stop() {
	s.mu.Lock()
	s.stopping = true
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

// died marks the server dead: callers attached are told and cut off (their
// requests fail as a dead connection's), and the next attach says that its
// state was lost.
func (s *session) died(why string) {
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
		if stopping {
			return
		}
		s.d.log.printf("%s died: %s", s.spec.Name, s.spec.mask(why))
		s.d.mu.Lock()
		key := s.spec.Key()
		if s.d.sessions[key] == s {
			delete(s.d.sessions, key)
		}
		if len(callers) == 0 {
			s.d.lost[key] = why
		}
		s.d.mu.Unlock()
		lost := s.lostParams()
		for _, c := range callers {
			c.drop(lost)
		}
		if s.proc != nil {
			go s.proc.Stop()
		} else {
			go s.closeWire()
		}
	})
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
		if len(s.early) < 100 {
			s.early = append(s.early, n)
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
