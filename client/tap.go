package client

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"
)

// handshake records the replies to the requests mcp-go sends during the
// handshake (server/discover, initialize): mcp-go decodes the initialize
// result into strict types and drops JSON-RPC error codes and data, and
// the record keeps what the server really sent (see Conn.initialize).
type handshake struct {
	results []json.RawMessage
	errs    []*mcp.JSONRPCErrorDetails
	// broken says how the first response that JSON-RPC does not allow was
	// wrong: "neither a result nor an error", or "both a result and an error".
	broken string
	// answered is the method of the last request when the transport
	// answered it with a result ("" when it was answered otherwise, or
	// not yet): see refusedResult.
	answered string
}

// refusedResult reports whether the handshake failed because mcp-go's typed
// decoding refused the result of its last request, method: the transport
// answered that request with a result, and json.Unmarshal does not take it
// as a T, which is how mcp-go decodes it (TestMcpGoDecodesStrictly).
func refusedResult[T any](h *handshake, method string) bool {
	raw := h.lastResult()
	if h.answered != method || raw == nil {
		return false
	}
	var v T
	return json.Unmarshal(raw, &v) != nil
}

func (h *handshake) lastResult() json.RawMessage {
	if len(h.results) == 0 {
		return nil
	}
	return h.results[len(h.results)-1]
}

func (h *handshake) lastError() *mcp.JSONRPCErrorDetails {
	if len(h.errs) == 0 {
		return nil
	}
	return h.errs[len(h.errs)-1]
}

// asError is err as the typed error of what the server answered during the
// handshake (see classifyCall): a response that breaks JSON-RPC, or the
// last JSON-RPC error; err itself when neither.
func (h *handshake) asError(err error) error {
	if h.broken != "" {
		return brokenReply(h.broken)
	}
	if d := h.lastError(); d != nil {
		return errorReply(*d)
	}
	return err
}

// record notes one reply of the handshake.
func (h *handshake) record(method string, resp *mcptransport.JSONRPCResponse) {
	h.answered = ""
	switch {
	case resp.Error != nil && resp.Result != nil && string(resp.Result) != "null":
		if h.broken == "" {
			h.broken = "both a result and an error"
		}
	case resp.Error != nil:
		h.errs = append(h.errs, resp.Error)
	case resp.Result == nil:
		if h.broken == "" {
			h.broken = "neither a result nor an error"
		}
	default:
		h.results = append(h.results, resp.Result)
		h.answered = method
	}
}

// tap decorates a transport: mcpx's own requests go through send (see
// Conn.request), mcp-go's (the handshake) through SendRequest. The
// wrappers below mirror the inner transport's optional interfaces
// exactly: mcp-go type-asserts on them (server requests, protocol header,
// cancellation), so claiming one more or one fewer changes behaviour.
type tap struct {
	inner mcptransport.Interface
	hooks *serverHooks
	// beforeInitialized, when set, runs before notifications/initialized
	// is sent (the legacy handshake; see connect).
	beforeInitialized func()
	// outlive gives the inner transport a deadline a moment later than
	// the call's (see outliveDeadline): set for mcp-go's SSE transport.
	outlive bool

	mu       sync.Mutex
	idOffset int64 // added to mcp-go's numeric request ids (a second client on one session)
	lastID   int64 // the last numeric id sent: mcpx's ids continue from it
	// hs, when set, records the replies to mcp-go's requests (the
	// handshake; see Conn.initialize).
	hs *handshake
	// trace is the trace context every request's _meta carries (nil:
	// none; see withTrace).
	trace map[string]string
	// rediscovered: server/discover was sent again after a -32022 that
	// named the version it had been sent at (see retryDiscover).
	rediscovered bool
}

func (t *tap) Start(ctx context.Context) error { return t.inner.Start(ctx) }

// nextID is the id of mcpx's next request: one more than the last id sent,
// so that ids never repeat on the connection (mcp-go sends none after the
// handshake).
func (t *tap) nextID() mcp.RequestId {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lastID++
	return mcp.NewRequestId(t.lastID)
}

// offsetIDs makes the ids of mcp-go's requests, and of mcpx's after them,
// start past offset (a second mcp-go client on the session counts from 1
// again).
func (t *tap) offsetIDs(offset int64) {
	t.mu.Lock()
	t.idOffset = offset
	t.lastID = max(t.lastID, offset)
	t.mu.Unlock()
}

// recordHandshake starts (h) or ends (nil) the record of mcp-go's replies.
func (t *tap) recordHandshake(h *handshake) {
	t.mu.Lock()
	t.hs = h
	t.mu.Unlock()
}

// send sends one request through the inner transport.
func (t *tap) send(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
	req.Params = withTrace(req.Params, t.trace)
	ictx := ctx
	if t.outlive {
		var stop context.CancelFunc
		ictx, stop = outliveDeadline(ctx)
		defer stop()
	}
	return t.inner.SendRequest(ictx, req)
}

// SendRequest sends mcp-go's requests (the handshake's), with ids offset
// when a second client shares the session, and records their replies.
func (t *tap) SendRequest(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
	t.mu.Lock()
	if v, ok := req.ID.Value().(int64); ok {
		v += t.idOffset
		req.ID = mcp.NewRequestId(v)
		t.lastID = max(t.lastID, v)
	}
	hs := t.hs
	t.mu.Unlock()
	resp, err := t.send(ctx, req)
	if hs != nil && err == nil && resp != nil {
		t.mu.Lock()
		hs.record(req.Method, resp)
		t.mu.Unlock()
	}
	if again, ok := t.retryDiscover(req, resp, err); ok {
		if t.hooks != nil && t.hooks.o.Debug != nil {
			t.hooks.o.Debug("the server refused server/discover at a protocol version it says it supports (code %d); sending it once more", mcp.UNSUPPORTED_PROTOCOL_VERSION)
		}
		return t.SendRequest(ctx, again)
	}
	return resp, err
}

// retryDiscover returns the request to send when the server answered
// server/discover with an unsupported-version error (-32022) whose
// data.supported names the very version the request was sent at: a
// server that refuses the first request it gets (a stateless server
// behind a balancer that has not yet seen the version) is asked once
// more, with a new id, at that version, rather than taken for a legacy
// server (mcp-go retries only at a different version). The retry is made
// once per connection.
func (t *tap) retryDiscover(req mcptransport.JSONRPCRequest, resp *mcptransport.JSONRPCResponse, err error) (mcptransport.JSONRPCRequest, bool) {
	if err != nil || resp == nil || resp.Error == nil || resp.Error.Code != mcp.UNSUPPORTED_PROTOCOL_VERSION ||
		req.Method != string(mcp.MethodServerDiscover) {
		return req, false
	}
	params, mErr := json.Marshal(req.Params)
	if mErr != nil {
		return req, false
	}
	sent := gjson.GetBytes(params, `_meta.io\.modelcontextprotocol/protocolVersion`).String()
	var data struct {
		Supported []string `json:"supported"`
	}
	if b, mErr := json.Marshal(resp.Error.Data); mErr != nil || json.Unmarshal(b, &data) != nil {
		return req, false
	}
	if sent == "" || !slices.Contains(data.Supported, sent) {
		return req, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rediscovered {
		return req, false
	}
	t.rediscovered = true
	// A new id: mcp-go's later ids move past it (SendRequest adds the
	// offset; this request's id was given the offset already).
	if v, ok := req.ID.Value().(int64); ok {
		t.idOffset++
		req.ID = mcp.NewRequestId(v + 1 - t.idOffset)
	}
	return req, true
}

// outliveGrace is how much later than the call's deadline the inner
// transport's is (see outliveDeadline).
const outliveGrace = time.Second

// outliveDeadline returns a context that ends when ctx ends, with a
// deadline outliveGrace later than ctx's. mcp-go's SSE transport times a
// request out by a timer of its own, set by the context's deadline, which
// fires with ctx's and may win the race with an error that does not say
// it is a timeout. Given the later deadline, ctx always ends first, and
// the transport returns the context's error (TestSSEDeadlineRace).
func outliveDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok {
		return ctx, func() {}
	}
	ictx, cancel := context.WithDeadline(context.WithoutCancel(ctx), dl.Add(outliveGrace))
	stop := context.AfterFunc(ctx, cancel)
	return ictx, func() { stop(); cancel() }
}

// withArguments returns the params of a prompts/get or tools/call with an
// "arguments" object, {} when none was given: mcp-go leaves out empty
// arguments (omitempty), and servers that validate params (the TypeScript
// SDK's) refuse a request without them, even when every argument is
// optional. Params are a typed struct in the legacy era, and a map of raw
// members once mcp-go has added the 2026-07-28 era's _meta.
func withArguments(params any) any {
	var fields map[string]json.RawMessage
	switch p := params.(type) {
	case map[string]json.RawMessage:
		fields = p
	case mcp.GetPromptParams:
		if len(p.Arguments) > 0 {
			return params
		}
	case mcp.CallToolParams:
		if p.Arguments != nil {
			return params
		}
	default:
		return params
	}
	if fields == nil {
		b, err := json.Marshal(params)
		if err != nil || json.Unmarshal(b, &fields) != nil || fields == nil {
			return params
		}
	}
	if a, ok := fields["arguments"]; ok && len(a) > 0 && string(a) != "null" {
		return params
	}
	out := make(map[string]json.RawMessage, len(fields)+1)
	for k, v := range fields {
		out[k] = v
	}
	out["arguments"] = json.RawMessage("{}")
	return out
}

// SendNotification sends mcp-go's notifications but its cancellations: it
// sends those in the background, where they could reach a server already
// being stopped; mcpx sends its own before it returns (Conn.cancelled).
func (t *tap) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	if n.Method == string(mcp.MethodNotificationCancelled) {
		return nil
	}
	if n.Method == string(mcp.MethodNotificationInitialized) && t.beforeInitialized != nil {
		t.beforeInitialized()
	}
	return t.inner.SendNotification(ctx, n)
}

func (t *tap) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	t.inner.SetNotificationHandler(h)
}

func (t *tap) Close() error         { return t.inner.Close() }
func (t *tap) GetSessionId() string { return t.inner.GetSessionId() }

type tapBidi struct {
	*tap
	bidi mcptransport.BidirectionalInterface
}

// SetRequestHandler puts mcpx's answers (serverHooks.wrap) before mcp-go's.
func (t *tapBidi) SetRequestHandler(h mcptransport.RequestHandler) {
	if t.hooks != nil {
		h = t.hooks.wrap(h)
	}
	t.bidi.SetRequestHandler(h)
}

type tapBidiHTTP struct {
	tapBidi
	http mcptransport.HTTPConnection
}

func (t *tapBidiHTTP) SetProtocolVersion(v string) { t.http.SetProtocolVersion(v) }

type tapHTTP struct {
	*tap
	http mcptransport.HTTPConnection
}

func (t *tapHTTP) SetProtocolVersion(v string) { t.http.SetProtocolVersion(v) }

func wrapTap(inner mcptransport.Interface, hooks *serverHooks) (mcptransport.Interface, *tap) {
	base := &tap{inner: inner, hooks: hooks}
	bidi, isBidi := inner.(mcptransport.BidirectionalInterface)
	httpConn, isHTTP := inner.(mcptransport.HTTPConnection)
	switch {
	case isBidi && isHTTP:
		return &tapBidiHTTP{tapBidi: tapBidi{tap: base, bidi: bidi}, http: httpConn}, base
	case isBidi:
		return &tapBidi{tap: base, bidi: bidi}, base
	case isHTTP:
		return &tapHTTP{tap: base, http: httpConn}, base
	}
	return base, base
}
