//go:build unix

package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/client/transport"
)

// dualHTTP is a server of both eras that answers server/discover after
// discover and initialize after init.
type dualHTTP struct{ discover, init time.Duration }

func (d *dualHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	m := readRPC(r)
	result := func(v string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, v)
	}
	switch m.Method {
	case "server/discover":
		time.Sleep(d.discover)
		result(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"dual","version":"1"}}`)
	case "initialize":
		time.Sleep(d.init)
		w.Header().Set("Mcp-Session-Id", "s1")
		result(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"dual","version":"1"}}`)
	case "ping":
		result(`{}`)
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

// A server/discover slower than its caller's probe (which then falls
// back to initialize) is answered while or after the legacy handshake
// is: the target stays in the era its first caller settled on, and a
// later caller's probe is refused, so that it initializes too, rather
// than speaking the 2026-07-28 era over the legacy session.
func TestServeHTTPSlowDiscoverStaysLegacy(t *testing.T) {
	for _, tc := range []struct {
		name            string
		discover, init  time.Duration
		afterFirstCalls time.Duration
	}{
		{"discover answered after initialize", 400 * time.Millisecond, 0, 600 * time.Millisecond},
		{"discover answered during initialize", 150 * time.Millisecond, 400 * time.Millisecond, 100 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs := httptest.NewServer(&dualHTTP{discover: tc.discover, init: tc.init})
			t.Cleanup(hs.Close)
			env, _ := serveInProcess(t)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			spec := &Spec{Name: "dual", Transport: "http", URL: hs.URL, Identity: []string{"protocol 2026-07-28"}}
			attach := func() *transport.Stdio {
				t.Helper()
				nc, _, err := Attach(ctx, env, Hello{Spec: spec, KeepAlive: time.Minute})
				if err != nil {
					t.Fatal(err)
				}
				tr := transport.NewStdio(nc, nc, transport.StdioOptions{MessageCeiling: 1 << 20})
				_ = tr.Start(ctx)
				t.Cleanup(func() { tr.Close(); nc.Close() })
				return tr
			}
			send := func(ctx context.Context, tr *transport.Stdio, id int64, method string, version string) (*mcptransport.JSONRPCResponse, error) {
				t.Helper()
				h := http.Header{"Mcp-Method": {method}}
				if version != "" {
					h.Set("Mcp-Protocol-Version", version)
				}
				n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: MethodHeaders,
					Params: mcp.NotificationParams{AdditionalFields: map[string]any{"id": id, "headers": h}}}}
				if err := tr.SendNotification(ctx, n); err != nil {
					t.Fatal(err)
				}
				return tr.SendRequest(ctx, mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Method: method})
			}
			first := attach()
			probe, stop := context.WithTimeout(ctx, 50*time.Millisecond)
			if resp, err := send(probe, first, 1, "server/discover", "2026-07-28"); err == nil {
				t.Fatalf("the first probe was answered before its caller gave up: %+v", resp)
			}
			stop()
			if resp, err := send(ctx, first, 2, "initialize", ""); err != nil || resp.Error != nil {
				t.Fatalf("initialize: %+v %v", resp, err)
			}
			time.Sleep(tc.afterFirstCalls) // the first probe is answered by now
			second := attach()
			resp, err := send(ctx, second, 11, "server/discover", "2026-07-28")
			if err != nil {
				t.Fatal(err)
			}
			if resp.Error == nil {
				t.Fatalf("a later probe was answered %s over the legacy session, want it refused", resp.Result)
			}
			if resp, err := send(ctx, second, 12, "initialize", ""); err != nil || resp.Error != nil ||
				!json.Valid(resp.Result) || string(resp.Result) == "null" {
				t.Fatalf("the later initialize: %+v %v", resp, err)
			}
		})
	}
}
