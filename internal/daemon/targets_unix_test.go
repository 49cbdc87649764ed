//go:build unix

package daemon

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// silentSSE is an SSE server that sends no endpoint event until released:
// a hostile (or very slow) target. It counts the streams opened.
type silentSSE struct {
	streams atomic.Int32
	opened  chan struct{} // closed at the first stream
	once    sync.Once
	release chan struct{}
}

func (s *silentSSE) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	s.streams.Add(1)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	s.once.Do(func() { close(s.opened) })
	select {
	case <-s.release:
	case <-r.Context().Done():
		return
	}
	fmt.Fprint(w, "event: endpoint\ndata: /message\n\n")
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// TestServeHostileTargetHoldsUpOnlyItsOwn: an SSE server that sends no
// endpoint holds up its own callers only. While two attaches of it wait
// (one start: one stream), another target is attached and served, and
// status answers, without it; released, both attaches of it succeed.
func TestServeHostileTargetHoldsUpOnlyItsOwn(t *testing.T) {
	hostile := &silentSSE{opened: make(chan struct{}), release: make(chan struct{})}
	hs := httptest.NewServer(hostile)
	t.Cleanup(func() { hs.CloseClientConnections(); hs.Close() })
	d := startDaemon(t)
	ctx, env := d.ctx, d.env
	spec := &Spec{Name: "hostile", Transport: "sse", URL: hs.URL + "/sse"}
	attached := make(chan error, 2)
	for range 2 {
		go func() {
			nc, _, err := Attach(ctx, env, Hello{Spec: spec, KeepAlive: time.Minute})
			if err == nil {
				t.Cleanup(func() { nc.Close() })
			}
			attached <- err
		}()
	}
	select {
	case <-hostile.opened: // the daemon is starting the hostile target
	case <-ctx.Done():
		t.Fatal("the daemon never opened the SSE stream")
	}
	echoSpec := &Spec{Name: "echo", Transport: "stdio", Command: d.self, Env: append(os.Environ(), echoEnv+"=1")}
	if err := oneCaller(ctx, env, echoSpec); err != nil {
		t.Fatalf("another target, while the hostile one starts: %v", err)
	}
	rep, ok, err := Ask(ctx, env, Hello{Op: OpStatus})
	if err != nil || !ok || len(rep.Status) != 1 || rep.Status[0].Server != "echo" {
		t.Fatalf("status while the hostile target starts: %+v %v %v", rep, ok, err)
	}
	select {
	case err := <-attached:
		t.Fatalf("an attach of the hostile target ended (%v) before its endpoint was sent", err)
	default:
	}
	close(hostile.release)
	for range 2 {
		select {
		case err := <-attached:
			if err != nil {
				t.Fatalf("an attach of the hostile target, released: %v", err)
			}
		case <-ctx.Done():
			t.Fatal("an attach of the hostile target was not answered once released")
		}
	}
	if n := hostile.streams.Load(); n != 1 {
		t.Errorf("the hostile target was started %d times, want once", n)
	}
	d.stop(t)
}

// serverPid is the pid of the daemon's stdio server of the target named.
func serverPid(t *testing.T, d *inProcess, name string) int {
	t.Helper()
	rep, ok, err := Ask(d.ctx, d.env, Hello{Op: OpStatus})
	if err != nil || !ok {
		t.Fatalf("status: %v %v", ok, err)
	}
	for _, tg := range rep.Status {
		if tg.Server == name && tg.Pid != 0 {
			return tg.Pid
		}
	}
	t.Fatalf("no server %q in %+v", name, rep.Status)
	return 0
}

// killServer kills the target's server and waits until the daemon has
// found it dead (its status no longer lists it).
func killServer(t *testing.T, d *inProcess, name string) {
	t.Helper()
	if err := syscall.Kill(serverPid(t, d, name), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for {
		rep, ok, err := Ask(d.ctx, d.env, Hello{Op: OpStatus})
		if err != nil || !ok {
			t.Fatalf("status: %v %v", ok, err)
		}
		if len(rep.Status) == 0 {
			return
		}
		select {
		case <-d.ctx.Done():
			t.Fatal("the daemon never found its server dead")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// lostNoteRE is the note of a target whose server was killed.
var lostNoteRE = regexp.MustCompile(`^the warm connection to server "forward" was lost \(the server (was killed by SIGKILL|closed its stdout)\); its state was lost, starting it again$`)

// TestServeRemembersALoss: when the only target's server dies, the daemon
// (whose exit grace is over) stays, and the next attach is told that its
// state was lost, and gets a new server.
func TestServeRemembersALoss(t *testing.T) {
	rounds := make(chan struct{}, 1)
	var hold net.Conn
	d := startDaemonWith(t, ServeOptions{ExitGrace: time.Millisecond, reaped: func() {
		select {
		case rounds <- struct{}{}:
		default:
		}
	}}, func(sock string) {
		// A connection with no hello yet holds the daemon while the test
		// sets up (it reads a hello for 10 s).
		hold, _ = net.Dial("unix", sock)
	})
	if hold == nil {
		t.Fatal("no connection to hold the daemon")
	}
	a := attachCaller(t, d, forwardSpec(d), "caller A")
	a.seen(t, d.ctx, 1, "initialize", nil)
	a.seen(t, d.ctx, 2, string(mcp.MethodToolsCall), map[string]any{"name": "work"})
	if err := a.tr.Close(); err != nil {
		t.Fatal(err)
	}
	killServer(t, d, "forward")
	hold.Close()
	// Rounds of reap since (the first may have begun before): a daemon
	// that held nothing would have exited.
	for range 3 {
		select {
		case <-rounds:
		case <-d.done:
		}
	}
	select {
	case <-d.done:
		t.Fatal("the daemon exited with a loss its next caller was not told of")
	default:
	}
	nc, rep, err := Attach(d.ctx, d.env, Hello{Spec: forwardSpec(d), KeepAlive: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	nc.Close()
	if !lostNoteRE.MatchString(rep.Note) {
		t.Errorf("the attach after the death noted %q, want that its state was lost", rep.Note)
	}
	d.stop(t)
}

// TestServeNewServerUnderAnIdleCaller: a caller attached whose server dies
// before it served the caller goes on, at its next request, with a new
// server that the daemon initialized with the handshake recorded, and a
// note that its state was lost; a caller the dead server had served, with
// nothing in flight, is told and cut off, as a one-shot connection.
func TestServeNewServerUnderAnIdleCaller(t *testing.T) {
	d := startDaemon(t)
	ctx := d.ctx
	spec := forwardSpec(d)
	a, b := attachCaller(t, d, spec, "caller A"), attachCaller(t, d, spec, "caller B")
	if n := a.seen(t, ctx, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25"}); n != float64(1) {
		t.Fatalf("initialize reached the server as id %v", n)
	}
	a.seen(t, ctx, 2, string(mcp.MethodToolsCall), map[string]any{"name": "work"})
	if n := b.seen(t, ctx, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25"}); n != float64(1) {
		t.Fatalf("the second initialize was answered as id %v, not replayed", n)
	}
	killServer(t, d, "forward")
	select {
	case what := <-a.said:
		if !strings.HasPrefix(what, "lost: the server ") {
			t.Errorf("caller A, served by the dead server, was told %q", what)
		}
	case <-ctx.Done():
		t.Fatal("caller A, served by the dead server, was not told")
	}
	// The new server: the daemon's initialize is its first request, B's
	// call its second.
	if n := b.seen(t, ctx, 2, string(mcp.MethodToolsCall), map[string]any{"name": "work"}); n != float64(2) {
		t.Errorf("caller B's call after the death reached a server as id %v, want 2 (after the daemon's initialize)", n)
	}
	select {
	case what := <-b.said:
		if note, _ := strings.CutPrefix(what, "note: "); !lostNoteRE.MatchString(note) {
			t.Errorf("caller B was told %q, want that its state was lost", what)
		}
	default:
		t.Error("caller B was not told that its state was lost")
	}
	d.stop(t)
}

// sdkHTTP is a streamable HTTP server that forgets its sessions when told
// (restart), as a restarted one does, and answers a request of a session
// it does not know as the SDKs' example servers do (HTTP 400, "Bad
// Request: No valid session ID provided"), or (notFound) as the
// specification says (404). Its tool count counts the session's calls;
// its tools/list names one tool after the server's generation.
type sdkHTTP struct {
	notFound bool
	mu       sync.Mutex
	gen      int
	next     int
	counts   map[string]int // by session
	log      []string
}

func (s *sdkHTTP) restart() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	s.counts = map[string]int{}
}

func (s *sdkHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &m)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, m.Method)
	result := func(v string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, v)
	}
	if m.Method == "initialize" {
		s.next++
		id := fmt.Sprintf("s%d", s.next)
		s.counts[id] = 0
		w.Header().Set("Mcp-Session-Id", id)
		result(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"sdk","version":"1"}}`)
		return
	}
	id := r.Header.Get("Mcp-Session-Id")
	if _, ok := s.counts[id]; !ok {
		if s.notFound {
			http.Error(w, "Session not found", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`)
		return
	}
	switch {
	case m.ID == nil:
		w.WriteHeader(http.StatusAccepted)
	case m.Method == "tools/call":
		s.counts[id]++
		result(fmt.Sprintf(`{"content":[{"type":"text","text":"%d"}]}`, s.counts[id]))
	case m.Method == "tools/list":
		result(fmt.Sprintf(`{"tools":[{"name":"t%d","inputSchema":{"type":"object"}}]}`, s.gen))
	default:
		result(`{}`)
	}
}

// TestServeHTTPSessionForgotten: an HTTP session the server no longer knows
// (restarted), whether it answers 400 as the SDKs' servers do or 404, is
// initialized afresh, transparently: a caller attached goes on with its
// call answered by the new session, with a note that its state was lost;
// an attach to the idle target finds it out before it is given the
// listings cached of the old session.
func TestServeHTTPSessionForgotten(t *testing.T) {
	for _, notFound := range []bool{false, true} {
		t.Run(fmt.Sprintf("404=%v", notFound), func(t *testing.T) {
			srv := &sdkHTTP{notFound: notFound, counts: map[string]int{}}
			hs := httptest.NewServer(srv)
			t.Cleanup(hs.Close)
			d := startDaemon(t)
			ctx := d.ctx
			spec := &Spec{Name: "web", Transport: "http", URL: hs.URL}
			count := func(c *testCaller, id int64) string {
				t.Helper()
				res, err := c.request(ctx, id, string(mcp.MethodToolsCall), map[string]any{"name": "count"})
				if err != nil {
					t.Fatal(err)
				}
				return gjsonText(res)
			}
			tools := func(c *testCaller, id int64) string {
				t.Helper()
				res, err := c.request(ctx, id, string(mcp.MethodToolsList), map[string]any{})
				if err != nil {
					t.Fatal(err)
				}
				return string(res)
			}
			a := attachCaller(t, d, spec, "caller A")
			if _, err := a.request(ctx, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25"}); err != nil {
				t.Fatal(err)
			}
			if err := a.tr.SendNotification(ctx, mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
				Notification: mcp.Notification{Method: string(mcp.MethodNotificationInitialized)}}); err != nil {
				t.Fatal(err)
			}
			if got := count(a, 2) + count(a, 3); got != "12" {
				t.Fatalf("counts %s, want 1 then 2", got)
			}
			if got := tools(a, 4); !strings.Contains(got, `"t0"`) {
				t.Fatalf("tools/list: %s", got)
			}
			srv.restart()
			if got := count(a, 5); got != "1" {
				t.Errorf("the call after the restart counted %s, want 1 (a new session)", got)
			}
			select {
			case what := <-a.said:
				if what != `note: the warm connection to server "web" was lost (the server ended the session); its state was lost, starting it again` {
					t.Errorf("caller A was told %q", what)
				}
			default:
				t.Error("caller A was not told that its state was lost")
			}
			if got := tools(a, 6); !strings.Contains(got, `"t1"`) {
				t.Errorf("tools/list after the restart: %s, want the new server's", got)
			}
			a.tr.Close()
			// The target idle, the server restarts again: the next
			// attach is told, and listed the new server's tools, not
			// the cache of the session gone.
			for {
				rep, _, _ := Ask(ctx, d.env, Hello{Op: OpStatus})
				if rep != nil && len(rep.Status) == 1 && rep.Status[0].Callers == 0 {
					break
				}
				select {
				case <-ctx.Done():
					t.Fatal("caller A never went")
				case <-time.After(10 * time.Millisecond):
				}
			}
			srv.restart()
			nc, rep, err := Attach(ctx, d.env, Hello{Spec: spec, KeepAlive: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Note != `the warm connection to server "web" was lost (the server ended the session); its state was lost, starting it again` {
				t.Errorf("the attach after the restart noted %q", rep.Note)
			}
			c := wrapCaller(t, d, nc, "caller C")
			if _, err := c.request(ctx, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25"}); err != nil {
				t.Fatal(err)
			}
			if got := tools(c, 2); !strings.Contains(got, `"t2"`) {
				t.Errorf("tools/list after the second restart: %s, want the new server's", got)
			}
			d.stop(t)
		})
	}
}

// gjsonText is the text of a tool result's first content.
func gjsonText(res json.RawMessage) string {
	var r struct {
		Content []struct{ Text string }
	}
	if json.Unmarshal(res, &r) != nil || len(r.Content) == 0 {
		return string(res)
	}
	return r.Content[0].Text
}

// TestServeServerDeadAtStart: a server that exits at once is started
// again once for the initialize it never read, and when that one exits
// too the caller is told why, as a one-shot connection would be.
func TestServeServerDeadAtStart(t *testing.T) {
	d := startDaemon(t)
	spec := &Spec{Name: "dies", Transport: "stdio", Command: "/bin/sh", Args: []string{"-c", "echo bye >&2; exit 1"}}
	c := attachCaller(t, d, spec, "caller")
	go func() { _, _ = c.request(d.ctx, 1, "initialize", map[string]any{}) }()
	select {
	case what := <-c.said:
		if what != "lost: the server exited with status 1" && what != "lost: the server closed its stdout" {
			t.Errorf("told %q, want that the server exited", what)
		}
	case <-d.ctx.Done():
		t.Fatal("the caller of a server dead at its start was never told")
	}
	d.stop(t)
}
