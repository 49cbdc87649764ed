package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// silentSSE is a legacy SSE server that accepts every request and answers
// none.
func silentSSE(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: endpoint\ndata: /message\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/sse"
}

// TestSSEDeadlineRace: a request over SSE that runs out of time fails
// with its context's error, never with the SSE transport's own timeout
// (a plain error, "timeout waiting for SSE response"), whose timer mcp-go
// sets by the context's deadline and which could fire first: the tap
// gives the transport a later deadline (outliveDeadline). It relies on
// mcp-go's SSE transport returning ctx.Err() once the context it was
// given ends.
func TestSSEDeadlineRace(t *testing.T) {
	sse, err := mcptransport.NewSSE(silentSSE(t), mcptransport.WithResponseTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if err := sse.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer sse.Close()
	tr, base := wrapTap(sse, nil)
	base.outlive = true
	for i := range 40 {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		_, err := tr.SendRequest(ctx, mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(i + 1)), Method: "ping"})
		cancel()
		if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("request %d: %v, want the context's error", i, err)
		}
	}
}
