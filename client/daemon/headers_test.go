package daemon

import (
	"net/http"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// announce is a MethodHeaders notification's params for request id.
func announce(id int, h http.Header) map[string]any {
	return map[string]any{"id": float64(id), "headers": h}
}

// The headers of requests a caller abandoned before sending them (never
// received) do not pile up: a cancellation forgets them, and past maxHeld
// the oldest go, never the newest, which belong to the request that
// follows.
func TestHeldHeadersBounded(t *testing.T) {
	c := &caller{inflight: map[string]*forwarded{}, headers: map[string]heldHeaders{}}
	h := http.Header{"Mcp-Method": {"tools/call"}}
	c.setHeaders(announce(1, h))
	c.notification(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: string(mcp.MethodNotificationCancelled), Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": float64(1)}}}})
	if len(c.headers) != 0 {
		t.Fatalf("after the cancellation of request 1, held: %v", c.headers)
	}
	for id := 100; id < 100+maxHeld; id++ {
		c.setHeaders(announce(id, h))
	}
	c.setHeaders(announce(5000, http.Header{"Mcp-Method": {"tools/list"}}))
	if len(c.headers) != maxHeld {
		t.Fatalf("held %d, want %d", len(c.headers), maxHeld)
	}
	if got := c.takeHeaders(mcp.NewRequestId(int64(5000))); got.Get("Mcp-Method") != "tools/list" {
		t.Fatalf("the newest request's headers: %v", got)
	}
	if got := c.takeHeaders(mcp.NewRequestId(int64(100))); got != nil {
		t.Fatalf("the oldest request's headers were kept: %v", got)
	}
	if got := c.takeHeaders(mcp.NewRequestId(int64(101))); got.Get("Mcp-Method") != "tools/call" {
		t.Fatalf("request 101's headers: %v", got)
	}
}
