package client

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"

	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/secret"
)

// Test scaffolding that several of the package's tests share.

// scriptedConn is a Conn (initialized, at protocol) named "s" over tr, the
// stdio transport to a scripted server whose limits lf records, made as
// connect makes one: the tap with the hooks, mcp-go's client with the
// hooks' options and notification handler.
func scriptedConn(t *testing.T, o Options, protocol string, tr *transport.Stdio, lf *transport.Limit) *Conn {
	t.Helper()
	c := &Conn{T: &config.Target{Name: "s", Timeout: 5 * time.Second}, limit: lf, phase: "start", lost: newLost(),
		kind: config.Stdio, Protocol: protocol, debug: o.Debug, secrets: o.Secrets, Caps: Capabilities{Tools: true, Resources: true, Prompts: true}}
	c.hooks = &serverHooks{o: o, conn: c}
	wrapped, base := wrapTap(tr, c.hooks)
	c.tap = base
	c.mc = mcpclient.NewClient(wrapped, mcpclient.WithSession())
	c.mc.OnNotification(c.hooks.notification)
	if err := c.mc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c
}

// secretsOf is a set of the given secrets.
func secretsOf(values ...string) *secret.Set {
	s := &secret.Set{}
	s.Add(values...)
	return s
}

// srCall is what a call of the tool "t" returned.
type srCall struct {
	raw json.RawMessage
	err error
}

// srCallTool calls the tool "t" with args ("": none) in the background.
func srCallTool(c *Conn, ctx context.Context, args string) <-chan srCall {
	ch := make(chan srCall, 1)
	go func() {
		raw, err := c.CallTool(ctx, "t", json.RawMessage(args))
		ch <- srCall{raw, err}
	}()
	return ch
}

// srWait is what the call of ch returned.
func srWait(t *testing.T, ch <-chan srCall) srCall {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(3 * time.Second):
		t.Fatal("the call did not return")
		return srCall{}
	}
}
