// What a server may ask of mcpx during an operation (see REQUESTS FROM SERVERS
// in mcpx(1)): elicitation, roots, log messages, progress. mcpx offers only
// what it does: sampling is never offered, roots only when the user named
// some, and any other request but ping is answered "method not found", with a
// note.
//
// Legacy-era requests (elicitation/create, roots/list sent by the server)
// are answered here, from their raw params, ahead of mcp-go's handlers: the
// requested schema keeps the order of its fields that way (over stdio the
// params stay raw; over HTTP, where mcp-go decodes a request into maps,
// the event stream is read for them: transport.HTTP.TakeElicitation).
// The 2026-07-28 era asks the same things inside an "input_required"
// result instead, which mcpx answers and sends the call again with the
// answers (Conn.roundTrips, serverHooks.answerInputs).

package client

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"strconv"
	"sync"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// Elicitation is one elicitation/create request: a form to fill in (Mode
// "form", Schema the requested schema exactly as sent) or a URL to visit
// (Mode "url"). Every string is the server's, unchecked.
type Elicitation struct {
	Server  string
	Mode    string
	Message string
	Schema  json.RawMessage
	URL     string
	ID      string // url mode: the elicitationId
}

// Answer is the user's (or mcpx's) answer to an elicitation: Action is
// "accept", "decline" or "cancel"; Content, for an accepted form, is the
// JSON object of the values.
type Answer struct {
	Action  string
	Content json.RawMessage
	// Interrupted: the answer is an interrupt's (Ctrl-C at the question):
	// in the 2026-07-28 era, the request that asked is not sent again
	// with it. The interrupt has ended the request's context too, but a
	// moment later, maybe, than the one the question watched (a context's
	// children are cancelled after its own Done is closed).
	Interrupted bool
	// Stop: mcpx ends the operation here (nobody could answer, see
	// HEADLESS RUNS in mcpx(1)): as for Interrupted, the request that
	// asked is not sent again with the answer.
	Stop bool
}

// Root is one root mcpx offers (a file:// URI and its name).
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// RootFor returns the root for a directory (made absolute).
func RootFor(dir string) (Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Root{}, err
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return Root{URI: u.String(), Name: filepath.Base(abs)}, nil
}

// LogMessage is one notifications/message.
type LogMessage struct {
	Server string
	Level  string
	Logger string
	Data   json.RawMessage
}

// Progress is one notifications/progress for the request in flight.
type Progress struct {
	Server   string
	Progress float64
	Total    float64 // 0 when unknown
	Message  string
}

// logLevels orders the syslog levels of MCP logging.
var logLevels = map[string]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}

// LogSeverity ranks a level (debug 0 .. emergency 7); an unknown level
// ranks as warning, so that it is shown rather than lost.
func LogSeverity(level string) int {
	if n, ok := logLevels[level]; ok {
		return n
	}
	return logLevels["warning"]
}

// serverHooks holds what the connection offers and where it reports.
type serverHooks struct {
	o    Options
	conn *Conn

	elicitMu sync.Mutex // one question at a time on the terminal

	mu      sync.Mutex
	token   string // the progress token of the request in flight
	seq     int
	refused int // requests of the server's answered "method not found"
	waiting int // requests of the server's being answered

	tasks taskWatch // the task being waited for (task.go)
}

// maxWaiting bounds the server's requests being answered at once (mcp-go's
// HTTP transport starts one goroutine per request, with no bound): past
// it, a request is refused at once.
const maxWaiting = 16

// refusals counts the server's requests answered "method not found".
func (h *serverHooks) refusals() int {
	if h == nil {
		return 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.refused
}

func (h *serverHooks) refuse(id mcp.RequestId, msg string) *mcptransport.JSONRPCResponse {
	h.mu.Lock()
	h.refused++
	h.mu.Unlock()
	return mcptransport.NewJSONRPCErrorResponse(id, mcp.METHOD_NOT_FOUND, msg, nil)
}

// capabilities are the client capabilities mcpx declares: elicitation
// (form and url) and roots when it answers them. The legacy SSE transport
// cannot carry mcpx's answers (mcp-go's SSE client takes no requests), so
// nothing is offered over it.
func (h *serverHooks) capabilities(kind string) mcp.ClientCapabilities {
	var caps mcp.ClientCapabilities
	if kind == config.SSE {
		return caps
	}
	if h.o.Elicit != nil {
		caps.Elicitation = &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}
	}
	if h.o.Roots != nil {
		caps.Roots = &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{}
	}
	if mcp.IsModernProtocol(h.o.ProtocolVersion) {
		// The extensions of the 2026-07-28 era (SEP-2133): mcpx reads
		// server-published skills.
		caps.Extensions = skillsCapability()
	}
	return caps
}

// endCall forgets the progress token: progress that arrives after the call
// is not drawn.
func (h *serverHooks) endCall() {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.token = ""
	h.mu.Unlock()
}

// nextToken starts a request that carries a progress token and returns it.
func (h *serverHooks) nextToken() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	h.token = "mcpx-" + strconv.Itoa(h.seq)
	return h.token
}

func (h *serverHooks) note(format string, args ...any) {
	if h.o.Note != nil {
		h.o.Note(format, args...)
	}
}

func (h *serverHooks) debug(format string, args ...any) {
	if h.o.Debug != nil {
		h.o.Debug(format, args...)
	}
}

// wrap answers the server's requests before mcp-go's handler (next) sees
// them; only ping reaches it.
func (h *serverHooks) wrap(next mcptransport.RequestHandler) mcptransport.RequestHandler {
	return func(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
		name := h.conn.T.Name
		h.mu.Lock()
		full := h.waiting >= maxWaiting
		if !full {
			h.waiting++
		}
		h.mu.Unlock()
		if full {
			return mcptransport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, "too many requests at once", nil), nil
		}
		defer func() {
			h.mu.Lock()
			h.waiting--
			h.mu.Unlock()
		}()
		switch req.Method {
		case string(mcp.MethodPing):
			return next(ctx, req)
		case string(mcp.MethodElicitationCreate):
			if h.o.Elicit != nil {
				return h.answerElicit(ctx, req)
			}
		case string(mcp.MethodListRoots):
			if h.o.Roots != nil {
				h.debug("server %q: answered roots/list with %d root(s)", name, len(h.o.Roots))
				return result(req.ID, map[string]any{"roots": h.o.Roots}), nil
			}
		case string(mcp.MethodSamplingCreateMessage):
			h.note("server %q asked mcpx to sample a language model (sampling/createMessage), which mcpx never does; refused", name)
			return h.refuse(req.ID, "mcpx does not offer sampling"), nil
		}
		h.note("server %q sent the request %s, which mcpx does not offer; answered \"method not found\"", name, text.OneLine(h.conn.clip(req.Method, 80)))
		return h.refuse(req.ID, "Method not found: "+req.Method), nil
	}
}

func result(id mcp.RequestId, v any) *mcptransport.JSONRPCResponse {
	b, _ := json.Marshal(v)
	return mcptransport.NewJSONRPCResultResponse(id, b)
}

// rawParams returns a request's params as JSON: as received over stdio, or
// re-encoded from what mcp-go decoded (HTTP).
func rawParams(p any) json.RawMessage {
	if raw, ok := p.(json.RawMessage); ok {
		return raw
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil
	}
	return b
}

// parseElicitation reads elicitation/create params; it returns a message
// for the server when they are not usable.
func parseElicitation(server string, raw json.RawMessage) (Elicitation, string) {
	if !gjson.ValidBytes(raw) || !gjson.ParseBytes(raw).IsObject() {
		return Elicitation{}, "params must be an object"
	}
	p := gjson.ParseBytes(raw)
	e := Elicitation{Server: server, Mode: p.Get("mode").String(), Message: p.Get("message").String()}
	if e.Mode == "" {
		e.Mode = mcp.ElicitationModeForm
	}
	switch e.Mode {
	case mcp.ElicitationModeForm:
		s := p.Get("requestedSchema")
		if !s.IsObject() {
			return e, "a form elicitation needs a requestedSchema object"
		}
		e.Schema = json.RawMessage(s.Raw)
	case mcp.ElicitationModeURL:
		e.URL, e.ID = p.Get("url").String(), p.Get("elicitationId").String()
		if e.URL == "" || e.ID == "" {
			return e, "a url elicitation needs url and elicitationId"
		}
	default:
		return e, fmt.Sprintf("unknown elicitation mode %q", e.Mode)
	}
	return e, ""
}

// answerElicit asks (through Options.Elicit) and answers one legacy
// elicitation/create.
func (h *serverHooks) answerElicit(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
	raw := rawParams(req.Params)
	if rt := h.conn.rt; rt != nil {
		if r := rt.TakeElicitation(req.ID); r != nil {
			raw = r // as sent, field order kept (HTTP)
		}
	}
	e, bad := parseElicitation(h.conn.T.Name, raw)
	if bad != "" {
		h.note("server %q sent an elicitation mcpx cannot use (%s); refused", h.conn.T.Name, bad)
		return mcptransport.NewJSONRPCErrorResponse(req.ID, mcp.INVALID_PARAMS, "invalid elicitation: "+bad, nil), nil
	}
	a := h.elicit(ctx, e)
	return result(req.ID, answerJSON(a)), nil
}

// elicit asks one question at a time.
func (h *serverHooks) elicit(ctx context.Context, e Elicitation) Answer {
	h.elicitMu.Lock()
	defer h.elicitMu.Unlock()
	a := h.o.Elicit(ctx, e)
	switch a.Action {
	case "accept", "decline", "cancel":
	default:
		a = Answer{Action: "cancel"}
	}
	if a.Action != "accept" || e.Mode != mcp.ElicitationModeForm || len(a.Content) == 0 {
		a.Content = nil
	}
	return a
}

func answerJSON(a Answer) map[string]any {
	m := map[string]any{"action": a.Action}
	if a.Content != nil {
		m["content"] = a.Content
	}
	return m
}

// notification handles the server's notifications: log messages and the
// progress of the request in flight.
func (h *serverHooks) notification(n mcp.JSONRPCNotification) {
	f := n.Params.AdditionalFields
	name := h.conn.T.Name
	switch n.Method {
	case string(mcp.MethodNotificationMessage):
		if h.o.OnLog == nil {
			return
		}
		m := LogMessage{Server: name}
		m.Level, _ = f["level"].(string)
		m.Logger, _ = f["logger"].(string)
		m.Data, _ = json.Marshal(f["data"])
		h.o.OnLog(m)
	case string(mcp.MethodNotificationProgress):
		if h.o.OnProgress == nil {
			return
		}
		tok, _ := f["progressToken"].(string)
		h.mu.Lock()
		mine := tok != "" && tok == h.token
		h.mu.Unlock()
		mine = mine || h.tasks.progressOf(tok) // a task's, while mcpx waits for it
		if !mine {
			return
		}
		p := Progress{Server: name}
		p.Progress, _ = f["progress"].(float64)
		p.Total, _ = f["total"].(float64)
		p.Message, _ = f["message"].(string)
		if math.IsNaN(p.Progress) || math.IsInf(p.Progress, 0) || math.IsNaN(p.Total) || math.IsInf(p.Total, 0) || p.Total < 0 {
			p.Total = 0
		}
		h.o.OnProgress(p)
	case string(mcp.MethodNotificationTasksStatus):
		id, _ := f["taskId"].(string)
		h.tasks.notified(id)
	case "notifications/elicitation/complete":
		id, _ := f["elicitationId"].(string)
		h.debug("server %q: the URL elicitation %q is complete", name, h.conn.clip(id, 80))
	default:
		h.notified(n) // watch.go
	}
}

// progressMeta is the _meta of a request that reports progress: a fresh
// progress token, which the progress notifications then carry.
func (c *Conn) progressMeta() *mcp.Meta {
	if c.hooks == nil {
		return nil
	}
	return &mcp.Meta{ProgressToken: c.hooks.nextToken()}
}
