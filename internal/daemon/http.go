package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/client/transport"
)

// sseStartWait bounds the wait for an SSE server's endpoint event.
const sseStartWait = 10 * time.Second

// probeWait bounds the ping that checks an idle HTTP session at attach.
const probeWait = 5 * time.Second

// openHTTP sets up the client of an HTTP or SSE target, over the same
// round tripper (message ceiling, origin and redirect policy) and mcp-go
// transports as a one-shot connection.
func (s *session) openHTTP() error {
	spec := s.spec
	s.limit = &transport.Limit{}
	streamable := spec.Transport == "http"
	inner, err := netTransport(spec.NetEnv)
	if err != nil {
		return err
	}
	s.rt = transport.NewHTTP(transport.HTTPOptions{URL: spec.URL, MessageCeiling: spec.MessageCeiling, Limit: s.limit,
		KeepElicitations: streamable, Listen: streamable, Answers: streamable, Bearer: func() string {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.bearer
		}, Inner: statusRecorder{inner}})
	hc := &http.Client{Transport: s.rt, CheckRedirect: transport.SameOrigin}
	if streamable {
		opts := []mcptransport.StreamableHTTPCOption{mcptransport.WithHTTPHeaders(spec.Headers), mcptransport.WithHTTPBasicClient(hc)}
		//lint:ignore SA1019 the legacy era's standalone GET stream carries the server's requests and list_changed
		opts = append(opts, mcptransport.WithContinuousListening())
		tr, err := mcptransport.NewStreamableHTTP(spec.URL, opts...)
		if err != nil {
			return err
		}
		s.tr, s.bidi = tr, tr
		tr.SetNotificationHandler(s.serverNotification)
		tr.SetRequestHandler(s.serverRequest)
		_ = tr.Start(s.life)
		s.d.log.printf("opened %s (http)", spec.Name)
		return nil
	}
	tr, err := mcptransport.NewSSE(spec.URL, mcptransport.WithHeaders(spec.Headers), mcptransport.WithHTTPClient(hc),
		mcptransport.WithEndpointTimeout(sseStartWait))
	if err != nil {
		return err
	}
	s.tr = tr
	tr.SetNotificationHandler(s.serverNotification)
	tr.SetConnectionLostHandler(func(err error) { s.httpEnded(fmt.Sprintf("the server closed the SSE stream (%v)", err)) })
	// The Start context owns the stream: it lives until the session ends
	// (the endpoint wait is bounded by sseStartWait, and ends when the
	// session is stopped meanwhile). Only this target's callers wait.
	if err := tr.Start(s.life); err != nil {
		_ = tr.Close()
		return err
	}
	s.d.log.printf("opened %s (sse)", spec.Name)
	return nil
}

// awaitListen waits until the server has answered the standalone GET
// stream, so that a request it sends there once initialized is not sent
// before the stream exists (see transport.HTTP.AwaitListening).
func (s *session) awaitListen(ctx context.Context) {
	if !s.rt.AwaitListening(ctx) {
		s.d.log.printf("%s: no answer to the GET stream within %s; going on without waiting", s.spec.Name, transport.ListenWait)
	}
}

// initialized reports whether the handshake has been answered: initialize,
// or server/discover in the 2026-07-28 era.
func (s *session) initialized() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.hs[string(mcp.MethodInitialize)]
	return ok || s.modern
}

// handshakeVersion: a handshake request goes out at the protocol version
// its caller's transport would have sent it with (server/discover at the
// version asked for, initialize at none), as mcp-go's client sets it on a
// one-shot transport before the request; the transport then knows its era
// (no session, no standalone GET stream in the 2026-07-28 era).
func (s *session) handshakeVersion(h http.Header) {
	if hc, ok := s.tr.(mcptransport.HTTPConnection); ok {
		hc.SetProtocolVersion(h.Get(mcptransport.HeaderKeyProtocolVersion))
	}
}

// handshakeDone: the server answered initialize; an HTTP transport sends
// the negotiated version from now on, as mcp-go's client tells it to.
func (s *session) handshakeDone(result json.RawMessage) {
	if hc, ok := s.tr.(mcptransport.HTTPConnection); ok {
		if v := gjson.GetBytes(result, "protocolVersion").String(); v != "" {
			hc.SetProtocolVersion(v)
		}
	}
}

// httpFailed: a request to an HTTP or SSE server failed below JSON-RPC.
// Before the handshake is answered, the target is dropped and the callers
// told to connect again without the daemon; after it, the session is dead
// (the server restarted or ended it, or is unreachable) and the next
// attach says that its state was lost.
func (s *session) httpFailed(err error) {
	if !s.initialized() {
		s.handshakeFailed(err)
		return
	}
	why := "the server is unreachable (" + err.Error() + ")"
	if errors.Is(err, mcptransport.ErrSessionTerminated) {
		why = "the server ended the session"
	}
	s.httpEnded(why)
}

// httpEnded marks an HTTP or SSE session dead.
func (s *session) httpEnded(why string) {
	if !s.initialized() {
		s.handshakeFailed(errors.New(why))
		return
	}
	s.died(why)
}

// handshakeFailed drops a target whose handshake failed: its callers
// connect one-shot, and nothing is remembered of it.
func (s *session) handshakeFailed(err error) {
	s.deadOnce.Do(func() {
		s.mu.Lock()
		s.deadWhy = err.Error()
		s.oneshot = true
		close(s.dead)
		callers := make([]*caller, 0, len(s.callers))
		for c := range s.callers {
			callers = append(callers, c)
		}
		s.mu.Unlock()
		s.d.log.printf("%s: handshake failed, connecting one-shot", s.spec.Name)
		s.d.forget(s)
		params := map[string]any{"why": s.spec.mask(err.Error()), "first_post": s.rt.FallbackStatus()}
		if st, challenge := s.rt.TakeAuth(); st != 0 {
			// Refused (401, 403): the caller's error says so at once; a
			// second try one-shot would only be refused again.
			params["auth_status"], params["challenge"] = st, challenge
		}
		for _, c := range callers {
			c.notify(MethodOneShot, params)
			c.closeSoon()
		}
		go s.closeWire()
	})
}

// closeWire closes the connection to the server.
func (s *session) closeWire() {
	if s.tr != nil {
		_ = s.tr.Close()
	}
	s.endLife()
}

// probe pings an HTTP or SSE session at each attach: a session the
// server no longer knows (restarted) is found dead before a caller relies
// on it, and on the listings cached, even while other callers are
// attached (the last one may not have gone yet).
func (s *session) probe() {
	s.mu.Lock()
	modern := s.modern // the 2026-07-28 era has no session to forget
	s.mu.Unlock()
	if modern || s.isDead() || !s.initialized() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeWait)
	defer cancel()
	var status *int
	var resp *mcptransport.JSONRPCResponse
	var err error
	for try := 0; try < 2; try++ {
		status = new(int)
		resp, err = s.tr.SendRequest(withStatus(ctx, status), mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION,
			ID: mcp.NewRequestId(s.nextID.Add(1)), Method: string(mcp.MethodPing)})
		var ue *url.Error
		if err == nil || ctx.Err() != nil || !errors.As(err, &ue) {
			break
		}
		// A connection kept from before, which a restarted server has
		// closed, fails the first request on it: the ping, harmless, goes
		// again on a new one.
	}
	switch {
	case err != nil && ctx.Err() == nil && s.sessionGone(err):
		s.httpFailed(err)
	case err == nil && s.sessionUnknown(*status, resp):
		s.forgotten()
	}
}

// sessionUnknown reports whether an answer (status: its HTTP status) says
// that the server no longer knows the session, as SDK servers answer a
// request of a session they forgot, or never had: HTTP 400 with a
// JSON-RPC error about the session ("Bad Request: No valid session ID
// provided"). (The specification's answer, 404, is
// mcptransport.ErrSessionTerminated.)
func (s *session) sessionUnknown(status int, resp *mcptransport.JSONRPCResponse) bool {
	if status != http.StatusBadRequest || resp == nil || resp.Error == nil || !s.initialized() {
		return false
	}
	s.mu.Lock()
	modern := s.modern
	s.mu.Unlock()
	return !modern && strings.Contains(strings.ToLower(resp.Error.Message), "session")
}

// statusKey carries, in a request's context, where the HTTP status of its
// answer goes (see statusRecorder).
type statusKey struct{}

func withStatus(ctx context.Context, status *int) context.Context {
	return context.WithValue(ctx, statusKey{}, status)
}

// statusRecorder is the round tripper under the target's: it records the
// HTTP status of a POST's answer where its context says (withStatus).
type statusRecorder struct{ inner http.RoundTripper }

func (r statusRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.inner.RoundTrip(req)
	if p, ok := req.Context().Value(statusKey{}).(*int); ok && resp != nil && req.Method == http.MethodPost {
		*p = resp.StatusCode
	}
	return resp, err
}

func (s *session) deadWhyNow() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spec.mask(s.deadWhy)
}

// sessionGone reports whether a request's failure means the session is
// over: the server forgot it (404), cannot be reached, or broke a limit
// (the connection is closed, as a one-shot one is).
func (s *session) sessionGone(err error) bool {
	var ue *url.Error
	return errors.Is(err, mcptransport.ErrSessionTerminated) || errors.Is(err, mcptransport.ErrTransportClosed) ||
		errors.As(err, &ue) || s.limit.Get() != nil || s.limit.Violation() != ""
}

// failure is the params of MethodFailed for err.
func (s *session) failure(err error) map[string]any {
	p := map[string]any{"message": err.Error()}
	if st, challenge := s.rt.TakeAuth(); st != 0 {
		p["auth_status"], p["challenge"] = st, challenge
	}
	return p
}

// brokenHow says how an answer breaks JSON-RPC ("" when it does not), as
// the caller's framer would over a pipe.
func brokenHow(resp *mcptransport.JSONRPCResponse) string {
	switch {
	case resp == nil:
		return "neither a result nor an error"
	case resp.Error != nil && resp.Result != nil && string(resp.Result) != "null":
		return "both a result and an error"
	case resp.Error == nil && resp.Result == nil:
		return "neither a result nor an error"
	}
	return ""
}

// failed tells the caller that its request id failed (see MethodFailed).
func (c *caller) failed(id mcp.RequestId, params map[string]any) {
	params["id"] = id
	c.notify(MethodFailed, params)
}
