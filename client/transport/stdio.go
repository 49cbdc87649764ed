package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/internal/secret"
)

// Stdio is mcpx's transport to a stdio server, in place of mcp-go's
// transport.NewIO. It behaves as that one does (one JSON line per message,
// responses matched to requests by id, server requests and notifications
// handed to mcp-go's handlers, every request in flight failed with
// ErrTransportClosed when stdout ends), but it reads stdout through the
// framer: each line exists in memory once, and the result of a response
// is a sub-slice of its line, never a copy. mcp-go's reader holds a big
// line several times over (a string, two []byte conversions, and a copy
// of the result).
//
// It implements exactly the interfaces mcp-go's stdio transport does and
// mcp-go's client type-asserts on: Interface and BidirectionalInterface
// (so that the server's requests, such as ping, are answered). Not
// HTTPConnection: claiming it would make mcp-go skip notifications/cancelled
// and treat the connection as HTTP. Not SetConnectionLostHandler either: the end of stdout already fails what
// is in flight, and the connection learns why from the process.
//
// The process (its pipes, its stop sequence) belongs to process.go: Close
// closes stdin, as mcp-go's does, and stops reading at the next chunk; the
// read in progress ends when the process is stopped and its stdout closed.
type Stdio struct {
	fr     *framer
	stdin  io.WriteCloser
	logger *slog.Logger

	writeSem chan struct{} // one whole line at a time on stdin (a lock a deadline can give up on)
	slots    chan struct{} // server requests being handled (maxServerRequests)

	mu        sync.Mutex
	responses map[string]chan *mcptransport.JSONRPCResponse // by mcp.RequestId.String()

	done      chan struct{} // closed when stdout ends or Close is called
	closed    context.Context
	closeCtx  context.CancelFunc // ends closed, with done
	doneOnce  sync.Once
	startOnce sync.Once
	stdinOnce sync.Once

	hmu            sync.RWMutex
	onNotification func(mcp.JSONRPCNotification)
	onRequest      mcptransport.RequestHandler
	ctx            context.Context // Start's, for the server's requests

	held       atomic.Int64 // bytes of the server's requests being answered
	elicitOnce sync.Once
	elicitQ    chan func() // elicitations, answered one after another in order
}

var _ mcptransport.BidirectionalInterface = (*Stdio)(nil)

// StdioOptions configure a Stdio.
type StdioOptions struct {
	MessageCeiling int64             // largest JSON-RPC message accepted
	Limit          *Limit            // where a limit error or a framing violation is recorded (nil: a new one)
	OnSkip         func(line string) // each line on stdout that is not a JSON-RPC message
	Secrets        *secret.Set       // masked in the lines a message quotes (see secret.Set.Window)
	Logger         *slog.Logger      // where the transport logs (nil: nowhere)
}

// NewStdio reads messages from a server's stdout, framed (see framer), and
// writes to its stdin. Each response must answer a request sent and not
// answered yet.
func NewStdio(stdout io.Reader, stdin io.WriteCloser, o StdioOptions) *Stdio {
	if o.Limit == nil {
		o.Limit = &Limit{}
	}
	fr := newFramer(stdout, o.MessageCeiling, o.Limit, o.OnSkip)
	fr.inflight, fr.refused, fr.secrets = &inflight{}, &refusals{}, o.Secrets
	return newStdioTransport(fr, stdin, o.Logger)
}

// newStdioTransport reads messages from fr and writes to stdin. It stops fr
// when closed.
func newStdioTransport(fr *framer, stdin io.WriteCloser, logger *slog.Logger) *Stdio {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	t := &Stdio{fr: fr, stdin: stdin, logger: logger, ctx: context.Background(),
		responses: map[string]chan *mcptransport.JSONRPCResponse{}, done: make(chan struct{}),
		writeSem: make(chan struct{}, 1), slots: make(chan struct{}, maxServerRequests)}
	t.closed, t.closeCtx = context.WithCancel(context.Background())
	fr.stop = t.done
	return t
}

// Start starts reading stdout; ctx is the one the server's requests are
// handled with. Calling it again does nothing (mcpx's lenient initialize
// starts a second client on the same transport).
func (t *Stdio) Start(ctx context.Context) error {
	t.startOnce.Do(func() {
		t.hmu.Lock()
		t.ctx = ctx
		t.hmu.Unlock()
		go t.read()
	})
	return nil
}

func (t *Stdio) closeDone() {
	t.doneOnce.Do(func() {
		close(t.done)
		t.closeCtx()
	})
}

// Close fails whatever is in flight, stops reading and closes the server's
// stdin. It is safe to call more than once, and concurrently.
func (t *Stdio) Close() error {
	t.closeDone()
	var err error
	t.stdinOnce.Do(func() {
		if e := t.stdin.Close(); e != nil {
			err = fmt.Errorf("failed to close stdin: %w", e)
		}
	})
	return err
}

// Done is closed when stdout ends or the transport is closed: a request
// sent from then on fails with ErrTransportClosed.
func (t *Stdio) Done() <-chan struct{} { return t.done }

// MessageCeiling is the largest message accepted.
func (t *Stdio) MessageCeiling() int64 { return t.fr.max }

// GetSessionId returns "": stdio has no session.
func (t *Stdio) GetSessionId() string { return "" }

func (t *Stdio) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	t.hmu.Lock()
	defer t.hmu.Unlock()
	t.onNotification = h
}

func (t *Stdio) SetRequestHandler(h mcptransport.RequestHandler) {
	t.hmu.Lock()
	defer t.hmu.Unlock()
	t.onRequest = h
}

// maxServerRequests bounds the server's requests handled at once. Past it,
// the reader waits for one to finish before it reads on: a server sending
// requests faster than it reads the answers (millions of roots/list) is
// held back by its own stdout, instead of costing mcpx a goroutine and a
// queued answer each.
const maxServerRequests = 16

// maxServerRequestBytes bounds the bytes of the server's requests held at
// once (see handleRequest).
const maxServerRequestBytes = 16 << 20

// write sends one message as one line. It gives up when ctx ends, whether
// waiting for another line to be written or writing (a server that does
// not read its stdin fills the pipe): a request's deadline bounds its write
// too. A line cut short that way leaves stdin unusable, and the connection
// is failing anyway.
func (t *Stdio) write(ctx context.Context, msg []byte) error {
	msg = append(msg, '\n')
	select {
	case t.writeSem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-t.writeSem }()
	if err := ctx.Err(); err != nil {
		return err
	}
	dl, ok := t.stdin.(interface{ SetWriteDeadline(time.Time) error })
	if !ok || ctx.Done() == nil {
		_, err := t.stdin.Write(msg)
		return err
	}
	// Ending ctx interrupts a write blocked on a full pipe.
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		_ = dl.SetWriteDeadline(time.Unix(1, 0))
		close(fired)
	})
	_, err := t.stdin.Write(msg)
	if !stop() {
		<-fired
		_ = dl.SetWriteDeadline(time.Time{})
		if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
			err = ctx.Err()
		}
	}
	return err
}

func (t *Stdio) forget(key string) {
	t.mu.Lock()
	delete(t.responses, key)
	t.mu.Unlock()
}

// SendRequest writes req and waits for the response with its id, for the
// end of ctx (the id is forgotten; a late answer is dropped), or for the end
// of stdout (ErrTransportClosed). The id is in flight from now on, for the
// framer's checks, even when the request is not written.
func (t *Stdio) SendRequest(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
	if t.fr.inflight != nil {
		id, _ := json.Marshal(req.ID)
		t.fr.inflight.add(string(id))
	}
	select {
	case <-t.done:
		return nil, mcptransport.ErrTransportClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	default:
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("failed to marshal request: %w", err)
	}
	key := req.ID.String()
	ch := make(chan *mcptransport.JSONRPCResponse, 1)
	t.mu.Lock()
	t.responses[key] = ch
	t.mu.Unlock()
	if err := t.write(ctx, b); err != nil {
		t.forget(key)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("failed to write request: %w", err)
	}
	select {
	case resp := <-ch:
		return resp, nil
	case <-t.done:
		select {
		case resp := <-ch: // answered just before stdout ended
			return resp, nil
		default:
		}
		t.forget(key)
		return nil, mcptransport.ErrTransportClosed
	case <-ctx.Done():
		t.forget(key)
		return nil, ctx.Err()
	}
}

// SendNotification writes n.
func (t *Stdio) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	select {
	case <-t.done:
		return mcptransport.ErrTransportClosed
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	b, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("failed to marshal notification: %w", err)
	}
	if err := t.write(ctx, b); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("failed to write notification: %w", err)
	}
	return nil
}

// read dispatches messages until stdout ends, breaks the framing, goes over
// the message ceiling, or the transport is closed; then whatever is in
// flight fails at once.
func (t *Stdio) read() {
	defer t.closeDone()
	for {
		line, env, err := t.fr.next()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) && !errors.Is(err, fs.ErrClosed) && !errors.Is(err, errFramerStopped) {
				t.logger.Error("Error reading from stdout", "err", err)
			}
			return
		}
		select {
		case <-t.done:
			return
		default:
		}
		t.dispatch(line, env)
	}
}

// dispatch routes one message as mcp-go's stdio transport does, including
// what it drops: a message whose jsonrpc, id or method does not decode, and
// a response to an id no request waits for (any more).
func (t *Stdio) dispatch(line []byte, env envelope) {
	var version, method string
	var id *mcp.RequestId
	if !decodeMember(env.jsonrpc, &version) || !decodeMember(env.id, &id) || !decodeMember(env.method, &method) {
		return
	}
	if method != "" && id == nil {
		var n mcp.JSONRPCNotification
		if json.Unmarshal(line, &n) != nil {
			return
		}
		t.hmu.RLock()
		h := t.onNotification
		t.hmu.RUnlock()
		if h != nil {
			h(n)
		}
		return
	}
	if method != "" {
		// params stay raw: an elicitation's schema keeps its field order.
		var req struct {
			mcptransport.JSONRPCRequest
			Params json.RawMessage `json:"params,omitempty"`
		}
		if json.Unmarshal(line, &req) == nil {
			if req.Params != nil {
				req.JSONRPCRequest.Params = req.Params
			}
			// An integer id is echoed with all its digits (mcp-go's
			// RequestId goes through a float64 past 2^53).
			if n, err := strconv.ParseInt(string(bytes.TrimSpace(env.id)), 10, 64); err == nil {
				req.ID = mcp.NewRequestId(n)
			}
			t.handleRequest(req.JSONRPCRequest, int64(len(line)))
			return
		}
	}
	// A response. Its result stays where it is in the line: the line is
	// this message's alone, and nothing writes to it.
	resp := &mcptransport.JSONRPCResponse{JSONRPC: version, Result: env.result}
	if !decodeMember(env.id, &resp.ID) || !decodeMember(env.rpcErr, &resp.Error) {
		return
	}
	key := resp.ID.String()
	t.mu.Lock()
	ch, ok := t.responses[key]
	delete(t.responses, key)
	t.mu.Unlock()
	if ok {
		ch <- resp // buffered, and registered once
	}
}

// decodeMember decodes a member found by the envelope, if present, and
// reports whether it decoded.
func decodeMember(raw []byte, v any) bool {
	return raw == nil || json.Unmarshal(raw, v) == nil
}

// handleRequest answers a request from the server with the request handler
// (in a goroutine of its own, at most maxServerRequests at once: past that
// it waits, and so does the reader), or with "method not found" when there
// is none.
func (t *Stdio) handleRequest(req mcptransport.JSONRPCRequest, size int64) {
	t.hmu.RLock()
	h, ctx := t.onRequest, t.ctx
	t.hmu.RUnlock()
	if h == nil {
		t.respond(ctx, mcptransport.NewJSONRPCErrorResponse(req.ID, mcp.METHOD_NOT_FOUND, "No request handler configured", nil))
		return
	}
	select {
	case t.slots <- struct{}{}:
	case <-t.done:
		return
	}
	// The requests held at once are bounded in bytes too: 16 questions
	// near the message ceiling, waiting while a person answers one, would
	// hold gigabytes. Past the budget a request is refused at once (one
	// alone is always taken).
	if held := t.held.Add(size); held > maxServerRequestBytes && held != size {
		t.held.Add(-size)
		<-t.slots
		t.respond(ctx, mcptransport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, "too many requests at once", nil))
		return
	}
	release := func() { t.held.Add(-size); <-t.slots }
	if req.Method == string(mcp.MethodElicitationCreate) {
		// Questions are asked in the order the server sent them: one
		// worker takes them in turn (the slot above bounds the queue).
		t.elicitOnce.Do(func() {
			t.elicitQ = make(chan func(), maxServerRequests)
			go func() {
				for f := range t.elicitQ {
					f()
				}
			}()
		})
		t.elicitQ <- func() { defer release(); t.answer(ctx, h, req) }
		return
	}
	go func() {
		defer release()
		t.answer(ctx, h, req)
	}()
}

// answer runs the request handler on one request of the server's and
// writes its answer.
func (t *Stdio) answer(ctx context.Context, h mcptransport.RequestHandler, req mcptransport.JSONRPCRequest) {
	if err := ctx.Err(); err != nil {
		t.respond(ctx, mcptransport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, err.Error(), nil))
		return
	}
	resp, err := h(ctx, req)
	if err != nil {
		t.respond(ctx, mcptransport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, err.Error(), nil))
		return
	}
	if resp != nil {
		t.respond(ctx, resp)
	}
}

// respond writes the answer to a server request, giving up when the
// transport is closed or ctx ends.
func (t *Stdio) respond(ctx context.Context, resp *mcptransport.JSONRPCResponse) {
	b, err := json.Marshal(resp)
	if err != nil {
		t.logger.Error("Error marshaling response", "err", err)
		return
	}
	if resp.Error != nil && t.fr.refused != nil {
		if id, err := json.Marshal(resp.ID); err == nil {
			t.fr.refused.add(string(id))
		}
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(t.closed, cancel)()
	if err := t.write(wctx, b); err != nil && t.isOpen() {
		t.logger.Error("Error writing response", "err", err)
	}
}

func (t *Stdio) isOpen() bool {
	select {
	case <-t.done:
		return false
	default:
		return true
	}
}
