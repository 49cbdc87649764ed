package daemon

// A caller's requests: the handshake replayed, listings from the cache,
// logging/setLevel, and everything else forwarded under the daemon's ids
// and progress tokens.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"
)

// handshakeWait bounds a handshake request the daemon sends for a caller.
const handshakeWait = 2 * time.Minute

// requestHandler answers one method of a caller's requests (params: the
// request's, raw); nil when there is no answer to give (see
// forwardRequest).
type requestHandler func(c *caller, ctx context.Context, req mcptransport.JSONRPCRequest, params json.RawMessage) *mcptransport.JSONRPCResponse

// requestHandlers are the methods the daemon answers otherwise than by
// forwarding them as they are (relay).
var requestHandlers = func() map[string]requestHandler {
	m := map[string]requestHandler{
		MethodFlush:                      (*caller).flush,
		string(mcp.MethodInitialize):     (*caller).handshake,
		string(mcp.MethodServerDiscover): (*caller).handshake,
		string(mcp.MethodSetLogLevel):    (*caller).setLevel,
	}
	for method := range listKinds {
		m[method] = (*caller).listing
	}
	return m
}()

// request answers a caller's request: the handshake from the server's
// first answer, a listing from the cache, anything else forwarded.
func (c *caller) request(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
	params, _ := req.Params.(json.RawMessage)
	req.Header = c.takeHeaders(req.ID)
	h := requestHandlers[req.Method]
	if h == nil {
		h = (*caller).relay
	}
	return h(c, ctx, req, params), nil
}

// result is the daemon's own answer to req.
func result(req mcptransport.JSONRPCRequest, r json.RawMessage) *mcptransport.JSONRPCResponse {
	return &mcptransport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID, Result: r}
}

// flush (MethodFlush) is answered once everything the server wrote on
// stderr so far has reached the caller (the caller's -v, at its end).
func (c *caller) flush(_ context.Context, req mcptransport.JSONRPCRequest, _ json.RawMessage) *mcptransport.JSONRPCResponse {
	if s := c.session(); s.proc != nil {
		s.proc.StderrQuiet(10*time.Millisecond, 300*time.Millisecond)
	}
	// The answer is queued after the lines sent so far (see outQueue).
	return result(req, json.RawMessage("{}"))
}

// relay forwards a request as it is.
func (c *caller) relay(ctx context.Context, req mcptransport.JSONRPCRequest, params json.RawMessage) *mcptransport.JSONRPCResponse {
	resp, _ := c.forwardRequest(ctx, req, params, false)
	return resp
}

// listing answers a listing from the cache (unless the caller refreshes),
// else forwards it and keeps its answer, unless a list_changed of its kind
// arrived meanwhile (see Cache.Put).
func (c *caller) listing(ctx context.Context, req mcptransport.JSONRPCRequest, params json.RawMessage) *mcptransport.JSONRPCResponse {
	s := c.session()
	if !c.refresh && !s.isDead() {
		if r, ok := s.cache.GetIn(c.auth, req.Method, params); ok {
			return result(req, r)
		}
	}
	gen := s.cache.Gen(req.Method)
	resp, on := c.forwardRequest(ctx, req, params, false)
	if on != s {
		return resp // answered by the session that replaced s: its cache starts empty
	}
	if resp != nil && resp.Error == nil && len(resp.Result) > 0 && gjson.ValidBytes(resp.Result) &&
		gjson.ParseBytes(resp.Result).IsObject() {
		s.cache.PutIn(c.auth, req.Method, params, append(json.RawMessage(nil), resp.Result...), gen)
	}
	return resp
}

// handshake answers initialize and server/discover: the server's first
// answer is replayed to every later caller. A server that never answers
// server/discover must not hold up the initialize that follows it: one
// request of each method at a time.
func (c *caller) handshake(ctx context.Context, req mcptransport.JSONRPCRequest, params json.RawMessage) *mcptransport.JSONRPCResponse {
	for tries := 0; ; tries++ {
		s := c.live()
		if s == nil {
			return nil
		}
		resp, again := c.handshakeOn(s, ctx, req, params)
		if !again {
			return resp
		}
		if tries > 0 {
			// Its successor is gone as well before it read the request
			// (a server that dies at its start): the caller is told as of
			// any dead server.
			c.drop(s.lostParams())
			return nil
		}
	}
}

// handshakeOn answers a handshake request on s (see handshake); again: it
// never reached s's server, which is gone, and goes to its successor.
func (c *caller) handshakeOn(s *session, ctx context.Context, req mcptransport.JSONRPCRequest, params json.RawMessage) (*mcptransport.JSONRPCResponse, bool) {
	lock := s.handshakeLock(req.Method)
	lock.Lock()
	defer lock.Unlock()
	s.mu.Lock()
	cached, ok := s.hs[req.Method]
	_, legacy := s.hs[string(mcp.MethodInitialize)]
	refused := s.discoverRefused
	s.mu.Unlock()
	if ok {
		return result(req, cached), false
	}
	discover := req.Method == string(mcp.MethodServerDiscover)
	if discover && legacy {
		// The server settled on the legacy handshake: a later caller's
		// probe gets the answer the first one got, and the session's
		// protocol version stays.
		if refused != nil {
			return legacyProbe(req.ID, refused), false
		}
	} else {
		s.handshakeVersion(req.Header)
	}
	asked := req
	asked.Params = params
	resp, again := c.forwardOn(s, ctx, req, params, true)
	switch {
	case again:
		return nil, true
	case resp != nil && resp.Error == nil && len(resp.Result) > 0 && string(resp.Result) != "null" && gjson.ValidBytes(resp.Result):
		return s.keepHandshake(asked, resp), false
	case discover && resp != nil && resp.Error != nil:
		s.mu.Lock()
		s.discoverRefused = resp
		s.mu.Unlock()
	}
	return resp, false
}

// handshakeLock is the lock of method's handshake requests.
func (s *session) handshakeLock(method string) *sync.Mutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	lock := s.hsMu[method]
	if lock == nil {
		lock = &sync.Mutex{}
		s.hsMu[method] = lock
	}
	return lock
}

// keepHandshake records the server's answer to a handshake request, the
// answer later callers get, and settles the target's era.
func (s *session) keepHandshake(req mcptransport.JSONRPCRequest, resp *mcptransport.JSONRPCResponse) *mcptransport.JSONRPCResponse {
	discover := req.Method == string(mcp.MethodServerDiscover)
	s.mu.Lock()
	if _, legacy := s.hs[string(mcp.MethodInitialize)]; discover && legacy {
		// The legacy handshake succeeded first (this probe outlasted its
		// caller's, which initialized instead): the target stays in that
		// era, and the probe is refused, so that its caller initializes
		// too.
		refused := s.discoverRefused
		s.mu.Unlock()
		return legacyProbe(req.ID, refused)
	}
	s.hs[req.Method] = append(json.RawMessage(nil), resp.Result...)
	s.hsReq[req.Method] = req
	// Initialize answered after a probe was: its caller gave up on the
	// probe, and the target is in the legacy era from now on.
	s.modern = discover
	if !discover {
		delete(s.hs, string(mcp.MethodServerDiscover))
		delete(s.hsReq, string(mcp.MethodServerDiscover))
	}
	s.mu.Unlock()
	if discover {
		// No stream carries list_changed between requests in the
		// 2026-07-28 era: a listing is kept for its ttlMs, else
		// DefaultListTTL, whatever the capabilities say.
		s.cache.SetInit(nil)
	} else {
		s.cache.SetInit(resp.Result)
		s.handshakeDone(resp.Result)
	}
	return resp
}

// setLevel forwards a logging/setLevel, unless the server's level is
// already the one asked for. The level is the connection's, not a
// caller's (the server has one), and every call of the same kind asks for
// the same one: answering it here saves a round trip to the server on
// each warm call. The level is known only from a request the server
// answered with none other in flight; one cancelled, failed or refused
// leaves it unknown, and the next is forwarded.
func (c *caller) setLevel(ctx context.Context, req mcptransport.JSONRPCRequest, params json.RawMessage) *mcptransport.JSONRPCResponse {
	s := c.session()
	if s.isDead() {
		if s = c.live(); s == nil {
			return nil
		}
	}
	s.mu.Lock()
	if s.levelParams != nil && s.levelPending == 0 && bytes.Equal(s.levelParams, params) {
		r := s.levelResult
		s.mu.Unlock()
		return result(req, r)
	}
	s.levelSeq++
	seq := s.levelSeq
	s.levelPending++
	s.levelParams, s.levelResult = nil, nil
	s.mu.Unlock()
	resp, on := c.forwardRequest(ctx, req, params, false)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.levelPending--
	if on == s && resp != nil && resp.Error == nil && s.levelSeq == seq && s.levelPending == 0 && params != nil &&
		gjson.ValidBytes(resp.Result) && gjson.ParseBytes(resp.Result).IsObject() {
		s.levelParams = append(json.RawMessage(nil), params...)
		s.levelResult = append(json.RawMessage(nil), resp.Result...)
	}
	return resp
}

// ahead is what s would answer a caller's handshake requests with from
// its record, at once (see Ahead): the handshake results (see
// handshakeOn), whether notifications/initialized was sent (see
// sendInitialized), and the log level known (see setLevel). nil when s
// is dead (the caller's first request goes to its successor, see live),
// stopping, or has recorded nothing.
func (s *session) ahead(h *Hello) *Ahead {
	if s.isDead() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping || s.oneshot || len(s.hs) == 0 {
		return nil
	}
	a := &Ahead{Handshake: make(map[string]json.RawMessage, len(s.hs)), Initialized: s.initSent}
	n := 0
	for m, r := range s.hs {
		a.Handshake[m] = r
		n += len(r)
	}
	if s.levelParams != nil && s.levelPending == 0 {
		a.Level, a.LevelResult = s.levelParams, s.levelResult
		n += len(a.Level) + len(a.LevelResult)
	}
	if n > maxAhead {
		return nil
	}
	if !h.Refresh {
		for _, m := range h.Listings {
			a.Pages = s.cache.Chain(m, a.Pages, maxAheadPages)
		}
	}
	return a
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

// forwardRequest sends a caller's request to the server and returns the
// answer (see forwardOn), and the session that answered. A request that
// never reached the server, its session gone (a server dead before it, an
// HTTP session the server forgot), goes to the session that replaces it,
// once (see live).
func (c *caller) forwardRequest(ctx context.Context, req mcptransport.JSONRPCRequest, params json.RawMessage, detached bool) (*mcptransport.JSONRPCResponse, *session) {
	for tries := 0; ; tries++ {
		s := c.live()
		if s == nil {
			return nil, nil
		}
		resp, again := c.forwardOn(s, ctx, req, params, detached)
		if !again {
			return resp, s
		}
		if tries > 0 {
			// Its successor is gone as well before the request reached
			// it: the caller is told as of any dead server.
			c.drop(s.lostParams())
			return nil, s
		}
	}
}

// live is the caller's session, alive: when its server died, the session
// that replaces it (started if need be, initialized by the daemon with the
// handshake the dead one recorded), which the caller is moved to, with a
// note that its state was lost. nil when there is none (the caller is
// told why and cut off). A session stopped (daemon stop, idle) is not
// replaced: its callers are cut off.
func (c *caller) live() *session {
	s := c.session()
	if !s.isDead() || s.oneShot() {
		return s
	}
	s.mu.Lock()
	stopped := s.stopping
	s.mu.Unlock()
	if stopped {
		return s
	}
	n, err := c.d.successor(s)
	if err != nil {
		lost := s.lostParams()
		lost["why"] = s.spec.mask(fmt.Sprintf("%s, and could not be started again: %v", s.deadWhyNow(), err))
		c.drop(lost)
		return nil
	}
	if !c.sess.CompareAndSwap(s, n) {
		return c.session() // moved by another of its requests
	}
	c.unregister(s)
	n.mu.Lock()
	n.callers[c] = true
	n.hadCaller = true
	n.mu.Unlock()
	n.calls.Add(1)
	n.lastUse.Store(time.Now().UnixNano())
	if s.initialized() {
		c.notify(MethodNote, map[string]any{"note": lostNote(s.spec.Name, s.deadWhyNow())})
	}
	return n
}

// forwardOn sends a caller's request to s's server under an id of the
// daemon's (and a progress token of the daemon's), and returns the answer
// under the caller's id; nil when there is none to give (the caller went
// away, cancelled, or the server died: then the caller is told and cut
// off). again: the request never reached the server, whose session is
// gone; it may go to the session that replaces s. A handshake request is
// detached: it goes on when its caller goes (a TAB out of budget), and
// the next caller gets its answer.
func (c *caller) forwardOn(s *session, ctx context.Context, req mcptransport.JSONRPCRequest, params json.RawMessage, detached bool) (resp *mcptransport.JSONRPCResponse, again bool) {
	callerID := req.ID
	parent, stop := c.gone, func() {}
	if detached {
		parent, stop = context.WithTimeout(context.Background(), handshakeWait)
	}
	defer stop()
	rctx, cancel := context.WithCancel(parent)
	defer cancel()
	f := &forwarded{id: mcp.NewRequestId(s.nextID.Add(1)), s: s, cancel: cancel}
	if p := c.daemonToken(s, params); p != nil {
		req.Params = p
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
	if s.proc != nil && s.ended.Load() {
		// The server's stdout ended before the request: it is gone, and
		// never read it.
		s.awaitDeath("the server closed its stdout")
		return nil, true
	}
	var status *int
	if s.rt != nil {
		status = new(int)
		rctx = withStatus(rctx, status)
	}
	written := s.written()
	resp, err := s.tr.SendRequest(rctx, req)
	if err != nil || resp == nil && s.isDead() {
		if rctx.Err() != nil && !s.isDead() {
			return nil, false // cancelled, or the caller went away
		}
		if s.proc != nil && errors.Is(err, mcptransport.ErrTransportClosed) && s.neverRead(written) {
			// The server's stdout ended, and it never read the request
			// (not written, or still in its stdin pipe): it may go to
			// the server that replaces it.
			s.awaitDeath("the server closed its stdout")
			return nil, true
		}
		return nil, c.sendFailed(s, req, callerID, err)
	}
	if s.rt != nil && s.sessionUnknown(*status, resp) {
		// The server no longer knows the session (restarted, or it
		// expired it), and did not serve the request.
		s.forgotten()
		return nil, true
	}
	if how := brokenHow(resp); s.proc == nil && how != "" && (!detached || !s.initialized()) {
		c.brokenAnswer(s, req, callerID, how, detached)
		return nil, false
	}
	resp.ID = callerID
	c.served.Store(s)
	return resp, false
}

// daemonToken gives f a progress token of the daemon's in place of the
// one params carry, if any, routed back to the caller's (see
// serverNotification); it returns the params to send.
func (c *caller) daemonToken(s *session, params json.RawMessage) json.RawMessage {
	tok := gjson.GetBytes(params, "_meta.progressToken")
	if !tok.Exists() {
		return params
	}
	daemonTok := strconv.Quote("mcpx-" + strconv.FormatInt(s.nextTok.Add(1), 10))
	p, ok := withToken(params, daemonTok)
	if !ok {
		return params
	}
	s.mu.Lock()
	s.tokens[daemonTok] = tokenRoute{c: c, tok: json.RawMessage(tok.Raw)}
	s.mu.Unlock()
	return p
}

// sendFailed: req (under the daemon's id), sent to s for callerID, failed
// with err (or got no answer) while the caller waited. again: the server
// never got it (a stdio server whose stdin broke: it is gone; an HTTP
// session the server ended), and it may go to s's successor. Otherwise
// the caller is told: the request failed (HTTP, the session alive), or
// the server is gone (then the caller is cut off).
func (c *caller) sendFailed(s *session, req mcptransport.JSONRPCRequest, callerID mcp.RequestId, err error) (again bool) {
	if s.proc != nil {
		if err != nil && !errors.Is(err, mcptransport.ErrTransportClosed) {
			// The request could not be written: the server's stdin is
			// broken, the server gone (or going).
			s.awaitDeath("the server closed its stdin")
			return true
		}
		// Its stdout ended while the request was out: the server died
		// with it (its state, and what the request did, are unknown).
		s.awaitDeath("the server closed its stdout")
		c.drop(s.lostParams())
		return false
	}
	if s.isDead() {
		c.drop(s.lostParams())
		return false
	}
	if errors.Is(err, mcptransport.ErrSessionTerminated) && s.initialized() {
		// 404: the server no longer knows the session.
		s.forgotten()
		return true
	}
	probe := req.Method == string(mcp.MethodServerDiscover)
	if err != nil && (s.initialized() || probe) && !s.sessionGone(err) {
		// The request failed, not the session: the caller's request
		// fails as a one-shot one would (a failed server/discover: the
		// caller initializes instead).
		c.failed(callerID, s.failure(err))
		return false
	}
	if err == nil {
		err = errors.New("the connection closed")
	}
	s.httpFailed(err)
	if s.initialized() {
		c.drop(s.lostParams())
	}
	return false
}

// brokenAnswer: an HTTP or SSE server's answer to req breaks JSON-RPC
// (how). Over HTTP nothing framed the answer: the caller's request fails
// as a one-shot one would; a handshake request's (detached), before the
// target is initialized, fails the target's handshake.
func (c *caller) brokenAnswer(s *session, req mcptransport.JSONRPCRequest, callerID mcp.RequestId, how string, detached bool) {
	if detached {
		s.handshakeFailed(errors.New("the server's answer to " + req.Method + " has " + how))
		return
	}
	c.failed(callerID, map[string]any{"broken": how})
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

// replayHandshake makes on s, the successor of dead, the handshake dead
// recorded (its first caller's initialize, or server/discover in the
// 2026-07-28 era), unless s has one already, then notifications/initialized
// and the log level dead's callers had set: s's callers, initialized on
// dead, go on as if nothing had changed but the server's state. Nothing
// is made when dead was never initialized (its caller initializes).
func (s *session) replayHandshake(dead *session) error {
	dead.mu.Lock()
	method := string(mcp.MethodInitialize)
	if dead.modern {
		method = string(mcp.MethodServerDiscover)
	}
	req, recorded := dead.hsReq[method]
	level := dead.levelParams
	dead.mu.Unlock()
	if !recorded {
		return nil
	}
	lock := s.handshakeLock(method)
	lock.Lock()
	s.mu.Lock()
	_, done := s.hs[method]
	s.mu.Unlock()
	if !done {
		s.handshakeVersion(req.Header)
		resp, err := s.sendOwn(req)
		if err == nil && (resp.Error != nil || brokenHow(resp) != "" || len(resp.Result) == 0 || !gjson.ValidBytes(resp.Result)) {
			err = fmt.Errorf("the server's answer to %s: %s", method, answerText(resp))
		}
		if err != nil {
			lock.Unlock()
			s.died(fmt.Sprintf("%s failed: %v", method, err))
			return err
		}
		s.keepHandshake(req, resp)
	}
	lock.Unlock()
	if method == string(mcp.MethodInitialize) {
		s.sendInitialized(context.Background())
	}
	s.mu.Lock()
	known := s.levelParams != nil || s.levelPending > 0
	s.mu.Unlock()
	if level != nil && !known {
		// Best effort: the level is the connection's, and the callers
		// asked for it on dead.
		resp, err := s.sendOwn(mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, Method: string(mcp.MethodSetLogLevel), Params: level})
		if err == nil && resp.Error == nil && gjson.ValidBytes(resp.Result) && gjson.ParseBytes(resp.Result).IsObject() {
			s.mu.Lock()
			if s.levelParams == nil && s.levelPending == 0 {
				s.levelParams = append(json.RawMessage(nil), level...)
				s.levelResult = append(json.RawMessage(nil), resp.Result...)
			}
			s.mu.Unlock()
		}
	}
	return nil
}

// sendOwn sends a request of the daemon's own to s's server, under an id
// of the daemon's, bounded by handshakeWait.
func (s *session) sendOwn(req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
	ctx, cancel := context.WithTimeout(s.life, handshakeWait)
	defer cancel()
	req.ID = mcp.NewRequestId(s.nextID.Add(1))
	req.Params = withoutTrace(req.Params)
	resp, err := s.tr.SendRequest(ctx, req)
	if err == nil && resp == nil {
		err = errors.New("no answer")
	}
	return resp, err
}

// answerText says what an answer that is not the one wanted has.
func answerText(resp *mcptransport.JSONRPCResponse) string {
	switch {
	case resp.Error != nil:
		return fmt.Sprintf("error %d %s", resp.Error.Code, resp.Error.Message)
	case brokenHow(resp) != "":
		return brokenHow(resp)
	}
	return "no result"
}
