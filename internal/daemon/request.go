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
