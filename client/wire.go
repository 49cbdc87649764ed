// The requests of mcpx's operations, sent through the transport by mcpx
// itself: mcp-go's Client only starts the transport, runs the handshake
// (initialize, or server/discover in the 2026-07-28 era) and dispatches the
// server's requests and notifications. The raw result is the return value
// of Conn.request, and what went wrong is a typed error (see classifyCall).

package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/internal/config"
)

// replyError is a response that is an error: the server's JSON-RPC error
// answer (Details), or a response JSON-RPC does not allow (Broken:
// "neither a result nor an error", "error": null counting as none, or
// "both a result and an error").
type replyError struct {
	Details *mcp.JSONRPCErrorDetails
	Broken  string
}

func (e *replyError) Error() string {
	if e.Broken != "" {
		return "the response has " + e.Broken
	}
	return e.Details.AsError().Error()
}

// brokenReply is a response that JSON-RPC does not allow (see replyError).
func brokenReply(how string) error { return &replyError{Broken: how} }

// errorReply is the server's JSON-RPC error answer to a request.
func errorReply(d mcp.JSONRPCErrorDetails) error { return &replyError{Details: &d} }

// unansweredError is a request sent whose answer never came: the
// transport failed, or the call ended first (then the server is told to
// stop, see Conn.cancelled). Err is the transport's error, as an
// *mcptransport.Error.
type unansweredError struct {
	ID  mcp.RequestId
	Err error
}

func (e *unansweredError) Error() string { return e.Err.Error() }
func (e *unansweredError) Unwrap() error { return e.Err }

// inputError is a call whose input_required rounds failed: the server asked
// for input mcpx does not give (an unanswered method, too many rounds), or
// sent an input_required result mcpx cannot read (Unreadable), or one with
// more than maxInputRequests input requests (TooMany of them: refused
// before any is answered).
type inputError struct {
	Why        string
	Unreadable bool
	TooMany    int
}

func (e *inputError) Error() string { return e.Why }

// maxInputRequests bounds the input requests of one input_required result
// that mcpx answers: each may be a question to a person.
const maxInputRequests = 64

// maxInputRounds bounds the input_required results one call answers, and
// maxShedding the ones in a row that ask for nothing (a server shedding
// load: "retry later"), as mcp-go's client does.
const (
	maxInputRounds = 10
	maxShedding    = 3
)

// request sends one request and returns the server's raw result. In the
// 2026-07-28 era the params carry the _meta every request declares, and
// the request the Mcp-* headers (Mcp-Param-* for a tool's x-mcp-header
// parameters); a tools/call or prompts/get always has an "arguments"
// object. opts add to what the _meta declares (declareTasks). A failure is
// a typed error (see the types above), or the transport's.
func (c *Conn) request(ctx context.Context, method string, params any, opts ...requestOption) (json.RawMessage, error) {
	modern := mcp.IsModernProtocol(c.Protocol)
	var header http.Header
	if modern {
		params = c.requestMeta(params, opts...)
		header = c.standardHeaders(method, params)
	}
	if method == string(mcp.MethodPromptsGet) || method == string(mcp.MethodToolsCall) {
		params = withArguments(params)
	}
	if err := ctx.Err(); err != nil { // ended already: nothing is sent
		return nil, mcptransport.NewError(err)
	}
	req := mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: c.tap.nextID(), Method: method, Params: params, Header: header}
	resp, err := c.tap.send(ctx, req)
	if err == nil && c.interrupted(ctx) {
		// The answer came, but mcpx was interrupted while it was on the
		// way (Ctrl-C at a question, whose "cancel" the server answered at
		// once): the interrupt wins, whichever came first, and the answer
		// is dropped as a later one would be.
		err = context.Cause(ctx)
	}
	if err != nil {
		return nil, &unansweredError{ID: req.ID, Err: mcptransport.NewError(err)}
	}
	return replyResult(resp)
}

// interrupted reports whether ctx was cancelled (the user interrupted
// mcpx, or the call was given up), not ended by a deadline or by the loss
// of the connection, whose answers already received still count.
func (c *Conn) interrupted(ctx context.Context) bool {
	if !errors.Is(context.Cause(ctx), context.Canceled) {
		return false
	}
	_, lost := c.isLost()
	return !lost
}

// replyResult is the result of a response, or why there is none.
func replyResult(resp *mcptransport.JSONRPCResponse) (json.RawMessage, error) {
	switch {
	case resp == nil:
		return nil, brokenReply("neither a result nor an error")
	case resp.Error != nil && resp.Result != nil && string(resp.Result) != "null":
		return nil, brokenReply("both a result and an error")
	case resp.Error != nil:
		return nil, errorReply(*resp.Error)
	case resp.Result == nil:
		return nil, brokenReply("neither a result nor an error")
	}
	if inputRequired(resp.Result) {
		if n := int(gjson.GetBytes(resp.Result, "inputRequests.@keys.#").Int()); n > maxInputRequests {
			return nil, &inputError{Why: fmt.Sprintf("%d input requests", n), TooMany: n}
		}
	}
	return resp.Result, nil
}

// inputRequired reports whether a result is the 2026-07-28 era's
// "input_required".
func inputRequired(raw json.RawMessage) bool {
	return gjson.GetBytes(raw, "resultType").String() == string(mcp.ResultTypeInputRequired)
}

// plain is request for a method that takes no part in input_required
// rounds: an input_required result of it counts as the empty result {}.
func (c *Conn) plain(ctx context.Context, method string, params any, opts ...requestOption) (json.RawMessage, error) {
	raw, err := c.request(ctx, method, params, opts...)
	if err == nil && inputRequired(raw) {
		raw = json.RawMessage("{}")
	}
	return raw, err
}

// requestOption is what one request declares beyond what every request
// of the 2026-07-28 era does: it changes the client's capabilities while
// requestMeta builds the _meta (declareTasks).
type requestOption func(*mcp.ClientCapabilities)

// requestMeta adds the 2026-07-28 era's _meta to params: the protocol
// version, the client's capabilities (as opts change them) and identity,
// and the log level asked for, next to what params' own _meta holds (a
// progress token). Params become a map of raw members (object keys sorted
// on the wire).
func (c *Conn) requestMeta(params any, opts ...requestOption) any {
	fields := map[string]json.RawMessage{}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil || json.Unmarshal(b, &fields) != nil {
			return params // not an object: it cannot carry _meta
		}
	}
	meta := map[string]any{}
	if raw, ok := fields["_meta"]; ok {
		_ = json.Unmarshal(raw, &meta)
	}
	meta[mcp.MetaKeyProtocolVersion] = c.Protocol
	var caps mcp.ClientCapabilities
	if c.hooks != nil {
		caps = c.hooks.capabilities(c.kind)
	}
	for _, o := range opts {
		o(&caps)
	}
	meta[mcp.MetaKeyClientCapabilities] = caps
	meta[mcp.MetaKeyClientInfo] = mcp.Implementation{Name: "mcpx", Version: c.opts.ClientVersion}
	if level := c.logLevel; level != "" {
		meta[mcp.MetaKeyLogLevel] = mcp.LoggingLevel(level)
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return params
	}
	fields["_meta"] = b
	return fields
}

// standardHeaders are the 2026-07-28 era's Mcp-Method and Mcp-Name headers
// of a request, and for tools/call the Mcp-Param-* headers of the tool's
// x-mcp-header parameters, as its listing declared them (SEP-2243).
// Transports other than streamable HTTP ignore them.
func (c *Conn) standardHeaders(method string, params any) http.Header {
	encoded, err := json.Marshal(params)
	if err != nil {
		return nil
	}
	standard := mcp.StandardHeaders(c.Protocol, mcp.MCPMethod(method), encoded)
	if len(standard) == 0 {
		return nil
	}
	header := make(http.Header, len(standard))
	for k, v := range standard {
		header.Set(k, v)
	}
	if method == string(mcp.MethodToolsCall) {
		var call struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(encoded, &call) == nil && call.Name != "" {
			c.mu.Lock()
			tool, ok := c.headerTools[call.Name]
			c.mu.Unlock()
			if ok {
				for k, v := range mcp.GenerateParamHeaders(&tool, encoded) {
					header.Set(k, v)
				}
			}
		}
	}
	return header
}

// rememberHeaderTools keeps, from a tools/list page of the 2026-07-28 era,
// the tools that declare x-mcp-header parameters, for the headers of a
// later tools/call. Over streamable HTTP a tool whose annotations are
// invalid is forgotten instead (the listing leaves it out: badHeaderTool).
// A page whose marked tools do not decode keeps nothing.
func (c *Conn) rememberHeaderTools(ctx context.Context, page json.RawMessage) {
	var res mcp.ListToolsResult
	if json.Unmarshal(headerTools(page), &res) != nil || len(res.Tools) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.headerTools == nil {
		c.headerTools = map[string]mcp.Tool{}
	}
	for _, t := range res.Tools {
		if c.kind == config.HTTP {
			if err := mcp.ValidateParamHeaderAnnotations(&t); err != nil {
				slog.WarnContext(ctx, "mcp: excluding a tool with invalid x-mcp-header annotations", "tool", t.Name, "err", err)
				delete(c.headerTools, t.Name)
				continue
			}
		}
		c.headerTools[t.Name] = t
	}
}

// roundTrips sends a request that may take part in the 2026-07-28 era's
// input_required rounds (tools/call, prompts/get, resources/read): while
// the server answers "input_required", mcpx answers its input requests
// (elicitation, roots) through the connection's hooks and sends the
// request again (params with inputResponses and the requestState), at
// most maxInputRounds times. params makes the request's params for a
// round; opts are each round's request options.
func (c *Conn) roundTrips(ctx context.Context, method string, params func(mcp.MultiRoundTripParams) any, opts ...requestOption) (json.RawMessage, error) {
	var round mcp.MultiRoundTripParams
	shedding := 0
	for attempt := 1; ; attempt++ {
		raw, err := c.request(ctx, method, params(round), opts...)
		if err != nil || !inputRequired(raw) {
			return raw, err
		}
		requests, state, err := readInputRequired(method, raw)
		if err != nil {
			return nil, err
		}
		if len(requests) == 0 {
			if shedding++; shedding >= maxShedding {
				return nil, &inputError{Why: fmt.Sprintf("exceeded maximum retries: server asked to retry %d times without requesting input", shedding)}
			}
		} else {
			shedding = 0
		}
		if attempt >= maxInputRounds {
			return nil, &inputError{Why: fmt.Sprintf("exceeded maximum retries (%d)", maxInputRounds)}
		}
		responses, err := c.hooks.answerInputs(ctx, raw, requests)
		if err != nil {
			return nil, err
		}
		round = mcp.MultiRoundTripParams{InputResponses: responses, RequestState: state}
	}
}

// readInputRequired reads the input requests and the requestState of an
// input_required result of method, as mcp-go's decoders of its results
// read them. An input request of a method mcp-go does not know, or whose
// params do not decode, is input mcpx does not give; a result that does
// not decode otherwise is one mcpx cannot read.
func readInputRequired(method string, raw json.RawMessage) (mcp.InputRequests, string, error) {
	var requests mcp.InputRequests
	var state string
	var err error
	switch method {
	case string(mcp.MethodToolsCall):
		var r *mcp.CallToolResult
		if r, err = mcp.ParseCallToolResult(&raw); err == nil {
			requests, state = r.InputRequests, r.RequestState
		}
	case string(mcp.MethodPromptsGet):
		var r *mcp.GetPromptResult
		if r, err = mcp.ParseGetPromptResult(&raw); err == nil {
			requests, state = r.InputRequests, r.RequestState
		}
	default:
		var r *mcp.ReadResourceResult
		if r, err = mcp.ParseReadResourceResult(&raw); err == nil {
			requests, state = r.InputRequests, r.RequestState
		}
	}
	if err == nil {
		return requests, state, nil
	}
	// The decoders wrap what json.Unmarshal said once; what an input
	// request's own decoding said is not a JSON type or syntax error.
	inner := err
	if u := errors.Unwrap(err); u != nil {
		inner = u
	}
	switch inner.(type) {
	case *json.UnmarshalTypeError, *json.SyntaxError, *json.InvalidUnmarshalError:
		return nil, "", &inputError{Why: inner.Error(), Unreadable: true}
	}
	return nil, "", &inputError{Why: inner.Error()}
}

// answerInputs answers the input requests of one input_required result
// (raw): elicitations through Options.Elicit (from their raw params, field
// order kept), roots/list with the roots offered. A request mcpx does not
// answer (sampling; elicitation or roots when not offered) fails the call
// before anything is asked.
func (h *serverHooks) answerInputs(ctx context.Context, raw json.RawMessage, requests mcp.InputRequests) (mcp.InputResponses, error) {
	sse := h.conn.kind == config.SSE
	order := inputOrder(raw, requests)
	for _, id := range order {
		r := requests[id]
		why := ""
		switch r.Method {
		case mcp.MethodElicitationCreate:
			if h.o.Elicit == nil || sse {
				why = "no elicitation handler configured"
			}
		case mcp.MethodSamplingCreateMessage:
			why = "no sampling handler configured"
		case mcp.MethodListRoots:
			if h.o.Roots == nil || sse {
				why = "no roots handler configured"
			}
		default:
			why = fmt.Sprintf("unsupported input request method %q", r.Method)
		}
		if why != "" {
			return nil, &inputError{Why: fmt.Sprintf("fulfilling input request %q: %s", id, why)}
		}
	}
	responses := make(mcp.InputResponses, len(requests))
	for _, id := range order {
		r := requests[id]
		switch r.Method {
		case mcp.MethodElicitationCreate:
			res, interrupted := h.answerInputElicit(ctx, id, raw, r)
			if interrupted {
				// Nothing more is sent: the request ends here, as one
				// whose context ended before it was sent.
				return nil, mcptransport.NewError(context.Canceled)
			}
			responses[id] = mcp.NewElicitationInputResponse(res)
		case mcp.MethodListRoots:
			roots := make([]mcp.Root, len(h.o.Roots))
			for i, rt := range h.o.Roots {
				roots[i] = mcp.Root{URI: rt.URI, Name: rt.Name}
			}
			h.debug("server %q: answered a roots input request with %d root(s)", h.conn.T.Name, len(roots))
			responses[id] = mcp.NewRootsInputResponse(mcp.ListRootsResult{Roots: roots})
		}
	}
	return responses, nil
}

// inputOrder is the ids of requests in the order the server listed them
// in raw (one question after another, as it asked them).
func inputOrder(raw json.RawMessage, requests mcp.InputRequests) []string {
	order := make([]string, 0, len(requests))
	seen := make(map[string]bool, len(requests))
	gjson.GetBytes(raw, "inputRequests").ForEach(func(k, _ gjson.Result) bool {
		if _, ok := requests[k.String()]; ok && !seen[k.String()] {
			seen[k.String()] = true
			order = append(order, k.String())
		}
		return true
	})
	var rest []string
	for id := range requests {
		if !seen[id] {
			rest = append(rest, id)
		}
	}
	slices.Sort(rest)
	return append(order, rest...)
}

// answerInputElicit answers the elicitation input request id of raw. Out of
// time or interrupted, nothing more is asked: it is cancelled (interrupted:
// the interrupt was the answer).
func (h *serverHooks) answerInputElicit(ctx context.Context, id string, raw json.RawMessage, r mcp.InputRequest) (mcp.ElicitationResult, bool) {
	if ctx.Err() != nil {
		// (the request is not sent again: its context has ended)
		return mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel}}, false
	}
	params := json.RawMessage(gjson.GetBytes(raw, "inputRequests."+gjson.Escape(id)+".params").Raw)
	if !gjson.ValidBytes(params) || !gjson.ParseBytes(params).IsObject() {
		params = rawParams(r.Elicitation) // none sent: as mcp-go decodes it
	}
	e, bad := parseElicitation(h.conn.T.Name, params)
	if bad != "" {
		h.note("server %q sent an elicitation mcpx cannot use (%s); declined", h.conn.T.Name, bad)
		return mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}, false
	}
	a := h.elicit(ctx, e)
	res := mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseAction(a.Action)}}
	if a.Content != nil {
		res.Content = a.Content
	}
	return res, a.Interrupted || a.Stop
}
