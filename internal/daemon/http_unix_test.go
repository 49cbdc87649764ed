//go:build unix

package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/client/transport"
)

// serveInProcess runs the daemon in-process for a test (startDaemon), and
// says where its log is.
func serveInProcess(t *testing.T) (Env, string) {
	t.Helper()
	d := startDaemon(t)
	return d.env, LogPath(d.env.Getenv)
}

// legacyHTTP is a streamable HTTP server of the legacy era that refuses
// server/discover, with an HTTP error that is not JSON-RPC or (rpc) with
// "method not found"; it records the headers of each POST, by method.
type legacyHTTP struct {
	rpc  bool
	mu   sync.Mutex
	seen []string // "METHOD Mcp-Protocol-Version=... Mcp-Method=... Mcp-Session-Id=..."
}

func (l *legacyHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	m := readRPC(r)
	get := func(k string) string {
		if v := r.Header.Get(k); v != "" {
			return v
		}
		return "-"
	}
	l.mu.Lock()
	if m.Method != "ping" { // the daemon's check of an idle session at attach
		l.seen = append(l.seen, fmt.Sprintf("%s Mcp-Protocol-Version=%s Mcp-Method=%s Mcp-Session-Id=%s", m.Method,
			get("Mcp-Protocol-Version"), get("Mcp-Method"), get("Mcp-Session-Id")))
	}
	l.mu.Unlock()
	result := func(v string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, v)
	}
	switch m.Method {
	case "server/discover":
		if l.rpc {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID)
			return
		}
		http.Error(w, "no such method", http.StatusBadRequest)
	case "initialize":
		w.Header().Set("Mcp-Session-Id", "s1")
		result(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"legacy","version":"1"}}`)
	case "tools/list":
		result(`{"tools":[]}`)
	case "ping":
		result(`{}`)
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

func (l *legacyHTTP) log() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}

// An HTTP target in the 2026-07-28 era whose server knows only the legacy
// handshake: the failed server/discover (an HTTP error) fails that request
// only, as a one-shot probe fails, and the caller's initialize makes the
// target; each request goes with the headers its caller announced
// (MethodHeaders) under the target's own (the session, the negotiated
// version), which the daemon's log never shows.
func TestServeHTTPHeadersAndFailedDiscover(t *testing.T) {
	serveLegacyHTTP(t, false, []string{
		"server/discover Mcp-Protocol-Version=2026-07-28 Mcp-Method=server/discover Mcp-Session-Id=-",
		"initialize Mcp-Protocol-Version=- Mcp-Method=- Mcp-Session-Id=-",
		"notifications/initialized Mcp-Protocol-Version=2025-11-25 Mcp-Method=- Mcp-Session-Id=s1",
		"tools/list Mcp-Protocol-Version=2025-11-25 Mcp-Method=tools/list Mcp-Session-Id=s1",
		// the second caller's: its HTTP error was no answer to replay;
		// at the session's version
		"server/discover Mcp-Protocol-Version=2025-11-25 Mcp-Method=server/discover Mcp-Session-Id=s1",
	})
}

// A server/discover answered with an error: once the legacy handshake has
// succeeded, a later caller's is answered by the daemon with that error.
func TestServeHTTPDiscoverRefusedReplayed(t *testing.T) {
	serveLegacyHTTP(t, true, []string{
		"server/discover Mcp-Protocol-Version=2026-07-28 Mcp-Method=server/discover Mcp-Session-Id=-",
		"initialize Mcp-Protocol-Version=- Mcp-Method=- Mcp-Session-Id=-",
		"notifications/initialized Mcp-Protocol-Version=2025-11-25 Mcp-Method=- Mcp-Session-Id=s1",
		"tools/list Mcp-Protocol-Version=2025-11-25 Mcp-Method=tools/list Mcp-Session-Id=s1",
	})
}

// serveLegacyHTTP runs two callers, one after the other, through the
// handshake of the 2026-07-28 era (server/discover, refused; initialize)
// and a tools/list on a legacyHTTP server, and checks what the server got
// (the second tools/list comes from the daemon's cache).
func serveLegacyHTTP(t *testing.T, rpc bool, want []string) {
	t.Helper()
	srv := &legacyHTTP{rpc: rpc}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close) // after the daemon's stop (cleanups run last first)
	env, logPath := serveInProcess(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	spec := &Spec{Name: "web", Transport: "http", URL: hs.URL, Identity: []string{"protocol 2026-07-28"}}
	for round := 0; round < 2; round++ {
		nc, _, err := Attach(ctx, env, Hello{Spec: spec, KeepAlive: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		tr := transport.NewStdio(nc, nc, transport.StdioOptions{MessageCeiling: 1 << 20})
		failed := make(chan string, 4)
		tr.SetNotificationHandler(func(n mcp.JSONRPCNotification) {
			if n.Method == MethodFailed {
				msg, _ := n.Params.AdditionalFields["message"].(string)
				failed <- msg
			} else if n.Method == MethodOneShot {
				failed <- "one-shot: " + fmt.Sprint(n.Params.AdditionalFields["why"])
			}
		})
		_ = tr.Start(ctx)
		id := int64(10 * (round + 1))
		send := func(method string, header http.Header) (*mcptransport.JSONRPCResponse, string) {
			t.Helper()
			id++
			if header != nil {
				n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: MethodHeaders,
					Params: mcp.NotificationParams{AdditionalFields: map[string]any{"id": id, "headers": header}}}}
				if err := tr.SendNotification(ctx, n); err != nil {
					t.Fatal(err)
				}
			}
			rctx, rcancel := context.WithCancel(ctx)
			defer rcancel()
			type answer struct {
				resp *mcptransport.JSONRPCResponse
				err  error
			}
			done := make(chan answer, 1)
			go func() {
				resp, err := tr.SendRequest(rctx, mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Method: method})
				done <- answer{resp, err}
			}()
			select {
			case a := <-done:
				if a.err != nil {
					t.Fatalf("%s: %v", method, a.err)
				}
				return a.resp, ""
			case msg := <-failed:
				return nil, msg
			}
		}
		resp, why := send("server/discover", http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"server/discover"}})
		switch {
		case rpc && (resp == nil || resp.Error == nil || resp.Error.Code != mcp.METHOD_NOT_FOUND):
			t.Fatalf("round %d: server/discover: %+v %q, want method not found", round, resp, why)
		case !rpc && (!strings.Contains(why, "400") || strings.HasPrefix(why, "one-shot")):
			t.Fatalf("round %d: server/discover: %q, want the request failed with the HTTP status", round, why)
		}
		if resp, why := send("initialize", nil); resp == nil || resp.Error != nil {
			t.Fatalf("round %d: initialize: %+v %q", round, resp, why)
		}
		if round == 0 {
			n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: string(mcp.MethodNotificationInitialized)}}
			if err := tr.SendNotification(ctx, n); err != nil {
				t.Fatal(err)
			}
		}
		if resp, why := send("tools/list", http.Header{"Mcp-Protocol-Version": {"2025-11-25"}, "Mcp-Method": {"tools/list"}}); resp == nil || resp.Error != nil {
			t.Fatalf("round %d: tools/list: %+v %q", round, resp, why)
		}
		tr.Close()
		nc.Close()
	}
	if got := srv.log(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the server got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	b, _ := os.ReadFile(logPath)
	if strings.Contains(string(b), "Mcp-") {
		t.Fatalf("the daemon's log shows headers:\n%s", b)
	}
}

// rpc is the id and method of a JSON-RPC message a test server reads.
type rpc struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// readRPC reads the id and method of the message in r's body.
func readRPC(r *http.Request) rpc {
	body, _ := io.ReadAll(r.Body)
	var m rpc
	_ = json.Unmarshal(body, &m)
	return m
}

// rootsAtInit is a streamable HTTP server of the legacy era that, like the
// TypeScript SDK's, asks for the roots (roots/list) on the standalone GET
// stream as soon as it is initialized, and drops the request when no such
// stream is open yet.
type rootsAtInit struct {
	mu     sync.Mutex
	seen   []string
	stream chan string // the open GET stream's events
	done   chan struct{}
	once   sync.Once
}

func (s *rootsAtInit) note(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, line)
	if strings.HasPrefix(line, "answer") || strings.HasPrefix(line, "dropped") {
		s.once.Do(func() { close(s.done) })
	}
}

func (s *rootsAtInit) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		s.mu.Lock()
		s.stream = make(chan string, 1)
		ch := s.stream
		s.mu.Unlock()
		// Noted before the answer goes out: the client may send what
		// follows (notifications/initialized) as soon as it has it.
		s.note("GET")
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for {
			select {
			case ev := <-ch:
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", ev)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	}
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusAccepted) // the session's DELETE at the end
		return
	}
	body, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(body, &m)
	switch m.Method {
	case "initialize":
		s.note("initialize")
		w.Header().Set("Mcp-Session-Id", "s1")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"roots","version":"1"}}}`, m.ID)
	case "notifications/initialized":
		s.note("notifications/initialized")
		s.mu.Lock()
		ch := s.stream
		s.mu.Unlock()
		if ch == nil {
			s.note("dropped roots/list: no GET stream")
		} else {
			ch <- `{"jsonrpc":"2.0","id":"r1","method":"roots/list"}`
		}
		w.WriteHeader(http.StatusAccepted)
	case "":
		s.note("answer " + string(m.Result))
		w.WriteHeader(http.StatusAccepted)
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

// A server that asks for the roots on the standalone GET stream as soon as
// it is initialized gets them from a warm connection as from a one-shot
// one: the daemon opens the stream, and waits for its answer, before it
// forwards notifications/initialized.
func TestServeHTTPRootsAtInitialized(t *testing.T) {
	srv := &rootsAtInit{done: make(chan struct{})}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close) // after the daemon's stop (cleanups run last first)
	env, _ := serveInProcess(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	spec := &Spec{Name: "web", Transport: "http", URL: hs.URL}
	nc, _, err := Attach(ctx, env, Hello{Spec: spec, KeepAlive: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	tr := transport.NewStdio(nc, nc, transport.StdioOptions{MessageCeiling: 1 << 20})
	tr.SetRequestHandler(func(_ context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
		if req.Method != string(mcp.MethodListRoots) {
			return mcptransport.NewJSONRPCErrorResponse(req.ID, mcp.METHOD_NOT_FOUND, req.Method, nil), nil
		}
		return &mcptransport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID, Result: json.RawMessage(`{"roots":[{"uri":"file:///proj"}]}`)}, nil
	})
	_ = tr.Start(ctx)
	defer tr.Close()
	resp, err := tr.SendRequest(ctx, mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(1)), Method: "initialize"})
	if err != nil || resp.Error != nil {
		t.Fatalf("initialize: %+v %v", resp, err)
	}
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: string(mcp.MethodNotificationInitialized)}}
	if err := tr.SendNotification(ctx, n); err != nil {
		t.Fatal(err)
	}
	select {
	case <-srv.done:
	case <-ctx.Done():
		t.Fatal("the server never saw notifications/initialized")
	}
	want := []string{"initialize", "GET", "notifications/initialized", `answer {"roots":[{"uri":"file:///proj"}]}`}
	srv.mu.Lock()
	got := append([]string(nil), srv.seen...)
	srv.mu.Unlock()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the server got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
