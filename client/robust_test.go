package client

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/text"
)

func testConn(secrets ...string) *Conn {
	return &Conn{T: &config.Target{Name: "srv"}, limit: &transport.Limit{}, lost: newLost(), secrets: secretsOf(secrets...)}
}

// TestServerErrorBounded: a server's error message is shown as one line of
// at most text.MaxShown characters, secrets masked before it is cut; --json
// keeps it exact up to 64 KiB, and data up to 64 KiB.
func TestServerErrorBounded(t *testing.T) {
	const pw = "hunter2-hunter2"
	c := testConn(pw)
	huge := strings.Repeat("é", text.MaxShown-5) + pw + strings.Repeat("E", 10<<20)
	err := c.classifyCall(context.Background(), "tools/call", errorReply(mcp.JSONRPCErrorDetails{Code: -32000, Message: huge, Data: strings.Repeat("d", 70<<10)}), false)
	se, ok := AsServerError(err)
	if !ok {
		t.Fatalf("%T %v", err, err)
	}
	msg := se.Error()
	if len(msg) > 2*text.MaxShown+100 || strings.ContainsAny(msg, "\n\r") || strings.Contains(msg, "hunter") {
		t.Errorf("message of %d bytes: %.700q", len(msg), msg)
	}
	if !strings.HasSuffix(msg, "é***EE... (code -32000)") {
		t.Errorf("message ends %q", msg[len(msg)-40:])
	}
	if n := len(se.RPC.Message); n > rpcMessageLimit+3 || !strings.HasPrefix(huge, strings.TrimSuffix(se.RPC.Message, "...")) {
		t.Errorf("rpc.message of %d bytes", n)
	}
	if se.RPC.Data != nil {
		t.Errorf("rpc.data of %d bytes kept", len(se.RPC.Data))
	}

	err = c.classifyCall(context.Background(), "tools/call", errorReply(mcp.JSONRPCErrorDetails{Code: -32601, Message: "no such method\nmcpx: a forged line", Data: map[string]any{"a": 1}}), false)
	ue, ok := fail.As(err, fail.Unsupported)
	if !ok || ue.Error() != `server "srv" does not support tools/call: no such method\nmcpx: a forged line` || string(ue.RPC.Data) != `{"a":1}` ||
		ue.RPC.Message != "no such method\nmcpx: a forged line" {
		t.Errorf("%T %v", err, err)
	}
}

// TestConnectErrorOneLine: a transport error quoting what the server sent
// (an HTTP error body) is one clipped line, its line breaks escaped.
func TestConnectErrorOneLine(t *testing.T) {
	c := testConn()
	err := c.classify(context.Background(), "tools/call", errors.New("request failed with status 500: boom\nmcpx: forged\n"+strings.Repeat("E", 1<<20)))
	if msg := err.Error(); msg != `server "srv": request failed with status 500: boom\nmcpx: forged\n`+strings.Repeat("E", text.MaxShown-len(`request failed with status 500: boom\nmcpx: forged\n`))+`... (during tools/call)` {
		t.Errorf("%q", msg)
	}
	err = c.classify(context.Background(), "tools/call", errors.New("request failed with status 500: "+strings.Repeat("E", 1<<20)))
	if msg := err.Error(); len(msg) > text.MaxShown+100 || !strings.HasSuffix(msg, "EEE... (during tools/call)") {
		t.Errorf("%d bytes: %.100q", len(msg), msg)
	}
}

// TestShownCutSecret: a message quotes a server's text from a window at
// its start; a long secret (a JWT) that the window cuts is masked for the
// part in the window too, even when masking the secrets before it shrinks
// the window below what the message shows (the framer's clip is tested
// alike in the transport package).
func TestShownCutSecret(t *testing.T) {
	jwt := "eyJ" + strings.Repeat("0123456789", 40)
	c := testConn(jwt)
	msg := strings.Repeat(jwt, 200) + " tail"
	if got := c.shown(msg); strings.Contains(got, "eyJ") || strings.Contains(got, "0123") {
		t.Errorf("shown ends %q", got[max(0, len(got)-40):])
	}
}

// TestStdioFramingClassified: what breaks the framing or the ceiling of a
// stdio server fails what is in flight, and classify says so.
func TestStdioFramingClassified(t *testing.T) {
	c := &Conn{T: &config.Target{Name: "s"}, lost: newLost()}
	for _, tc := range []struct{ name, line, want string }{
		{"batch", `[{"jsonrpc":"2.0","id":1,"result":{}}]`,
			`the server sent a JSON-RPC batch, which MCP does not allow since 2025-06-18: [{"jsonrpc":"2.0","id":1,"result":{}}] (during tools/list); the connection is closed`},
		{"wrong id", `{"jsonrpc":"2.0","id":987654,"result":{}}`,
			`the server answered request id 987654, which mcpx never sent (or which was already answered) (during tools/list); the connection is closed`},
		{"ceiling", `{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("x", 2<<20) + `"}`,
			`the server sent a JSON-RPC message too large to accept: over the message ceiling of 1 MiB (1048576 bytes)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdoutR, stdoutW := io.Pipe()
			stdinR, stdinW := io.Pipe()
			lf := &transport.Limit{}
			tr := transport.NewStdio(stdoutR, stdinW, transport.StdioOptions{MessageCeiling: 1 << 20, Limit: lf})
			t.Cleanup(func() {
				_ = tr.Close()
				_ = stdoutW.Close()
				_ = stdinR.Close()
			})
			wrapped, _ := wrapTap(tr, nil)
			if _, ok := wrapped.(*tapBidi); !ok {
				t.Errorf("wrapTap chose %T", wrapped)
			}
			if err := wrapped.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := wrapped.SendRequest(context.Background(), mcptransport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(1)), Method: "tools/list"})
				done <- err
			}()
			if _, err := bufio.NewReader(stdinR).ReadString('\n'); err != nil {
				t.Fatal(err)
			}
			go func() { _, _ = io.WriteString(stdoutW, tc.line+"\n") }() // the ceiling is not read to the end
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("no reply")
			}
			if !errors.Is(err, mcptransport.ErrTransportClosed) || !isTransportFailure(err) {
				t.Fatalf("err %v", err)
			}
			c.limit = lf
			if got := c.classify(context.Background(), "tools/list", mcptransport.NewError(err)); got.Error() != tc.want && got.Error() != `server "s": `+tc.want {
				t.Errorf("classified as %T %q", got, got)
			}
		})
	}
}
