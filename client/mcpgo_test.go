package client

// Tests that pin what mcpx relies on in mcp-go (v1.2.1): each fails when an
// upgrade changes that behaviour, and says where mcpx relies on it.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	mcpclient "github.com/mark3labs/mcp-go/client"
	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/internal/config"
)

// initializeWith runs mcp-go's legacy handshake against a transport that
// answers initialize with result, through the tap, and returns the error
// and the handshake's record.
func initializeWith(t *testing.T, result string) (*handshake, error) {
	t.Helper()
	inner := &srInner{reply: func(req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
		return &mcptransport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID, Result: json.RawMessage(result)}, nil
	}}
	wrapped, base := wrapTap(inner, nil)
	mc := mcpclient.NewClient(wrapped, mcpclient.WithProtocolVersion("2025-06-18"))
	if err := mc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := &handshake{}
	base.recordHandshake(s)
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = "2025-06-18"
	_, err := mc.Initialize(context.Background(), req)
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

// TestMcpGoErrorWords: the words of mcp-go's transport errors that
// classify strips ("transport error: ").
func TestMcpGoErrorWords(t *testing.T) {
	if got := mcptransport.NewError(errors.New("x")).Error(); got != "transport error: x" {
		t.Errorf("transport error: %q", got)
	}
}

// TestMcpGoInputRequiredErrors: how mcp-go's decoders of an input_required
// result fail, which readInputRequired tells apart by type: a result that
// does not decode is a JSON type or syntax error (wrapped once), the
// message of which mcpx quotes ("cannot read"); an input request of a
// method mcp-go does not know, or whose params do not decode, is an error
// of InputRequest's own ("does not give").
func TestMcpGoInputRequiredErrors(t *testing.T) {
	for _, tc := range []struct {
		method, raw, want string
		unreadable        bool
	}{
		{"tools/call", `{"resultType":"input_required","inputRequests":"x"}`,
			"json: cannot unmarshal string into Go struct field result.inputRequests of type mcp.InputRequests", true},
		{"prompts/get", `{"resultType":"input_required","inputRequests":[]}`,
			"json: cannot unmarshal array into Go struct field resultEnvelope.inputRequests of type mcp.InputRequests", true},
		{"tools/call", `{"resultType":"input_required","inputRequests":{"a":{"method":"tasks/frobnicate"}}}`,
			`unsupported input request method "tasks/frobnicate"`, false},
		{"resources/read", `{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":1}}}}`,
			"input request elicitation/create: json: cannot unmarshal number into Go struct field ElicitationParams.message of type string", false},
	} {
		_, _, err := readInputRequired(tc.method, json.RawMessage(tc.raw))
		var ie *inputError
		if !errors.As(err, &ie) || ie.Why != tc.want || ie.Unreadable != tc.unreadable {
			t.Errorf("%s %s: %#v, want %q (unreadable %v)", tc.method, tc.raw, err, tc.want, tc.unreadable)
		}
	}
	reqs, state, err := readInputRequired("tools/call", json.RawMessage(`{"resultType":"input_required","requestState":"s","inputRequests":{"r":{"method":"roots/list"}}}`))
	if err != nil || state != "s" || len(reqs) != 1 || reqs["r"].Method != mcp.MethodListRoots {
		t.Errorf("a good result: %v %q %v", reqs, state, err)
	}
}

// TestMcpGoRequestMeta: the 2026-07-28 era's _meta and Mcp-* headers mcpx
// sends (Conn.requestMeta, Conn.standardHeaders) are the ones mcp-go's
// client sends, seen on its server/discover; and mcp-go numbers its
// requests from 1, after which mcpx's ids continue (tap.nextID).
func TestMcpGoRequestMeta(t *testing.T) {
	var sent []mcptransport.JSONRPCRequest
	inner := &srInner{reply: func(req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
		sent = append(sent, req)
		return &mcptransport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID, Result: json.RawMessage(
			`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x","version":"1"}}}`)}, nil
	}}
	o := Options{ClientVersion: "9.9", Elicit: func(context.Context, Elicitation) Answer { return Answer{} }, Roots: []Root{}}
	c := &Conn{T: &config.Target{Name: "s"}, kind: config.Stdio, opts: o, Protocol: "2026-07-28"}
	c.hooks = &serverHooks{o: o, conn: c}
	wrapped, base := wrapTap(inner, c.hooks)
	c.tap = base
	mc := mcpclient.NewClient(wrapped, mcpclient.WithProtocolVersion("2026-07-28"))
	if err := mc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = "2026-07-28"
	req.Params.ClientInfo = mcp.Implementation{Name: "mcpx", Version: "9.9"}
	req.Params.Capabilities = c.hooks.capabilities(c.kind)
	if _, err := mc.Initialize(context.Background(), req); err != nil || len(sent) != 1 || sent[0].Method != "server/discover" {
		t.Fatalf("discover: %v, %d requests", err, len(sent))
	}
	theirs, err := json.Marshal(sent[0].Params)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := json.Marshal(c.requestMeta(nil))
	if err != nil || string(ours) != string(theirs) {
		t.Errorf("_meta\n mcpx   %s\n mcp-go %s", ours, theirs)
	}
	if got, want := c.standardHeaders("server/discover", c.requestMeta(nil)), sent[0].Header; !reflect.DeepEqual(got, want) || want.Get("Mcp-Method") != "server/discover" {
		t.Errorf("headers\n mcpx   %v\n mcp-go %v", got, want)
	}
	// With a log level: mcp-go declares it on every request after SetLevel.
	//lint:ignore SA1019 what mcpx's setLevel replaces
	if err := mc.SetLevel(context.Background(), mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: "warning"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := mc.Discover(context.Background(), mcp.DiscoverRequest{}); err != nil || len(sent) != 2 {
		t.Fatalf("discover: %v, %d requests", err, len(sent))
	}
	c.logLevel = "warning"
	theirs, _ = json.Marshal(sent[1].Params)
	if ours, _ := json.Marshal(c.requestMeta(nil)); string(ours) != string(theirs) || !strings.Contains(string(ours), `"io.modelcontextprotocol/logLevel":"warning"`) {
		t.Errorf("_meta with a level\n mcpx   %s\n mcp-go %s", ours, theirs)
	}
	if id := sent[0].ID.String(); id != "int64:1" {
		t.Errorf("mcp-go's first id %s", id)
	}
	if id := base.nextID().String(); id != "int64:3" {
		t.Errorf("mcpx's next id %s", id)
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
