package daemon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/client/transport"
)

// Methods of the daemon's own notifications to a caller.
const (
	MethodStderr = "notifications/mcpx/stderr" // params.line: a line of the server's stderr
	MethodLost   = "notifications/mcpx/lost"   // params.why: the server died
	MethodFlush  = "mcpx/flush"                // a caller's request: its server's stderr so far, then {}
	// MethodSkipped: params.line, a line on the server's stdout that is not JSON-RPC
	MethodSkipped = "notifications/mcpx/skipped"
)

// ErrStart is the prefix of a reply's Err when the daemon could not start
// the server: the caller connects one-shot instead, for the same error.
const ErrStart = "start: "

// defaultCeiling is the message ceiling of a target that names none.
const defaultCeiling = 128 << 20

// handshakeWait bounds a handshake request the daemon sends for a caller.
const handshakeWait = 2 * time.Minute

// exitGrace is how long the daemon stays with nothing to hold.
const exitGrace = time.Second

// ServeOptions configure the daemon.
type ServeOptions struct {
	Getenv  func(string) string
	Version string
}

type daemon struct {
	o     ServeOptions
	build string
	ln    *net.UnixListener
	log   *logger

	mu       sync.Mutex
	sessions map[string]*session // by Spec.Key
	lost     map[string]string   // targets whose server died, and why (the next attach says so)
	conns    int
	idleFrom time.Time

	quit     chan struct{}
	quitOnce sync.Once
}

// Serve runs the daemon until it holds nothing, is told to stop, or ctx
// ends. It returns at once when another daemon already listens.
func Serve(ctx context.Context, o ServeOptions) error {
	if err := platformRefusal(); err != nil {
		return err
	}
	dir := SocketDir(o.Getenv)
	if err := checkSocketPath(dir); err != nil {
		return err
	}
	if err := PrepareDir(dir); err != nil {
		return err
	}
	if c, _, err := dial(ctx, dir); err == nil {
		c.Close()
		return nil // another daemon serves
	}
	sock := SocketPath(dir)
	_ = os.Remove(sock)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		return fmt.Errorf("the mcpx daemon cannot listen on %s: %w", sock, err)
	}
	ln.SetUnlinkOnClose(false)
	secureSocket(sock)
	d := &daemon{o: o, build: BuildID(o.Version), ln: ln, log: openLog(LogPath(o.Getenv)),
		sessions: map[string]*session{}, lost: map[string]string{}, idleFrom: time.Now(), quit: make(chan struct{})}
	d.log.printf("daemon %d started (build %s)", os.Getpid(), d.build)
	st, _ := os.Lstat(sock)
	go d.reap(ctx)
	go func() {
		for {
			c, err := ln.AcceptUnix()
			if err != nil {
				return
			}
			go d.handle(c)
		}
	}()
	select {
	case <-d.quit:
	case <-ctx.Done():
	}
	ln.Close()
	// Remove the socket only if it is still ours (a newer daemon may have
	// replaced it).
	if now, err := os.Lstat(sock); err == nil && st != nil && os.SameFile(st, now) {
		_ = os.Remove(sock)
	}
	d.stopAll()
	d.log.printf("daemon %d exited", os.Getpid())
	d.log.close()
	return nil
}

func (d *daemon) exit() { d.quitOnce.Do(func() { close(d.quit) }) }

// reap closes the targets idle past their keep-alive, and ends the daemon
// when it has held nothing for exitGrace.
func (d *daemon) reap(ctx context.Context) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-d.quit:
			return
		case <-ctx.Done():
			return
		}
		now := time.Now()
		var idle []*session
		d.mu.Lock()
		for k, s := range d.sessions {
			if s.idleFor(now) >= s.keepAlive() {
				idle = append(idle, s)
				delete(d.sessions, k)
			}
		}
		empty := len(d.sessions) == 0 && d.conns == 0
		if !empty {
			d.idleFrom = now
		}
		quit := empty && now.Sub(d.idleFrom) >= exitGrace
		d.mu.Unlock()
		for _, s := range idle {
			d.log.printf("closing %s: idle for %s", s.spec.Name, s.keepAlive())
			go s.stop()
		}
		if quit {
			d.exit()
			return
		}
	}
}

func (d *daemon) stopAll() {
	d.mu.Lock()
	all := make([]*session, 0, len(d.sessions))
	for k, s := range d.sessions {
		all = append(all, s)
		delete(d.sessions, k)
	}
	d.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Add(1)
		go func() { defer wg.Done(); s.stop() }()
	}
	wg.Wait()
}

func (d *daemon) handle(c *net.UnixConn) {
	who, pid, err := peerUser(c)
	if err := peerRefusal(myUser(), who, err); err != nil {
		d.log.printf("refused a connection from %s pid %d (%v)", who, pid, err)
		c.Close()
		return
	}
	d.mu.Lock()
	d.conns++
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.conns--
		d.mu.Unlock()
	}()
	r := bufio.NewReaderSize(c, 64<<10)
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var h Hello
	if err := readJSONLine(r, &h); err != nil {
		c.Close()
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	rep := Reply{OK: true, Build: d.build, Pid: os.Getpid()}
	if h.Op == OpExit {
		_ = writeLine(c, rep)
		c.Close()
		d.log.printf("exit asked by pid %d", pid)
		d.exit()
		return
	}
	if h.Proto != Proto || h.Build != d.build {
		rep.OK, rep.Err = false, "another build"
		_ = writeLine(c, rep)
		c.Close()
		return
	}
	switch h.Op {
	case OpStatus:
		rep.Status = d.status()
		_ = writeLine(c, rep)
		c.Close()
	case OpStop:
		rep.Stopped = d.stop(h.Names)
		_ = writeLine(c, rep)
		c.Close()
		if len(h.Names) == 0 {
			d.exit()
		}
	case OpAttach:
		d.attach(c, r, &h, rep)
	default:
		rep.OK, rep.Err = false, fmt.Sprintf("unknown operation %q", h.Op)
		_ = writeLine(c, rep)
		c.Close()
	}
}

func (d *daemon) status() []Target {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := time.Now()
	var out []Target
	for _, s := range d.sessions {
		out = append(out, s.status(now))
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Server != out[j].Server {
			return out[i].Server < out[j].Server
		}
		return out[i].Since.Before(out[j].Since)
	})
	return out
}

// stop closes the targets of the named servers (every target when none is
// named) and returns how many.
func (d *daemon) stop(names []string) int {
	if len(names) == 0 {
		d.mu.Lock()
		n := len(d.sessions)
		d.mu.Unlock()
		d.stopAll()
		return n
	}
	d.mu.Lock()
	var hit []*session
	for k, s := range d.sessions {
		for _, n := range names {
			if s.spec.Name == n {
				hit = append(hit, s)
				delete(d.sessions, k)
				break
			}
		}
	}
	d.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range hit {
		wg.Add(1)
		go func() { defer wg.Done(); s.stop() }()
	}
	wg.Wait()
	return len(hit)
}

func (d *daemon) attach(c *net.UnixConn, r *bufio.Reader, h *Hello, rep Reply) {
	if h.Spec != nil && h.Spec.MessageCeiling <= 0 {
		h.Spec.MessageCeiling = defaultCeiling
	}
	if h.Spec == nil || (h.Spec.Transport != "stdio" && h.Spec.Transport != "http" && h.Spec.Transport != "sse") {
		rep.OK, rep.Err = false, "attach needs a stdio, http or sse target"
		_ = writeLine(c, rep)
		c.Close()
		return
	}
	key := h.Spec.Key()
	d.mu.Lock()
	s := d.sessions[key]
	d.mu.Unlock()
	if s != nil && s.proc == nil && h.Bearer != "" {
		s.mu.Lock()
		s.bearer = h.Bearer
		s.mu.Unlock()
	}
	if s != nil && s.proc == nil {
		// An HTTP session may have ended on the server's side since its
		// last use (the server restarted, or expired it): ask first.
		s.probe()
	}
	d.mu.Lock()
	s = d.sessions[key]
	if s != nil && s.isDead() {
		s = nil
	}
	if s == nil {
		if why, ok := d.lost[key]; ok {
			delete(d.lost, key)
			rep.Note = fmt.Sprintf("the warm connection to server %q was lost (%s); its state was lost, starting it again", h.Spec.Name, why)
		}
		var err error
		s, err = d.newSession(h.Spec, h.Bearer)
		if err != nil {
			d.mu.Unlock()
			d.log.printf("cannot start %s: %s", h.Spec.Name, h.Spec.mask(err.Error()))
			rep.OK, rep.Err = false, ErrStart+err.Error()
			_ = writeLine(c, rep)
			c.Close()
			return
		}
		d.sessions[key] = s
	}
	s.setKeepAlive(h.KeepAlive)
	if h.Bearer != "" {
		s.mu.Lock()
		s.bearer = h.Bearer
		s.mu.Unlock()
	}
	s.lastUse.Store(time.Now().UnixNano())
	cl := s.newCaller(c, r, h)
	d.mu.Unlock()
	if err := writeLine(c, rep); err != nil {
		c.Close()
		return
	}
	cl.serve()
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

// endReader calls end once when its reader ends.
type endReader struct {
	r    io.Reader
	once sync.Once
	end  func()
}

func (e *endReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(e.end)
	}
	return n, err
}

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

// drop tells the caller that the server is gone; the connection ends when
// the caller closes it (so that what it writes meanwhile does not fail
// before it has read why), at most 5 s later.
func (c *caller) drop(lost map[string]any) {
	c.notify(MethodLost, lost)
	go func() {
		select {
		case <-c.gone.Done():
		case <-time.After(5 * time.Second):
		}
		c.close()
	}()
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

// serverNotification routes a notification of the server's: progress to
// the caller whose token it names, list_changed drops the cache (and goes
// to every caller), a task's status to every caller (the one waiting for
// that task has no request in flight between two tasks/get), the rest to
// the callers with a request in flight (every caller when none has one).
func (s *session) serverNotification(n mcp.JSONRPCNotification) {
	if n.Method == string(mcp.MethodNotificationProgress) {
		tok, _ := json.Marshal(n.Params.AdditionalFields["progressToken"])
		s.mu.Lock()
		r, ok := s.tokens[string(tok)]
		s.mu.Unlock()
		if !ok {
			return
		}
		n.Params.AdditionalFields = withField(n.Params.AdditionalFields, "progressToken", r.tok)
		r.c.forward(n)
		return
	}
	changed := s.cache.Changed(n.Method)
	s.mu.Lock()
	var busy, all []*caller
	for c := range s.callers {
		all = append(all, c)
		if c.busy() {
			busy = append(busy, c)
		}
	}
	s.mu.Unlock()
	to := busy
	if changed || len(busy) == 0 || n.Method == string(mcp.MethodNotificationTasksStatus) {
		to = all
	}
	for _, c := range to {
		c.forward(n)
	}
}

// serverRequest forwards a request of the server's (an elicitation,
// roots/list) to the caller whose request started last, unless that one's
// requests are all answered and another caller has one in flight (the
// server asks during a call), and answers ping.
func (s *session) serverRequest(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
	if req.Method == string(mcp.MethodPing) {
		return &mcptransport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID, Result: json.RawMessage("{}")}, nil
	}
	s.mu.Lock()
	c := s.lastInUse
	if c != nil && !s.callers[c] {
		c = nil
	}
	if c == nil || !c.busy() {
		for cc := range s.callers {
			if c == nil || cc.busy() {
				c = cc
				if cc.busy() {
					break
				}
			}
		}
	}
	s.mu.Unlock()
	if c == nil {
		return mcptransport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, "no mcpx process is attached to answer", nil), nil
	}
	id := req.ID
	if s.rt != nil && req.Method == string(mcp.MethodElicitationCreate) {
		// The params as the server wrote them (decoding loses the order
		// of the schema's fields).
		if raw := s.rt.TakeElicitation(id); raw != nil {
			req.Params = raw
		}
	}
	req.ID = mcp.NewRequestId(c.nextOut.Add(1))
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(c.gone, cancel)()
	resp, err := c.tr.SendRequest(cctx, req)
	if err != nil {
		return mcptransport.NewJSONRPCErrorResponse(id, mcp.INTERNAL_ERROR, "the mcpx process went away", nil), nil
	}
	resp.ID = id
	return resp, nil
}

// caller is one attached mcpx process.
type caller struct {
	s       *session
	conn    *net.UnixConn
	tr      *transport.Stdio
	verbose bool
	refresh bool

	gone     context.Context
	goneFn   context.CancelFunc
	nextOut  atomic.Int64 // ids of the requests sent to the caller
	mu       sync.Mutex
	inflight map[string]*forwarded  // by the caller's id
	headers  map[string]heldHeaders // a request's HTTP headers, by the caller's id (MethodHeaders)
	heldSeq  uint64                 // the order of the headers announced
	once     sync.Once
	outOnce  sync.Once
	out      chan func() // see forward
	stalled  atomic.Bool // see enqueue
}

type forwarded struct {
	id     mcp.RequestId // the daemon's, on the server's side
	cancel context.CancelFunc
	tok    string // the daemon's progress token, if any
}

// newCaller makes the caller of an attach; it is registered (and sent
// anything) only once the reply is written (serve).
func (s *session) newCaller(conn *net.UnixConn, r *bufio.Reader, h *Hello) *caller {
	c := &caller{s: s, conn: conn, verbose: h.Verbose, refresh: h.Refresh, inflight: map[string]*forwarded{}, headers: map[string]heldHeaders{}}
	c.gone, c.goneFn = context.WithCancel(context.Background())
	in := &endReader{r: r, end: c.detach}
	c.tr = transport.NewStdio(in, conn, transport.StdioOptions{MessageCeiling: s.spec.MessageCeiling})
	c.tr.SetRequestHandler(c.request)
	c.tr.SetNotificationHandler(c.notification)
	return c
}

func (c *caller) busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.inflight) > 0
}

// serve registers the caller and serves it until it goes.
func (c *caller) serve() {
	s := c.s
	s.mu.Lock()
	dead := s.isDead() || s.stopping
	if !dead {
		s.callers[c] = true
		early := s.early
		s.early, s.hadCaller = nil, true
		for _, n := range early {
			c.forward(n)
		}
	}
	s.mu.Unlock()
	s.calls.Add(1)
	s.lastUse.Store(time.Now().UnixNano())
	_ = c.tr.Start(c.gone)
	if dead {
		// The server died before this caller was attached: it is told as
		// one attached would have been.
		key := s.spec.Key()
		s.d.mu.Lock()
		delete(s.d.lost, key)
		s.d.mu.Unlock()
		if s.proc == nil && !s.initialized() {
			// An HTTP or SSE connection that failed before its handshake.
			c.notify(MethodOneShot, map[string]any{"why": s.deadWhyNow(), "first_post": s.rt.FirstPostStatus()})
			go func() {
				select {
				case <-c.gone.Done():
				case <-time.After(5 * time.Second):
				}
				c.close()
			}()
		} else {
			c.drop(s.lostParams())
		}
	}
	<-c.gone.Done()
}

// close cuts the caller off.
func (c *caller) close() {
	_ = c.conn.Close()
	c.detach()
}

// detach: the caller is gone (or cut off). Its requests in flight are
// cancelled on the server.
func (c *caller) detach() {
	c.once.Do(func() {
		s := c.s
		c.mu.Lock()
		pending := c.inflight
		c.inflight = map[string]*forwarded{}
		c.mu.Unlock()
		for _, f := range pending {
			if !s.postCancels() {
				s.cancelOnServer(f.id, "the mcpx process went away")
			}
			f.cancel()
		}
		s.mu.Lock()
		delete(s.callers, c)
		if s.lastInUse == c {
			s.lastInUse = nil
		}
		for k, r := range s.tokens {
			if r.c == c {
				delete(s.tokens, k)
			}
		}
		s.mu.Unlock()
		s.lastUse.Store(time.Now().UnixNano())
		c.goneFn()
		_ = c.tr.Close()
		_ = c.conn.Close()
	})
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

func (c *caller) notify(method string, params map[string]any) {
	c.forward(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: method, Params: mcp.NotificationParams{AdditionalFields: params}}})
}

// outQueue bounds the notifications waiting for one caller (see enqueue).
const outQueue = 1024

// stallWait is how long a notification waits for room in a caller's full
// queue before the caller counts as not reading.
const stallWait = time.Second

// forward queues a notification for the caller; its writer sends them in
// order.
func (c *caller) forward(n mcp.JSONRPCNotification) {
	c.enqueue(func() {
		ctx, cancel := context.WithTimeout(c.gone, 5*time.Second)
		defer cancel()
		_ = c.tr.SendNotification(ctx, n)
	})
}

// enqueue queues f for the caller's writer. A full queue is waited on, as
// a one-shot mcpx's pipe makes its server wait: a caller that reads loses
// nothing of a burst of log messages, however long. A caller that has not
// made room within stallWait (suspended) is stalled: what is queued for it
// is dropped until it has read half its queue, so that it holds up the
// server and its other callers for stallWait once, not once a message.
func (c *caller) enqueue(f func()) {
	c.startWriter()
	if c.stalled.Load() {
		if len(c.out) > outQueue/2 {
			return
		}
		c.stalled.Store(false)
	}
	select {
	case c.out <- f:
		return
	default:
	}
	t := time.NewTimer(stallWait)
	defer t.Stop()
	select {
	case c.out <- f:
	case <-c.gone.Done():
	case <-t.C:
		c.stalled.Store(true)
	}
}

// startWriter starts the caller's writer, once.
func (c *caller) startWriter() {
	c.outOnce.Do(func() {
		c.out = make(chan func(), outQueue)
		go func() {
			for {
				select {
				case f := <-c.out:
					f()
				case <-c.gone.Done():
					return
				}
			}
		}()
	})
}

// drain waits until what was queued for the caller so far is sent (an
// answer follows the notifications sent before it, as on a pipe), at most
// until the caller goes, or 5 s (a caller that does not read). Its mark
// waits for room in a full queue: dropped, the answer would wait the 5 s
// however fast the caller reads.
func (c *caller) drain() {
	c.startWriter()
	done := make(chan struct{})
	limit := time.NewTimer(5 * time.Second)
	defer limit.Stop()
	select {
	case c.out <- func() { close(done) }:
	case <-c.gone.Done():
		return
	case <-limit.C:
		return
	}
	select {
	case <-done:
	case <-c.gone.Done():
	case <-limit.C:
	}
}

// notification forwards a caller's notification: notifications/initialized
// once per connection, notifications/cancelled for the caller's own
// request (id mapped), the rest as is.
func (c *caller) notification(n mcp.JSONRPCNotification) {
	s := c.s
	switch n.Method {
	case string(mcp.MethodNotificationInitialized):
		s.mu.Lock()
		sent := s.initSent
		s.initSent = true
		s.mu.Unlock()
		if sent {
			return
		}
		if s.rt != nil {
			// The legacy handshake's last step: a server may send its
			// first requests (roots/list) on the standalone GET stream as
			// soon as it is initialized, and drop them when no stream is
			// open, so the stream is opened and answered first (at most
			// transport.ListenWait), as a one-shot connection does.
			s.rt.OpenGate()
			s.awaitListen(c.gone)
		}
	case MethodHeaders:
		c.setHeaders(n.Params.AdditionalFields)
		return
	case string(mcp.MethodNotificationCancelled):
		raw, _ := json.Marshal(n.Params.AdditionalFields["requestId"])
		var id mcp.RequestId
		if json.Unmarshal(raw, &id) != nil {
			return
		}
		c.mu.Lock()
		f := c.inflight[id.String()]
		delete(c.inflight, id.String())
		delete(c.headers, id.String()) // a request abandoned before it was sent
		c.mu.Unlock()
		if f == nil {
			return
		}
		n.Params.AdditionalFields = withField(n.Params.AdditionalFields, "requestId", f.id)
		if !s.postCancels() {
			ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
			_ = s.tr.SendNotification(ctx, n)
			cancel()
		}
		f.cancel() // over HTTP, aborts the POST
		return
	}
	ctx, cancel := context.WithTimeout(c.gone, 5*time.Second)
	defer cancel()
	_ = s.tr.SendNotification(ctx, n)
}

// request answers a caller's request: the handshake from the server's
// first answer, a listing from the cache, anything else forwarded.
func (c *caller) request(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
	s := c.s
	params, _ := req.Params.(json.RawMessage)
	req.Header = c.takeHeaders(req.ID)
	switch req.Method {
	case MethodFlush:
		// Everything the server wrote on stderr so far reaches the caller
		// before this answer (the caller's -v, at its end).
		if s.proc != nil {
			s.proc.StderrQuiet(10*time.Millisecond, 300*time.Millisecond)
		}
		c.drain()
		return &mcptransport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID, Result: json.RawMessage("{}")}, nil
	case string(mcp.MethodInitialize), "server/discover":
		s.mu.Lock()
		lock := s.hsMu[req.Method]
		if lock == nil {
			lock = &sync.Mutex{}
			s.hsMu[req.Method] = lock
		}
		s.mu.Unlock()
		// A server that never answers server/discover must not hold up
		// the initialize that follows it: one lock per method.
		lock.Lock()
		defer lock.Unlock()
		s.mu.Lock()
		cached, ok := s.hs[req.Method]
		_, legacy := s.hs[string(mcp.MethodInitialize)]
		refused := s.discoverRefused
		s.mu.Unlock()
		if ok {
			return &mcptransport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID, Result: cached}, nil
		}
		discover := req.Method == string(mcp.MethodServerDiscover)
		if discover && legacy {
			// The server settled on the legacy handshake: a later caller's
			// probe gets the answer the first one got, and the session's
			// protocol version stays.
			if refused != nil {
				return legacyProbe(req.ID, refused), nil
			}
		} else {
			s.handshakeVersion(req.Header)
		}
		resp := c.forwardRequest(ctx, req, params, true)
		if resp != nil && resp.Error == nil && len(resp.Result) > 0 && string(resp.Result) != "null" && gjson.ValidBytes(resp.Result) {
			s.mu.Lock()
			_, legacy = s.hs[string(mcp.MethodInitialize)]
			if discover && legacy {
				// The legacy handshake succeeded first (this probe outlasted
				// its caller's, which initialized instead): the target
				// stays in that era, and the probe is refused, so that its
				// caller initializes too.
				refused := s.discoverRefused
				s.mu.Unlock()
				return legacyProbe(req.ID, refused), nil
			}
			s.hs[req.Method] = append(json.RawMessage(nil), resp.Result...)
			// Initialize answered after a probe was: its caller gave up on
			// the probe, and the target is in the legacy era from now on.
			s.modern = discover
			if !discover {
				delete(s.hs, string(mcp.MethodServerDiscover))
			}
			s.mu.Unlock()
			switch {
			case !discover:
				s.cache.SetInit(resp.Result)
				s.handshakeDone(resp.Result)
			case !legacy:
				// No stream carries list_changed between requests in the
				// 2026-07-28 era: a listing is kept for its ttlMs, else
				// DefaultListTTL, whatever the capabilities say.
				s.cache.SetInit(nil)
			}
		} else if discover && resp != nil && resp.Error != nil {
			s.mu.Lock()
			s.discoverRefused = resp
			s.mu.Unlock()
		}
		return resp, nil
	}
	if req.Method == string(mcp.MethodSetLogLevel) {
		return c.setLevel(ctx, req, params), nil
	}
	if Cacheable(req.Method) && !c.refresh {
		if r, ok := s.cache.Get(req.Method, params); ok {
			return &mcptransport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID, Result: r}, nil
		}
	}
	gen := s.cache.Gen(req.Method)
	resp := c.forwardRequest(ctx, req, params, false)
	if resp != nil && Cacheable(req.Method) && resp.Error == nil && len(resp.Result) > 0 && gjson.ValidBytes(resp.Result) &&
		gjson.ParseBytes(resp.Result).IsObject() {
		s.cache.Put(req.Method, params, append(json.RawMessage(nil), resp.Result...), gen)
	}
	return resp, nil
}

// setLevel forwards a logging/setLevel, unless the server's level is
// already the one asked for. The level is the connection's, not a
// caller's (the server has one), and every call of the same kind asks for
// the same one: answering it here saves a round trip to the server on
// each warm call. The level is known only from a request the server
// answered with none other in flight; one cancelled, failed or refused
// leaves it unknown, and the next is forwarded.
func (c *caller) setLevel(ctx context.Context, req mcptransport.JSONRPCRequest, params json.RawMessage) *mcptransport.JSONRPCResponse {
	s := c.s
	s.mu.Lock()
	if s.levelParams != nil && s.levelPending == 0 && bytes.Equal(s.levelParams, params) {
		r := s.levelResult
		s.mu.Unlock()
		return &mcptransport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID, Result: r}
	}
	s.levelSeq++
	seq := s.levelSeq
	s.levelPending++
	s.levelParams, s.levelResult = nil, nil
	s.mu.Unlock()
	resp := c.forwardRequest(ctx, req, params, false)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.levelPending--
	if resp != nil && resp.Error == nil && s.levelSeq == seq && s.levelPending == 0 && params != nil &&
		gjson.ValidBytes(resp.Result) && gjson.ParseBytes(resp.Result).IsObject() {
		s.levelParams = append(json.RawMessage(nil), params...)
		s.levelResult = append(json.RawMessage(nil), resp.Result...)
	}
	return resp
}

// legacyProbe answers a server/discover of a target settled on the legacy
// handshake: the server's refusal, else "method not found" (its caller
// then initializes, as after any refusal but an unsupported version).
func legacyProbe(id mcp.RequestId, refused *mcptransport.JSONRPCResponse) *mcptransport.JSONRPCResponse {
	if refused != nil && refused.Error != nil {
		return &mcptransport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Error: refused.Error}
	}
	return mcptransport.NewJSONRPCErrorResponse(id, mcp.METHOD_NOT_FOUND,
		"server/discover: the warm connection to this server uses the initialize handshake", nil)
}

// forwardRequest sends a caller's request to the server under an id of the
// daemon's (and a progress token of the daemon's), and returns the answer
// under the caller's id; nil when there is none to give (the caller went
// away, cancelled, or the server died: then the caller is cut off). A
// handshake request is detached: it goes on when its caller goes (a TAB
// out of budget), and the next caller gets its answer.
func (c *caller) forwardRequest(ctx context.Context, req mcptransport.JSONRPCRequest, params json.RawMessage, detached bool) *mcptransport.JSONRPCResponse {
	s := c.s
	callerID := req.ID
	parent, stop := c.gone, func() {}
	if detached {
		parent, stop = context.WithTimeout(context.Background(), handshakeWait)
	}
	defer stop()
	rctx, cancel := context.WithCancel(parent)
	defer cancel()
	f := &forwarded{id: mcp.NewRequestId(s.nextID.Add(1)), cancel: cancel}
	if tok := gjson.GetBytes(params, "_meta.progressToken"); tok.Exists() {
		f.tok = strconv.Quote("mcpx-" + strconv.FormatInt(s.nextTok.Add(1), 10))
		if p, ok := withToken(params, f.tok); ok {
			params = p
			s.mu.Lock()
			s.tokens[f.tok] = tokenRoute{c: c, tok: json.RawMessage(tok.Raw)}
			s.mu.Unlock()
		} else {
			f.tok = ""
		}
	}
	if params != nil {
		req.Params = params
	}
	key := callerID.String()
	if !detached {
		c.mu.Lock()
		c.inflight[key] = f
		c.mu.Unlock()
	}
	s.mu.Lock()
	s.lastInUse = c
	s.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if c.inflight[key] == f {
			delete(c.inflight, key)
		}
		c.mu.Unlock()
		// The token's route stays while the caller does: a task started by
		// the call reports progress under it after the call has returned.
	}()
	req.ID = f.id
	resp, err := s.tr.SendRequest(rctx, req)
	if err != nil {
		if s.proc == nil {
			if rctx.Err() == nil && !s.isDead() {
				probe := req.Method == string(mcp.MethodServerDiscover)
				if (s.initialized() || probe) && !s.sessionGone(err) {
					// The request failed, not the session: the caller's
					// request fails as a one-shot one would (a failed
					// server/discover: the caller initializes instead).
					c.failed(callerID, s.failure(err))
				} else {
					s.httpFailed(err)
				}
			}
			return nil
		}
		if rctx.Err() == nil && !s.isDead() && errors.Is(err, mcptransport.ErrTransportClosed) {
			// The server's stdout ended: died (or will be found dead).
			s.serverEnded()
		}
		return nil
	}
	if s.proc == nil && detached && brokenHow(resp) != "" && !s.initialized() {
		s.handshakeFailed(errors.New("the server's answer to " + req.Method + " has " + brokenHow(resp)))
		return nil
	}
	if s.proc == nil && !detached {
		if how := brokenHow(resp); how != "" {
			// Over HTTP nothing framed the answer: the caller's request
			// fails as a one-shot one would.
			c.drain()
			c.failed(callerID, map[string]any{"broken": how})
			return nil
		}
	}
	resp.ID = callerID
	c.drain() // progress and log notes before the answer
	return resp
}

// withToken replaces params' _meta.progressToken by tok (JSON).
func withToken(params json.RawMessage, tok string) (json.RawMessage, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(params, &fields) != nil {
		return nil, false
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(fields["_meta"], &meta) != nil {
		return nil, false
	}
	meta["progressToken"] = json.RawMessage(tok)
	m, err := json.Marshal(meta)
	if err != nil {
		return nil, false
	}
	fields["_meta"] = m
	out, err := json.Marshal(fields)
	return out, err == nil
}

// mask hides the target's secrets in a log line.
func (s *Spec) mask(line string) string {
	for _, v := range s.Secrets {
		if len(v) >= 3 {
			line = strings.ReplaceAll(line, v, "***")
		}
	}
	return line
}

// maxHeld bounds the requests' headers a caller may announce ahead of them.
const maxHeld = 1024

// heldHeaders are the headers announced for a request not received yet,
// and when (in the caller's order of announcements).
type heldHeaders struct {
	h   http.Header
	seq uint64
}

// setHeaders keeps the headers a MethodHeaders notification announces for
// the caller's next request of that id. Past maxHeld, the oldest are
// forgotten: those of requests the caller abandoned before sending them,
// as the newest belong to the request that follows.
func (c *caller) setHeaders(f map[string]any) {
	raw, _ := json.Marshal(f["id"])
	var id mcp.RequestId
	if json.Unmarshal(raw, &id) != nil || id.IsNil() {
		return
	}
	raw, _ = json.Marshal(f["headers"])
	var announced http.Header
	if json.Unmarshal(raw, &announced) != nil {
		return
	}
	h := requestHeaders(announced)
	if len(h) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := id.String()
	if _, ok := c.headers[key]; !ok && len(c.headers) >= maxHeld {
		oldest, first := "", true
		for k, held := range c.headers {
			if first || held.seq < c.headers[oldest].seq {
				oldest, first = k, false
			}
		}
		delete(c.headers, oldest)
	}
	c.heldSeq++
	c.headers[key] = heldHeaders{h: h, seq: c.heldSeq}
}

// requestHeaders keeps of a caller's announced headers those a request's
// own may be (Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*):
// the target's own, such as its Authorization or its session's
// Mcp-Session-Id, are the daemon's to send, never a caller's to replace.
func requestHeaders(announced http.Header) http.Header {
	h := http.Header{}
	for k, v := range announced {
		k = http.CanonicalHeaderKey(k)
		if strings.HasPrefix(k, "Mcp-") && k != mcptransport.HeaderKeySessionID && len(v) > 0 {
			h[k] = v
		}
	}
	return h
}

// takeHeaders returns (and forgets) the headers announced for request id.
func (c *caller) takeHeaders(id mcp.RequestId) http.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	held := c.headers[id.String()]
	delete(c.headers, id.String())
	return held.h
}

// postCancels reports whether the request's aborted POST is its
// cancellation: an HTTP server in the 2026-07-28 era, to which nothing
// else is sent (as a one-shot connection sends nothing).
func (s *session) postCancels() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc == nil && s.modern
}

// withField is a copy of fields with k set to v: the forwarded message's
// own, as the original may still be read elsewhere.
func withField(fields map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(fields)+1)
	for key, val := range fields {
		out[key] = val
	}
	out[k] = v
	return out
}
