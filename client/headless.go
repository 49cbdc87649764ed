// What the connection does for runs that nobody watches (see HEADLESS
// RUNS in mcpx(1)): the tools a server entry's rules hide are left out of
// every listing (Options.HideTool), the caller's trace context travels in
// every request's _meta (Options.TraceParent, Options.TraceState), the
// time of each phase is counted (Conn.Timings), and a tools/call can be
// shown without being sent (Conn.PreviewCall).

package client

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// visible leaves out of a listing of kind the tools Options.HideTool
// hides. An entry whose name cannot be read is kept (the listing reports
// it).
func (c *Conn) visible(kind string, raws []json.RawMessage) []json.RawMessage {
	hide := c.opts.HideTool
	if kind != KindTool || hide == nil {
		return raws
	}
	kept := raws[:0:0]
	for _, raw := range raws {
		if v, ok := itemID(kind, raw); ok {
			if name, ok := jsonString(v); ok && hide(name) {
				continue
			}
		}
		kept = append(kept, raw)
	}
	return kept
}

// traceParent is a W3C traceparent header value: version, trace id,
// parent id and flags, in lowercase hex.
var traceParent = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)
})

// ValidTraceParent reports whether v is a traceparent value mcpx passes
// on: well formed, of a version other than ff, with trace and parent ids
// that are not all zeros.
func ValidTraceParent(v string) bool {
	return traceParent().MatchString(v) && v[:2] != "ff" && v[3:35] != "00000000000000000000000000000000" &&
		v[36:52] != "0000000000000000"
}

// traceMeta is the trace context a request's _meta carries (nil: none).
func (o *Options) traceMeta() map[string]string {
	if o.TraceParent == "" {
		return nil
	}
	m := map[string]string{"traceparent": o.TraceParent}
	if o.TraceState != "" {
		m["tracestate"] = o.TraceState
	}
	return m
}

// withTrace adds the trace context to params' _meta (MCP SEP-414), next
// to what it holds. Params that are not an object are sent as they are.
func withTrace(params any, trace map[string]string) any {
	if len(trace) == 0 {
		return params
	}
	fields := map[string]json.RawMessage{}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil || json.Unmarshal(b, &fields) != nil || fields == nil {
			return params
		}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := fields["_meta"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &meta) != nil || meta == nil {
			return params
		}
	}
	for k, v := range trace {
		b, _ := json.Marshal(v)
		meta[k] = b
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return params
	}
	fields["_meta"] = b
	return fields
}

// Timings are the time a connection spent in each phase (see --timings
// in mcpx(1)): starting the server or connecting to it, the handshake,
// the listings, and the operation's requests.
type Timings struct {
	Connect, Initialize, List, Operation time.Duration
	// End is when the last request ended.
	End time.Time
}

// timings counts a connection's phases.
type timings struct {
	mu sync.Mutex
	t  Timings
}

func (t *timings) add(phase *time.Duration, d time.Duration) {
	t.mu.Lock()
	*phase += d
	t.t.End = time.Now()
	t.mu.Unlock()
}

// Timings returns the time spent so far in each phase.
func (c *Conn) Timings() Timings {
	c.times.mu.Lock()
	defer c.times.mu.Unlock()
	return c.times.t
}

// count adds the time since start to the phase of a request of method.
func (c *Conn) count(method string, start time.Time) {
	d := time.Since(start)
	t := &c.times
	switch method {
	case "tools/list", "resources/list", "resources/templates/list", "prompts/list":
		t.add(&t.t.List, d)
	default:
		t.add(&t.t.Operation, d)
	}
}

// PreviewCall returns the params of the tools/call CallTool (task: the
// one StartTask) would send now for the tool name with args, exactly, as
// JSON: the progress token it would carry, the 2026-07-28 era's _meta,
// the trace context. Nothing is sent.
func (c *Conn) PreviewCall(ctx context.Context, name string, args json.RawMessage, task bool) (json.RawMessage, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	p := mcp.CallToolParams{Name: name, Arguments: args}
	if c.hooks != nil {
		c.hooks.mu.Lock()
		p.Meta = &mcp.Meta{ProgressToken: "mcpx-" + strconv.Itoa(c.hooks.seq+1)}
		c.hooks.mu.Unlock()
	}
	var opts []requestOption
	if task {
		p.Task = &mcp.TaskParams{}
		opts = append(opts, declareTasks)
	}
	var params any = p
	if mcp.IsModernProtocol(c.Protocol) {
		params = c.requestMeta(params, opts...)
	}
	params = withTrace(withArguments(params), c.opts.traceMeta())
	return json.Marshal(params)
}

// CancelReasoner is the cause of an operation's end that says why, for the
// "reason" of the notifications/cancelled mcpx sends.
type CancelReasoner interface {
	CancelReason() string
}
