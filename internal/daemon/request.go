package daemon

// A caller's requests: the handshake replayed, listings from the cache,
// logging/setLevel, and everything else forwarded under the daemon's ids
// and progress tokens.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	if c.s.proc != nil {
		c.s.proc.StderrQuiet(10*time.Millisecond, 300*time.Millisecond)
	}
	c.drain()
	return result(req, json.RawMessage("{}"))
}

// relay forwards a request as it is.
func (c *caller) relay(ctx context.Context, req mcptransport.JSONRPCRequest, params json.RawMessage) *mcptransport.JSONRPCResponse {
	return c.forwardRequest(ctx, req, params, false)
}

// listing answers a listing from the cache (unless the caller refreshes),
// else forwards it and keeps its answer, unless a list_changed of its kind
// arrived meanwhile (see Cache.Put).
func (c *caller) listing(ctx context.Context, req mcptransport.JSONRPCRequest, params json.RawMessage) *mcptransport.JSONRPCResponse {
	s := c.s
	if !c.refresh {
		if r, ok := s.cache.Get(req.Method, params); ok {
			return result(req, r)
		}
	}
	gen := s.cache.Gen(req.Method)
	resp := c.forwardRequest(ctx, req, params, false)
	if resp != nil && resp.Error == nil && len(resp.Result) > 0 && gjson.ValidBytes(resp.Result) &&
		gjson.ParseBytes(resp.Result).IsObject() {
		s.cache.Put(req.Method, params, append(json.RawMessage(nil), resp.Result...), gen)
	}
	return resp
}

// handshake answers initialize and server/discover: the server's first
// answer is replayed to every later caller. A server that never answers
// server/discover must not hold up the initialize that follows it: one
// request of each method at a time.
func (c *caller) handshake(ctx context.Context, req mcptransport.JSONRPCRequest, params json.RawMessage) *mcptransport.JSONRPCResponse {
	s := c.s
	lock := s.handshakeLock(req.Method)
	lock.Lock()
	defer lock.Unlock()
	s.mu.Lock()
	cached, ok := s.hs[req.Method]
	_, legacy := s.hs[string(mcp.MethodInitialize)]
	refused := s.discoverRefused
	s.mu.Unlock()
	if ok {
		return result(req, cached)
	}
	discover := req.Method == string(mcp.MethodServerDiscover)
	if discover && legacy {
		// The server settled on the legacy handshake: a later caller's
		// probe gets the answer the first one got, and the session's
		// protocol version stays.
		if refused != nil {
			return legacyProbe(req.ID, refused)
		}
	} else {
		s.handshakeVersion(req.Header)
	}
	resp := c.forwardRequest(ctx, req, params, true)
	switch {
	case resp != nil && resp.Error == nil && len(resp.Result) > 0 && string(resp.Result) != "null" && gjson.ValidBytes(resp.Result):
		return s.keepHandshake(req, resp)
	case discover && resp != nil && resp.Error != nil:
		s.mu.Lock()
		s.discoverRefused = resp
		s.mu.Unlock()
	}
	return resp
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
	// Initialize answered after a probe was: its caller gave up on the
	// probe, and the target is in the legacy era from now on.
	s.modern = discover
	if !discover {
		delete(s.hs, string(mcp.MethodServerDiscover))
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
	s := c.s
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
	if params = c.daemonToken(f, params); params != nil {
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
		if rctx.Err() == nil && !s.isDead() {
			c.sendFailed(req, callerID, err)
		}
		return nil
	}
	if how := brokenHow(resp); s.proc == nil && how != "" && (!detached || !s.initialized()) {
		c.brokenAnswer(req, callerID, how, detached)
		return nil
	}
	resp.ID = callerID
	c.drain() // progress and log notes before the answer
	return resp
}

// daemonToken gives f a progress token of the daemon's in place of the
// one params carry, if any, routed back to the caller's (see
// serverNotification); it returns the params to send.
func (c *caller) daemonToken(f *forwarded, params json.RawMessage) json.RawMessage {
	s := c.s
	tok := gjson.GetBytes(params, "_meta.progressToken")
	if !tok.Exists() {
		return params
	}
	daemonTok := strconv.Quote("mcpx-" + strconv.FormatInt(s.nextTok.Add(1), 10))
	p, ok := withToken(params, daemonTok)
	if !ok {
		return params
	}
	f.tok = daemonTok
	s.mu.Lock()
	s.tokens[daemonTok] = tokenRoute{c: c, tok: json.RawMessage(tok.Raw)}
	s.mu.Unlock()
	return p
}

// sendFailed: req (under the daemon's id), sent for callerID, failed with
// err while the caller waited and the server lived.
func (c *caller) sendFailed(req mcptransport.JSONRPCRequest, callerID mcp.RequestId, err error) {
	s := c.s
	if s.proc != nil {
		if errors.Is(err, mcptransport.ErrTransportClosed) {
			// The server's stdout ended: died (or will be found dead).
			s.serverEnded()
		}
		return
	}
	probe := req.Method == string(mcp.MethodServerDiscover)
	if (s.initialized() || probe) && !s.sessionGone(err) {
		// The request failed, not the session: the caller's request
		// fails as a one-shot one would (a failed server/discover: the
		// caller initializes instead).
		c.failed(callerID, s.failure(err))
		return
	}
	s.httpFailed(err)
}

// brokenAnswer: an HTTP or SSE server's answer to req breaks JSON-RPC
// (how). Over HTTP nothing framed the answer: the caller's request fails
// as a one-shot one would; a handshake request's (detached), before the
// target is initialized, fails the target's handshake.
func (c *caller) brokenAnswer(req mcptransport.JSONRPCRequest, callerID mcp.RequestId, how string, detached bool) {
	if detached {
		c.s.handshakeFailed(errors.New("the server's answer to " + req.Method + " has " + how))
		return
	}
	c.drain()
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
