package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestHTTPServerRequestFlood: a streamable HTTP server that answers a
// request with an event stream of thousands of its own requests gets them
// answered a bounded number at a time (mcp-go POSTs each answer from a
// goroutine of its own, on a connection of its own when the idle ones are
// taken): the stream is read no further while answers are owed, and the
// answer it ends with still arrives.
func TestHTTPServerRequestFlood(t *testing.T) {
	const flood = 1000
	var mu sync.Mutex
	inflight, most, answered := 0, 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &msg)
		switch {
		case msg.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"flood","version":"1"}}}`, msg.ID)
		case msg.Method == "tools/list":
			w.Header().Set("Content-Type", "text/event-stream")
			for i := 0; i < flood; i++ {
				if _, err := fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"p%d\",\"method\":\"ping\"}\n\n", i); err != nil {
					return
				}
			}
			w.(http.Flusher).Flush()
			// The result once every ping is answered (mcp-go gives up the
			// answers still owed when the result comes).
			for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
				mu.Lock()
				done := answered == flood
				mu.Unlock()
				if done {
					break
				}
			}
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"tools\":[]}}\n\n", msg.ID)
		case msg.Method == "" && len(msg.ID) > 0: // an answer to a ping
			mu.Lock()
			inflight++
			most = max(most, inflight)
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
			mu.Lock()
			inflight--
			answered++
			mu.Unlock()
			w.WriteHeader(http.StatusAccepted)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer srv.Close()

	rt := NewHTTP(HTTPOptions{URL: srv.URL, MessageCeiling: 1 << 20, Answers: true})
	tr, err := mcptransport.NewStreamableHTTP(srv.URL, mcptransport.WithHTTPBasicClient(&http.Client{Transport: rt}),
		mcptransport.WithHTTPLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	tr.SetRequestHandler(func(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
		return mcptransport.NewJSONRPCResultResponse(req.ID, json.RawMessage(`{}`)), nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := tr.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	send := func(id int64, method string) error {
		resp, err := tr.SendRequest(ctx, mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Method: method,
			Params: map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}})
		if err == nil && resp.Error != nil {
			err = fmt.Errorf("%s: %s", method, resp.Error.Message)
		}
		return err
	}
	if err := send(1, "initialize"); err != nil {
		t.Fatal(err)
	}
	if err := send(2, "tools/list"); err != nil {
		t.Fatalf("tools/list after the flood: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if answered != flood {
		t.Errorf("%d of the server's %d requests answered", answered, flood)
	}
	// One read of the stream (4 KiB) carries at most about 80 more pings.
	if most > maxOwedAnswers+100 {
		t.Errorf("%d answers to the server's requests sent at once, want at most about %d", most, maxOwedAnswers)
	}
}

// TestOwedAnswers: an answer pays the request of the same id (as mcp-go
// reads ids); a request never answered stops counting after owedFor, so it
// cannot hold a long-lived stream.
func TestOwedAnswers(t *testing.T) {
	for _, c := range []struct{ event, answer string }{
		{`{"jsonrpc":"2.0","id":"a\u0062","method":"ping"}`, `{"jsonrpc":"2.0","id":"ab","result":{}}`},
		{`{"jsonrpc":"2.0","id":-7,"method":"roots/list"}`, `{"jsonrpc":"2.0","id":-7,"error":{"code":1,"message":"x"}}`},
	} {
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/mcp", strings.NewReader(c.answer))
		if id := requestID([]byte(c.event)); id == "" || id != answerID(req) {
			t.Errorf("%s: id %q, answered by %s: %q", c.event, id, c.answer, answerID(req))
		}
	}
	for _, event := range []string{
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/message"}`,
		`{"jsonrpc":"2.0","id":3,"result":{"method":"x"}}`,
	} {
		if id := requestID([]byte(event)); id != "" {
			t.Errorf("%s: counted as a request (%q)", event, id)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`))
	if id := answerID(req); id != "" {
		t.Errorf("a request POSTed counted as an answer (%q)", id)
	}

	o := &owedAnswers{changed: make(chan struct{})}
	for i := range maxOwedAnswers {
		o.add(fmt.Sprintf("n:%d", i))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := o.wait(ctx); err == nil {
		t.Fatal("no wait with maxOwedAnswers owed")
	}
	o.paid("n:0")
	if err := o.wait(context.Background()); err != nil {
		t.Fatalf("after an answer: %v", err)
	}
	o.add("n:0")
	o.mu.Lock()
	for id := range o.m {
		o.m[id] = time.Now().Add(-owedFor - time.Second)
	}
	o.mu.Unlock()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel2()
	if err := o.wait(ctx2); err != nil {
		t.Fatalf("requests owed longer than owedFor still hold the stream: %v", err)
	}
}
