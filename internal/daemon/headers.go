package daemon

// The HTTP headers a caller announces for its next request to an HTTP or
// SSE server (MethodHeaders).

import (
	"encoding/json"
	"net/http"
	"strings"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// maxHeld bounds the requests' headers a caller may announce ahead of them.
const maxHeld = 1024

// heldHeaders are the headers announced for a request not received yet,
// and when (in the caller's order of announcements).
type heldHeaders struct {
	h   http.Header
	seq uint64
}

// setHeaders keeps the headers a MethodHeaders notification announces for
// the caller's next request of that id. Past maxHeld, the oldest are
// forgotten: those of requests the caller abandoned before sending them,
// as the newest belong to the request that follows.
func (c *caller) setHeaders(f map[string]any) {
	raw, _ := json.Marshal(f["id"])
	var id mcp.RequestId
	if json.Unmarshal(raw, &id) != nil || id.IsNil() {
		return
	}
	raw, _ = json.Marshal(f["headers"])
	var announced http.Header
	if json.Unmarshal(raw, &announced) != nil {
		return
	}
	h := requestHeaders(announced)
	if len(h) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := id.String()
	if _, ok := c.headers[key]; !ok && len(c.headers) >= maxHeld {
		oldest, first := "", true
		for k, held := range c.headers {
			if first || held.seq < c.headers[oldest].seq {
				oldest, first = k, false
			}
		}
		delete(c.headers, oldest)
	}
	c.heldSeq++
	c.headers[key] = heldHeaders{h: h, seq: c.heldSeq}
}

// requestHeaders keeps of a caller's announced headers those a request's
// own may be (Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*):
// the target's own, such as its Authorization or its session's
// Mcp-Session-Id, are the daemon's to send, never a caller's to replace.
func requestHeaders(announced http.Header) http.Header {
	h := http.Header{}
	for k, v := range announced {
		k = http.CanonicalHeaderKey(k)
		if strings.HasPrefix(k, "Mcp-") && k != mcptransport.HeaderKeySessionID && len(v) > 0 {
			h[k] = v
		}
	}
	return h
}

// takeHeaders returns (and forgets) the headers announced for request id.
func (c *caller) takeHeaders(id mcp.RequestId) http.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	held := c.headers[id.String()]
	delete(c.headers, id.String())
	return held.h
}
