package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
)

// srNotes records what the hooks say (Note and Debug), in order.
type srNotes struct {
	mu    sync.Mutex
	lines []string
}

func (n *srNotes) note(format string, args ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lines = append(n.lines, "note: "+fmt.Sprintf(format, args...))
}

func (n *srNotes) debug(format string, args ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lines = append(n.lines, "debug: "+fmt.Sprintf(format, args...))
}

func (n *srNotes) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.lines...)
}

// srHooks returns the hooks of a Conn named "s" with o (Note and Debug
// recorded).
func srHooks(o Options) (*serverHooks, *srNotes) {
	n := &srNotes{}
	o.Note, o.Debug = n.note, n.debug
	c := &Conn{T: &config.Target{Name: "s"}, lost: newLost(), secrets: o.Secrets, debug: o.Debug}
	c.hooks = &serverHooks{o: o, conn: c}
	return c.hooks, n
}

// srElicitor records the elicitations it is given and answers a.
type srElicitor struct {
	mu    sync.Mutex
	got   []Elicitation
	a     Answer
	calls atomic.Int32
}

func (e *srElicitor) elicit(_ context.Context, el Elicitation) Answer {
	e.calls.Add(1)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, el)
	return e.a
}

func srJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	return string(b)
}

// TestServerHooksWrap drives the request handler with the requests a
// server may send, with params as stdio hands them over (raw JSON) and as
// mcp-go's HTTP transports do (decoded), and checks the exact response.
func TestServerHooksWrap(t *testing.T) {
	const formRaw = `{"message":"Who are you?","requestedSchema":{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer","default":3}},"required":["zeta"]}}`
	formMap := map[string]any{"message": "Who are you?", "requestedSchema": map[string]any{
		"type": "object", "required": []any{"zeta"},
		"properties": map[string]any{"zeta": map[string]any{"type": "string"}, "alpha": map[string]any{"type": "integer", "default": 3}}}}
	accept := Answer{Action: "accept", Content: json.RawMessage(`{ "zeta" : "z",
		"alpha": 7 }`)}
	refused := func(why string) string {
		return `note: server "s" sent an elicitation mcpx cannot use (` + why + `); refused`
	}
	for _, tc := range []struct {
		name   string
		o      Options
		elicit *srElicitor // when set, Options.Elicit
		id     mcp.RequestId
		method string
		params any
		want   string       // the response, as JSON
		got    *Elicitation // what Elicit was given (nil: not called)
		notes  []string
		next   bool // mcp-go's handler answered
	}{
		{name: "ping reaches mcp-go", id: mcp.NewRequestId(int64(1)), method: "ping",
			want: `{"jsonrpc":"2.0","id":1,"result":{"next":true}}`, next: true},
		{name: "ping reaches mcp-go with everything offered", elicit: &srElicitor{a: accept}, o: Options{Roots: []Root{}},
			id: mcp.NewRequestId("p"), method: "ping", want: `{"jsonrpc":"2.0","id":"p","result":{"next":true}}`, next: true},
		{name: "form over stdio keeps the schema as sent", elicit: &srElicitor{a: accept}, id: mcp.NewRequestId("e1"),
			method: "elicitation/create", params: json.RawMessage(formRaw),
			want: `{"jsonrpc":"2.0","id":"e1","result":{"action":"accept","content":{"zeta":"z","alpha":7}}}`,
			got: &Elicitation{Server: "s", Mode: "form", Message: "Who are you?",
				Schema: json.RawMessage(`{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer","default":3}},"required":["zeta"]}`)}},
		{name: "form over http (decoded params)", elicit: &srElicitor{a: accept}, id: mcp.NewRequestId(int64(9)),
			method: "elicitation/create", params: formMap,
			want: `{"jsonrpc":"2.0","id":9,"result":{"action":"accept","content":{"zeta":"z","alpha":7}}}`,
			got: &Elicitation{Server: "s", Mode: "form", Message: "Who are you?",
				Schema: json.RawMessage(`{"properties":{"alpha":{"default":3,"type":"integer"},"zeta":{"type":"string"}},"required":["zeta"],"type":"object"}`)}},
		{name: "schema whitespace kept", elicit: &srElicitor{a: Answer{Action: "decline"}}, id: mcp.NewRequestId(int64(2)),
			method: "elicitation/create", params: json.RawMessage(`{"mode":"form","requestedSchema": { "properties" : {} } }`),
			want: `{"jsonrpc":"2.0","id":2,"result":{"action":"decline"}}`,
			got:  &Elicitation{Server: "s", Mode: "form", Schema: json.RawMessage(`{ "properties" : {} }`)}},
		{name: "decline drops content", elicit: &srElicitor{a: Answer{Action: "decline", Content: json.RawMessage(`{"a":1}`)}},
			id: mcp.NewRequestId(int64(3)), method: "elicitation/create", params: json.RawMessage(formRaw),
			want: `{"jsonrpc":"2.0","id":3,"result":{"action":"decline"}}`,
			got: &Elicitation{Server: "s", Mode: "form", Message: "Who are you?",
				Schema: json.RawMessage(`{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer","default":3}},"required":["zeta"]}`)}},
		{name: "cancel drops content", elicit: &srElicitor{a: Answer{Action: "cancel", Content: json.RawMessage(`{"a":1}`)}},
			id: mcp.NewRequestId(int64(4)), method: "elicitation/create", params: json.RawMessage(`{"requestedSchema":{}}`),
			want: `{"jsonrpc":"2.0","id":4,"result":{"action":"cancel"}}`,
			got:  &Elicitation{Server: "s", Mode: "form", Schema: json.RawMessage(`{}`)}},
		{name: "unknown action is cancel", elicit: &srElicitor{a: Answer{Action: "ok", Content: json.RawMessage(`{"a":1}`)}},
			id: mcp.NewRequestId(int64(5)), method: "elicitation/create", params: json.RawMessage(`{"requestedSchema":{}}`),
			want: `{"jsonrpc":"2.0","id":5,"result":{"action":"cancel"}}`,
			got:  &Elicitation{Server: "s", Mode: "form", Schema: json.RawMessage(`{}`)}},
		{name: "empty action is cancel", elicit: &srElicitor{a: Answer{}},
			id: mcp.NewRequestId(int64(6)), method: "elicitation/create", params: json.RawMessage(`{"requestedSchema":{}}`),
			want: `{"jsonrpc":"2.0","id":6,"result":{"action":"cancel"}}`,
			got:  &Elicitation{Server: "s", Mode: "form", Schema: json.RawMessage(`{}`)}},
		{name: "accept without content", elicit: &srElicitor{a: Answer{Action: "accept"}},
			id: mcp.NewRequestId(int64(7)), method: "elicitation/create", params: json.RawMessage(`{"requestedSchema":{}}`),
			want: `{"jsonrpc":"2.0","id":7,"result":{"action":"accept"}}`,
			got:  &Elicitation{Server: "s", Mode: "form", Schema: json.RawMessage(`{}`)}},
		{name: "url accept carries no content", elicit: &srElicitor{a: Answer{Action: "accept", Content: json.RawMessage(`{"a":1}`)}},
			id: mcp.NewRequestId("u1"), method: "elicitation/create",
			params: json.RawMessage(`{"mode":"url","message":"Sign in","url":"https://auth.example/x?y=1","elicitationId":"el-1"}`),
			want:   `{"jsonrpc":"2.0","id":"u1","result":{"action":"accept"}}`,
			got:    &Elicitation{Server: "s", Mode: "url", Message: "Sign in", URL: "https://auth.example/x?y=1", ID: "el-1"}},
		{name: "url over http", elicit: &srElicitor{a: Answer{Action: "decline"}},
			id: mcp.NewRequestId("u2"), method: "elicitation/create",
			params: map[string]any{"mode": "url", "message": "Pay", "url": "https://pay.example/", "elicitationId": "el-2"},
			want:   `{"jsonrpc":"2.0","id":"u2","result":{"action":"decline"}}`,
			got:    &Elicitation{Server: "s", Mode: "url", Message: "Pay", URL: "https://pay.example/", ID: "el-2"}},
		{name: "params not an object", elicit: &srElicitor{a: accept}, id: mcp.NewRequestId(int64(10)),
			method: "elicitation/create", params: json.RawMessage(`[1]`),
			want:  `{"jsonrpc":"2.0","id":10,"error":{"code":-32602,"message":"invalid elicitation: params must be an object"}}`,
			notes: []string{refused("params must be an object")}},
		{name: "no params", elicit: &srElicitor{a: accept}, id: mcp.NewRequestId(int64(11)), method: "elicitation/create",
			want:  `{"jsonrpc":"2.0","id":11,"error":{"code":-32602,"message":"invalid elicitation: params must be an object"}}`,
			notes: []string{refused("params must be an object")}},
		{name: "params not JSON", elicit: &srElicitor{a: accept}, id: mcp.NewRequestId(int64(12)), method: "elicitation/create",
			params: json.RawMessage(`{"message":`),
			want:   `{"jsonrpc":"2.0","id":12,"error":{"code":-32602,"message":"invalid elicitation: params must be an object"}}`,
			notes:  []string{refused("params must be an object")}},
		{name: "form without a schema", elicit: &srElicitor{a: accept}, id: mcp.NewRequestId(int64(13)), method: "elicitation/create",
			params: json.RawMessage(`{"message":"hi"}`),
			want:   `{"jsonrpc":"2.0","id":13,"error":{"code":-32602,"message":"invalid elicitation: a form elicitation needs a requestedSchema object"}}`,
			notes:  []string{refused("a form elicitation needs a requestedSchema object")}},
		{name: "form with a schema that is a list", elicit: &srElicitor{a: accept}, id: mcp.NewRequestId(int64(14)), method: "elicitation/create",
			params: map[string]any{"message": "hi", "requestedSchema": []any{}},
			want:   `{"jsonrpc":"2.0","id":14,"error":{"code":-32602,"message":"invalid elicitation: a form elicitation needs a requestedSchema object"}}`,
			notes:  []string{refused("a form elicitation needs a requestedSchema object")}},
		{name: "url without an id", elicit: &srElicitor{a: accept}, id: mcp.NewRequestId(int64(15)), method: "elicitation/create",
			params: json.RawMessage(`{"mode":"url","url":"https://x.example/"}`),
			want:   `{"jsonrpc":"2.0","id":15,"error":{"code":-32602,"message":"invalid elicitation: a url elicitation needs url and elicitationId"}}`,
			notes:  []string{refused("a url elicitation needs url and elicitationId")}},
		{name: "url without a url", elicit: &srElicitor{a: accept}, id: mcp.NewRequestId(int64(16)), method: "elicitation/create",
			params: json.RawMessage(`{"mode":"url","elicitationId":"x"}`),
			want:   `{"jsonrpc":"2.0","id":16,"error":{"code":-32602,"message":"invalid elicitation: a url elicitation needs url and elicitationId"}}`,
			notes:  []string{refused("a url elicitation needs url and elicitationId")}},
		{name: "unknown mode", elicit: &srElicitor{a: accept}, id: mcp.NewRequestId(int64(17)), method: "elicitation/create",
			params: json.RawMessage(`{"mode":"telepathy","requestedSchema":{}}`),
			want:   `{"jsonrpc":"2.0","id":17,"error":{"code":-32602,"message":"invalid elicitation: unknown elicitation mode \"telepathy\""}}`,
			notes:  []string{refused(`unknown elicitation mode "telepathy"`)}},
		{name: "elicitation not offered", id: mcp.NewRequestId(int64(18)), method: "elicitation/create", params: json.RawMessage(formRaw),
			want:  `{"jsonrpc":"2.0","id":18,"error":{"code":-32601,"message":"Method not found: elicitation/create"}}`,
			notes: []string{`note: server "s" sent the request elicitation/create, which mcpx does not offer; answered "method not found"`}},
		{name: "roots", o: Options{Roots: []Root{{URI: "file:///work", Name: "work"}, {URI: "file:///a%20b"}}},
			id: mcp.NewRequestId(int64(19)), method: "roots/list",
			want:  `{"jsonrpc":"2.0","id":19,"result":{"roots":[{"uri":"file:///work","name":"work"},{"uri":"file:///a%20b"}]}}`,
			notes: []string{`debug: server "s": answered roots/list with 2 root(s)`}},
		{name: "roots with params over http", o: Options{Roots: []Root{{URI: "file:///w", Name: "w"}}},
			id: mcp.NewRequestId("r"), method: "roots/list", params: map[string]any{"_meta": map[string]any{"x": 1}},
			want:  `{"jsonrpc":"2.0","id":"r","result":{"roots":[{"uri":"file:///w","name":"w"}]}}`,
			notes: []string{`debug: server "s": answered roots/list with 1 root(s)`}},
		{name: "no roots but offered", o: Options{Roots: []Root{}}, id: mcp.NewRequestId(int64(20)), method: "roots/list",
			want:  `{"jsonrpc":"2.0","id":20,"result":{"roots":[]}}`,
			notes: []string{`debug: server "s": answered roots/list with 0 root(s)`}},
		{name: "roots not offered", id: mcp.NewRequestId(int64(21)), method: "roots/list",
			want:  `{"jsonrpc":"2.0","id":21,"error":{"code":-32601,"message":"Method not found: roots/list"}}`,
			notes: []string{`note: server "s" sent the request roots/list, which mcpx does not offer; answered "method not found"`}},
		{name: "sampling refused", elicit: &srElicitor{a: accept}, o: Options{Roots: []Root{}}, id: mcp.NewRequestId(int64(22)),
			method: "sampling/createMessage", params: json.RawMessage(`{"messages":[],"maxTokens":10}`),
			want:  `{"jsonrpc":"2.0","id":22,"error":{"code":-32601,"message":"mcpx does not offer sampling"}}`,
			notes: []string{`note: server "s" asked mcpx to sample a language model (sampling/createMessage), which mcpx never does; refused`}},
		{name: "unknown method", elicit: &srElicitor{a: accept}, o: Options{Roots: []Root{}}, id: mcp.NewRequestId(int64(23)),
			method: "tasks/get", params: map[string]any{"taskId": "t"},
			want:  `{"jsonrpc":"2.0","id":23,"error":{"code":-32601,"message":"Method not found: tasks/get"}}`,
			notes: []string{`note: server "s" sent the request tasks/get, which mcpx does not offer; answered "method not found"`}},
		{name: "long method clipped in the note, masked", o: Options{Secrets: secretsOf("hunter2")},
			id: mcp.NewRequestId(int64(24)), method: "hunter2/" + strings.Repeat("m", 100),
			want:  `{"jsonrpc":"2.0","id":24,"error":{"code":-32601,"message":"Method not found: hunter2/` + strings.Repeat("m", 100) + `"}}`,
			notes: []string{`note: server "s" sent the request ***/` + strings.Repeat("m", 76) + `..., which mcpx does not offer; answered "method not found"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			if tc.elicit != nil {
				o.Elicit = tc.elicit.elicit
			}
			h, notes := srHooks(o)
			nextCalled := false
			next := func(_ context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
				nextCalled = true
				return mcptransport.NewJSONRPCResultResponse(req.ID, json.RawMessage(`{"next":true}`)), nil
			}
			resp, err := h.wrap(next)(context.Background(), mcptransport.JSONRPCRequest{JSONRPC: "2.0", ID: tc.id, Method: tc.method, Params: tc.params})
			if err != nil {
				t.Fatalf("error %v", err)
			}
			if got := srJSON(t, resp); got != tc.want {
				t.Errorf("response\n got %s\nwant %s", got, tc.want)
			}
			if nextCalled != tc.next {
				t.Errorf("mcp-go's handler called: %v", nextCalled)
			}
			if got := notes.all(); !reflect.DeepEqual(got, tc.notes) && (len(got) != 0 || len(tc.notes) != 0) {
				t.Errorf("notes\n got %q\nwant %q", got, tc.notes)
			}
			var got []Elicitation
			if tc.elicit != nil {
				got = tc.elicit.got
			}
			switch {
			case tc.got == nil && len(got) != 0:
				t.Errorf("Elicit called with %+v", got)
			case tc.got != nil && len(got) != 1:
				t.Errorf("Elicit called %d times", len(got))
			case tc.got != nil && !reflect.DeepEqual(got[0], *tc.got):
				t.Errorf("Elicit given\n %+v (schema %s)\nwant %+v (schema %s)", got[0], got[0].Schema, *tc.got, tc.got.Schema)
			}
		})
	}
}

// TestParseElicitation: what a usable elicitation is, and the message for
// the server when it is not.
func TestParseElicitation(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want Elicitation
		bad  string
	}{
		{raw: `{"message":"m","requestedSchema":{"a":1}}`, want: Elicitation{Server: "srv", Mode: "form", Message: "m", Schema: json.RawMessage(`{"a":1}`)}},
		{raw: `{"mode":"","requestedSchema":{}}`, want: Elicitation{Server: "srv", Mode: "form", Schema: json.RawMessage(`{}`)}},
		{raw: `{"mode":"form","message":"m","requestedSchema":null}`, want: Elicitation{Server: "srv", Mode: "form", Message: "m"},
			bad: "a form elicitation needs a requestedSchema object"},
		{raw: `{"mode":"url","message":"go","url":"https://e.example/","elicitationId":"i"}`,
			want: Elicitation{Server: "srv", Mode: "url", Message: "go", URL: "https://e.example/", ID: "i"}},
		{raw: `{"mode":"url","url":"","elicitationId":"i"}`, want: Elicitation{Server: "srv", Mode: "url", ID: "i"},
			bad: "a url elicitation needs url and elicitationId"},
		{raw: `{"mode":"URL","url":"https://e.example/","elicitationId":"i"}`, want: Elicitation{Server: "srv", Mode: "URL"},
			bad: `unknown elicitation mode "URL"`},
		{raw: `"form"`, bad: "params must be an object"},
		{raw: `null`, bad: "params must be an object"},
		{raw: ``, bad: "params must be an object"},
		{raw: `{"message":"m"} trailing`, bad: "params must be an object"},
	} {
		e, bad := parseElicitation("srv", json.RawMessage(tc.raw))
		if bad != tc.bad || !reflect.DeepEqual(e, tc.want) {
			t.Errorf("parseElicitation(%s) = %+v (schema %s), %q; want %+v, %q", tc.raw, e, e.Schema, bad, tc.want, tc.bad)
		}
	}
}

// TestElicitOneAtATime: two elicitations at once reach Options.Elicit one
// after the other.
func TestElicitOneAtATime(t *testing.T) {
	var inside, most atomic.Int32
	h, _ := srHooks(Options{Elicit: func(context.Context, Elicitation) Answer {
		n := inside.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		inside.Add(-1)
		return Answer{Action: "decline"}
	}})
	handler := h.wrap(nil)
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := handler(context.Background(), mcptransport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(i)),
				Method: "elicitation/create", Params: json.RawMessage(`{"requestedSchema":{}}`)})
			if err != nil || string(resp.Result) != `{"action":"decline"}` {
				t.Errorf("answer %+v, %v", resp, err)
			}
		}()
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Errorf("%d elicitations at once", most.Load())
	}
}

// TestCapabilities: what mcpx declares at initialize, by transport.
func TestCapabilities(t *testing.T) {
	elicit := func(context.Context, Elicitation) Answer { return Answer{} }
	for _, tc := range []struct {
		kind string
		o    Options
		want string
	}{
		{config.Stdio, Options{}, `{}`},
		{config.Stdio, Options{Elicit: elicit}, `{"elicitation":{"form":{},"url":{}}}`},
		{config.Stdio, Options{Roots: []Root{}}, `{"roots":{}}`},
		{config.HTTP, Options{Elicit: elicit, Roots: []Root{{URI: "file:///"}}}, `{"roots":{},"elicitation":{"form":{},"url":{}}}`},
		{config.SSE, Options{Elicit: elicit, Roots: []Root{{URI: "file:///"}}}, `{}`},
	} {
		h, _ := srHooks(tc.o)
		if got := srJSON(t, h.capabilities(tc.kind)); got != tc.want {
			t.Errorf("%s elicit=%v roots=%v: %s, want %s", tc.kind, tc.o.Elicit != nil, tc.o.Roots != nil, got, tc.want)
		}
	}
}

func TestRootFor(t *testing.T) {
	dir := t.TempDir()
	for _, sub := range []string{"plain", "a b", "100%", "x#y?z", "é"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	base := "file://" + filepath.ToSlash(dir)
	for _, tc := range []struct {
		dir  string
		want Root
	}{
		{filepath.Join(dir, "plain"), Root{URI: base + "/plain", Name: "plain"}},
		{filepath.Join(dir, "plain") + "/", Root{URI: base + "/plain", Name: "plain"}},
		{filepath.Join(dir, "plain", "..", "a b"), Root{URI: base + "/a%20b", Name: "a b"}},
		{filepath.Join(dir, "100%"), Root{URI: base + "/100%25", Name: "100%"}},
		{filepath.Join(dir, "x#y?z"), Root{URI: base + "/x%23y%3Fz", Name: "x#y?z"}},
		{filepath.Join(dir, "é"), Root{URI: base + "/%C3%A9", Name: "é"}},
		{"/", Root{URI: "file:///", Name: "/"}},
	} {
		got, err := RootFor(tc.dir)
		if err != nil || got != tc.want {
			t.Errorf("RootFor(%q) = %+v, %v; want %+v", tc.dir, got, err, tc.want)
		}
	}
	wd, _ := os.Getwd()
	if got, err := RootFor("."); err != nil || got.URI != "file://"+filepath.ToSlash(wd) || got.Name != filepath.Base(wd) {
		t.Errorf("RootFor(.) = %+v, %v (cwd %s)", got, err, wd)
	}
}

func TestLogSeverity(t *testing.T) {
	for level, want := range map[string]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5,
		"alert": 6, "emergency": 7, "": 3, "WARNING": 3, "Debug": 3, "verbose": 3, "warn": 3} {
		if got := LogSeverity(level); got != want {
			t.Errorf("LogSeverity(%q) = %d, want %d", level, got, want)
		}
	}
}

// srNotification decodes a notification as the transports do.
func srNotification(t *testing.T, line string) mcp.JSONRPCNotification {
	t.Helper()
	var n mcp.JSONRPCNotification
	if err := json.Unmarshal([]byte(line), &n); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return n
}

// TestNotifications: log messages reach OnLog; progress reaches OnProgress
// only when it carries the token of the request in flight.
func TestNotifications(t *testing.T) {
	var logs []LogMessage
	var progress []Progress
	h, notes := srHooks(Options{OnLog: func(m LogMessage) { logs = append(logs, m) }, OnProgress: func(p Progress) { progress = append(progress, p) }})

	for _, tc := range []struct {
		line string
		want LogMessage
	}{
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":"disk full"}}`,
			LogMessage{Server: "s", Level: "warning", Data: json.RawMessage(`"disk full"`)}},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"db","data":{"b":[1,2],"a":null}}}`,
			LogMessage{Server: "s", Level: "error", Logger: "db", Data: json.RawMessage(`{"a":null,"b":[1,2]}`)}},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":7,"logger":["x"]}}`,
			LogMessage{Server: "s", Data: json.RawMessage(`null`)}},
		{`{"jsonrpc":"2.0","method":"notifications/message"}`,
			LogMessage{Server: "s", Data: json.RawMessage(`null`)}},
	} {
		logs = nil
		h.notification(srNotification(t, tc.line))
		if len(logs) != 1 || !reflect.DeepEqual(logs[0], tc.want) {
			t.Errorf("%s: OnLog got %+v, want %+v", tc.line, logs, tc.want)
		}
	}

	prog := func(token, rest string) string {
		return `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + token + rest + `}}`
	}
	// No request in flight: nothing is ours.
	h.notification(srNotification(t, prog(`""`, `,"progress":1`)))
	h.notification(srNotification(t, prog(`"mcpx-1"`, `,"progress":1`)))
	if len(progress) != 0 {
		t.Fatalf("progress with no request in flight: %+v", progress)
	}
	if tok := h.nextToken(); tok != "mcpx-1" {
		t.Fatalf("first token %q", tok)
	}
	for _, tc := range []struct {
		line string
		want *Progress
	}{
		{prog(`"mcpx-1"`, `,"progress":2,"total":8,"message":"copying"`), &Progress{Server: "s", Progress: 2, Total: 8, Message: "copying"}},
		{prog(`"mcpx-1"`, `,"progress":0.5`), &Progress{Server: "s", Progress: 0.5}},
		{prog(`"mcpx-1"`, `,"progress":3,"total":-1`), &Progress{Server: "s", Progress: 3}},
		{prog(`"mcpx-1"`, `,"progress":"3","total":"9","message":5`), &Progress{Server: "s"}},
		{prog(`"mcpx-2"`, `,"progress":1`), nil},
		{prog(`"MCPX-1"`, `,"progress":1`), nil},
		{prog(`1`, `,"progress":1`), nil},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`, nil},
	} {
		progress = nil
		h.notification(srNotification(t, tc.line))
		switch {
		case tc.want == nil && len(progress) != 0:
			t.Errorf("%s: OnProgress got %+v, want nothing", tc.line, progress)
		case tc.want != nil && (len(progress) != 1 || progress[0] != *tc.want):
			t.Errorf("%s: OnProgress got %+v, want %+v", tc.line, progress, *tc.want)
		}
	}
	// The next request: the old token is no longer ours.
	if tok := h.nextToken(); tok != "mcpx-2" {
		t.Fatalf("second token %q", tok)
	}
	progress = nil
	h.notification(srNotification(t, prog(`"mcpx-1"`, `,"progress":9`)))
	h.notification(srNotification(t, prog(`"mcpx-2"`, `,"progress":9`)))
	if len(progress) != 1 || progress[0] != (Progress{Server: "s", Progress: 9}) {
		t.Errorf("after the next token: %+v", progress)
	}

	h.notification(srNotification(t, `{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"el-1"}}`))
	h.notification(srNotification(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`))
	if got := notes.all(); !reflect.DeepEqual(got, []string{`debug: server "s": the URL elicitation "el-1" is complete`}) {
		t.Errorf("notes %q", got)
	}

	// Without handlers nothing happens (and nothing panics).
	bare, _ := srHooks(Options{})
	bare.nextToken()
	bare.notification(srNotification(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"x"}}`))
	bare.notification(srNotification(t, prog(`"mcpx-1"`, `,"progress":1`)))
}

func TestProgressMeta(t *testing.T) {
	if m := (&Conn{}).progressMeta(); m != nil {
		t.Errorf("without hooks: %+v", m)
	}
	h, _ := srHooks(Options{})
	for _, want := range []string{"mcpx-1", "mcpx-2", "mcpx-3"} {
		m := h.conn.progressMeta()
		if m == nil || m.ProgressToken != want {
			t.Fatalf("progressMeta = %+v, want token %s", m, want)
		}
		if got := srJSON(t, m); got != `{"progressToken":"`+want+`"}` {
			t.Errorf("_meta %s", got)
		}
	}
}

// TestAnswerInputs: the 2026-07-28 era's input requests are answered
// through the hooks: an elicitation from its raw params (field order kept;
// unusable ones declined, not failed), roots with the roots offered; a
// request mcpx does not answer fails them all before anything is asked.
func TestAnswerInputs(t *testing.T) {
	e := &srElicitor{a: Answer{Action: "accept", Content: json.RawMessage(`{"z":"1","a":"2"}`)}}
	h, notes := srHooks(Options{Elicit: e.elicit, Roots: []Root{{URI: "file:///a", Name: "a"}, {URI: "file:///b"}}})
	answer := func(ctx context.Context, requests string) (string, error) {
		t.Helper()
		raw := json.RawMessage(`{"resultType":"input_required","inputRequests":` + requests + `}`)
		reqs, _, err := readInputRequired("tools/call", raw)
		if err != nil {
			t.Fatalf("%s: %v", requests, err)
		}
		res, err := h.answerInputs(ctx, raw, reqs)
		return srJSON(t, res), err
	}
	got, err := answer(context.Background(), `{"q":{"method":"elicitation/create","params":{"message":"Pick","requestedSchema":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"}}}}},"r":{"method":"roots/list"}}`)
	if err != nil || got != `{"q":{"action":"accept","content":{"z":"1","a":"2"}},"r":{"roots":[{"uri":"file:///a","name":"a"},{"uri":"file:///b"}]}}` {
		t.Errorf("answers %s, %v", got, err)
	}
	want := []Elicitation{{Server: "s", Mode: "form", Message: "Pick", Schema: json.RawMessage(`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"}}}`)}}
	if !reflect.DeepEqual(e.got, want) {
		t.Errorf("elicitations %+v", e.got)
	}

	// Unusable: declined (not an error, which would fail the whole call).
	got, err = answer(context.Background(), `{"q":{"method":"elicitation/create","params":{"message":"x"}}}`)
	if err != nil || got != `{"q":{"action":"decline"}}` {
		t.Errorf("no schema: %s, %v", got, err)
	}
	if got := notes.all(); !reflect.DeepEqual(got, []string{`debug: server "s": answered a roots input request with 2 root(s)`, `note: server "s" sent an elicitation mcpx cannot use (a form elicitation needs a requestedSchema object); declined`}) {
		t.Errorf("notes %q", got)
	}
	// url mode: never any content; an odd action is cancel.
	e.a = Answer{Action: "maybe", Content: json.RawMessage(`{}`)}
	got, err = answer(context.Background(), `{"q":{"method":"elicitation/create","params":{"mode":"url","message":"go","url":"https://u.example/","elicitationId":"e"}}}`)
	if err != nil || got != `{"q":{"action":"cancel"}}` {
		t.Errorf("url: %s, %v", got, err)
	}
	if last := e.got[len(e.got)-1]; !reflect.DeepEqual(last, Elicitation{Server: "s", Mode: "url", Message: "go", URL: "https://u.example/", ID: "e"}) {
		t.Errorf("url elicitation %+v", last)
	}
	// Out of time: cancelled, nobody asked.
	asked := len(e.got)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err = answer(ctx, `{"q":{"method":"elicitation/create","params":{"message":"Pick","requestedSchema":{"type":"object"}}}}`)
	if err != nil || got != `{"q":{"action":"cancel"}}` || len(e.got) != asked {
		t.Errorf("out of time: %s, %v, %d asked", got, err, len(e.got)-asked)
	}
	// Roots offered as none: an empty list.
	h2, _ := srHooks(Options{Roots: []Root{}})
	raw := json.RawMessage(`{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}}}`)
	reqs, _, _ := readInputRequired("tools/call", raw)
	if res, err := h2.answerInputs(context.Background(), raw, reqs); err != nil || srJSON(t, res) != `{"r":{"roots":[]}}` {
		t.Errorf("no roots: %s, %v", srJSON(t, res), err)
	}
	// Several questions: asked one after another, in the server's order.
	asked = len(e.got)
	e.a = Answer{Action: "decline"}
	if _, err := answer(context.Background(), `{"z":{"method":"elicitation/create","params":{"message":"1","requestedSchema":{"type":"object"}}},`+
		`"a":{"method":"elicitation/create","params":{"message":"2","requestedSchema":{"type":"object"}}},`+
		`"m":{"method":"elicitation/create","params":{"message":"3","requestedSchema":{"type":"object"}}}}`); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, el := range e.got[asked:] {
		order = append(order, el.Message)
	}
	if strings.Join(order, ",") != "1,2,3" {
		t.Errorf("asked in the order %v", order)
	}
	// Sampling with an elicitation: refused, and nothing asked.
	asked = len(e.got)
	_, err = answer(context.Background(), `{"q":{"method":"elicitation/create","params":{"message":"Pick","requestedSchema":{"type":"object"}}},"s":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}}`)
	var ie *inputError
	if !errors.As(err, &ie) || ie.Why != `fulfilling input request "s": no sampling handler configured` || len(e.got) != asked {
		t.Errorf("sampling: %v, %d asked", err, len(e.got)-asked)
	}
}

// TestReplyResult: a response is its result, or a typed error saying why
// not; an input_required result with too many input requests is refused.
func TestReplyResult(t *testing.T) {
	for _, tc := range []struct {
		resp *mcptransport.JSONRPCResponse
		want string
	}{
		{&mcptransport.JSONRPCResponse{Result: json.RawMessage(`{"a":1}`)}, `{"a":1}`},
		{&mcptransport.JSONRPCResponse{Result: json.RawMessage(`null`)}, `null`},
		{&mcptransport.JSONRPCResponse{}, `*client.replyError the response has neither a result nor an error`},
		{&mcptransport.JSONRPCResponse{Result: json.RawMessage(`{}`), Error: &mcp.JSONRPCErrorDetails{Code: 1, Message: "x"}}, `*client.replyError the response has both a result and an error`},
		{&mcptransport.JSONRPCResponse{Result: json.RawMessage(`null`), Error: &mcp.JSONRPCErrorDetails{Code: -32000, Message: "no"}}, `*client.replyError no`},
		{&mcptransport.JSONRPCResponse{Result: json.RawMessage(`{"resultType":"input_required","inputRequests":{` + strings.Repeat(`"a":{},`, 64) + `"b":{}}}`)}, `*client.inputError 65 input requests`},
	} {
		raw, err := replyResult(tc.resp)
		got := string(raw)
		if err != nil {
			got = fmt.Sprintf("%T %v", err, err)
		}
		if got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.resp, got, tc.want)
		}
	}
}

// srInner is a transport that records the notifications it is given and
// answers each request with reply.
type srInner struct {
	mu     sync.Mutex
	sent   []string
	reply  func(req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error)
	during func() // called while a request is in flight
}

func (f *srInner) Start(context.Context) error { return nil }

func (f *srInner) SendRequest(_ context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
	if f.during != nil {
		f.during()
	}
	return f.reply(req)
}

func (f *srInner) SendNotification(_ context.Context, n mcp.JSONRPCNotification) error {
	b, err := json.Marshal(n)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.sent = append(f.sent, string(b))
	f.mu.Unlock()
	return nil
}

func (f *srInner) SetNotificationHandler(func(mcp.JSONRPCNotification)) {}

func (f *srInner) Close() error { return nil }

func (f *srInner) GetSessionId() string { return "" }

func (f *srInner) notifications() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.sent...)
}

// TestTapSendNotification: mcp-go's own notifications/cancelled is
// dropped; every other notification goes through.
func TestTapSendNotification(t *testing.T) {
	inner := &srInner{}
	wrapped, _ := wrapTap(inner, nil)
	for _, method := range []string{"notifications/initialized", "notifications/cancelled", "notifications/roots/list_changed", "notifications/progress"} {
		n := mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{Method: method,
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": 1, "reason": "context canceled"}}}}
		if err := wrapped.SendNotification(context.Background(), n); err != nil {
			t.Errorf("%s: %v", method, err)
		}
	}
	want := []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{"reason":"context canceled","requestId":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{"reason":"context canceled","requestId":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"reason":"context canceled","requestId":1}}`,
	}
	if got := inner.notifications(); !reflect.DeepEqual(got, want) {
		t.Errorf("sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestConnCancelledDirect: the exact notification Conn.cancelled sends,
// by transport, protocol era and reason.
func TestConnCancelledDirect(t *testing.T) {
	for _, tc := range []struct {
		kind, protocol string
		id             mcp.RequestId
		why            error
		want           string // "" when nothing is sent
	}{
		{config.Stdio, "2025-11-25", mcp.NewRequestId(int64(7)), context.Canceled,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"mcpx was interrupted","requestId":7}}`},
		{config.Stdio, "2025-11-25", mcp.NewRequestId("abc"), context.DeadlineExceeded,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"mcpx timed out","requestId":"abc"}}`},
		{config.Stdio, "2025-11-25", mcp.NewRequestId(int64(8)), fmt.Errorf("wrapped: %w", context.DeadlineExceeded),
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"mcpx timed out","requestId":8}}`},
		{config.Stdio, "2026-07-28", mcp.NewRequestId(int64(9)), context.DeadlineExceeded,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"mcpx timed out","requestId":9}}`},
		{config.HTTP, "2025-06-18", mcp.NewRequestId(int64(10)), context.Canceled,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"mcpx was interrupted","requestId":10}}`},
		{config.SSE, "2024-11-05", mcp.NewRequestId(int64(11)), context.Canceled,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"mcpx was interrupted","requestId":11}}`},
		{config.HTTP, "2026-07-28", mcp.NewRequestId(int64(12)), context.Canceled, ``},
	} {
		inner := &srInner{}
		_, base := wrapTap(inner, nil)
		var debug []string
		c := &Conn{T: &config.Target{Name: "s"}, tap: base, kind: tc.kind, Protocol: tc.protocol,
			debug: func(f string, a ...any) { debug = append(debug, fmt.Sprintf(f, a...)) }}
		c.cancelled(tc.id, "tools/call", tc.why)
		got := strings.Join(inner.notifications(), "\n")
		if got != tc.want {
			t.Errorf("%s %s %v: sent %s, want %s", tc.kind, tc.protocol, tc.why, got, tc.want)
		}
		wantDebug := []string{fmt.Sprintf(`server "s": sent notifications/cancelled for tools/call (request %v)`, tc.id.Value())}
		if tc.want == "" {
			wantDebug = nil
		}
		if !reflect.DeepEqual(debug, wantDebug) {
			t.Errorf("%s %s: debug %q, want %q", tc.kind, tc.protocol, debug, wantDebug)
		}
	}
	(&Conn{T: &config.Target{Name: "s"}}).cancelled(mcp.NewRequestId(int64(1)), "x", context.Canceled) // no tap: nothing, no panic
}

// srServer is the server end of a Conn over two io.Pipes: lines is what
// mcpx wrote on its stdin.
type srServer struct {
	t     *testing.T
	out   *io.PipeWriter
	lines chan string
}

func (s *srServer) send(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.out, l+"\n"); err != nil {
			s.t.Fatalf("send: %v", err)
		}
	}
}

// next returns the next line mcpx wrote.
func (s *srServer) next() string {
	s.t.Helper()
	select {
	case l := <-s.lines:
		return l
	case <-time.After(3 * time.Second):
		s.t.Fatal("mcpx wrote nothing")
		return ""
	}
}

// nothing checks that mcpx writes nothing for a while.
func (s *srServer) nothing(d time.Duration) {
	s.t.Helper()
	select {
	case l := <-s.lines:
		s.t.Errorf("unexpected line %s", l)
	case <-time.After(d):
	}
}

// srConn is a Conn (legacy era, initialized) to a scripted stdio server,
// made as connect makes one: the tap with the hooks, mcp-go's client with
// the hooks' options and notification handler.
func srConn(t *testing.T, o Options, protocol string) (*Conn, *srServer) {
	t.Helper()
	stdoutR, stdoutW := io.Pipe()
	stdinR, stdinW := io.Pipe()
	lf := &transport.Limit{}
	tr := transport.NewStdio(stdoutR, stdinW, transport.StdioOptions{MessageCeiling: 1 << 20, Limit: lf})
	c := scriptedConn(t, o, protocol, tr, lf)
	s := &srServer{t: t, out: stdoutW, lines: make(chan string, 64)}
	go func() {
		in := bufio.NewReader(stdinR)
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				return
			}
			s.lines <- strings.TrimSuffix(line, "\n")
		}
	}()
	t.Cleanup(func() {
		_ = tr.Close()
		_ = stdoutW.Close()
		_ = stdinR.Close()
	})
	return c, s
}

// TestConnCancelled: a call interrupted or out of time sends one
// notifications/cancelled for its request before it returns; mcp-go's own
// (sent in the background) never reaches the server. Out of time is a
// context whose deadline passed, or one cancelled with the cause
// context.DeadlineExceeded (a clock that has no deadline to read).
func TestConnCancelled(t *testing.T) {
	for _, tc := range []struct {
		name, protocol, reason string
		timeout, cause         bool
	}{
		{"interrupted", "2025-11-25", "mcpx was interrupted", false, false},
		{"timed out", "2025-11-25", "mcpx timed out", true, false},
		{"timed out, by the cause", "2025-11-25", "mcpx timed out", true, true},
		{"interrupted, 2026 era over stdio", "2026-07-28", "mcpx was interrupted", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, s := srConn(t, Options{}, tc.protocol)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.timeout && !tc.cause {
				ctx, cancel = context.WithTimeout(ctx, 100*time.Millisecond)
				defer cancel()
			}
			var expire context.CancelCauseFunc
			if tc.cause {
				ctx, expire = context.WithCancelCause(ctx)
				defer expire(nil)
			}
			call := srCallTool(c, ctx, `{"n":1}`)
			want := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"n":1},"_meta":{"progressToken":"mcpx-1"}}}`
			if tc.protocol == "2026-07-28" { // every request declares the era's _meta
				want = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpx","version":""},"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":"mcpx-1"},"arguments":{"n":1},"name":"t"}}`
			}
			if got := s.next(); got != want {
				t.Errorf("request\n got %s\nwant %s", got, want)
			}
			if tc.cause {
				expire(context.DeadlineExceeded)
			} else if !tc.timeout {
				cancel()
			}
			r := srWait(t, call)
			if r.err == nil {
				t.Fatalf("no error: %s", r.raw)
			}
			var te *fail.TimeoutError
			if errors.As(r.err, &te) != tc.timeout {
				t.Errorf("error %T %v: a TimeoutError is %v", r.err, r.err, tc.timeout)
			}
			if got, want := s.next(), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"`+tc.reason+`","requestId":1}}`; got != want {
				t.Errorf("cancellation\n got %s\nwant %s", got, want)
			}
			s.nothing(150 * time.Millisecond) // mcp-go's own goes nowhere

			// The connection goes on; the late answer is dropped.
			s.send(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
			call = srCallTool(c, context.Background(), `{}`)
			want = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"progressToken":"mcpx-2"}}}`
			if tc.protocol == "2026-07-28" {
				want = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpx","version":""},"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":"mcpx-2"},"arguments":{},"name":"t"}}`
			}
			if got := s.next(); got != want {
				t.Errorf("next request\n got %s\nwant %s", got, want)
			}
			s.send(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}`)
			if r := srWait(t, call); r.err != nil || string(r.raw) != `{"content":[{"type":"text","text":"ok"}]}` {
				t.Errorf("after the cancellation: %s, %v", r.raw, r.err)
			}
		})
	}

	// A call answered in time sends no cancellation, even if its context
	// ends afterwards.
	c, s := srConn(t, Options{}, "2025-11-25")
	ctx, cancel := context.WithCancel(context.Background())
	call := srCallTool(c, ctx, `{}`)
	s.next()
	s.send(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	if r := srWait(t, call); r.err != nil {
		t.Fatal(r.err)
	}
	cancel()
	s.nothing(50 * time.Millisecond)
}

// TestConnInterruptWins: an answer that arrives after the call was
// interrupted (Ctrl-C at a question: mcpx answers it "cancel" and the
// server answers the call at once) is dropped: the call fails with the
// interrupt and the request is cancelled, whichever came first. A
// deadline or a lost connection does not drop an answer already there.
func TestConnInterruptWins(t *testing.T) {
	for _, tc := range []struct {
		name    string
		end     func(c *Conn, cancel context.CancelCauseFunc)
		dropped bool
	}{
		{"interrupted", func(_ *Conn, cancel context.CancelCauseFunc) { cancel(nil) }, true},
		{"out of time", func(_ *Conn, cancel context.CancelCauseFunc) { cancel(context.DeadlineExceeded) }, false},
		{"connection lost", func(c *Conn, _ context.CancelCauseFunc) { c.lost.mark("gone") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Conn{T: &config.Target{Name: "s"}, kind: config.Stdio, Protocol: "2025-11-25", lost: newLost(), limit: &transport.Limit{}}
			c.hooks = &serverHooks{conn: c}
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			inner := &srInner{reply: func(req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
				tc.end(c, cancel)                 // the call ends while its answer is on the way
				time.Sleep(10 * time.Millisecond) // the guard has seen a lost connection
				return &mcptransport.JSONRPCResponse{JSONRPC: "2.0", ID: req.ID, Result: json.RawMessage(`{"content":[]}`)}, nil
			}}
			_, c.tap = wrapTap(inner, c.hooks)
			raw, err := c.CallTool(ctx, "t", nil)
			if !tc.dropped {
				if err != nil || string(raw) != `{"content":[]}` {
					t.Fatalf("got %s, %v; want the answer", raw, err)
				}
				if got := inner.notifications(); len(got) != 0 {
					t.Errorf("sent %q, want nothing", got)
				}
				return
			}
			if err == nil || !errors.Is(err, context.Canceled) {
				t.Fatalf("got %s, %v; want the interrupt", raw, err)
			}
			want := []string{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"mcpx was interrupted","requestId":1}}`}
			if got := inner.notifications(); !reflect.DeepEqual(got, want) {
				t.Errorf("sent %q, want %q", got, want)
			}
		})
	}
}

// TestConnServerRequests: over a real Conn, the server's requests during a
// call are answered by the hooks (the schema in the order sent), progress
// for the call in flight and log messages reach their handlers, and the
// call's result is the server's.
func TestConnServerRequests(t *testing.T) {
	e := &srElicitor{a: Answer{Action: "accept", Content: json.RawMessage(`{"z":"last","a":1}`)}}
	var mu sync.Mutex
	var progress []Progress
	var logs []LogMessage
	notes := &srNotes{}
	c, s := srConn(t, Options{Elicit: e.elicit, Roots: []Root{{URI: "file:///w", Name: "w"}}, Note: notes.note, Debug: notes.debug,
		OnProgress: func(p Progress) { mu.Lock(); progress = append(progress, p); mu.Unlock() },
		OnLog:      func(m LogMessage) { mu.Lock(); logs = append(logs, m); mu.Unlock() }}, "2025-11-25")

	call := srCallTool(c, context.Background(), `{}`)
	s.next()
	for _, step := range []struct{ send, want string }{
		{`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"Fill","requestedSchema":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}}}}}`,
			`{"jsonrpc":"2.0","id":"e1","result":{"action":"accept","content":{"z":"last","a":1}}}`},
		{`{"jsonrpc":"2.0","id":2,"method":"roots/list"}`,
			`{"jsonrpc":"2.0","id":2,"result":{"roots":[{"uri":"file:///w","name":"w"}]}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":3,"result":{}}`},
		{`{"jsonrpc":"2.0","id":4,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}`,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"mcpx does not offer sampling"}}`},
		{`{"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"mode":"url"}}`,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"invalid elicitation: a url elicitation needs url and elicitationId"}}`},
	} {
		s.send(step.send)
		if got := s.next(); got != step.want {
			t.Errorf("to %s\n answered %s\n     want %s", step.send, got, step.want)
		}
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"mcpx-0","progress":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"mcpx-1","progress":1,"total":2,"message":"half"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"l","data":"boom"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}],"odd":[1,2]}}`)
	if r := srWait(t, call); r.err != nil || string(r.raw) != `{"content":[{"type":"text","text":"done"}],"odd":[1,2]}` {
		t.Errorf("result %s, %v", r.raw, r.err)
	}
	if len(e.got) != 1 || string(e.got[0].Schema) != `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}}}` {
		t.Errorf("elicitations %+v", e.got)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		mu.Lock()
		n := len(progress) + len(logs)
		mu.Unlock()
		if n >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if !reflect.DeepEqual(progress, []Progress{{Server: "s", Progress: 1, Total: 2, Message: "half"}}) {
		t.Errorf("progress %+v", progress)
	}
	if !reflect.DeepEqual(logs, []LogMessage{{Server: "s", Level: "error", Logger: "l", Data: json.RawMessage(`"boom"`)}}) {
		t.Errorf("logs %+v", logs)
	}
	wantNotes := []string{
		`debug: server "s": request tools/call`,
		`debug: server "s": answered roots/list with 1 root(s)`,
		`note: server "s" asked mcpx to sample a language model (sampling/createMessage), which mcpx never does; refused`,
		`note: server "s" sent an elicitation mcpx cannot use (a url elicitation needs url and elicitationId); refused`,
	}
	if got := notes.all(); !reflect.DeepEqual(got, wantNotes) {
		t.Errorf("notes\n got %q\nwant %q", got, wantNotes)
	}
}

// TestConnMultiRoundTrip: an input_required result is answered through the
// hooks (the raw schema, field order kept), the
// call is retried with the answers, and the call's result is the final one.
func TestConnMultiRoundTrip(t *testing.T) {
	e := &srElicitor{a: Answer{Action: "accept", Content: json.RawMessage(`{"z":"Z","a":"A"}`)}}
	c, s := srConn(t, Options{Elicit: e.elicit, Roots: []Root{{URI: "file:///w", Name: "w"}}}, "2025-11-25")
	call := srCallTool(c, context.Background(), `{"q":1}`)
	s.next()
	s.send(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"st-1","inputRequests":{` +
		`"who":{"method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"}}}}},` +
		`"where":{"method":"roots/list"}}}}`)
	retry := s.next()
	var got struct {
		ID     int    `json:"id"`
		Method string `json:"method"`
		Params struct {
			Name           string                     `json:"name"`
			Arguments      json.RawMessage            `json:"arguments"`
			RequestState   string                     `json:"requestState"`
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(retry), &got); err != nil {
		t.Fatalf("retry %s: %v", retry, err)
	}
	if got.ID != 2 || got.Method != "tools/call" || got.Params.Name != "t" || string(got.Params.Arguments) != `{"q":1}` || got.Params.RequestState != "st-1" ||
		string(got.Params.InputResponses["who"]) != `{"action":"accept","content":{"z":"Z","a":"A"}}` ||
		string(got.Params.InputResponses["where"]) != `{"roots":[{"uri":"file:///w","name":"w"}]}` || len(got.Params.InputResponses) != 2 {
		t.Errorf("retry %s", retry)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"thanks"}]}}`)
	if r := srWait(t, call); r.err != nil || string(r.raw) != `{"content":[{"type":"text","text":"thanks"}]}` {
		t.Errorf("result %s, %v", r.raw, r.err)
	}
	if len(e.got) != 1 || e.got[0].Message != "Who?" || string(e.got[0].Schema) != `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"}}}` {
		t.Errorf("elicitations %+v", e.got)
	}
}

// TestConnMultiRoundTripInterrupted: a question ended by an interrupt
// (Ctrl-C) ends the call where it is: the request is not sent again with
// the cancel, even while the call's own context has not ended yet (it ends
// a moment after the question's, whose Done closes first).
func TestConnMultiRoundTripInterrupted(t *testing.T) {
	e := &srElicitor{a: Answer{Action: "cancel", Interrupted: true}}
	c, s := srConn(t, Options{Elicit: e.elicit}, "2025-11-25")
	call := srCallTool(c, context.Background(), `{}`)
	s.next()
	s.send(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{` +
		`"who":{"method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object"}}}}}}`)
	if r := srWait(t, call); !errors.Is(r.err, context.Canceled) {
		t.Errorf("interrupted at the question: %s, %v", r.raw, r.err)
	}
	// What mcpx sends next is the next call, not the first one again.
	call = srCallTool(c, context.Background(), `{"n":2}`)
	if got := s.next(); !strings.Contains(got, `"arguments":{"n":2}`) || strings.Contains(got, "inputResponses") {
		t.Errorf("after the interrupt mcpx sent %s", got)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`)
	srWait(t, call)
}

// TestRefusedMethodNotFound: "method not found" for a call is the server's
// method missing (exit 5), unless mcpx refused a request of the server's
// during that call: then it is the tool's failure (exit 1).
func TestRefusedMethodNotFound(t *testing.T) {
	c, s := srConn(t, Options{}, "2025-11-25")
	if n := c.hooks.refusals(); n != 0 {
		t.Fatalf("refusals %d", n)
	}
	call := srCallTool(c, context.Background(), `{}`)
	s.next()
	s.send(`{"jsonrpc":"2.0","id":"x","method":"sampling/createMessage","params":{}}`)
	if got := s.next(); got != `{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"mcpx does not offer sampling"}}` {
		t.Errorf("refusal %s", got)
	}
	s.send(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"mcpx does not offer sampling"}}`)
	r := srWait(t, call)
	if _, ok := AsServerError(r.err); !ok || r.err.Error() != `server "s": tools/call failed: mcpx does not offer sampling (code -32601)` {
		t.Errorf("after a refusal: %T %v", r.err, r.err)
	}
	if n := c.hooks.refusals(); n != 1 {
		t.Errorf("refusals %d", n)
	}

	call = srCallTool(c, context.Background(), `{}`)
	s.next()
	s.send(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`)
	r = srWait(t, call)
	if !fail.Is(r.err, fail.Unsupported) || r.err.Error() != `server "s" does not support tools/call: Method not found` {
		t.Errorf("without a refusal: %T %v", r.err, r.err)
	}
	if (*serverHooks)(nil).refusals() != 0 {
		t.Error("nil hooks")
	}
}

// TestConnInputNotGiven: a 2026-07-28 input request mcpx does not answer
// (sampling; roots when none are offered; a method it does not know) and
// a server that keeps asking for nothing fail the operation with a
// bad reply (server_error, exit 1), not the connection, and cancel nothing.
func TestConnInputNotGiven(t *testing.T) {
	for _, tc := range []struct{ name, requests, want string }{
		{"sampling", `{"x":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}}`,
			`server "s": tools/call asked for input mcpx does not give: fulfilling input request "x": no sampling handler configured`},
		{"roots", `{"x":{"method":"roots/list"}}`,
			`server "s": tools/call asked for input mcpx does not give: fulfilling input request "x": no roots handler configured`},
		{"nothing asked, again and again", `{}`,
			`server "s": tools/call asked for input mcpx does not give: exceeded maximum retries: server asked to retry 3 times without requesting input`},
		{"unknown method", `{"x":{"method":"tasks/input"}}`,
			`server "s": tools/call asked for input mcpx does not give: unsupported input request method "tasks/input"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, s := srConn(t, Options{}, "2025-11-25")
			call := srCallTool(c, context.Background(), `{}`)
			var r srCall
			for id := 1; ; id++ {
				select {
				case r = <-call:
				case line := <-s.lines:
					if !strings.Contains(line, `"method":"tools/call"`) || id > 5 {
						t.Fatalf("request %d: %s", id, line)
					}
					s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"resultType":"input_required","inputRequests":%s}}`, id, tc.requests))
					continue
				case <-time.After(3 * time.Second):
					t.Fatal("the call did not return")
				}
				break
			}
			if be, ok := fail.As(r.err, fail.ServerError); !ok || be.What != "result" || r.err.Error() != tc.want {
				t.Errorf("%T %v\nwant a bad reply (server_error) %s", r.err, r.err, tc.want)
			}
			s.nothing(30 * time.Millisecond)
		})
	}
}

// TestConnMultiRoundTripSameMessage: two elicitation input requests of one
// input_required result with the same message but different schemas are
// each asked with their own schema.
func TestConnMultiRoundTripSameMessage(t *testing.T) {
	e := &srElicitor{a: Answer{Action: "decline"}}
	c, s := srConn(t, Options{Elicit: e.elicit}, "2025-11-25")
	call := srCallTool(c, context.Background(), `{}`)
	s.next()
	s.send(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{` +
		`"first":{"method":"elicitation/create","params":{"message":"Details?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}},` +
		`"second":{"method":"elicitation/create","params":{"message":"Details?","requestedSchema":{"type":"object","properties":{"age":{"type":"integer"}}}}}}}}`)
	s.next()
	s.send(`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`)
	if r := srWait(t, call); r.err != nil {
		t.Fatal(r.err)
	}
	var schemas []string
	for _, el := range e.got {
		schemas = append(schemas, string(el.Schema))
	}
	if len(schemas) == 2 && schemas[0] > schemas[1] {
		schemas[0], schemas[1] = schemas[1], schemas[0]
	}
	want := []string{`{"type":"object","properties":{"age":{"type":"integer"}}}`, `{"type":"object","properties":{"name":{"type":"string"}}}`}
	if !reflect.DeepEqual(schemas, want) {
		t.Errorf("asked with the schemas\n %q\nwant %q", schemas, want)
	}
}

// roundTrip is an http.RoundTripper made of a function.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestAwaitListen: the wait for the GET stream ends when it is answered or
// the operation's context ends; without a stream there is no wait.
func TestAwaitListen(t *testing.T) {
	quick := func(c *Conn, ctx context.Context) time.Duration {
		start := time.Now()
		c.awaitListen(ctx)
		return time.Since(start)
	}
	if d := quick(&Conn{T: &config.Target{Name: "s"}}, context.Background()); d > 100*time.Millisecond {
		t.Errorf("no HTTP: waited %s", d)
	}
	if d := quick(&Conn{T: &config.Target{Name: "s"}, rt: transport.NewHTTP(transport.HTTPOptions{})}, context.Background()); d > 100*time.Millisecond {
		t.Errorf("no stream: waited %s", d)
	}
	// A stream answered (here, failed): no wait.
	refused := roundTrip(func(*http.Request) (*http.Response, error) { return nil, errors.New("refused") })
	rt := transport.NewHTTP(transport.HTTPOptions{Listen: true, Inner: refused})
	rt.OpenGate()
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/mcp", nil)
	if _, err := rt.RoundTrip(req); err == nil {
		t.Fatal("the GET did not fail")
	}
	if d := quick(&Conn{T: &config.Target{Name: "s"}, rt: rt}, context.Background()); d > 100*time.Millisecond {
		t.Errorf("answered: waited %s", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	var debug []string
	c := &Conn{T: &config.Target{Name: "s"}, rt: transport.NewHTTP(transport.HTTPOptions{Listen: true}), debug: func(f string, a ...any) { debug = append(debug, fmt.Sprintf(f, a...)) }}
	if d := quick(c, ctx); d < 20*time.Millisecond || d > 500*time.Millisecond {
		t.Errorf("context ended: waited %s", d)
	}
	if len(debug) != 0 {
		t.Errorf("debug %q", debug)
	}
}

// TestSetLevel: logging/setLevel is sent as asked; a refusal is only a
// debug note.
func TestSetLevel(t *testing.T) {
	notes := &srNotes{}
	c, s := srConn(t, Options{Debug: notes.debug}, "2025-11-25")
	done := make(chan struct{})
	go func() { c.setLevel(context.Background(), "debug"); close(done) }()
	if got, want := s.next(), `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`; got != want {
		t.Errorf("request\n got %s\nwant %s", got, want)
	}
	s.send(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no logging here"}}`)
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("setLevel did not return")
	}
	want := []string{`debug: server "s": request logging/setLevel`,
		`debug: server "s": logging/setLevel debug failed: server "s" does not support logging/setLevel: no logging here`}
	if got := notes.all(); !reflect.DeepEqual(got, want) {
		t.Errorf("notes\n got %q\nwant %q", got, want)
	}
}
