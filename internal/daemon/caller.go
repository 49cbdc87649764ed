package daemon

// A caller is one attached mcpx process: its queue and writer, its
// service until it goes, its notifications, and its detach.

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/client/transport"
)

// caller is one attached mcpx process.
type caller struct {
	// sess is the session of the caller's target: the one it attached
	// to, or the one that replaced it when it died (see live).
	sess    atomic.Pointer[session]
	d       *daemon
	conn    *net.UnixConn
	tr      *transport.Stdio
	q       *outQueue // what the caller is sent, in order (tr writes there)
	refresh bool
	auth    string // the caller's authorization context (AuthContext of its token), for the cache

	gone     context.Context
	goneFn   context.CancelFunc
	nextOut  atomic.Int64 // ids of the requests sent to the caller
	mu       sync.Mutex
	inflight map[string]*forwarded  // by the caller's id
	headers  map[string]heldHeaders // a request's HTTP headers, by the caller's id (MethodHeaders)
	heldSeq  uint64                 // the order of the headers announced
	once     sync.Once
	dropOnce sync.Once
	cut      atomic.Bool // cut off: its queue owes it the note, then closes the connection
	// served is the last session whose server answered one of the
	// caller's requests: the caller depends on that server's state (see
	// session.died).
	served atomic.Pointer[session]
}

type forwarded struct {
	id     mcp.RequestId // the daemon's, on the server's side
	s      *session      // where it was sent
	cancel context.CancelFunc
}

// newCaller makes the caller of an attach; it is registered (and sent
// anything) only once the reply is written (serve).
func (s *session) newCaller(conn *net.UnixConn, r *bufio.Reader, h *Hello) *caller {
	c := &caller{d: s.d, conn: conn, refresh: h.Refresh, auth: AuthContext(h.Bearer), inflight: map[string]*forwarded{}, headers: map[string]heldHeaders{}}
	c.sess.Store(s)
	c.gone, c.goneFn = context.WithCancel(context.Background())
	c.q = newOutQueue(conn, s.d.queueLimit(), s.d.stallWait(), c.stalled, s.d.notePeak)
	in := &endReader{r: r, end: c.detach}
	c.tr = transport.NewStdio(in, c.q, transport.StdioOptions{MessageCeiling: s.spec.MessageCeiling})
	c.tr.SetRequestHandler(c.request)
	c.tr.SetNotificationHandler(c.notification)
	return c
}

// session is the caller's session now.
func (c *caller) session() *session { return c.sess.Load() }

func (c *caller) busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.inflight) > 0
}

// busyOn reports whether the caller has a request in flight on s.
func (c *caller) busyOn(s *session) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.inflight {
		if f.s == s {
			return true
		}
	}
	return false
}

// serve registers the caller and serves it until it goes.
func (c *caller) serve() {
	s := c.session()
	s.mu.Lock()
	stopped := s.stopping
	s.callers[c] = true
	// What the daemon had to say before the first caller came is this
	// one's, first (bounded: see toCallers; the queue is empty, so that
	// nothing waits here).
	early := s.early
	s.early, s.earlyBytes, s.hadCaller = nil, 0, true
	for _, n := range early {
		c.forward(n)
	}
	s.mu.Unlock()
	s.calls.Add(1)
	s.lastUse.Store(time.Now().UnixNano())
	_ = c.tr.Start(c.gone)
	switch {
	case stopped:
		c.drop(s.lostParams())
	case s.oneShot():
		// An HTTP or SSE connection that failed before its handshake.
		c.notify(MethodOneShot, map[string]any{"why": s.deadWhyNow(), "first_post": s.rt.FallbackStatus()})
		c.closeSoon()
	}
	// A server that died before this caller was attached is started
	// again at its first request (see live).
	<-c.gone.Done()
}

// closeSoon ends the connection when the caller closes it (so that what
// it writes meanwhile does not fail before it has read why), at most 5 s
// from now.
func (c *caller) closeSoon() {
	go func() {
		select {
		case <-c.gone.Done():
		case <-time.After(5 * time.Second):
		}
		c.close()
	}()
}

// close cuts the caller off.
func (c *caller) close() {
	_ = c.conn.Close()
	c.detach()
}

// stalled: the caller read nothing while its queue was full (n bytes
// waiting): it is cut off. What was queued is dropped; it is owed the rest
// of the message being written, then the note that says why, which it
// reads when it reads again, after which the connection ends.
func (c *caller) stalled(n int64) {
	if !c.cut.CompareAndSwap(false, true) {
		return
	}
	s := c.session()
	why := cutOffWhy(n)
	s.d.log.printf("%s: cut a caller off: it read nothing while the server sent %d bytes", s.spec.Name, n)
	note, _ := json.Marshal(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: MethodLost, Params: mcp.NotificationParams{AdditionalFields: map[string]any{"why": why}}}})
	c.q.cutOff(append(note, '\n'))
	// Its end of the socket is read no more: what it sends when it wakes
	// up is not served.
	_ = c.conn.SetReadDeadline(time.Unix(1, 0))
	c.detach()
}

// detach: the caller is gone (or cut off). Its requests in flight are
// cancelled on the server.
func (c *caller) detach() {
	c.once.Do(func() {
		c.mu.Lock()
		pending := c.inflight
		c.inflight = map[string]*forwarded{}
		c.mu.Unlock()
		for _, f := range pending {
			if !f.s.postCancels() {
				f.s.cancelOnServer(f.id, "the mcpx process went away")
			}
			f.cancel()
		}
		c.unregister(c.session())
		c.goneFn()
		_ = c.tr.Close()
		if !c.cut.Load() {
			_ = c.conn.Close()
		}
	})
}

// unregister removes the caller from s.
func (c *caller) unregister(s *session) {
	s.mu.Lock()
	delete(s.callers, c)
	if s.lastInUse == c {
		s.lastInUse = nil
	}
	for k, r := range s.tokens {
		if r.c == c {
			delete(s.tokens, k)
		}
	}
	s.mu.Unlock()
	s.lastUse.Store(time.Now().UnixNano())
}

// drop tells the caller that the server is gone; the connection ends when
// the caller closes it, at most 5 s later (closeSoon). Once.
func (c *caller) drop(lost map[string]any) {
	c.dropOnce.Do(func() {
		c.notify(MethodLost, lost)
		c.closeSoon()
	})
}

func (c *caller) notify(method string, params map[string]any) {
	c.forward(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: method, Params: mcp.NotificationParams{AdditionalFields: params}}})
}

// forward queues a notification for the caller (see outQueue: it waits
// while the caller's queue is full and the caller reads).
func (c *caller) forward(n mcp.JSONRPCNotification) {
	_ = c.tr.SendNotification(c.gone, n)
}

// notification forwards a caller's notification: notifications/initialized
// once per connection, notifications/cancelled for the caller's own
// request (id mapped), the rest as is.
func (c *caller) notification(n mcp.JSONRPCNotification) {
	s := c.session()
	switch n.Method {
	case string(mcp.MethodNotificationInitialized):
		s.sendInitialized(c.gone)
		return
	case MethodHeaders:
		c.setHeaders(n.Params.AdditionalFields)
		return
	case string(mcp.MethodNotificationCancelled):
		raw, _ := json.Marshal(n.Params.AdditionalFields["requestId"])
		var id mcp.RequestId
		if json.Unmarshal(raw, &id) != nil {
			return
		}
		c.mu.Lock()
		f := c.inflight[id.String()]
		delete(c.inflight, id.String())
		delete(c.headers, id.String()) // a request abandoned before it was sent
		c.mu.Unlock()
		if f == nil {
			return
		}
		n.Params.AdditionalFields = withField(n.Params.AdditionalFields, "requestId", f.id)
		if !f.s.postCancels() {
			ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
			_ = f.s.tr.SendNotification(ctx, n)
			cancel()
		}
		f.cancel() // over HTTP, aborts the POST
		return
	}
	if s.isDead() {
		return // for a server gone; its successor starts with none
	}
	ctx, cancel := context.WithTimeout(c.gone, 5*time.Second)
	defer cancel()
	_ = s.tr.SendNotification(ctx, n)
}
