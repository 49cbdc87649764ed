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
	s       *session
	conn    *net.UnixConn
	tr      *transport.Stdio
	verbose bool
	refresh bool

	gone     context.Context
	goneFn   context.CancelFunc
	nextOut  atomic.Int64 // ids of the requests sent to the caller
	mu       sync.Mutex
	inflight map[string]*forwarded  // by the caller's id
	headers  map[string]heldHeaders // a request's HTTP headers, by the caller's id (MethodHeaders)
	heldSeq  uint64                 // the order of the headers announced
	once     sync.Once
	outOnce  sync.Once
	out      chan func() // see forward
	stalled  atomic.Bool // see enqueue
}

type forwarded struct {
	id     mcp.RequestId // the daemon's, on the server's side
	cancel context.CancelFunc
	tok    string // the daemon's progress token, if any
}

// newCaller makes the caller of an attach; it is registered (and sent
// anything) only once the reply is written (serve).
func (s *session) newCaller(conn *net.UnixConn, r *bufio.Reader, h *Hello) *caller {
	c := &caller{s: s, conn: conn, verbose: h.Verbose, refresh: h.Refresh, inflight: map[string]*forwarded{}, headers: map[string]heldHeaders{}}
	c.gone, c.goneFn = context.WithCancel(context.Background())
	in := &endReader{r: r, end: c.detach}
	c.tr = transport.NewStdio(in, conn, transport.StdioOptions{MessageCeiling: s.spec.MessageCeiling})
	c.tr.SetRequestHandler(c.request)
	c.tr.SetNotificationHandler(c.notification)
	return c
}

func (c *caller) busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.inflight) > 0
}

// serve registers the caller and serves it until it goes.
func (c *caller) serve() {
	s := c.s
	s.mu.Lock()
	dead := s.isDead() || s.stopping
	if !dead {
		s.callers[c] = true
		early := s.early
		s.early, s.hadCaller = nil, true
		for _, n := range early {
			c.forward(n)
		}
	}
	s.mu.Unlock()
	s.calls.Add(1)
	s.lastUse.Store(time.Now().UnixNano())
	_ = c.tr.Start(c.gone)
	if dead {
		// The server died before this caller was attached: it is told as
		// one attached would have been.
		key := s.spec.Key()
		s.d.mu.Lock()
		delete(s.d.lost, key)
		s.d.mu.Unlock()
		if s.proc == nil && !s.initialized() {
			// An HTTP or SSE connection that failed before its handshake.
			c.notify(MethodOneShot, map[string]any{"why": s.deadWhyNow(), "first_post": s.rt.FirstPostStatus()})
			go func() {
				select {
				case <-c.gone.Done():
				case <-time.After(5 * time.Second):
				}
				c.close()
			}()
		} else {
			c.drop(s.lostParams())
		}
	}
	<-c.gone.Done()
}

// close cuts the caller off.
func (c *caller) close() {
	_ = c.conn.Close()
	c.detach()
}

// detach: the caller is gone (or cut off). Its requests in flight are
// cancelled on the server.
func (c *caller) detach() {
	c.once.Do(func() {
		s := c.s
		c.mu.Lock()
		pending := c.inflight
		c.inflight = map[string]*forwarded{}
		c.mu.Unlock()
		for _, f := range pending {
			if !s.postCancels() {
				s.cancelOnServer(f.id, "the mcpx process went away")
			}
			f.cancel()
		}
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
		c.goneFn()
		_ = c.tr.Close()
		_ = c.conn.Close()
	})
}

// drop tells the caller that the server is gone; the connection ends when
// the caller closes it (so that what it writes meanwhile does not fail
// before it has read why), at most 5 s later.
func (c *caller) drop(lost map[string]any) {
	c.notify(MethodLost, lost)
	go func() {
		select {
		case <-c.gone.Done():
		case <-time.After(5 * time.Second):
		}
		c.close()
	}()
}

func (c *caller) notify(method string, params map[string]any) {
	c.forward(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: method, Params: mcp.NotificationParams{AdditionalFields: params}}})
}

// outQueue bounds the notifications waiting for one caller (see enqueue).
const outQueue = 1024

// stallWait is how long a notification waits for room in a caller's full
// queue before the caller counts as not reading.
const stallWait = time.Second

// forward queues a notification for the caller; its writer sends them in
// order.
func (c *caller) forward(n mcp.JSONRPCNotification) {
	c.enqueue(func() {
		ctx, cancel := context.WithTimeout(c.gone, 5*time.Second)
		defer cancel()
		_ = c.tr.SendNotification(ctx, n)
	})
}

// enqueue queues f for the caller's writer. A full queue is waited on, as
// a one-shot mcpx's pipe makes its server wait: a caller that reads loses
// nothing of a burst of log messages, however long. A caller that has not
// made room within stallWait (suspended) is stalled: what is queued for it
// is dropped until it has read half its queue, so that it holds up the
// server and its other callers for stallWait once, not once a message.
func (c *caller) enqueue(f func()) {
	c.startWriter()
	if c.stalled.Load() {
		if len(c.out) > outQueue/2 {
			return
		}
		c.stalled.Store(false)
	}
	select {
	case c.out <- f:
		return
	default:
	}
	t := time.NewTimer(stallWait)
	defer t.Stop()
	select {
	case c.out <- f:
	case <-c.gone.Done():
	case <-t.C:
		c.stalled.Store(true)
	}
}

// startWriter starts the caller's writer, once.
func (c *caller) startWriter() {
	c.outOnce.Do(func() {
		c.out = make(chan func(), outQueue)
		go func() {
			for {
				select {
				case f := <-c.out:
					f()
				case <-c.gone.Done():
					return
				}
			}
		}()
	})
}

// drain waits until what was queued for the caller so far is sent (an
// answer follows the notifications sent before it, as on a pipe), at most
// until the caller goes, or 5 s (a caller that does not read). Its mark
// waits for room in a full queue: dropped, the answer would wait the 5 s
// however fast the caller reads.
func (c *caller) drain() {
	c.startWriter()
	done := make(chan struct{})
	limit := time.NewTimer(5 * time.Second)
	defer limit.Stop()
	select {
	case c.out <- func() { close(done) }:
	case <-c.gone.Done():
		return
	case <-limit.C:
		return
	}
	select {
	case <-done:
	case <-c.gone.Done():
	case <-limit.C:
	}
}

// notification forwards a caller's notification: notifications/initialized
// once per connection, notifications/cancelled for the caller's own
// request (id mapped), the rest as is.
func (c *caller) notification(n mcp.JSONRPCNotification) {
	s := c.s
	switch n.Method {
	case string(mcp.MethodNotificationInitialized):
		s.mu.Lock()
		sent := s.initSent
		s.initSent = true
		s.mu.Unlock()
		if sent {
			return
		}
		if s.rt != nil {
			// The legacy handshake's last step: a server may send its
			// first requests (roots/list) on the standalone GET stream as
			// soon as it is initialized, and drop them when no stream is
			// open, so the stream is opened and answered first (at most
			// transport.ListenWait), as a one-shot connection does.
			s.rt.OpenGate()
			s.awaitListen(c.gone)
		}
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
		if !s.postCancels() {
			ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
			_ = s.tr.SendNotification(ctx, n)
			cancel()
		}
		f.cancel() // over HTTP, aborts the POST
		return
	}
	ctx, cancel := context.WithTimeout(c.gone, 5*time.Second)
	defer cancel()
	_ = s.tr.SendNotification(ctx, n)
}
