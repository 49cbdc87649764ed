package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/client/transport"
)

// Methods and tool names of forwardServer.
const (
	methodCancelledSoFar = "test/cancelled" // params.want: answered once that many were cancelled
	toolHang             = "hang"           // a tools/call never answered
	toolAsk              = "ask"            // a tools/call answered after an elicitation (see methodAsk)
	methodAsk            = "test/ask"       // a notification: the server asks, for the toolAsk call in flight
	toolFlood            = "flood"          // a tools/call answered after floodNotes log messages
	floodNotes           = 20000            // far more than a socket's buffer holds
	toolBigFlood         = "bigflood"       // a tools/call answered after bigFloodNotes log messages of bigFloodSize bytes
	bigFloodNotes        = 48
	bigFloodSize         = 64 << 10
	methodHungSoFar      = "test/hung" // params.want: answered once that many toolHang calls arrived
	// testQueue is the bytes a caller's queue holds in the tests that
	// flood it (16 MiB otherwise): the big flood is three times as many.
	testQueue = 1 << 20
)

// forwardServer is a stdio server that shows what the daemon forwards. It
// answers every request with {"n": ID} (the id it saw), as echo does; a
// tools/call carrying _meta.progressToken is first given a
// notifications/progress under that token whose progress is the id it saw;
// a tools/call of the tool toolHang is never answered (methodHungSoFar is
// answered once params.want of them arrived), one of toolFlood after
// floodNotes notifications/message, one of toolBigFlood after
// bigFloodNotes of bigFloodSize bytes each; a prompts/list is
// answered after a notifications/prompts/list_changed (the prompts changed
// while the server listed them). A tools/call of the tool toolAsk is
// answered once the server has asked an elicitation/create, which it does
// on the notification methodAsk, and been answered: its result is
// {"answer": the answer's result}. It records the requestId of
// every notifications/cancelled, and answers methodCancelledSoFar with
// {"cancelled": [requestId, ...]} (in the order received) once it has
// recorded at least params.want of them.
func forwardServer(r io.Reader, w io.Writer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	send := func(v any) bool {
		b, err := json.Marshal(v)
		if err != nil {
			return false
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err == nil
	}
	answer := func(id json.RawMessage, result any) bool {
		return send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
	cancelled := []json.RawMessage{}
	var query json.RawMessage // the id of a methodCancelledSoFar waiting
	var ask json.RawMessage   // the id of a toolAsk call waiting
	want := 0
	hung, wantHung := 0, 0
	var hungQuery json.RawMessage // the id of a methodHungSoFar waiting
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Params struct {
				Name string `json:"name"`
				Meta struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
				RequestID json.RawMessage `json:"requestId"`
				Want      int             `json:"want"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil {
			continue
		}
		ok := true
		switch {
		case msg.Method == string(mcp.MethodNotificationCancelled):
			cancelled = append(cancelled, msg.Params.RequestID)
		case msg.Method == methodAsk:
			ok = send(map[string]any{"jsonrpc": "2.0", "id": "q", "method": string(mcp.MethodElicitationCreate),
				"params": map[string]any{"message": "?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}}}})
		case msg.Method == "" && string(msg.ID) == `"q"` && ask != nil:
			ok = answer(ask, map[string]any{"answer": msg.Result})
			ask = nil
		case msg.ID == nil || msg.Method == "":
			// a notification, or an answer: nothing to say
		case msg.Method == methodCancelledSoFar:
			query, want = msg.ID, msg.Params.Want
		case msg.Method == methodHungSoFar:
			hungQuery, wantHung = msg.ID, msg.Params.Want
		case msg.Method == string(mcp.MethodPromptsList):
			ok = send(map[string]any{"jsonrpc": "2.0", "method": string(mcp.MethodNotificationPromptsListChanged)}) &&
				answer(msg.ID, map[string]any{"prompts": []any{}, "n": msg.ID})
		case msg.Method == string(mcp.MethodToolsCall):
			if tok := msg.Params.Meta.ProgressToken; tok != nil {
				ok = send(map[string]any{"jsonrpc": "2.0", "method": string(mcp.MethodNotificationProgress),
					"params": map[string]any{"progressToken": tok, "progress": msg.ID}})
			}
			if msg.Params.Name == toolFlood {
				for i := 0; ok && i < floodNotes; i++ {
					ok = send(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"level": "info", "data": i}})
				}
			}
			if msg.Params.Name == toolBigFlood {
				data := strings.Repeat("x", bigFloodSize)
				for i := 0; ok && i < bigFloodNotes; i++ {
					ok = send(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"level": "info", "data": data}})
				}
			}
			if msg.Params.Name == toolHang {
				hung++
			}
			if msg.Params.Name == toolAsk {
				ask = msg.ID
			} else if ok && msg.Params.Name != toolHang {
				ok = answer(msg.ID, map[string]any{"n": msg.ID})
			}
		default:
			ok = answer(msg.ID, map[string]any{"n": msg.ID})
		}
		if ok && query != nil && len(cancelled) >= want {
			ok = answer(query, map[string]any{"cancelled": cancelled})
			query = nil
		}
		if ok && hungQuery != nil && hung >= wantHung {
			ok = answer(hungQuery, map[string]any{"hung": hung})
			hungQuery = nil
		}
		if !ok {
			return
		}
	}
}

// testCaller is an mcpx process of the test, attached to the daemon: its
// transport over the attached connection, and the params of the progress
// notifications it was sent.
type testCaller struct {
	name     string
	tr       *transport.Stdio
	progress chan map[string]any
	said     chan string // the daemon's notes and losses: "note: ...", "lost: ..."
}

func attachCaller(t *testing.T, d *inProcess, spec *Spec, name string) *testCaller {
	t.Helper()
	nc, _, err := Attach(d.ctx, d.env, Hello{Spec: spec, KeepAlive: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return wrapCaller(t, d, nc, name)
}

// wrapCaller is the testCaller of an attached connection.
func wrapCaller(t *testing.T, d *inProcess, nc net.Conn, name string) *testCaller {
	t.Helper()
	c := &testCaller{name: name, tr: transport.NewStdio(nc, nc, transport.StdioOptions{MessageCeiling: 1 << 20}),
		progress: make(chan map[string]any, 64), said: make(chan string, 8)}
	// A request of the server's is answered {"who": the caller's name}.
	c.tr.SetRequestHandler(func(_ context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
		who, _ := json.Marshal(map[string]string{"who": name})
		return &mcptransport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID, Result: who}, nil
	})
	c.tr.SetNotificationHandler(func(n mcp.JSONRPCNotification) {
		switch n.Method {
		case string(mcp.MethodNotificationProgress):
			select {
			case c.progress <- n.Params.AdditionalFields:
			default: // far more than the test makes: the count is wrong anyway
			}
		case MethodNote, MethodLost:
			what, _ := n.Params.AdditionalFields["note"].(string)
			if n.Method == MethodLost {
				what, _ = n.Params.AdditionalFields["why"].(string)
				what = "lost: " + what
			} else {
				what = "note: " + what
			}
			select {
			case c.said <- what:
			default:
			}
		}
	})
	_ = c.tr.Start(d.ctx)
	t.Cleanup(func() { _ = c.tr.Close() })
	return c
}

func (c *testCaller) request(ctx context.Context, id int64, method string, params map[string]any) (json.RawMessage, error) {
	resp, err := c.tr.SendRequest(ctx, mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id),
		Method: method, Params: params})
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", c.name, method, err)
	}
	if resp.ID.String() != mcp.NewRequestId(id).String() {
		return nil, fmt.Errorf("%s: %s answered under id %s, not %d", c.name, method, resp.ID.String(), id)
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("%s: %s: error %+v", c.name, method, resp.Error)
	}
	return resp.Result, nil
}

// forwardSpec is the target of forwardServer, run by the test binary.
func forwardSpec(d *inProcess) *Spec {
	return &Spec{Name: "forward", Transport: "stdio", Command: d.self, Env: append(os.Environ(), forwardEnv+"=1")}
}

// seen sends a request that forwardServer answers {"n": ID} and returns the
// id the server saw for it (an id seen before: the daemon answered).
func (c *testCaller) seen(t *testing.T, ctx context.Context, id int64, method string, params map[string]any) any {
	t.Helper()
	res, err := c.request(ctx, id, method, params)
	var r struct{ N any }
	if err == nil && (json.Unmarshal(res, &r) != nil || r.N == nil) {
		err = fmt.Errorf("%s: %s result %s", c.name, method, res)
	}
	if err != nil {
		t.Fatal(err)
	}
	return r.N
}

// nextProgress waits for the caller's next progress notification.
func (c *testCaller) nextProgress(ctx context.Context) (map[string]any, error) {
	select {
	case p := <-c.progress:
		return p, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: no progress notification: %w", c.name, ctx.Err())
	}
}

// progressSoFar returns the progress notifications the caller has been
// sent so far: the daemon answers mcpx/flush after what it has queued for
// the caller, and the answer to a call after the call's progress.
func (c *testCaller) progressSoFar(ctx context.Context, flushID int64) ([]map[string]any, error) {
	if _, err := c.request(ctx, flushID, MethodFlush, nil); err != nil {
		return nil, err
	}
	var got []map[string]any
	for {
		select {
		case p := <-c.progress:
			got = append(got, p)
		default:
			return got, nil
		}
	}
}

// TestServeForwardsProgressAndCancellation: two callers attached to one
// target at once use the same request ids and the same progress tokens.
// Each gets the progress of its own call only, under its own token; a
// caller's notifications/cancelled cancels on the server that caller's
// request, under the id the server saw for it.
func TestServeForwardsProgressAndCancellation(t *testing.T) {
	d := startDaemon(t)
	ctx := d.ctx
	spec := forwardSpec(d)
	callers := []*testCaller{attachCaller(t, d, spec, "caller A"), attachCaller(t, d, spec, "caller B")}

	// The caller's ids are far from the daemon's (1, 2, ...): an id the
	// daemon failed to map would not pass for a mapped one.
	const callID, hangID, flushID, queryID = 1001, 1002, 1003, 1004

	// Progress: both calls at once, under the same id and token.
	type called struct {
		n   any // the id the server saw
		err error
	}
	results := make([]chan called, len(callers))
	for i, c := range callers {
		results[i] = make(chan called, 1)
		go func() {
			res, err := c.request(ctx, callID, string(mcp.MethodToolsCall),
				map[string]any{"name": "work", "_meta": map[string]any{"progressToken": "tok"}})
			var r struct{ N any }
			if err == nil && (json.Unmarshal(res, &r) != nil || r.N == nil) {
				err = fmt.Errorf("%s: tools/call result %s", c.name, res)
			}
			results[i] <- called{r.N, err}
		}()
	}
	seen := make([]any, len(callers))
	for i, c := range callers {
		var r called
		select {
		case r = <-results[i]:
		case <-ctx.Done():
			t.Fatalf("%s: tools/call not answered: %v", c.name, ctx.Err())
		}
		if r.err != nil {
			t.Fatal(r.err)
		}
		seen[i] = r.n
	}
	if reflect.DeepEqual(seen[0], seen[1]) {
		t.Fatalf("the server saw both calls under id %v", seen[0])
	}
	// Both answers are in: the daemon has routed both calls' progress.
	for i, c := range callers {
		got, err := c.progressSoFar(ctx, flushID)
		if err != nil {
			t.Fatal(err)
		}
		want := []map[string]any{{"progressToken": "tok", "progress": seen[i]}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: progress notifications %v, want %v (its own call's, under its own token)", c.name, got, want)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	// Cancellation: both callers have a call in flight under the same id
	// (and token); each cancels its own in turn.
	hung := make([]any, len(callers)) // the ids the server saw
	abandon := make([]context.CancelFunc, len(callers))
	abandoned := make([]chan error, len(callers))
	for i, c := range callers {
		var hctx context.Context
		hctx, abandon[i] = context.WithCancel(ctx)
		defer abandon[i]()
		abandoned[i] = make(chan error, 1)
		go func() {
			_, err := c.request(hctx, hangID, string(mcp.MethodToolsCall),
				map[string]any{"name": toolHang, "_meta": map[string]any{"progressToken": 7}})
			abandoned[i] <- err
		}()
		// The server has the call once its progress arrives.
		p, err := c.nextProgress(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p["progressToken"], float64(7)) {
			t.Fatalf("%s: progress %v, want token 7", c.name, p)
		}
		hung[i] = p["progress"]
	}
	if hung[0] == nil || reflect.DeepEqual(hung[0], hung[1]) {
		t.Fatalf("the server saw the calls in flight under ids %v", hung)
	}
	for i, c := range callers {
		// As an mcpx process does: it gives up on the call, and says so.
		abandon[i]()
		select {
		case err := <-abandoned[i]:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: the call in flight ended with %v", c.name, err)
			}
		case <-ctx.Done():
			t.Fatalf("%s: the call in flight was not given up: %v", c.name, ctx.Err())
		}
		err := c.tr.SendNotification(ctx, mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationCancelled),
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": hangID, "reason": "test"}}}})
		if err != nil {
			t.Fatalf("%s: cancel: %v", c.name, err)
		}
		// Sent after the cancellation on the same connection, this
		// reaches the server after it; it waits for the cancellation
		// anyway, and shows every one the server was sent so far.
		res, err := c.request(ctx, queryID, methodCancelledSoFar, map[string]any{"want": i + 1})
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Cancelled []any }
		if err := json.Unmarshal(res, &got); err != nil {
			t.Fatalf("%s: %s result %s", c.name, methodCancelledSoFar, res)
		}
		if want := hung[:i+1]; !reflect.DeepEqual(got.Cancelled, want) {
			t.Fatalf("after %s cancelled request %d, the server saw cancelled %v; want %v (the ids it saw for the calls cancelled)",
				c.name, hangID, got.Cancelled, want)
		}
	}
	// Each call in flight had its progress go to its own caller only.
	for _, c := range callers {
		if got, err := c.progressSoFar(ctx, flushID); err != nil {
			t.Fatal(err)
		} else if len(got) != 0 {
			t.Errorf("%s: progress notifications %v, want none but its own calls'", c.name, got)
		}
	}
	d.stop(t)
}

// TestServeSetLevelOnce: logging/setLevel reaches the server when the level
// changes, and is answered by the daemon when the server's level is
// already the one asked for, whichever caller asks. forwardServer answers
// {"n": ID}: an answer under an id the server saw before is the daemon's.
func TestServeSetLevelOnce(t *testing.T) {
	d := startDaemon(t)
	ctx := d.ctx
	spec := forwardSpec(d)
	a, b := attachCaller(t, d, spec, "caller A"), attachCaller(t, d, spec, "caller B")
	setLevel := func(c *testCaller, id int64, level string) any {
		t.Helper()
		return c.seen(t, ctx, id, string(mcp.MethodSetLogLevel), map[string]any{"level": level})
	}
	warning := setLevel(a, 1, "warning")
	if got := setLevel(b, 1, "warning"); got != warning {
		t.Errorf("a second setLevel warning reached the server (id %v, the first %v)", got, warning)
	}
	if _, err := b.request(ctx, 2, string(mcp.MethodToolsCall), map[string]any{"name": "work"}); err != nil {
		t.Fatal(err)
	}
	if got := setLevel(a, 3, "warning"); got != warning {
		t.Errorf("setLevel warning after a call reached the server (id %v, the first %v)", got, warning)
	}
	debug := setLevel(b, 4, "debug")
	if debug == warning {
		t.Fatalf("setLevel debug was answered for warning (id %v)", debug)
	}
	if got := setLevel(a, 5, "debug"); got != debug {
		t.Errorf("a second setLevel debug reached the server (id %v, the first %v)", got, debug)
	}
	if again := setLevel(a, 6, "warning"); again == warning || again == debug {
		t.Errorf("setLevel warning after debug was not sent to the server (answered as id %v)", again)
	}
}

// TestServeListChangedDuringListing: a listing the server changed while it
// was in flight (its list_changed arrived before the answer was cached) is
// not cached: the next caller's listing reaches the server. forwardServer
// answers a prompts/list after a prompts list_changed, a tools/list with
// {"n": ID} and no notification.
func TestServeListChangedDuringListing(t *testing.T) {
	d := startDaemon(t)
	ctx := d.ctx
	spec := forwardSpec(d)
	a, b := attachCaller(t, d, spec, "caller A"), attachCaller(t, d, spec, "caller B")
	list := func(c *testCaller, id int64, method string) any {
		t.Helper()
		return c.seen(t, ctx, id, method, map[string]any{})
	}
	tools := list(a, 1, string(mcp.MethodToolsList))
	if got := list(b, 1, string(mcp.MethodToolsList)); got != tools {
		t.Fatalf("tools/list was not cached: answered as id %v, then %v", tools, got)
	}
	prompts := list(a, 2, string(mcp.MethodPromptsList))
	if got := list(b, 2, string(mcp.MethodPromptsList)); got == prompts {
		t.Errorf("prompts/list changed while in flight was cached: answered as id %v again", got)
	}
	d.stop(t)
}

// TestServeAsksTheCallerInFlight: a server's request during a call goes to
// the caller with a request in flight, not to one attached whose request
// started later but has been answered.
func TestServeAsksTheCallerInFlight(t *testing.T) {
	d := startDaemon(t)
	ctx := d.ctx
	spec := forwardSpec(d)
	a, b := attachCaller(t, d, spec, "caller A"), attachCaller(t, d, spec, "caller B")
	asked := make(chan json.RawMessage, 1)
	go func() {
		res, err := a.request(ctx, 1, string(mcp.MethodToolsCall),
			map[string]any{"name": toolAsk, "_meta": map[string]any{"progressToken": "t"}})
		if err != nil {
			t.Error(err)
		}
		asked <- res
	}()
	// The server has A's call once its progress arrives.
	if _, err := a.nextProgress(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.request(ctx, 1, string(mcp.MethodToolsCall), map[string]any{"name": "work"}); err != nil {
		t.Fatal(err)
	}
	err := b.tr.SendNotification(ctx, mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: methodAsk}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-asked:
		if want := `{"answer":{"who":"caller A"}}`; string(res) != want {
			t.Errorf("the call asked during was answered %s, want %s", res, want)
		}
	case <-ctx.Done():
		t.Fatal("the call that asked was not answered")
	}
	d.stop(t)
}

// TestServeAnswersAfterTheFlood: a caller gets every log message the
// server sent during its call, then the answer, then nothing: the answer
// is queued after them. The flood holds more than the caller's queue and
// its socket: a full queue is waited on while the caller reads.
func TestServeAnswersAfterTheFlood(t *testing.T) {
	d := startDaemonWith(t, ServeOptions{queueLimit: testQueue})
	spec := forwardSpec(d)
	for _, tool := range []string{toolFlood, toolBigFlood} {
		nc, _, err := Attach(d.ctx, d.env, Hello{Spec: spec, KeepAlive: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Fprintf(nc, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q}}`+"\n", tool); err != nil {
			t.Fatal(err)
		}
		want := floodNotes
		if tool == toolBigFlood {
			want = bigFloodNotes
		}
		sc := floodScanner(nc)
		if notes := readNotes(sc); notes != want || !floodAnswer.MatchString(sc.Text()) {
			t.Fatalf("%s: after %d log messages (want %d): %.200q (%v); want the answer", tool, notes, want, sc.Text(), sc.Err())
		}
		// Nothing queued before the answer follows it.
		if err := nc.Close(); err != nil {
			t.Fatal(err)
		}
		if sc.Scan() {
			t.Fatalf("%s: after the answer: %.200s", tool, sc.Text())
		}
	}
	d.stop(t)
}

// floodAnswer is the answer to a flood call of id 1.
var floodAnswer = regexp.MustCompile(`^\{"jsonrpc":"2\.0","id":1,"result":\{"n":[0-9]+\}\}$`)

// floodScanner reads the lines of an attached connection, log messages of
// the big flood included.
func floodScanner(nc net.Conn) *bufio.Scanner {
	sc := bufio.NewScanner(nc)
	sc.Buffer(nil, 4<<20)
	return sc
}

// readNotes reads log messages until another line (left in sc.Text()) or
// the end, and returns how many it read.
func readNotes(sc *bufio.Scanner) int {
	notes := 0
	for sc.Scan() {
		if !strings.Contains(sc.Text(), `"method":"notifications/message"`) {
			break
		}
		notes++
	}
	return notes
}

// TestServeCutsOffACallerThatReadsNothing: a caller with a call in flight
// that reads nothing (suspended) while the server floods it is cut off once
// the bytes queued for it reach the bound, which they never pass: when it
// reads again it finds the messages sent before, complete, then why, then
// the end; its call is cancelled on the server. The other caller gets the
// whole flood and its answer.
func TestServeCutsOffACallerThatReadsNothing(t *testing.T) {
	var peak atomic.Int64
	d := startDaemonWith(t, ServeOptions{queueLimit: testQueue, queuePeak: func(n int64) {
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				return
			}
		}
	}})
	spec := forwardSpec(d)
	stalled, _, err := Attach(d.ctx, d.env, Hello{Spec: spec, KeepAlive: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	reader := attachCaller(t, d, spec, "reader")
	// Log messages go to the callers with a request in flight: the
	// stalled caller's call, which the server has before the flood.
	if _, err := fmt.Fprintf(stalled, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q}}`+"\n", toolHang); err != nil {
		t.Fatal(err)
	}
	if _, err := reader.request(d.ctx, 1, methodHungSoFar, map[string]any{"want": 1}); err != nil {
		t.Fatal(err)
	}
	notes := make(chan int, 1)
	reader.tr.SetNotificationHandler(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/message" {
			select {
			case notes <- 1 + drain(notes):
			default:
			}
		}
	})
	if _, err := reader.request(d.ctx, 2, string(mcp.MethodToolsCall), map[string]any{"name": toolBigFlood}); err != nil {
		t.Fatal(err)
	}
	if got := drain(notes); got != bigFloodNotes {
		t.Errorf("the reader got %d log messages, want %d", got, bigFloodNotes)
	}
	// The stalled caller's call was cancelled when it was cut off.
	if _, err := reader.request(d.ctx, 3, methodCancelledSoFar, map[string]any{"want": 1}); err != nil {
		t.Fatal(err)
	}
	// It reads again: whole messages, then why, then the end.
	sc := floodScanner(stalled)
	got := readNotes(sc)
	if got >= bigFloodNotes || !cutOffNote.MatchString(sc.Text()) {
		t.Errorf("the stalled caller read %d log messages, then %.200q (%v); want fewer than %d, then why it was cut off", got, sc.Text(), sc.Err(), bigFloodNotes)
	}
	if sc.Scan() || sc.Err() != nil {
		t.Errorf("after the note: %.200q (%v), want the end", sc.Text(), sc.Err())
	}
	if p := peak.Load(); p > testQueue {
		t.Errorf("%d bytes were queued for a caller at once, more than %d", p, testQueue)
	}
	d.stop(t)
}

// cutOffNote is the daemon's note to a caller it cut off.
var cutOffNote = regexp.MustCompile(`^\{"jsonrpc":"2\.0","method":"notifications/mcpx/lost","params":\{"why":"the mcpx daemon cut this call off: it read nothing while the server sent [0-9]+ MiB"\}\}$`)

// drain takes what ch holds (0 when empty).
func drain(ch chan int) int {
	select {
	case n := <-ch:
		return n
	default:
		return 0
	}
}

// TestServeCancelsTheRequestsOfACallerGone: a caller that goes away (its
// socket ends) has its requests in flight cancelled on the server, under
// the ids the server saw for them; a cancellation of a request the daemon
// never sent (not in flight) is not the server's to see.
func TestServeCancelsTheRequestsOfACallerGone(t *testing.T) {
	d := startDaemon(t)
	ctx := d.ctx
	spec := forwardSpec(d)
	gone, stays := attachCaller(t, d, spec, "caller A"), attachCaller(t, d, spec, "caller B")
	const hangID, neverSentID, queryID = 1001, 1002, 1003
	go func() {
		_, _ = gone.request(ctx, hangID, string(mcp.MethodToolsCall),
			map[string]any{"name": toolHang, "_meta": map[string]any{"progressToken": "t"}})
	}()
	// The server has the call once its progress arrives.
	p, err := gone.nextProgress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hung := p["progress"] // the id the server saw
	if hung == nil || hung == float64(hangID) {
		t.Fatalf("the server saw the call in flight under id %v", hung)
	}
	err = gone.tr.SendNotification(ctx, mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: string(mcp.MethodNotificationCancelled),
		Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": neverSentID, "reason": "test"}}}})
	if err != nil {
		t.Fatal(err)
	}
	// The mcpx process goes away: its socket ends, after the cancellation.
	if err := gone.tr.Close(); err != nil {
		t.Fatal(err)
	}
	res, err := stays.request(ctx, queryID, methodCancelledSoFar, map[string]any{"want": 1})
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Cancelled []any }
	if err := json.Unmarshal(res, &got); err != nil {
		t.Fatalf("%s result %s", methodCancelledSoFar, res)
	}
	if want := []any{hung}; !reflect.DeepEqual(got.Cancelled, want) {
		t.Fatalf("after caller A went away, the server saw cancelled %v; want %v (the id it saw for A's call in flight)", got.Cancelled, want)
	}
	d.stop(t)
}
