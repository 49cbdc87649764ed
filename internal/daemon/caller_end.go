package daemon

// The caller's end of an attached socket: what an mcpx process that
// attaches to the daemon uses as its transport. The daemon's own
// notifications (the server's stderr lines, its death, a failed request,
// a handshake to make again one-shot) are taken here, reported to the
// caller's Events, and never reach mcp-go; everything else is the
// server's, framed as over a stdio server's pipes.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/limits"
)

// Events receives what the daemon says of an attached connection besides
// the server's messages. Its methods are called from the socket's reader,
// in order, before the next message is read.
type Events interface {
	// Stderr: a line of the server's stderr (MethodStderr).
	Stderr(line string)
	// Skipped: a line on the server's stdout that is not JSON-RPC
	// (MethodSkipped).
	Skipped(line string)
	// Auth: the daemon's connection to an http or sse server met a 401 or
	// 403 (status), with its WWW-Authenticate values (challenge).
	Auth(status int, challenge []string)
	// BrokenReply is the error a request ends with whose answer breaks
	// JSON-RPC (how: "neither a result nor an error", ...).
	BrokenReply(how string) error
	// OneShot: the daemon's connection to an http or sse server failed its
	// handshake (why; firstPost, the HTTP status of its first POST, 0 when
	// not known): the caller connects again one-shot, or over SSE
	// (MethodOneShot). Not called when the server refused the handshake
	// (Auth): the requests in flight then fail with why.
	OneShot(why string, firstPost int)
	// Lost: the server is gone, or the daemon cut the caller off
	// (MethodLost); the connection is dead.
	Lost(Lost)
	// Note: a note for the user (MethodNote): the server died since the
	// caller's last request, and the one that replaced it has none of its
	// state.
	Note(note string)
	// Closed: the socket ended: the daemon closed it, or the caller did
	// (called once).
	Closed()
}

// Lost is what the daemon says of a server that is gone.
type Lost struct {
	Why string
	// Stderr is the server's last stderr lines, nil when the daemon sent
	// none (the tail the caller has is then its own).
	Stderr []string
	// Violation and Limit are what the daemon's framer met, if anything:
	// the connection's, as if its own framer had met it.
	Violation string
	Limit     *limits.Error
}

// CallerOptions configure the caller's end of an attach (Open).
type CallerOptions struct {
	Env   Env
	Hello Hello // its Spec is the target
	// Stdio frames the socket (the caller's message ceiling, limit, masks
	// and logger).
	Stdio  transport.StdioOptions
	Events Events
}

// Open attaches to the daemon's connection to the target of o.Hello (see
// Attach, whose errors it returns) and returns the socket as the caller's
// transport: a stdio transport whose daemon's own notifications go to
// o.Events. For an http or sse target it stands in for the HTTP transport
// the daemon holds (an mcptransport.HTTPConnection): each request's HTTP
// headers and the negotiated protocol version go to the daemon before it
// (MethodHeaders).
func Open(ctx context.Context, o CallerOptions) (mcptransport.Interface, *Reply, error) {
	nc, rep, err := Attach(ctx, o.Env, o.Hello)
	if err != nil {
		return nil, nil, err
	}
	ev := o.Events
	in := &endReader{r: nc, end: ev.Closed}
	st := transport.NewStdio(in, nc, o.Stdio)
	e := &callerEnd{Stdio: st, in: in, ev: ev, fails: map[string]*failure{},
		http: o.Hello.Spec != nil && o.Hello.Spec.Transport != "stdio", ahead: rep.Ahead}
	// The daemon's own notifications are taken from the first byte on,
	// before mcp-go sets its handler.
	st.SetNotificationHandler(e.notification)
	if e.http {
		return &httpCallerEnd{callerEnd: e}, rep, nil
	}
	return e, rep, nil
}

// callerEnd is the daemon's socket as a stdio transport.
type callerEnd struct {
	*transport.Stdio
	in *endReader // the socket's reader, which reports its end (Events.Closed)
	ev Events

	hmu sync.RWMutex
	h   func(mcp.JSONRPCNotification) // mcp-go's

	fmu   sync.Mutex
	fails map[string]*failure // requests in flight, for MethodFailed

	// http: an http or sse target's: each request's HTTP headers, and the
	// protocol version, go to the daemon before it.
	http    bool
	vmu     sync.Mutex
	version string

	// ahead is what the daemon would answer the handshake with from its
	// record (see answerAhead); nil: nothing.
	amu   sync.Mutex
	ahead *Ahead
}

// httpCallerEnd is the daemon's socket standing in for an HTTP or SSE
// transport: it takes the protocol version mcp-go's client negotiates, and
// each request's HTTP headers go to the daemon with it (see
// callerEnd.SendRequest).
type httpCallerEnd struct {
	*callerEnd
}

var _ mcptransport.HTTPConnection = (*httpCallerEnd)(nil)

// SetProtocolVersion records the version an HTTP transport would send in
// its Mcp-Protocol-Version header.
func (w *httpCallerEnd) SetProtocolVersion(v string) {
	w.vmu.Lock()
	w.version = v
	w.vmu.Unlock()
}

// sendHeaders announces req's HTTP headers to the daemon (MethodHeaders):
// those the caller made (the 2026-07-28 era's Mcp-Method, Mcp-Name and
// Mcp-Param-*), and Mcp-Protocol-Version, which an HTTP transport sets
// itself. The daemon's transport adds the target's own.
func (w *callerEnd) sendHeaders(ctx context.Context, req mcptransport.JSONRPCRequest) error {
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
		Method: MethodHeaders, Params: mcp.NotificationParams{AdditionalFields: map[string]any{"id": req.ID, "headers": h}}}})
}

// SendRequest sends req through the daemon; a MethodFailed for it ends it
// with the error the daemon met. A handshake request the daemon would
// answer from its record is answered here (see answerAhead).
func (w *callerEnd) SendRequest(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
	if r, ok := w.answerAhead(req); ok {
		select {
		case <-w.Done():
			return nil, mcptransport.ErrTransportClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		default:
		}
		return r, nil
	}
	key := req.ID.String()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f := &failure{cancel: cancel}
	w.fmu.Lock()
	w.fails[key] = f
	w.fmu.Unlock()
	defer func() {
		w.fmu.Lock()
		delete(w.fails, key)
		w.fmu.Unlock()
	}()
	if w.http && req.Method != MethodFlush {
		if err := w.sendHeaders(ctx, req); err != nil {
			if ferr := f.get(); ferr != nil {
				return nil, ferr
			}
			return nil, err
		}
	}
	// In this goroutine: a MethodFailed ends the wait by cancelling ctx,
	// and its error is the request's.
	resp, err := w.Stdio.SendRequest(ctx, req)
	if ferr := f.get(); ferr != nil {
		return nil, ferr
	}
	return resp, err
}

// failure is a request in flight that a MethodFailed may end: the first
// error given (set) is kept, and the request's wait is cancelled.
type failure struct {
	cancel context.CancelFunc
	mu     sync.Mutex
	err    error
}

func (f *failure) set(err error) {
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
	f.cancel()
}

func (f *failure) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// answerAhead is the daemon's answer to req from the record its attach
// reply carried (Reply.Ahead), as the daemon gives it without asking the
// server (caller.handshakeOn, caller.setLevel): the server's answer to a
// handshake request of the same method, and to a logging/setLevel with
// the same params. A logging/setLevel with other params goes to the
// daemon, and the level it sets is no longer known here.
func (w *callerEnd) answerAhead(req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, bool) {
	w.amu.Lock()
	defer w.amu.Unlock()
	a := w.ahead
	if a == nil {
		return nil, false
	}
	var r json.RawMessage
	switch req.Method {
	case string(mcp.MethodInitialize), string(mcp.MethodServerDiscover):
		r = a.Handshake[req.Method]
	case string(mcp.MethodSetLogLevel):
		params, err := json.Marshal(req.Params)
		if a.Level != nil && err == nil && bytes.Equal(params, a.Level) {
			r = a.LevelResult
			break
		}
		a.Level, a.LevelResult = nil, nil
	default:
		if Cacheable(req.Method) {
			r = a.page(req)
		}
	}
	if r == nil {
		return nil, false
	}
	return &mcptransport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID, Result: r}, true
}

// page is the cached page a listing request asks for, if it came ahead:
// the page at its cursor, as the daemon's cache finds it (pageKey).
func (a *Ahead) page(req mcptransport.JSONRPCRequest) json.RawMessage {
	if len(a.Pages) == 0 {
		return nil
	}
	params, err := json.Marshal(req.Params)
	if err != nil {
		return nil
	}
	cursor := gjson.GetBytes(params, "cursor").String()
	for _, p := range a.Pages {
		if p.Method == req.Method && p.Cursor == cursor {
			return p.Result
		}
	}
	return nil
}

// SendNotification sends n through the daemon, but for a
// notifications/initialized the daemon has sent already (Ahead), which it
// would not forward (see session.sendInitialized).
func (w *callerEnd) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	if n.Method == string(mcp.MethodNotificationInitialized) {
		w.amu.Lock()
		sent := w.ahead != nil && w.ahead.Initialized
		w.amu.Unlock()
		if sent {
			select {
			case <-w.Done():
				return mcptransport.ErrTransportClosed
			case <-ctx.Done():
				return ctx.Err()
			default:
			}
			return nil
		}
	}
	return w.Stdio.SendNotification(ctx, n)
}

// Close closes the socket. Its end is reported (Events.Closed) whether or
// not the reader was reading: a reader stopped between two reads by the
// close does not read its end.
func (w *callerEnd) Close() error {
	err := w.Stdio.Close()
	w.in.once.Do(w.in.end)
	return err
}

func (w *callerEnd) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	w.hmu.Lock()
	w.h = h
	w.hmu.Unlock()
}

// notification takes the daemon's own notifications; the server's go to
// mcp-go's handler.
func (w *callerEnd) notification(n mcp.JSONRPCNotification) {
	f := n.Params.AdditionalFields
	str := func(k string) string {
		v, _ := f[k].(string)
		return v
	}
	switch n.Method {
	case MethodStderr:
		w.ev.Stderr(str("line"))
	case MethodSkipped:
		w.ev.Skipped(str("line"))
	case MethodFailed:
		w.failed(f)
	case MethodOneShot:
		// The daemon's connection to an http or sse server failed its
		// handshake: the caller connects again one-shot, unless the
		// server refused it (401, 403): then the requests fail with that.
		if w.auth(f) {
			w.failAll(errors.New(str("why")))
			return
		}
		st, _ := f["first_post"].(float64)
		w.ev.OneShot(str("why"), int(st))
	case MethodLost:
		w.ev.Lost(lostOf(f))
	case MethodNote:
		w.ev.Note(str("note"))
	default:
		w.hmu.RLock()
		h := w.h
		w.hmu.RUnlock()
		if h != nil {
			h(n)
		}
	}
}

// lostOf reads the params of MethodLost.
func lostOf(f map[string]any) Lost {
	l := Lost{}
	l.Why, _ = f["why"].(string)
	if tail, ok := f["stderr"].([]any); ok {
		l.Stderr = []string{}
		for _, v := range tail {
			if s, ok := v.(string); ok {
				l.Stderr = append(l.Stderr, s)
			}
		}
	}
	l.Violation, _ = f["violation"].(string)
	if m, ok := f["limit"].(map[string]any); ok {
		e := &limits.Error{}
		e.Limit, _ = m["limit"].(string)
		e.Msg, _ = m["msg"].(string)
		if v, ok := m["value"].(float64); ok {
			e.Value = int64(v)
		}
		l.Limit = e
	}
	return l
}

// failed ends the request a MethodFailed names.
func (w *callerEnd) failed(f map[string]any) {
	raw, _ := json.Marshal(f["id"])
	var id mcp.RequestId
	if json.Unmarshal(raw, &id) != nil {
		return
	}
	var err error
	if how, _ := f["broken"].(string); how != "" {
		err = w.ev.BrokenReply(how)
	} else {
		msg, _ := f["message"].(string)
		err = errors.New(msg)
	}
	w.auth(f)
	w.fmu.Lock()
	fl := w.fails[id.String()]
	w.fmu.Unlock()
	if fl != nil {
		fl.set(err)
	}
}

// auth reports the 401 or 403 the daemon met, if the params say so (an
// http or sse target's).
func (w *callerEnd) auth(f map[string]any) bool {
	st, ok := f["auth_status"].(float64)
	if !ok || !w.http {
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
	w.ev.Auth(int(st), challenge)
	return true
}

// failAll ends every request in flight with err.
func (w *callerEnd) failAll(err error) {
	w.fmu.Lock()
	defer w.fmu.Unlock()
	for _, f := range w.fails {
		f.set(err)
	}
}
