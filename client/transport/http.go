// HTTP specifics: bounded bodies, auth challenges, the redirect policy, and
// the SSE transport's logged endpoint failures.

package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/internal/limits"
)

// HTTP is the round tripper under mcp-go's HTTP and SSE transports. It
// bounds every HTTP response body (a JSON body by the message ceiling, an
// event stream by the size of each event), sends requests to the server's
// origin only, adds the stored OAuth token, and remembers what the server
// answered that the connection's errors need (the first POST's status,
// the last authentication challenge).
type HTTP struct {
	inner http.RoundTripper
	max   int64
	limit *Limit

	// origin is the server's: no request goes anywhere else. bearer, when
	// set, gives the stored OAuth token to send (a request that carries an
	// Authorization header already keeps it).
	origin string
	bearer func() string
	dpop   func() Prover

	// getSeen, when not nil, is closed once the first GET (the standalone
	// stream) is answered or fails. getGate holds the GET until the legacy
	// handshake's initialize is answered: never in the 2026 era, which has
	// no such stream (mcp-go's listener may try before it knows the era).
	getSeen  chan struct{}
	getOnce  sync.Once
	reqs     *rawRequests // elicitations seen on event streams (nil: not kept)
	getGate  chan struct{}
	gateOnce sync.Once
	owed     *owedAnswers // the server's requests not yet answered (nil: not counted)

	mu         sync.Mutex
	initStatus int                      // status of the first POST (initialize), for the SSE fallback
	initRPC    *mcp.JSONRPCErrorDetails // that POST's error answer, when a JSON-RPC error (an MCP server's)
	lastRPC    *mcp.JSONRPCErrorDetails // the last POST answered with an HTTP error status and a JSON-RPC error
	authStatus int                      // the last 401 or 403
	challenge  []string                 // its WWW-Authenticate values
}

// HTTPOptions configure an HTTP round tripper.
type HTTPOptions struct {
	URL            string // the server's: no request goes to another origin
	MessageCeiling int64  // largest JSON-RPC message accepted
	Limit          *Limit // where a limit error is recorded (nil: a new one)
	// Bearer, when set, gives the stored OAuth token to send ("" for none).
	Bearer func() string
	// DPoP, when set, gives the prover of a DPoP token (nil: the token is
	// a Bearer one): the token goes as "Authorization: DPoP", with a fresh
	// proof on each request (RFC 9449 §7).
	DPoP func() Prover
	// KeepElicitations keeps the raw params of the elicitations that event
	// streams carry (see TakeElicitation).
	KeepElicitations bool
	// Listen holds the standalone GET stream until OpenGate, and makes
	// Listening report when it was answered.
	Listen bool
	// Answers: the server's requests on event streams are answered
	// (streamable HTTP), each by a POST. A stream is read no further while
	// maxOwedAnswers answers are owed.
	Answers bool
	// Inner is the round tripper underneath (nil: a clone of
	// http.DefaultTransport).
	Inner http.RoundTripper
}

// NewHTTP returns the round tripper for one connection.
func NewHTTP(o HTTPOptions) *HTTP {
	t := &HTTP{inner: o.Inner, max: o.MessageCeiling, limit: o.Limit, bearer: o.Bearer, dpop: o.DPoP, origin: originOf(o.URL)}
	if t.inner == nil {
		t.inner = http.DefaultTransport.(*http.Transport).Clone()
	}
	if t.limit == nil {
		t.limit = &Limit{}
	}
	if o.KeepElicitations {
		t.reqs = &rawRequests{}
	}
	if o.Listen {
		t.getSeen, t.getGate = make(chan struct{}), make(chan struct{})
	}
	if o.Answers {
		t.owed = &owedAnswers{changed: make(chan struct{})}
	}
	return t
}

// MessageCeiling is the largest message accepted.
func (t *HTTP) MessageCeiling() int64 { return t.max }

// Listening is closed once the standalone GET stream is answered or fails;
// nil when the stream is not held (see HTTPOptions.Listen).
func (t *HTTP) Listening() <-chan struct{} { return t.getSeen }

// ListenWait bounds the wait for the standalone GET stream to be answered.
const ListenWait = time.Second

// AwaitListening waits until the server has answered the standalone GET
// stream (accepted or refused), at most ListenWait or until ctx ends, so
// that a request the server sends there is not sent before the stream
// exists. It is false when ListenWait passed first.
func (t *HTTP) AwaitListening(ctx context.Context) bool {
	if t.getSeen == nil {
		return true
	}
	tm := time.NewTimer(ListenWait)
	defer tm.Stop()
	select {
	case <-t.getSeen:
	case <-tm.C:
		return false
	case <-ctx.Done():
	}
	return true
}

// TakeElicitation returns (and forgets) the raw params of the elicitation
// request with id as an event stream carried it, nil when none was kept.
func (t *HTTP) TakeElicitation(id mcp.RequestId) json.RawMessage { return t.reqs.take(id) }

// RoundTrip sends req (see HTTP).
func (t *HTTP) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.origin != "" && originOf(req.URL.String()) != t.origin {
		// An SSE endpoint event naming another scheme (https to http) or
		// origin: headers and tokens stay with the server's own origin.
		return nil, fmt.Errorf("refusing to send a request to %s, which is not the server's origin (%s)", req.URL.Redacted(), t.origin)
	}
	req, token, prover, err := t.withToken(req)
	if err != nil {
		return nil, err
	}
	if req.Method == http.MethodGet && t.getGate != nil {
		select {
		case <-t.getGate:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	}
	if t.owed != nil && req.Method == http.MethodPost && t.owed.any() {
		if id := answerID(req); id != "" {
			defer t.owed.paid(id)
		}
	}
	resp, err := t.inner.RoundTrip(req)
	if err == nil && prover != nil {
		resp, err = t.nonceRetry(req, resp, token, prover)
	}
	if req.Method == http.MethodGet && t.getSeen != nil {
		t.getOnce.Do(func() { close(t.getSeen) })
	}
	if err != nil {
		return nil, err
	}
	first := false
	if req.Method == http.MethodPost {
		t.mu.Lock()
		if t.initStatus == 0 {
			t.initStatus, first = resp.StatusCode, true
		}
		t.lastRPC = nil // the last POST's, or none
		t.mu.Unlock()
	}
	// A 401 or 403 is the connection's, to explain the failure of what
	// it sends next, except on the standalone GET stream (streamable
	// HTTP): that stream is optional, mcp-go only retries it, and a server
	// may refuse it and serve the rest.
	standalone := req.Method == http.MethodGet && t.getGate != nil
	if (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) && !standalone {
		t.mu.Lock()
		t.authStatus, t.challenge = resp.StatusCode, resp.Header.Values("WWW-Authenticate")
		t.mu.Unlock()
	}
	events := strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/event-stream")
	lb := &limitBody{rc: resp.Body, max: t.max, events: events, limit: t.limit}
	if events {
		lb.reqs, lb.owed, lb.ctx = t.reqs, t.owed, req.Context()
	}
	body := io.ReadCloser(lb)
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		// An error answer: mcp-go reads all of it into its error message,
		// of which mcpx shows one clipped line. Read only its start.
		body = &prefixBody{rc: body, left: errorBodyLimit}
		if req.Method == http.MethodPost {
			body = t.peekError(body, first)
		}
	}
	resp.Body = body
	return resp, nil
}

// withToken is req with the stored token (a copy), unless it carries an
// Authorization header of its own; with the token and its DPoP prover.
func (t *HTTP) withToken(req *http.Request) (*http.Request, string, Prover, error) {
	if t.bearer == nil || req.Header.Get("Authorization") != "" {
		return req, "", nil, nil
	}
	token := t.bearer()
	if token == "" {
		return req, "", nil, nil
	}
	req = req.Clone(req.Context())
	var prover Prover
	if t.dpop != nil {
		prover = t.dpop()
	}
	return req, token, prover, authorize(req, token, prover)
}

// Prover makes the DPoP proofs of a token's requests (RFC 9449).
type Prover interface {
	// Proof is a fresh proof for a request with the access token, with
	// the last nonce of the URL's server.
	Proof(method, url, accessToken string) (string, error)
	// SetNonce keeps a server's nonce; false when it is not new.
	SetNonce(url, nonce string) bool
}

// authorize sets the token on req: Bearer, or DPoP with a fresh proof.
func authorize(req *http.Request, token string, p Prover) error {
	if p == nil {
		req.Header.Set("Authorization", "Bearer "+token)
		return nil
	}
	proof, err := p.Proof(req.Method, req.URL.String(), token)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "DPoP "+token)
	req.Header.Set("DPoP", proof)
	return nil
}

// nonceRetry sends req once more, with a new proof, when the server
// answered its DPoP proof with 401 use_dpop_nonce and a nonce it had not
// given before (RFC 9449 §9); the request's body must be re-readable.
func (t *HTTP) nonceRetry(req *http.Request, resp *http.Response, token string, p Prover) (*http.Response, error) {
	if resp.StatusCode != http.StatusUnauthorized || (req.Body != nil && req.Body != http.NoBody && req.GetBody == nil) {
		return resp, nil
	}
	asked := false
	for _, v := range resp.Header.Values("WWW-Authenticate") {
		asked = asked || ChallengeParam(v, "error") == "use_dpop_nonce"
	}
	if !asked || !p.SetNonce(req.URL.String(), resp.Header.Get("DPoP-Nonce")) {
		return resp, nil
	}
	again := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return resp, nil
		}
		again.Body = body
	}
	if err := authorize(again, token, p); err != nil {
		return resp, nil
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, errorBodyLimit))
	resp.Body.Close()
	return t.inner.RoundTrip(again)
}

// peekError reads the error answer to a POST (at most errorBodyLimit
// bytes) and keeps it when it is a JSON-RPC error: mcp-go reads no body of
// an initialize answered with a 4xx, and a server that answers the first
// POST with 400 and a JSON-RPC error (-32022 to server/discover, say)
// speaks streamable HTTP, and is no legacy SSE server to fall back to.
// The body is read again from what was read.
func (t *HTTP) peekError(body io.ReadCloser, first bool) io.ReadCloser {
	b, _ := io.ReadAll(body)
	_ = body.Close()
	var msg struct {
		JSONRPC string                   `json:"jsonrpc"`
		Error   *mcp.JSONRPCErrorDetails `json:"error"`
	}
	if json.Unmarshal(b, &msg) == nil && msg.JSONRPC == "2.0" && msg.Error != nil {
		t.mu.Lock()
		if first {
			t.initRPC = msg.Error
		}
		t.lastRPC = msg.Error
		t.mu.Unlock()
	}
	return io.NopCloser(bytes.NewReader(b))
}

// OpenGate lets the standalone GET stream go out.
func (t *HTTP) OpenGate() {
	if t.getGate != nil {
		t.gateOnce.Do(func() { close(t.getGate) })
	}
}

// errorBodyLimit is how much of an HTTP error answer (a status other than
// 200 and 202) is read: enough for a JSON-RPC error, and for the message
// that quotes its first line.
const errorBodyLimit = 64 << 10

// prefixBody reads the first left bytes of a body, then reports its end.
type prefixBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *prefixBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *prefixBody) Close() error { return b.rc.Close() }

// AuthChallenge returns the last 401/403 status and the named parameter of
// its WWW-Authenticate challenge ("" when absent).
func (t *HTTP) AuthChallenge(param string) (int, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, h := range t.challenge {
		if v := ChallengeParam(h, param); v != "" {
			return t.authStatus, v
		}
	}
	return t.authStatus, ""
}

// TakeAuth returns (and forgets) the last 401/403 status and its
// WWW-Authenticate values.
func (t *HTTP) TakeAuth() (int, []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st, ch := t.authStatus, t.challenge
	t.authStatus, t.challenge = 0, nil
	return st, ch
}

// SetAuth records a 401/403 status and its WWW-Authenticate values met
// elsewhere (by the mcpx daemon, for a warm connection).
func (t *HTTP) SetAuth(status int, challenge []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.authStatus, t.challenge = status, challenge
}

// ChallengeParam extracts param="value" (or param=value) from a WWW-Authenticate header.
func ChallengeParam(h, param string) string {
	for _, part := range splitChallenge(h) {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		if i := strings.LastIndexByte(k, ' '); i >= 0 { // "Bearer error" → "error"
			k = k[i+1:]
		}
		if strings.EqualFold(k, param) {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return ""
}

// splitChallenge splits on commas outside quotes.
func splitChallenge(h string) []string {
	var parts []string
	quoted, start := false, 0
	for i, c := range h {
		switch {
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			parts = append(parts, h[start:i])
			start = i + 1
		}
	}
	return append(parts, h[start:])
}

// FirstPostStatus is the HTTP status of the first POST (initialize), 0
// before it is answered.
func (t *HTTP) FirstPostStatus() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.initStatus
}

// FallbackStatus is the status of the first POST as the SSE fallback
// reads it: FirstPostStatus, but 0 when the answer was a JSON-RPC error,
// which only a streamable HTTP server sends (see peekFirstError).
func (t *HTTP) FallbackStatus() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.initRPC != nil {
		return 0
	}
	return t.initStatus
}

// LastPostError is the JSON-RPC error the last POST answered with an HTTP
// error status carried (nil when none): mcp-go reads no body of an
// initialize answered with a 4xx.
func (t *HTTP) LastPostError() *mcp.JSONRPCErrorDetails {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastRPC
}

type limitBody struct {
	rc     io.ReadCloser
	max    int64
	events bool
	n      int64 // bytes of the current message (event stream: since the last blank line)
	last   byte
	limit  *Limit

	// reqs, when set, keeps the raw params of the elicitation requests the
	// event stream carries (see rawRequests); line and data are the event
	// being read, over when it is too big to be one.
	reqs *rawRequests
	line []byte
	data []byte
	over bool

	// owed, when set, counts the server's requests the stream carries; ctx
	// is the request's, which ends a wait for them to be answered.
	owed *owedAnswers
	ctx  context.Context
}

func (b *limitBody) Read(p []byte) (int, error) {
	if b.owed != nil {
		if err := b.owed.wait(b.ctx); err != nil {
			return 0, err
		}
	}
	n, err := b.rc.Read(p)
	for _, c := range p[:n] {
		if b.reqs != nil || b.owed != nil {
			b.scan(c)
		}
		b.n++
		if b.events && c == '\n' && (b.last == '\n') {
			b.n = 0
		}
		if c != '\r' {
			b.last = c
		}
	}
	if b.n > b.max {
		e := &limits.Error{Limit: "message ceiling", Value: b.max, Msg: "the server sent a JSON-RPC message too large to accept"}
		b.limit.set(e)
		return 0, e
	}
	return n, err
}

func (b *limitBody) Close() error { return b.rc.Close() }

// maxRawRequest bounds an event kept for rawRequests: an elicitation is
// small, and a big result is not copied.
const maxRawRequest = 1 << 20

// scan reads the event stream's lines (SSE: "data:" lines, a blank line
// ends an event) and hands each complete event to reqs.
func (b *limitBody) scan(c byte) {
	if c != '\n' {
		if len(b.line) < maxRawRequest {
			b.line = append(b.line, c)
		} else {
			b.over = true
		}
		return
	}
	l := bytes.TrimSuffix(b.line, []byte("\r"))
	switch {
	case len(l) == 0:
		if !b.over && len(b.data) > 0 {
			if b.reqs != nil {
				b.reqs.note(b.data)
			}
			if b.owed != nil {
				if id := requestID(b.data); id != "" {
					b.owed.add(id)
				}
			}
		}
		b.data, b.over = b.data[:0], false
	case bytes.HasPrefix(l, []byte("data:")):
		v := bytes.TrimPrefix(l[5:], []byte(" "))
		if len(b.data)+len(v)+1 > maxRawRequest {
			b.over = true
		} else if !b.over {
			if len(b.data) > 0 {
				b.data = append(b.data, '\n')
			}
			b.data = append(b.data, v...)
		}
	}
	b.line = b.line[:0]
}

// maxOwedAnswers bounds the server's requests seen on event streams and not
// yet answered: past it, streams are read no further until answers go out.
// mcp-go answers each request from a goroutine of its own, by a POST of its
// own, with no bound; mcpx refuses at once the requests past the 16 it
// answers at a time, but each refusal is a POST too. One read of a stream
// (mcp-go's 4 KiB buffer) may still carry some more.
const maxOwedAnswers = 64

// owedFor is how long a request counts as owed an answer at most: mcp-go
// gives its handler 30 s. A request it never answers (one that came after
// the response its stream was read for) is forgotten then.
const owedFor = 35 * time.Second

// owedAnswers keeps the server's requests not yet answered, by id, with
// when each was seen.
type owedAnswers struct {
	mu      sync.Mutex
	m       map[string]time.Time
	changed chan struct{} // closed (and replaced) when one is answered
}

func (o *owedAnswers) add(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = map[string]time.Time{}
	}
	o.m[id] = time.Now()
}

// any reports whether an answer is owed (a POST that is not one needs no
// look at its body).
func (o *owedAnswers) any() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.m) > 0
}

// paid notes the answer to the request id sent (or given up).
func (o *owedAnswers) paid(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.m[id]; ok {
		delete(o.m, id)
		close(o.changed)
		o.changed = make(chan struct{})
	}
}

// wait returns once fewer than maxOwedAnswers answers are owed, or when
// ctx ends.
func (o *owedAnswers) wait(ctx context.Context) error {
	for {
		o.mu.Lock()
		if len(o.m) >= maxOwedAnswers {
			for id, seen := range o.m {
				if time.Since(seen) > owedFor {
					delete(o.m, id)
				}
			}
		}
		n, ch := len(o.m), o.changed
		o.mu.Unlock()
		if n < maxOwedAnswers {
			return nil
		}
		select {
		case <-ch:
		case <-time.After(time.Second): // to forget the expired
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// messageID names a JSON-RPC id as mcp-go reads it (a string or an
// integer): "" for any other.
func messageID(id gjson.Result) string {
	switch {
	case id.Type == gjson.String:
		return "s:" + id.String()
	case id.Type == gjson.Number && !strings.ContainsAny(id.Raw, ".eE") && id.Raw == strconv.FormatInt(id.Int(), 10):
		return "n:" + id.Raw
	}
	return ""
}

// requestID is the id of an event's JSON-RPC request ("" when it is not
// one that mcp-go answers).
func requestID(event []byte) string {
	if !bytes.Contains(event, []byte(`"method"`)) || !gjson.ValidBytes(event) {
		return ""
	}
	msg := gjson.ParseBytes(event)
	if msg.Get("method").Type != gjson.String {
		return ""
	}
	return messageID(msg.Get("id"))
}

// answerID is the id of the JSON-RPC response that req POSTs (mcpx's
// answer to one of the server's requests), "" when it posts no response.
func answerID(req *http.Request) string {
	if req.GetBody == nil {
		return ""
	}
	rc, err := req.GetBody()
	if err != nil {
		return ""
	}
	defer rc.Close()
	body, err := io.ReadAll(io.LimitReader(rc, maxRawRequest))
	if err != nil || !gjson.ValidBytes(body) {
		return ""
	}
	msg := gjson.ParseBytes(body)
	if msg.Get("method").Exists() || !(msg.Get("result").Exists() || msg.Get("error").Exists()) {
		return ""
	}
	return messageID(msg.Get("id"))
}

// rawRequests keeps the raw params of elicitation/create requests read from
// HTTP event streams, by the request's raw id: mcp-go decodes a request into
// maps before mcpx sees it, which loses the order of the schema's fields.
type rawRequests struct {
	mu sync.Mutex
	m  map[string]json.RawMessage
}

// maxRawRequests bounds the requests kept (unclaimed ones are dropped).
const maxRawRequests = 64

func (r *rawRequests) note(event []byte) {
	if !bytes.Contains(event, []byte("elicitation/create")) || !gjson.ValidBytes(event) {
		return
	}
	msg := gjson.ParseBytes(event)
	id := msg.Get("id")
	if msg.Get("method").String() != "elicitation/create" || !id.Exists() || !msg.Get("params").IsObject() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]json.RawMessage{}
	}
	if len(r.m) < maxRawRequests {
		r.m[id.Raw] = json.RawMessage(msg.Get("params").Raw)
	}
}

// take returns (and forgets) the raw params of the request with id.
func (r *rawRequests) take(id mcp.RequestId) json.RawMessage {
	key, err := json.Marshal(id)
	if r == nil || err != nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	raw := r.m[string(key)]
	delete(r.m, string(key))
	return raw
}

// CanonicalURL is the form of a server URL that names it in the token store
// and, when the server's metadata does not say otherwise, in the RFC 8707
// resource parameter: scheme and host in lower case, no default port, no
// user information, no fragment, no trailing slash.
func CanonicalURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL", raw)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	if p := u.Port(); (u.Scheme == "http" && p == "80") || (u.Scheme == "https" && p == "443") {
		u.Host = u.Hostname()
		if strings.Contains(u.Host, ":") {
			u.Host = "[" + u.Host + "]"
		}
	}
	u.User, u.Fragment, u.RawFragment = nil, "", ""
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = strings.TrimSuffix(u.RawPath, "/")
	return u.String(), nil
}

// originOf is scheme://host[:port] of an http(s) URL in its canonical form
// (see CanonicalURL: lower case, no default port); "" when it is not one.
func originOf(raw string) string {
	c, err := CanonicalURL(raw)
	if err != nil {
		return ""
	}
	u, _ := url.Parse(c)
	return u.Scheme + "://" + u.Host
}

// SameOrigin is the redirect policy: a redirect is followed only to the same
// scheme, host and port, so configured headers (secrets) never travel to
// another origin or over a downgraded connection.
func SameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return fmt.Errorf("stopped after 10 redirects")
	}
	from := via[0].URL
	if req.URL.Scheme != from.Scheme || req.URL.Host != from.Host {
		return fmt.Errorf("refusing to follow a redirect from %s://%s to another origin (%s://%s)", from.Scheme, from.Host, req.URL.Scheme, req.URL.Host)
	}
	return nil
}

// SSELogHandler passes mcp-go's log records on to inner, and turns the SSE
// transport's complaints about its endpoint (which it only logs, leaving
// the connection to wait for its deadline) into a call of fatal, which
// fails the connection.
func SSELogHandler(inner slog.Handler, fatal func(string)) slog.Handler {
	return &fatalLogHandler{inner: inner, fatal: fatal}
}

type fatalLogHandler struct {
	inner slog.Handler
	fatal func(string)
}

func (h *fatalLogHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelError || h.inner.Enabled(ctx, l)
}

func (h *fatalLogHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError && strings.Contains(strings.ToLower(r.Message), "endpoint") {
		msg := r.Message
		r.Attrs(func(a slog.Attr) bool {
			msg += fmt.Sprintf(" (%s: %v)", a.Key, a.Value)
			return true
		})
		h.fatal("the SSE server sent an unusable endpoint: " + msg)
	}
	if h.inner.Enabled(ctx, r.Level) {
		return h.inner.Handle(ctx, r)
	}
	return nil
}

func (h *fatalLogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &fatalLogHandler{inner: h.inner.WithAttrs(as), fatal: h.fatal}
}

func (h *fatalLogHandler) WithGroup(name string) slog.Handler {
	return &fatalLogHandler{inner: h.inner.WithGroup(name), fatal: h.fatal}
}
