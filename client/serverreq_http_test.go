package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/internal/config"
)

// TestHTTPElicitationFieldOrder: over streamable HTTP, an elicitation's
// schema reaches Options.Elicit as the server sent it (fields z, a, m in
// that order), although mcp-go decodes the request into maps; mcpx's answer
// reaches the server.
func TestHTTPElicitationFieldOrder(t *testing.T) {
	const schema = `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"},"m":{"type":"boolean"}}}`
	answered := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		_ = json.Unmarshal(body, &msg)
		switch {
		case msg.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"order","version":"1"}}}`, msg.ID)
		case msg.Method == "tools/call":
			w.Header().Set("Content-Type", "text/event-stream")
			// The request split over two data lines, as SSE allows.
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"elicitation/create\",\n"+
				"data: \"params\":{\"message\":\"Order?\",\"requestedSchema\":%s}}\n\n", schema)
			w.(http.Flusher).Flush()
			var got string
			select {
			case got = <-answered:
			case <-time.After(5 * time.Second):
			}
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":%q}]}}\n\n", msg.ID, got)
		case msg.Method == "" && string(msg.ID) == "99":
			answered <- string(msg.Result)
			w.WriteHeader(http.StatusAccepted)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer srv.Close()

	var seen json.RawMessage
	o := Options{MessageCeiling: 1 << 20, Elicit: func(_ context.Context, e Elicitation) Answer {
		seen = e.Schema
		return Answer{Action: "accept", Content: json.RawMessage(`{"z":"x","a":1,"m":true}`)}
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Connect(ctx, &config.Target{Name: "order", Transport: config.HTTP, URL: srv.URL + "/mcp", Timeout: 10 * time.Second}, o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	raw, err := c.CallTool(ctx, "ask", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(seen) != schema {
		t.Errorf("schema\n got %s\nwant %s", seen, schema)
	}
	if want := `{\"action\":\"accept\",\"content\":{\"z\":\"x\",\"a\":1,\"m\":true}}`; !strings.Contains(string(raw), want) {
		t.Errorf("result %s, want the answer %s", raw, want)
	}
	if r := c.rt.TakeElicitation(mcp.NewRequestId(int64(99))); r != nil {
		t.Errorf("raw request left: %s", r)
	}
}
