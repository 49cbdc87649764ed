//go:build unix

package daemon

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/client/transport"
)

// events records what Open reports: each line of the server's, "stderr
// LINE" or "skipped LINE", in lines.
type events struct {
	lines  chan string
	lost   chan Lost
	closed chan struct{}
	once   sync.Once
}

func (e *events) Stderr(line string)  { e.lines <- "stderr " + line }
func (e *events) Skipped(line string) { e.lines <- "skipped " + line }

func (e *events) Auth(int, []string)           {}
func (e *events) BrokenReply(how string) error { return errors.New(how) }
func (e *events) OneShot(why string, _ int)    { e.lost <- Lost{Why: "one-shot: " + why} }
func (e *events) Lost(l Lost)                  { e.lost <- l }
func (e *events) Note(note string)             { e.lines <- "note " + note }
func (e *events) Closed()                      { e.once.Do(func() { close(e.closed) }) }

// TestOpenReportsTheDaemonsNotes: the caller's end of an attach reports
// the daemon's own notifications to its Events, never to the handler of
// the server's messages: the server's stderr line and its line on stdout
// that is not JSON-RPC, then its death during a request, with its last
// stderr lines; and the socket's end.
func TestOpenReportsTheDaemonsNotes(t *testing.T) {
	d := startDaemon(t)
	ctx := d.ctx
	// The server writes a line on stderr and one on stdout, and exits 3
	// once it reads a line.
	spec := &Spec{Name: "sh", Transport: "stdio", Command: "/bin/sh",
		Args: []string{"-c", "echo started >&2; echo not-json; read line; echo bye >&2; exit 3"}}
	ev := &events{lines: make(chan string, 16), lost: make(chan Lost, 1), closed: make(chan struct{})}
	tr, _, err := Open(ctx, CallerOptions{Env: d.env, Hello: Hello{Spec: spec, KeepAlive: time.Minute},
		Stdio: transport.StdioOptions{MessageCeiling: 1 << 20}, Events: ev})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tr.(interface{ SetProtocolVersion(string) }); ok {
		t.Error("a stdio target's transport stands in for an HTTP one")
	}
	var theirs []string
	var mu sync.Mutex
	tr.SetNotificationHandler(func(n mcp.JSONRPCNotification) {
		mu.Lock()
		defer mu.Unlock()
		theirs = append(theirs, n.Method)
	})
	if err := tr.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for len(lines) < 2 {
		select {
		case l := <-ev.lines:
			lines = append(lines, l)
		case <-ctx.Done():
			t.Fatalf("the server's lines reported: %q, want its stderr line and its line on stdout", lines)
		}
	}
	slices.Sort(lines) // from two pipes: in no order
	if want := []string{"skipped not-json", "stderr started"}; !reflect.DeepEqual(lines, want) {
		t.Errorf("the server's lines reported: %q, want %q", lines, want)
	}
	// A request the server reads, and dies of: the caller is told.
	go func() {
		_, _ = tr.SendRequest(ctx, mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(1)), Method: "tools/call"})
	}()
	var lost Lost
	select {
	case lost = <-ev.lost:
	case <-ctx.Done():
		t.Fatal("the server's death was not reported")
	}
	// Its exit status, or that it closed its stdout (when its exit is
	// seen late), and its stderr lines: "bye" too when read in time.
	if !strings.HasPrefix(lost.Why, "the server ") || !slices.Contains(lost.Stderr, "started") ||
		lost.Violation != "" || lost.Limit != nil {
		t.Errorf("lost %+v, want why the server is gone and its stderr lines", lost)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ev.closed:
	case <-ctx.Done():
		t.Fatal("the socket's end was not reported")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(theirs) != 0 {
		t.Errorf("the server's handler was given %s", strings.Join(theirs, ", "))
	}
}

// TestOpenAnswersAhead: a caller attached to a target whose handshake the
// daemon recorded is answered its initialize, its logging/setLevel of the
// level known and the listing pages cached that its hello named by its own
// end of the socket, as the daemon would answer them (the server's first
// answers, under the caller's ids), without a round trip; a
// logging/setLevel of another level, and the next of the first level after
// it, go to the server, as does a page not cached. The echo server answers
// each request with the daemon's id for it: the ids the server saw are
// counted.
func TestOpenAnswersAhead(t *testing.T) {
	d := startDaemon(t)
	ctx := d.ctx
	spec := &Spec{Name: "echo", Transport: "stdio", Command: d.self, Env: append(os.Environ(), echoEnv+"=1")}
	open := func(h Hello) (mcptransport.Interface, *Reply) {
		t.Helper()
		ev := &events{lines: make(chan string, 16), lost: make(chan Lost, 1), closed: make(chan struct{})}
		h.Spec, h.KeepAlive = spec, time.Minute
		tr, rep, err := Open(ctx, CallerOptions{Env: d.env, Hello: h, Stdio: transport.StdioOptions{MessageCeiling: 1 << 20}, Events: ev})
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Close() })
		return tr, rep
	}
	call := func(tr mcptransport.Interface, id int64, method string, params any, want string) {
		t.Helper()
		resp, err := tr.SendRequest(ctx, mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Method: method, Params: params})
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if resp.ID.String() != mcp.NewRequestId(id).String() || string(resp.Result) != want {
			t.Errorf("%s: id %s, result %s; want id %d, result %s", method, resp.ID.String(), resp.Result, id, want)
		}
	}
	initialized := func(tr mcptransport.Interface) {
		t.Helper()
		if err := tr.SendNotification(ctx, mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
			Notification: mcp.Notification{Method: string(mcp.MethodNotificationInitialized)}}); err != nil {
			t.Fatal(err)
		}
	}
	warning := mcp.SetLevelParams{Level: mcp.LoggingLevelWarning}
	first, rep := open(Hello{Listings: []string{"tools/list"}})
	if rep.Ahead != nil {
		t.Errorf("the first attach carries %+v, want nothing recorded", rep.Ahead)
	}
	call(first, 1, "initialize", map[string]any{}, `{"n":1}`)
	initialized(first)
	call(first, 2, "logging/setLevel", warning, `{"n":2}`)
	call(first, 3, "tools/list", mcp.PaginatedParams{}, `{"n":3}`)

	second, rep := open(Hello{Listings: []string{"tools/list", "prompts/list"}})
	want := &Ahead{Handshake: map[string]json.RawMessage{"initialize": json.RawMessage(`{"n":1}`)}, Initialized: true,
		Level: json.RawMessage(`{"level":"warning"}`), LevelResult: json.RawMessage(`{"n":2}`),
		Pages: []AheadPage{{Method: "tools/list", Result: json.RawMessage(`{"n":3}`)}}}
	if !reflect.DeepEqual(rep.Ahead, want) {
		t.Errorf("the second attach carries %+v, want %+v", rep.Ahead, want)
	}
	call(second, 7, "initialize", map[string]any{}, `{"n":1}`)
	initialized(second)
	call(second, 8, "logging/setLevel", warning, `{"n":2}`)
	call(second, 9, "tools/list", mcp.PaginatedParams{}, `{"n":3}`)
	call(second, 10, "tools/list", mcp.PaginatedParams{Cursor: "x"}, `{"n":4}`)
	call(second, 11, "prompts/list", mcp.PaginatedParams{}, `{"n":5}`)
	call(second, 12, "tools/call", map[string]any{}, `{"n":6}`)
	call(second, 13, "logging/setLevel", mcp.SetLevelParams{Level: mcp.LoggingLevelDebug}, `{"n":7}`)
	call(second, 14, "logging/setLevel", warning, `{"n":8}`)

	// --refresh: no page ahead.
	_, rep = open(Hello{Listings: []string{"tools/list"}, Refresh: true})
	if rep.Ahead == nil || rep.Ahead.Pages != nil {
		t.Errorf("an attach that refreshes carries %+v, want the handshake and no page", rep.Ahead)
	}
	d.stop(t)
}

// TestSessionEndsAtAViolation: a server that breaks the framing and lives
// on (an answer to an id never sent, after the answer it owed) is done
// with at once, as a one-shot connection is: the next caller of the target
// gets a new server, with a note that says why, instead of waiting for a
// death that never comes and being told the server closed its stdout.
// (The caller it served may be told, or, served after the violation was
// read, go on with the new server at its next request.)
func TestSessionEndsAtAViolation(t *testing.T) {
	d := startDaemon(t)
	ctx := d.ctx
	spec := &Spec{Name: "echo", Transport: "stdio", Command: d.self, Env: append(os.Environ(), echoEnv+"=1")}
	const why = "the server answered request id 987654, which mcpx never sent (or which was already answered)"
	open := func() (mcptransport.Interface, *events, *Reply) {
		t.Helper()
		ev := &events{lines: make(chan string, 16), lost: make(chan Lost, 1), closed: make(chan struct{})}
		tr, rep, err := Open(ctx, CallerOptions{Env: d.env, Hello: Hello{Spec: spec, KeepAlive: time.Minute},
			Stdio: transport.StdioOptions{MessageCeiling: 1 << 20}, Events: ev})
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Close() })
		return tr, ev, rep
	}
	call := func(tr mcptransport.Interface, id int64, method, want string) {
		t.Helper()
		resp, err := tr.SendRequest(ctx, mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Method: method})
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if string(resp.Result) != want {
			t.Errorf("%s: result %s, want %s", method, resp.Result, want)
		}
	}
	first, _, _ := open()
	call(first, 1, "initialize", `{"n":1}`)
	call(first, 2, "rogue", `{"n":2}`)

	// The session ends though the server lives on (at once; without the
	// violation seen, it would stay until its keep-alive, a minute).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		rep, ok, err := Ask(ctx, d.env, Hello{Op: OpStatus})
		if err != nil || !ok {
			t.Fatalf("status: %v %v", ok, err)
		}
		if len(rep.Status) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session of a server that broke the framing was held: %+v", rep.Status)
		}
	}
	// The next caller gets a new server, and the attach's reply says why,
	// once.
	second, ev, rep := open()
	call(second, 1, "initialize", `{"n":1}`)
	call(second, 2, "tools/list", `{"n":2}`)
	var notes []string
	if rep.Note != "" {
		notes = append(notes, "note "+rep.Note)
	}
	for len(ev.lines) > 0 {
		notes = append(notes, <-ev.lines)
	}
	if want := []string{"note " + lostNote("echo", why)}; !reflect.DeepEqual(notes, want) {
		t.Errorf("the next caller was told %q, want %q", notes, want)
	}
	d.stop(t)
}
