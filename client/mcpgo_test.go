package client

// Tests that pin what mcpx relies on in mcp-go (v1.2.1): each fails when an
// upgrade changes that behaviour, and says where mcpx relies on it.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	mcpclient "github.com/mark3labs/mcp-go/client"
	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// initializeWith runs mcp-go's legacy handshake against a transport that
// answers initialize with result, through the tap, and returns the error
// and the call's sink.
func initializeWith(t *testing.T, result string) (*sink, error) {
	t.Helper()
	inner := &srInner{reply: func(req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
		return &mcptransport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID, Result: json.RawMessage(result)}, nil
	}}
	wrapped, _ := wrapTap(inner, nil)
	mc := mcpclient.NewClient(wrapped, mcpclient.WithProtocolVersion("2025-06-18"))
	if err := mc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := &sink{}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = "2025-06-18"
	_, err := mc.Initialize(withSink(context.Background(), s), req)
	return s, err
}

// TestMcpGoDecodesStrictly: mcp-go decodes the initialize result with
// json.Unmarshal into mcp.InitializeResult, and one odd capability value
// fails it whole. mcpx relies on it to recognise that refusal without
// mcp-go's words (refusedResult) and to read such a result leniently
// (Conn.lenientInitialize); the message of a refused result quotes
// mcp-go's error, "failed to unmarshal response: ..." (failInitialize).
func TestMcpGoDecodesStrictly(t *testing.T) {
	s, err := initializeWith(t, `{"protocolVersion":"2025-06-18","capabilities":{"tools":true},"serverInfo":{"name":"x","version":"1"}}`)
	if err == nil || !strings.HasPrefix(err.Error(), "failed to unmarshal response: ") {
		t.Errorf("odd capabilities: %v", err)
	}
	if !refusedResult[mcp.InitializeResult](s, "initialize") {
		t.Error("refusedResult: false for an odd initialize result")
	}
	if refusedResult[mcp.InitializeResult](s, "tools/list") {
		t.Error("refusedResult: true for another method")
	}

	s, err = initializeWith(t, `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"x","version":"1"}}`)
	if err != nil || refusedResult[mcp.InitializeResult](s, "initialize") {
		t.Errorf("a good result: %v, refused %v", err, refusedResult[mcp.InitializeResult](s, "initialize"))
	}

	// A version mcp-go does not know is its typed error, which
	// failInitialize reads.
	_, err = initializeWith(t, `{"protocolVersion":"1999-01-01","capabilities":{},"serverInfo":{"name":"x","version":"1"}}`)
	var bad mcp.UnsupportedProtocolVersionError
	if !errors.As(err, &bad) || bad.Version != "1999-01-01" {
		t.Errorf("unknown version: %T %v", err, err)
	}
}

// TestMcpGoStreamableHTTPErrors: what mcp-go's streamable HTTP transport
// returns when a POST's event stream ends without the answer (the words
// "unexpected nil response", which classify turns into "the server ended
// its event stream without answering"), and when the initialize POST gets
// a 4xx (ErrLegacySSEServer, which classify and the fallback to SSE read).
func TestMcpGoStreamableHTTPErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if req.Method == "initialize" {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	tr, err := mcptransport.NewStreamableHTTP(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	_, err = tr.SendRequest(context.Background(), mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(1)), Method: "tools/list"})
	if err == nil || err.Error() != "unexpected nil response" {
		t.Errorf("an event stream without the answer: %v", err)
	}
	_, err = tr.SendRequest(context.Background(), mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(2)), Method: "initialize"})
	if !errors.Is(err, mcptransport.ErrLegacySSEServer) {
		t.Errorf("initialize answered 405: %v", err)
	}
}

// TestMcpGoErrorWords: the words of mcp-go's errors that classify and
// inputError read or strip: a transport error's prefix, the multi
// round-trip errors, and an input request of a method mcp-go does not
// know.
func TestMcpGoErrorWords(t *testing.T) {
	if got := (&mcptransport.Error{Err: errors.New("x")}).Error(); got != "transport error: x" {
		t.Errorf("transport error: %q", got)
	}
	if got := mcpclient.ErrMaxInputRoundTripsExceeded.Error(); !strings.HasPrefix(got, "multi round-trip: ") {
		t.Errorf("too many rounds: %q", got)
	}
	var reqs mcp.InputRequests
	err := json.Unmarshal([]byte(`{"a":{"method":"x/unknown","params":{}}}`), &reqs)
	if err == nil || !strings.Contains(err.Error(), "input request") {
		t.Errorf("an unknown input request: %v", err)
	}
}

// TestMcpGoArgumentsOmitted: mcp-go leaves "arguments" out of a
// tools/call or prompts/get without arguments (omitempty), which servers
// that validate params refuse; the tap's withArguments adds {}.
func TestMcpGoArgumentsOmitted(t *testing.T) {
	for _, p := range []any{mcp.CallToolParams{Name: "t"}, mcp.GetPromptParams{Name: "p"}} {
		b, err := json.Marshal(p)
		if err != nil || strings.Contains(string(b), `"arguments"`) {
			t.Errorf("%T: %s %v", p, b, err)
		}
		b, err = json.Marshal(withArguments(p))
		if err != nil || !strings.Contains(string(b), `"arguments":{}`) {
			t.Errorf("withArguments(%T): %s %v", p, b, err)
		}
	}
}
