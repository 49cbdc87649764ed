package daemon

// Routing what the server sends to the callers attached: its
// notifications and its requests.

import (
	"context"
	"encoding/json"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

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
