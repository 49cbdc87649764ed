package daemon

import (
	"fmt"
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

// A caller announces the headers a request's own may be; the target's own
// (its Authorization, its session) are never the caller's to replace.
func TestHeldHeadersOnlyTheRequests(t *testing.T) {
	c := &caller{inflight: map[string]*forwarded{}, headers: map[string]heldHeaders{}}
	c.setHeaders(announce(7, http.Header{
		"Mcp-Method": {"tools/call"}, "mcp-name": {"echo"}, "Mcp-Param-Region": {"eu"}, "Mcp-Protocol-Version": {"2026-07-28"},
		"Authorization": {"Bearer other"}, "Mcp-Session-Id": {"s2"}, "Cookie": {"a=b"}, "Host": {"elsewhere"},
	}))
	got := c.takeHeaders(mcp.NewRequestId(int64(7)))
	want := http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"echo"}, "Mcp-Param-Region": {"eu"}, "Mcp-Protocol-Version": {"2026-07-28"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("held %v, want %v", got, want)
	}
	c.setHeaders(announce(8, http.Header{"Authorization": {"Bearer other"}}))
	if len(c.headers) != 0 {
		t.Fatalf("held %v for headers none of which is a request's", c.headers)
	}
}
