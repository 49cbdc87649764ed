package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
)

// TestListenRefusalNotTheCallsError: a streamable HTTP server that refuses
// the optional standalone GET stream with 401 or 403 (say, a proxy that
// forbids GET) and then fails a tools/call with HTTP 500 gets the 500
// reported, not an authentication error (exit 6) the call never met.
func TestListenRefusalNotTheCallsError(t *testing.T) {
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			refused := make(chan struct{}, 16)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet {
					w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="admin"`)
					w.WriteHeader(status)
					refused <- struct{}{}
					return
				}
				if r.Method != http.MethodPost {
					w.WriteHeader(http.StatusMethodNotAllowed)
					return
				}
				body, _ := io.ReadAll(r.Body)
				var msg struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				_ = json.Unmarshal(body, &msg)
				switch msg.Method {
				case "initialize":
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`, msg.ID)
				case "tools/call":
					select {
					case <-refused: // the GET was refused first
					case <-time.After(5 * time.Second):
					}
					http.Error(w, "internal boom", http.StatusInternalServerError)
				default:
					w.WriteHeader(http.StatusAccepted)
				}
			}))
			defer srv.Close()

			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := Connect(ctx, &config.Target{Name: "s", Transport: config.HTTP, URL: srv.URL + "/mcp", Timeout: 10 * time.Second},
				Options{MessageCeiling: 1 << 20, Listen: true})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, err = c.CallTool(ctx, "t", nil)
			var ae *fail.AuthError
			if err == nil || errors.As(err, &ae) || !strings.Contains(err.Error(), "status 500: internal boom") {
				t.Fatalf("tools/call: %v (%T), want the HTTP 500", err, err)
			}
		})
	}
}
