package client

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"
)

// sink collects the raw replies of one call. mcp-go decodes results into
// strict types (one odd item fails a whole list) and drops JSON-RPC error
// codes and data; the tap keeps what the server really sent.
type sink struct {
	mu      sync.Mutex
	results []json.RawMessage
	errs    []*mcp.JSONRPCErrorDetails
	// substitute, when set, is what mcp-go gets instead of each result:
	// mcpx parses the raw result itself, so mcp-go's strict (and, for big
	// contents, memory-hungry) typed decoding is given a small valid result.
	substitute json.RawMessage
	// rewrite, when set, makes the substitute from each result instead.
	rewrite func(json.RawMessage) json.RawMessage
	// broken says how the first response that JSON-RPC does not allow was
	// wrong: "neither a result nor an error", or "both a result and an error".
	broken string
	// input is the last of the 2026-07-28 era's "input_required" results
	// of the call (inputs counts them): mcp-go gets them whole (it answers
	// them and retries the call), and they are never the call's result.
	// index maps the canonical form of each of its elicitation requests to
	// its raw params (built on first use). tooMany is the number of input
	// requests of a result refused for having more than maxInputRequests.
	input   json.RawMessage
	inputs  int
	index   map[string]json.RawMessage
	tooMany int
	// pending is the id of the request sent and not answered yet, which a
	// cancelled call tells the server to stop (see Conn.callRaw).
	pending *mcp.RequestId
	// refused: mcpx answered a request of the server's "method not found"
	// during the call (see Conn.classifyCall).
	refused bool
	// answered is the method of the call's last request when the
	// transport answered it with a result, which mcp-go was given ("" when
	// it was answered otherwise, or not yet): see refusedResult.
	answered string
}

// refusedResult reports whether a call failed because mcp-go's typed
// decoding refused the result of its last request, method: the transport
// answered that request with a result, and json.Unmarshal does not take it
// as a T, which is how mcp-go decodes it (TestMcpGoDecodesStrictly).
func refusedResult[T any](s *sink, method string) bool {
	s.mu.Lock()
	answered := s.answered
	s.mu.Unlock()
	raw := s.lastResult()
	if answered != method || raw == nil {
		return false
	}
	var v T
	return json.Unmarshal(raw, &v) != nil
}

// inputParams returns the raw params of the input request of method, in
// the call's last input_required result, that decodes to decoded (the
// params as mcp-go decoded them, compared as canonical JSON).
func (s *sink) inputParams(method string, decoded any) json.RawMessage {
	want := canonical(decoded)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.input == nil || want == "" {
		return nil
	}
	if s.index == nil {
		s.index = map[string]json.RawMessage{}
		gjson.GetBytes(s.input, "inputRequests").ForEach(func(_, r gjson.Result) bool {
			if r.Get("method").String() == string(mcp.MethodElicitationCreate) {
				raw := json.RawMessage(r.Get("params").Raw)
				if k := canonical(raw); k != "" {
					if _, dup := s.index[k]; !dup {
						s.index[k] = raw
					}
				}
			}
			return true
		})
	}
	if method != string(mcp.MethodElicitationCreate) {
		return nil
	}
	return s.index[want]
}

// maxInputRequests bounds the input requests of one input_required result
// that mcpx answers: each may be a question to a person.
const maxInputRequests = 64

// canonical is what identifies an elicitation's params (its message,
// schema, URL and id) as JSON with object keys sorted; "" when v is not a
// JSON object.
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	var x map[string]any
	if json.Unmarshal(b, &x) != nil || x == nil {
		return ""
	}
	b, _ = json.Marshal(map[string]any{"message": x["message"], "requestedSchema": x["requestedSchema"],
		"url": x["url"], "elicitationId": x["elicitationId"]})
	return string(b)
}

func (s *sink) tooManyInputs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tooMany
}

func (s *sink) inputCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inputs
}

// pendingID returns the id of the request sent and not answered, if any.
func (s *sink) pendingID() (mcp.RequestId, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil {
		return mcp.RequestId{}, false
	}
	return *s.pending, true
}

// setRewrite sets rewrite; it is called before the request is sent.
func (s *sink) setRewrite(f func(json.RawMessage) json.RawMessage) {
	s.mu.Lock()
	s.rewrite = f
	s.mu.Unlock()
}

// brokenReply says how a response broke JSON-RPC (neither a result nor an
// error, "error": null counting as none; or both), or "".
func (s *sink) brokenReply() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.broken
}

type sinkKey struct{}

func withSink(ctx context.Context, s *sink) context.Context {
	return context.WithValue(ctx, sinkKey{}, s)
}

func (s *sink) lastResult() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.results) == 0 {
		return nil
	}
	return s.results[len(s.results)-1]
}

func (s *sink) lastError() *mcp.JSONRPCErrorDetails {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.errs) == 0 {
		return nil
	}
	return s.errs[len(s.errs)-1]
}

// tap decorates a transport and records raw replies into the call's sink.
// The wrappers below mirror the inner transport's optional interfaces
// exactly: mcp-go type-asserts on them (server requests, protocol header,
// cancellation), so claiming one more or one fewer changes behaviour.
type tap struct {
	inner mcptransport.Interface
	hooks *serverHooks
	// beforeInitialized, when set, runs before notifications/initialized
	// is sent (the legacy handshake; see connect).
	beforeInitialized func()
	idOffset          int64 // added to numeric request ids (a second client on one session)
	// outlive gives the inner transport a deadline a moment later than
	// the call's (see outliveDeadline): set for mcp-go's SSE transport.
	outlive bool
}

func (t *tap) Start(ctx context.Context) error { return t.inner.Start(ctx) }

func (t *tap) SendRequest(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
	if req.Method == string(mcp.MethodPromptsGet) || req.Method == string(mcp.MethodToolsCall) {
		req.Params = withArguments(req.Params)
	}
	if t.idOffset != 0 {
		switch v := req.ID.Value().(type) {
		case int64:
			req.ID = mcp.NewRequestId(v + t.idOffset)
		case int:
			req.ID = mcp.NewRequestId(int64(v) + t.idOffset)
		}
	}
	s, _ := ctx.Value(sinkKey{}).(*sink)
	if s != nil {
		s.mu.Lock()
		id := req.ID
		s.pending = &id
		s.answered = ""
		s.mu.Unlock()
	}
	ictx := ctx
	if t.outlive {
		var stop context.CancelFunc
		ictx, stop = outliveDeadline(ctx)
		defer stop()
	}
	resp, err := t.inner.SendRequest(ictx, req)
	if s != nil && err == nil {
		s.mu.Lock()
		s.pending = nil
		s.mu.Unlock()
	}
	if s != nil && err == nil && resp != nil {
		s.mu.Lock()
		switch {
		case resp.Error == nil && resp.Result != nil && gjson.GetBytes(resp.Result, "resultType").String() == string(mcp.ResultTypeInputRequired):
			s.input, s.index = resp.Result, nil
			s.inputs++
			if n := int(gjson.GetBytes(resp.Result, "inputRequests.@keys.#").Int()); n > maxInputRequests {
				// Refused before mcp-go answers any of them.
				s.tooMany = n
				r := *resp
				r.Result = nil
				r.Error = &mcp.JSONRPCErrorDetails{Code: mcp.INTERNAL_ERROR, Message: "too many input requests"}
				resp = &r
			}
		case resp.Error != nil && resp.Result != nil && string(resp.Result) != "null":
			if s.broken == "" {
				s.broken = "both a result and an error"
			}
		case resp.Error != nil:
			s.errs = append(s.errs, resp.Error)
		case resp.Result == nil:
			if s.broken == "" { // no substitute: mcp-go decodes nothing, and callRaw reports it
				s.broken = "neither a result nor an error"
			}
		default:
			s.results = append(s.results, resp.Result) // a fresh slice, decoded for this response
			s.answered = req.Method
			if sub := s.substitute; sub != nil || s.rewrite != nil {
				if s.rewrite != nil {
					sub = s.rewrite(resp.Result)
				}
				r := *resp
				r.Result = sub
				resp = &r
			}
		}
		s.mu.Unlock()
	}
	return resp, err
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
