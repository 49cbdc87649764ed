// Command gosdk-fixture is an MCP server written with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk), for mcpx's interop tests. It is a
// module of its own so that mcpx does not depend on the SDK; the tests build
// it with `go build` (see test/interop_servers_test.go).
//
//	gosdk-fixture stdio   serve one session on stdin/stdout
//	gosdk-fixture http    serve on a free loopback port, printing
//	                      "gosdk-fixture listening on port N" when ready:
//	                      /mcp  the SDK's streamable HTTP handler (its
//	                            default: stateful, event-stream answers)
//	                      /sse  the SDK's legacy SSE handler (it answers a
//	                            POST without a session id with 400)
//	                      /stateless  the streamable HTTP handler with
//	                            Stateless set, as the SDK requires to serve
//	                            the 2026-07-28 era over HTTP (a stateful
//	                            handler answers that era's requests -32022)
//
// The server has what a small real server has: a typed tool, a tool with an
// enum its input schema declares (the SDK validates arguments against it), a
// resource, a resource template whose handler answers "not found" the SDK's
// way (-32602 with data.uri, since v1.7) for ids it does not have, and a
// prompt with a required and an optional argument.
package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gosdk-fixture stdio|http")
		os.Exit(2)
	}
	s := newServer()
	switch os.Args[1] {
	case "stdio":
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "gosdk-fixture:", err)
			os.Exit(1)
		}
	case "http":
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, "gosdk-fixture:", err)
			os.Exit(1)
		}
		get := func(*http.Request) *mcp.Server { return s }
		mux := http.NewServeMux()
		mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(get, nil))
		mux.Handle("/sse", mcp.NewSSEHandler(get, nil))
		mux.Handle("/stateless", mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true}))
		fmt.Printf("gosdk-fixture listening on port %d\n", l.Addr().(*net.TCPAddr).Port)
		if err := http.Serve(l, mux); err != nil {
			fmt.Fprintln(os.Stderr, "gosdk-fixture:", err)
			os.Exit(1)
		}
	default:
		fmt.Fprintf(os.Stderr, "gosdk-fixture: unknown mode %q (stdio or http)\n", os.Args[1])
		os.Exit(2)
	}
}

type greetIn struct {
	Name  string `json:"name" jsonschema:"who to greet"`
	Times int    `json:"times,omitempty" jsonschema:"how many times (default 1)"`
}

type greetOut struct {
	Greeting string `json:"greeting"`
}

// items are what the template gosdk://items/{id} has.
var items = map[string]string{"1": "the first item\n", "2": "the second item\n"}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "gosdk-fixture", Version: "1.0.0"}, nil)

	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "Greet someone by name"},
		func(_ context.Context, _ *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, greetOut, error) {
			n := max(in.Times, 1)
			g := strings.TrimSpace(strings.Repeat("Hello, "+in.Name+"! ", n))
			return nil, greetOut{Greeting: g}, nil
		})

	modeSchema := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"mode": {Type: "string", Enum: []any{"fast", "safe"}, Description: "how to run"},
		},
		Required: []string{"mode"},
	}
	mcp.AddTool(s, &mcp.Tool{Name: "set_mode", Description: "Switch the run mode", InputSchema: modeSchema},
		func(_ context.Context, _ *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("mode is now %v", in["mode"])}}}, nil, nil
		})

	s.AddResource(&mcp.Resource{URI: "gosdk://docs/readme", Name: "readme", Description: "About this server", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
				{URI: req.Params.URI, MIMEType: "text/plain", Text: "A server written with the Go SDK.\n"},
			}}, nil
		})

	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "gosdk://items/{id}", Name: "item", Description: "One item by id", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			uri := req.Params.URI
			text, ok := items[strings.TrimPrefix(uri, "gosdk://items/")]
			if !ok {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}}}, nil
		})

	s.AddPrompt(&mcp.Prompt{Name: "review", Description: "Ask for a code review", Arguments: []*mcp.PromptArgument{
		{Name: "code", Description: "the code to review", Required: true},
		{Name: "focus", Description: "what to look at"},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		text := "Please review this code:\n" + req.Params.Arguments["code"]
		if f := req.Params.Arguments["focus"]; f != "" {
			text += "\nFocus on " + f + "."
		}
		return &mcp.GetPromptResult{Description: "A code review", Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: text}},
		}}, nil
	})
	return s
}
