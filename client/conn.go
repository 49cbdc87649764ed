package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	mcpclient "github.com/mark3labs/mcp-go/client"
	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/client/auth"
	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/secret"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// DefaultProtocolVersion is the version mcpx negotiates unless told otherwise.
const DefaultProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION

// ProtocolVersions lists the versions --protocol-version accepts.
func ProtocolVersions() []string { return slices.Clone(mcp.ValidProtocolVersions) }

// Options configure a connection.
type Options struct {
	ProtocolVersion string
	ClientVersion   string
	MessageCeiling  int64                // largest JSON-RPC message accepted
	OnStderr        func(line string)    // every line the server writes on stderr (-v)
	Debug           func(string, ...any) // protocol notes shown with -v
	Note            func(string, ...any) // notes always shown (the SSE fallback)
	Logger          *slog.Logger         // where mcp-go's own logging goes
	// Secrets are the invocation's secrets: masked before a message cuts
	// a server's text short, and added to (stored tokens) as they are
	// read (nil: nothing is masked).
	Secrets *secret.Set
	// UnusableToken, when set, is told of a stored token that cannot be
	// used (see auth.SourceOptions.Unusable); the connection goes on
	// without it.
	UnusableToken func(server string, err error)

	// What the server may ask during an operation (see REQUESTS FROM SERVERS
	// in mcpx(1), and serverreq.go). Elicit, when set, answers elicitations
	// (and the capability is declared); Roots, when not nil, are the roots
	// offered (the user's --root or the server's "roots"; nil declares none).
	Elicit     func(ctx context.Context, e Elicitation) Answer
	Roots      []Root
	OnLog      func(LogMessage) // notifications/message
	OnProgress func(Progress)   // notifications/progress of the request in flight
	// OnNotification, when set, is given the server's other notifications
	// (the changes mcpx watch reports: see watch.go).
	OnNotification func(Notification)
	// LogLevel, when set and the server offers logging, is the level asked
	// for: logging/setLevel (legacy era) or the level every request
	// declares (2026-07-28 era).
	LogLevel string
	// Warm, when set, makes a stdio server's connection a warm one, held
	// by the mcpx daemon (see warm.go).
	Warm *Warm
	// Listen opens the standalone GET stream of a streamable HTTP server
	// (legacy era) before the operation, for the requests a server sends
	// there rather than on the POST's own stream.
	Listen bool
	// Transports remembers the URLs without a "type" that answered as
	// legacy SSE servers, so that they are reached over SSE at once (the
	// zero value remembers nothing).
	Transports auth.Transports

	// HideTool, when set, hides the tools it names from every listing
	// (a server entry's "tools" rules; see headless.go).
	HideTool func(name string) bool
	// TraceParent and TraceState, when TraceParent is set, travel in
	// every request's _meta as traceparent and tracestate (MCP SEP-414).
	TraceParent, TraceState string

	// remembered: this SSE connection is made because Transports said so,
	// and waits at most rememberedSSEWait for the endpoint event.
	remembered bool
}

// rememberedSSEWait bounds the wait for the endpoint event of a URL
// reached over SSE because it answered so before: an SSE server sends it
// at once, and a server that now speaks streamable HTTP at that URL may
// hold the GET open without ever sending one. After it, HTTP is tried.
const rememberedSSEWait = 3 * time.Second

// discoverWait bounds the wait for the answer to server/discover before a
// server that sends none is taken for one that knows only the legacy
// handshake. Over stdio the request is written as the server starts, so
// the bound includes the server's start: a Node.js server on the
// TypeScript SDK takes over a second to load on a busy machine, and a
// bound of 1 s initialized such servers at 2025-11-25 although they speak
// 2026-07-28.
const discoverWait = 5 * time.Second

// discoverWaitWithin is discoverWait, or half of what is left of ctx's
// deadline when that is less, so that the initialize after the wait still
// has time (one TAB's completion budget is 2 s).
func discoverWaitWithin(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return min(discoverWait, time.Until(d)/2)
	}
	return discoverWait
}

// Capabilities are what the server advertised at initialize.
type Capabilities struct {
	Tools       bool `json:"tools"`
	Resources   bool `json:"resources"`
	Prompts     bool `json:"prompts"`
	Completions bool `json:"completions"`
	Logging     bool `json:"logging"`
	// Subscribe: resources.subscribe (not in the JSON documents).
	Subscribe bool `json:"-"`
	// Skills: the server declares the skills extension (see ListSkills).
	Skills bool `json:"-"`
}

// Conn is one initialized connection to one server.
type Conn struct {
	T             *config.Target
	Protocol      string
	ServerName    string
	ServerVersion string
	Caps          Capabilities
	Instructions  string
	Auth          auth.Info // the OAuth state the connection was made with

	mc      *mcpclient.Client
	hooks   *serverHooks
	tap     *tap
	kind    string // the transport connected over
	debug   func(string, ...any)
	secrets *secret.Set // see Options.Secrets
	proc    *transport.Process
	rt      *transport.HTTP
	limit   *transport.Limit
	stop    context.CancelFunc

	mu        sync.Mutex
	phase     string
	closeOnce sync.Once

	lost *lostSignal // the connection is known dead (a stdio leader gone, SSE)

	// What a second connection, made when the server refuses the 2026-07-28
	// era after server/discover accepted it, is made with (see renegotiate).
	opts         Options
	tokens       *auth.Source
	renegotiated bool

	// logLevel is the level every request declares in the 2026-07-28 era
	// (see setLevel); headerTools are the listed tools with x-mcp-header
	// parameters, for the headers of tools/call (see standardHeaders).
	logLevel    string
	headerTools map[string]mcp.Tool

	// warm: the connection goes through the mcpx daemon; warmStderr is
	// the tail of the server's stderr it sent (shared with the connection
	// this one adopts, whose events keep writing it: see adopt).
	warm       bool
	warmStderr *stderrTail
	warmRetry  atomic.Bool // the daemon's http or sse connection failed its handshake
	// warmFirstPost: the HTTP status of its first POST (for the SSE fallback)
	warmFirstPost atomic.Int64

	times timings // the time of each phase (see Timings)
}

// lostSignal is closed when a connection is known dead. The watchers of a
// connection hold its own, so that one left over from a connection
// replaced by another (renegotiate) cannot end the new one.
type lostSignal struct {
	once sync.Once
	ch   chan struct{}
	why  string
}

func newLost() *lostSignal { return &lostSignal{ch: make(chan struct{})} }

// mark records that the connection is dead; requests in flight end now.
func (l *lostSignal) mark(why string) {
	l.once.Do(func() {
		l.why = why
		close(l.ch)
	})
}

// done is the channel closed when the connection is lost (nil, never
// closed, for a connection that has no signal).
func (l *lostSignal) done() <-chan struct{} {
	if l == nil {
		return nil
	}
	return l.ch
}

func (c *Conn) isLost() (string, bool) {
	select {
	case <-c.lost.done():
		return c.lost.why, true
	default:
		return "", false
	}
}

// guard derives a context that ends when the connection is lost.
func (c *Conn) guard(ctx context.Context) (context.Context, context.CancelFunc) {
	gctx, cancel := context.WithCancel(ctx)
	lost := c.lost.done()
	go func() {
		select {
		case <-lost:
			cancel()
		case <-gctx.Done():
		}
	}()
	return gctx, cancel
}

func (c *Conn) setPhase(p string) {
	c.mu.Lock()
	c.phase = p
	c.mu.Unlock()
}

// currentPhase is what the connection was doing last ("start", "initialize", a method).
func (c *Conn) currentPhase() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.phase
}

// Connect starts or reaches the server, and initializes at o.ProtocolVersion.
// ctx bounds the whole connection; on any error everything is cleaned up.
func Connect(ctx context.Context, t *config.Target, o Options) (*Conn, error) {
	if o.ProtocolVersion == "" {
		o.ProtocolVersion = DefaultProtocolVersion
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	tokens := auth.NewSource(ctx, t, auth.SourceOptions{Secrets: o.Secrets, Note: o.Note,
		Unusable: o.UnusableToken})
	c, err := connectVersion(ctx, t, o, tokens)
	if tokens != nil {
		var ae *fail.AuthError
		if errors.As(err, &ae) && tokens.Retry(ctx, ae) {
			// The server refused a stored token it had not expired by our
			// clock (revoked, or a lifetime it did not announce): refresh it
			// once and connect again.
			c, err = connectVersion(ctx, t, o, tokens)
		}
		if errors.As(err, &ae) {
			tokens.Explain(ae)
		}
	}
	if err != nil {
		return nil, err
	}
	c.Auth = tokens.Info()
	return c, nil
}

// connectVersion is connectFallback, again once at the version the server
// names when it refuses the initialize handshake's with -32022: the newest
// of its data.supported that mcpx speaks, with the note any fallback gives
// (see --protocol-version in mcpx(1)).
func connectVersion(ctx context.Context, t *config.Target, o Options, tokens *auth.Source) (*Conn, error) {
	c, err := connectFallback(ctx, t, o, tokens)
	var ce *fail.ConnectError
	if err == nil || ctx.Err() != nil || !errors.As(err, &ce) || ce.Phase != "initialize" {
		return c, err
	}
	refused, ok := asVersionRefusal(err)
	if !ok {
		return c, err
	}
	sent := o.ProtocolVersion
	if mcp.IsModernProtocol(sent) {
		sent = mcp.LATEST_LEGACY_PROTOCOL_VERSION // what the handshake asks for after server/discover
	}
	v := newestLegacy(refused.Known)
	if v == "" || v == sent {
		return c, err
	}
	if o.Debug != nil {
		o.Debug("server %q refused protocol %s at initialize (code %d); initializing at %s", t.Name, sent, mcp.UNSUPPORTED_PROTOCOL_VERSION, v)
	}
	asked := o.ProtocolVersion
	o.ProtocolVersion = v
	c, err = connectFallback(ctx, t, o, tokens)
	if err == nil {
		say := o.Debug // as afterInitialize says it: a note when the 2026 era was asked for
		if mcp.IsModernProtocol(asked) {
			say = o.Note
		}
		if say != nil {
			say("server %q speaks protocol %s, not %s", t.Name, c.Protocol, asked)
		}
	}
	return c, err
}

// connectFallback connects over t's transport, and retries an inferred http
// server over SSE when its first POST got a 4xx other than 401 and 403 (the
// specification's backwards compatibility rule: an SSE server answers 404,
// 405, or 400 as the Go SDK's does).
func connectFallback(ctx context.Context, t *config.Target, o Options, tokens *auth.Source) (*Conn, error) {
	inferred := t.Fallback && t.Transport == config.HTTP
	if inferred && o.Transports.IsSSE(t.URL) {
		// It answered as an SSE server before: SSE at once, with no note.
		// Should SSE fail, it is forgotten, and HTTP is tried first again.
		or := o
		or.remembered = true
		c, err := connect(ctx, t, or, config.SSE, tokens)
		if errors.Is(err, ErrNoWarmTarget) {
			return nil, err // the one a remembered SSE server would have
		}
		if err != nil && c != nil && c.warmRetry.Load() && ctx.Err() == nil {
			or.Warm = nil
			c, err = connect(ctx, t, or, config.SSE, tokens)
		}
		var ae *fail.AuthError
		if err == nil || errors.As(err, &ae) {
			return c, err // an SSE server, asking for authentication or not
		}
		o.Transports.Forget(t.URL)
		if ctx.Err() != nil {
			return c, err
		}
		if o.Debug != nil {
			o.Debug("%s failed over SSE, which it answered before (%v); trying streamable HTTP first", t.URL, err)
		}
	}
	c, err := connect(ctx, t, o, t.Transport, tokens)
	if err != nil && c != nil && c.warmRetry.Load() && ctx.Err() == nil {
		// The daemon's connection failed its handshake. A URL without
		// "type" whose POST got a 4xx falls back to a warm SSE connection;
		// else connect one-shot, for the error (or the authentication) a
		// one-shot connection has.
		if st := int(c.warmFirstPost.Load()); t.Fallback && t.Transport == config.HTTP && sseStatus(st) {
			if o.Note != nil {
				o.Note("%s answered HTTP %d to POST; retrying over SSE", t.URL, st)
			}
			c, err = connect(ctx, t, o, config.SSE, tokens)
			if err != nil && c != nil && c.warmRetry.Load() && ctx.Err() == nil {
				o.Warm = nil
				c, err = connect(ctx, t, o, config.SSE, tokens)
			}
			var ce *fail.ConnectError
			if errors.As(err, &ce) {
				ce.Msg = fmt.Sprintf("over SSE (after HTTP %d to POST): %s", st, ce.Msg)
			}
			rememberSSE(t, o, err)
			return c, err
		}
		o.Warm = nil
		return connectFallback(ctx, t, o, tokens)
	}
	if err != nil && t.Fallback && c != nil && c.rt != nil {
		if st := c.rt.FallbackStatus(); sseStatus(st) && ctx.Err() == nil {
			if o.Note != nil {
				o.Note("%s answered HTTP %d to POST; retrying over SSE", t.URL, st)
			}
			c, err = connect(ctx, t, o, config.SSE, tokens)
			var ce *fail.ConnectError
			if errors.As(err, &ce) {
				ce.Msg = fmt.Sprintf("over SSE (after HTTP %d to POST): %s", st, ce.Msg)
			}
			rememberSSE(t, o, err)
		}
	}
	return c, err
}

// rememberSSE remembers that t's URL answered over SSE, when it did (or
// asked for authentication there: it is an SSE server all the same).
func rememberSSE(t *config.Target, o Options, err error) {
	var ae *fail.AuthError
	if err != nil && !errors.As(err, &ae) {
		return
	}
	if serr := o.Transports.SetSSE(t.URL); serr != nil && o.Debug != nil {
		o.Debug("cannot remember that %s answered over SSE: %v", t.URL, serr)
	}
}

// sseStatus reports whether an HTTP status to the first POST says the
// server may be a legacy SSE server: any 4xx but those of authentication.
func sseStatus(st int) bool {
	return st >= 400 && st < 500 && st != http.StatusUnauthorized && st != http.StatusForbidden
}

// connect returns the half-made Conn alongside an error, so that Connect can
// look at what HTTP said before falling back. Its phases: the transport
// (a server process, or an HTTP or SSE client), mcp-go's client started on
// it, the initialize handshake, then what follows it (the log level).
func connect(ctx context.Context, t *config.Target, o Options, kind string, tokens *auth.Source) (*Conn, error) {
	c := &Conn{T: t, limit: &transport.Limit{}, phase: "start", debug: o.Debug, secrets: o.Secrets, lost: newLost(), kind: kind, opts: o, tokens: tokens}
	c.hooks = &serverHooks{o: o, conn: c}
	// The GET stream is asked for even when the 2026 era is: the tap hides
	// the option from mcp-go's client (RequiresLegacyProtocol), and the
	// stream opens only when the server falls back to the legacy era.
	listen := o.Listen && kind == config.HTTP
	if ctx.Err() != nil { // interrupted or out of time already: start nothing
		return nil, c.classify(ctx, "start", ctx.Err())
	}
	start := time.Now()
	tr, err := c.openTransport(ctx, o, tokens, listen)
	if err != nil {
		return nil, err
	}
	if c.warm {
		listen = false // the daemon holds the standalone GET stream
	}
	wrapped, life, err := c.startClient(ctx, tr, o, listen)
	if err != nil {
		return c, err
	}
	c.times.add(&c.times.t.Connect, time.Since(start))
	start = time.Now()
	if err := c.initialize(ctx, wrapped, life, o); err != nil {
		return c, err
	}
	if err := c.afterInitialize(ctx, o); err != nil {
		return c, err
	}
	c.times.add(&c.times.t.Initialize, time.Since(start))
	return c, nil
}

// openTransport makes the transport of c.kind: it starts a stdio server,
// or sets up the HTTP client of a streamable HTTP or SSE server. An error
// here leaves nothing to close.
func (c *Conn) openTransport(ctx context.Context, o Options, tokens *auth.Source, listen bool) (mcptransport.Interface, error) {
	switch c.kind {
	case config.Stdio:
		if o.Warm != nil && tokens.DPoP() == nil { // the daemon has no DPoP key: one-shot
			tr, err := c.openWarm(ctx, o)
			if err != errOneShot {
				return tr, err
			}
		}
		return c.startProcess(o)
	case config.HTTP, config.SSE:
		if o.Warm != nil {
			tr, err := c.openWarm(ctx, o)
			if err != errOneShot {
				return tr, err
			}
		}
		ho := transport.HTTPOptions{URL: c.T.URL, MessageCeiling: o.MessageCeiling, Limit: c.limit,
			KeepElicitations: o.Elicit != nil && c.kind == config.HTTP, Listen: listen, Answers: c.kind == config.HTTP}
		if tokens != nil {
			ho.Bearer, ho.DPoP = tokens.Bearer, tokens.DPoP
		}
		c.rt = transport.NewHTTP(ho)
		hc := &http.Client{Transport: c.rt, CheckRedirect: transport.SameOrigin}
		var tr mcptransport.Interface
		var err error
		if c.kind == config.HTTP {
			tr, err = c.streamableHTTP(hc, o, listen)
		} else {
			tr, err = c.sse(ctx, hc, o)
		}
		if err != nil {
			return nil, &fail.ConnectError{Server: c.T.Name, Phase: "start", Msg: err.Error(), Err: err}
		}
		return tr, nil
	default:
		return nil, config.Invalid(c.T.Name, fmt.Sprintf("unknown transport %q", c.kind))
	}
}

// startProcess starts a stdio server and frames JSON-RPC over its stdin
// and stdout.
func (c *Conn) startProcess(o Options) (mcptransport.Interface, error) {
	t, lost := c.T, c.lost
	p, err := transport.StartProcess(transport.Command{Path: t.Command, Argv0: t.Argv0, Args: t.Args, Env: t.Env, Dir: t.Dir}, o.OnStderr)
	if err != nil {
		return nil, c.startError(err)
	}
	c.proc = p
	// A leader that exits while something it started holds its stdout
	// leaves no end of stdout to fail the request in flight on.
	go p.WatchDeath(func(status string) { lost.mark("the server " + status) })
	onSkip := func(line string) {
		p.Skipped(line)
		if o.Debug != nil {
			o.Debug("server %q: skipped a non-JSON line on stdout: %s", t.Name, line)
		}
	}
	return transport.NewStdio(p.Stdout(), p.Stdin(), transport.StdioOptions{MessageCeiling: o.MessageCeiling, Limit: c.limit,
		OnSkip: onSkip, Secrets: o.Secrets, Logger: o.Logger}), nil
}

// streamableHTTP is mcp-go's streamable HTTP transport over hc, with the
// standalone GET stream when listen asks for it.
func (c *Conn) streamableHTTP(hc *http.Client, o Options, listen bool) (mcptransport.Interface, error) {
	opts := []mcptransport.StreamableHTTPCOption{mcptransport.WithHTTPHeaders(c.T.Headers),
		mcptransport.WithHTTPBasicClient(hc), mcptransport.WithHTTPLogger(o.Logger)}
	if listen {
		//lint:ignore SA1019 the legacy era's standalone GET stream is what is wanted (never asked for in the 2026 era)
		opts = append(opts, mcptransport.WithContinuousListening())
	}
	return mcptransport.NewStreamableHTTP(c.T.URL, opts...)
}

// sse is mcp-go's legacy SSE transport over hc: it waits for the endpoint
// event at most the time ctx has left, and a closed stream marks the
// connection lost.
func (c *Conn) sse(ctx context.Context, hc *http.Client, o Options) (mcptransport.Interface, error) {
	lost := c.lost
	wait := c.T.Timeout
	if dl, ok := ctx.Deadline(); ok {
		wait = time.Until(dl)
	}
	if o.remembered {
		wait = min(wait, rememberedSSEWait)
	}
	sse, err := mcptransport.NewSSE(c.T.URL, mcptransport.WithHeaders(c.T.Headers), mcptransport.WithHTTPClient(hc),
		mcptransport.WithResponseTimeout(c.T.Timeout+time.Second), mcptransport.WithEndpointTimeout(max(wait, time.Millisecond)),
		mcptransport.WithSSELogger(slog.New(transport.SSELogHandler(o.Logger.Handler(), lost.mark))))
	if err != nil {
		return nil, err
	}
	// A closed stream fails the request in flight at once, instead of
	// leaving it to wait for its deadline.
	sse.SetConnectionLostHandler(func(err error) { lost.mark(fmt.Sprintf("the server closed the SSE stream (%v)", err)) })
	return sse, nil
}

// startClient wraps tr in the tap and starts mcp-go's client on it. It
// returns the wrapped transport and the context the client was started
// with (a lenient initialize starts a second client on them). On an error
// c is closed.
func (c *Conn) startClient(ctx context.Context, tr mcptransport.Interface, o Options, listen bool) (mcptransport.Interface, context.Context, error) {
	wrapped, tapBase := wrapTap(tr, c.hooks)
	c.tap = tapBase
	tapBase.trace = o.traceMeta()
	tapBase.outlive = c.kind == config.SSE && !c.warm
	if listen {
		// The legacy handshake's last step: the server may send its first
		// requests on the GET stream as soon as it is initialized, so the
		// stream is opened and answered first (at most transport.ListenWait).
		tapBase.beforeInitialized = func() {
			c.rt.OpenGate()
			c.awaitListen(ctx)
		}
	}
	c.mc = mcpclient.NewClient(wrapped, mcpclient.WithProtocolVersion(o.ProtocolVersion), mcpclient.WithDiscoverTimeout(max(discoverWaitWithin(ctx), time.Millisecond)))
	c.mc.OnNotification(c.hooks.notification)
	// The Start context owns the stdio child and the SSE stream: it lives
	// until Close, and the per-call deadlines come from ctx.
	life, stop := context.WithCancel(context.Background())
	c.stop = stop
	gctx, gcancel := c.guard(ctx)
	err := startWithin(gctx, func() error { return c.mc.Start(life) })
	gcancel()
	if err != nil {
		e := c.classify(ctx, "connect", err)
		c.Close()
		return nil, nil, e
	}
	return wrapped, life, nil
}

// initialize runs the initialize handshake at o.ProtocolVersion (mcp-go
// negotiates the era and the version) and fills c with what the server
// said. On an error c is closed.
func (c *Conn) initialize(ctx context.Context, wrapped mcptransport.Interface, life context.Context, o Options) error {
	c.setPhase("initialize")
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = o.ProtocolVersion
	req.Params.ClientInfo = mcp.Implementation{Name: "mcpx", Version: o.ClientVersion}
	req.Params.Capabilities = c.hooks.capabilities(c.kind)
	s := &handshake{}
	c.tap.recordHandshake(s)
	gctx, gcancel := c.guard(ctx)
	res, err := c.mc.Initialize(gctx, req)
	gcancel()
	c.tap.recordHandshake(nil)
	if err != nil && !mcp.IsModernProtocol(o.ProtocolVersion) && s.lastError() == nil && s.lastResult() != nil && ctx.Err() == nil &&
		c.limit.Get() == nil && c.limit.Violation() == "" && refusedResult[mcp.InitializeResult](s, "initialize") {
		// mcp-go's typed decoding refused the initialize result (one odd
		// capability value fails it whole): read it leniently instead.
		// The second client counts ids from 1 again: keep them unique.
		c.tap.offsetIDs(1 << 20)
		res, err = c.lenientInitialize(ctx, wrapped, life, s.lastResult(), o)
	}
	if err != nil {
		return c.failInitialize(ctx, err, s)
	}
	if res != nil { // nil after a lenient initialize, which filled c itself
		c.Protocol = res.ProtocolVersion
		c.ServerName, c.ServerVersion = res.ServerInfo.Name, res.ServerInfo.Version
		c.Instructions = res.Instructions
		caps := res.Capabilities
		c.Caps = Capabilities{Tools: caps.Tools != nil, Resources: caps.Resources != nil, Prompts: caps.Prompts != nil,
			Completions: caps.Completions != nil, Logging: caps.Logging != nil,
			Subscribe: caps.Resources != nil && caps.Resources.Subscribe, Skills: hasSkills(caps.Extensions)}
	}
	if o.Debug != nil {
		o.Debug("server %q: %s, protocol %s", c.T.Name, text.Escape(c.clip(c.ServerName+" "+c.ServerVersion, 300)), c.Protocol)
	}
	return nil
}

// initializeReply is the error of a failed initialize (err), and what the
// server answered (see classifyCall): the initialize POST answered with a
// 4xx and a JSON-RPC error (a -32022 naming the versions the server
// speaks, say) is that error, not a hint of an SSE server.
func (c *Conn) initializeReply(err error, s *handshake) (error, error) {
	if errors.Is(err, mcptransport.ErrLegacySSEServer) && c.rt != nil {
		if d := c.rt.LastPostError(); d != nil {
			e := errorReply(*d)
			return e, e
		}
	}
	return err, s.asError(err)
}

// failInitialize closes c and says why initialize failed: a connection
// error for what the server answered, or a timeout, with a stdio server's
// last words on stderr (read once it is stopped).
func (c *Conn) failInitialize(ctx context.Context, err error, s *handshake) error {
	t := c.T
	err, reply := c.initializeReply(err, s)
	var e error
	var known *fail.ConnectError
	var badVersion mcp.UnsupportedProtocolVersionError
	switch {
	case errors.As(err, &known):
		e = known
	case errors.As(err, &badVersion) && s.answered == "initialize":
		// (the result's version: mcp-go reports a -32022 reply with the
		// same type)
		e = &fail.ConnectError{Server: t.Name, Phase: "initialize", Err: err,
			Msg: fmt.Sprintf("the server answered with protocol version %q, which mcpx does not know", c.clip(badVersion.Version, 40))}
	case refusedResult[mcp.InitializeResult](s, "initialize"):
		e = &fail.ConnectError{Server: t.Name, Phase: "initialize", Err: err, Msg: "the initialize result does not follow the schema: " + text.OneLine(c.clip(err.Error(), 200))}
	default:
		e = c.classifyCall(ctx, "initialize", reply, false)
	}
	c.Close()
	if se, ok := e.(*fail.Error); ok {
		switch {
		case se.Code == fail.ServerError && se.What == "method":
			e = &fail.ConnectError{Server: t.Name, Phase: "initialize", Msg: fmt.Sprintf("the server answered initialize with an error: %s (code %d)", se.Said, se.RPC.Code), Err: se}
		case se.Code == fail.Unsupported:
			e = &fail.ConnectError{Server: t.Name, Phase: "initialize", Msg: "the server does not know initialize (method not found); is it an MCP server?", Err: se}
		}
	}
	if ce, ok := e.(*fail.ConnectError); ok {
		ce.Msg = "initialize failed: " + ce.Msg
		if c.proc != nil || c.warm {
			ce.Stderr = c.Stderr(10)
		}
	}
	if te, ok := e.(*fail.TimeoutError); ok && (c.proc != nil || c.warm) {
		te.Stderr = c.Stderr(10)
	}
	return e
}

// afterInitialize asks for the log level mcpx shows, and says when the
// server speaks another protocol version than the one asked for. On an
// error c is closed.
func (c *Conn) afterInitialize(ctx context.Context, o Options) error {
	level := o.LogLevel
	if level == "" && o.OnLog != nil && mcp.IsModernProtocol(c.Protocol) {
		// The 2026-07-28 era sends no log message to a request that
		// declares no level: declare the lowest mcpx shows.
		level = "warning"
	}
	if level != "" && c.Caps.Logging {
		if err := c.setLevel(ctx, level); err != nil {
			c.Close()
			return err
		}
	}
	if c.Protocol != o.ProtocolVersion {
		say := o.Debug // servers negotiating an older version is ordinary
		if mcp.IsModernProtocol(o.ProtocolVersion) {
			say = o.Note // but asking for the 2026 era and not getting it is worth saying
		}
		if say != nil {
			say("server %q speaks protocol %s, not %s", c.T.Name, c.Protocol, o.ProtocolVersion)
		}
	}
	return nil
}

// clip masks secrets, then shortens s to n characters.
func (c *Conn) clip(s string, n int) string {
	return text.Truncate(c.secrets.Mask(s), n)
}

// shown makes a server-originated string fit in a human message: secrets
// masked first (so that none is cut into a printable prefix), then shown
// on one line, at most text.MaxShown characters (see text.OneLine). Only
// a window at its start is masked: a server's 10 MiB error message is
// never copied whole to show 500 characters of it.
func (c *Conn) shown(s string) string {
	return text.OneLine(c.secrets.Window(strings.TrimLeftFunc(s, unicode.IsSpace), text.ClipWindow))
}

// lenientInitialize completes a legacy handshake whose result mcp-go could
// not decode: it reads what it can from the raw result (a capability is
// advertised when its key is present and not null), sends
// notifications/initialized, and carries on with a client that counts as
// initialized. It returns a nil result; c is filled in directly.
func (c *Conn) lenientInitialize(ctx context.Context, tr mcptransport.Interface, life context.Context, raw json.RawMessage, o Options) (*mcp.InitializeResult, error) {
	var r map[string]json.RawMessage
	if err := json.Unmarshal(raw, &r); err != nil || r == nil {
		return nil, &fail.ConnectError{Server: c.T.Name, Phase: "initialize", Msg: "the initialize result is not a JSON object"}
	}
	str := func(raw json.RawMessage) string {
		var v string
		_ = json.Unmarshal(raw, &v)
		return v
	}
	version := str(r["protocolVersion"])
	if !mcp.IsValidProtocolVersion(version) {
		return nil, &fail.ConnectError{Server: c.T.Name, Phase: "initialize", Msg: fmt.Sprintf("the server answered with protocol version %q, which mcpx does not know", c.clip(version, 40))}
	}
	var caps, info map[string]json.RawMessage
	_ = json.Unmarshal(r["capabilities"], &caps) // not an object: nothing advertised
	_ = json.Unmarshal(r["serverInfo"], &info)
	has := func(k string) bool {
		v, ok := caps[k]
		return ok && string(v) != "null" && string(v) != "false"
	}
	mc := mcpclient.NewClient(tr, mcpclient.WithSession(), mcpclient.WithProtocolVersion(version))
	mc.OnNotification(c.hooks.notification)
	if err := mc.Start(life); err != nil {
		return nil, err
	}
	if hc, ok := tr.(mcptransport.HTTPConnection); ok {
		hc.SetProtocolVersion(version)
	}
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: string(mcp.MethodNotificationInitialized)}}
	if err := tr.SendNotification(ctx, n); err != nil {
		return nil, err
	}
	c.mc = mc
	c.Protocol = version
	c.ServerName, c.ServerVersion = str(info["name"]), str(info["version"])
	c.Instructions = str(r["instructions"])
	var ext map[string]any
	_ = json.Unmarshal(caps["extensions"], &ext)
	c.Caps = Capabilities{Tools: has("tools"), Resources: has("resources"), Prompts: has("prompts"),
		Completions: has("completions"), Logging: has("logging"), Subscribe: gjson.GetBytes(caps["resources"], "subscribe").Bool(), Skills: hasSkills(ext)}
	if o.Note != nil {
		o.Note("server %q sent an initialize result that does not follow the schema; using what could be read of it", c.T.Name)
	}
	return nil, nil
}

// startWithin runs start, giving up when ctx ends (the SSE endpoint wait).
func startWithin(ctx context.Context, start func() error) error {
	done := make(chan error, 1)
	go func() { done <- start() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Conn) startError(err error) error {
	e := &fail.ConnectError{Server: c.T.Name, Phase: "start", Msg: "cannot start the server: " + err.Error(), Err: err}
	var ee *exec.Error
	if errors.As(err, &ee) {
		e.Msg = fmt.Sprintf("cannot start the server: %s: %v", c.T.Command, ee.Err)
		if errors.Is(ee.Err, exec.ErrNotFound) {
			e.Command = c.T.Command
		}
	}
	return e
}

// Close ends the connection; a stdio server is stopped as SERVER PROCESSES in
// mcpx(1) says. It is safe to call more than once.
func (c *Conn) Close() {
	c.closeOnce.Do(c.close)
}

func (c *Conn) close() {
	if c.warm && c.opts.OnStderr != nil && c.tap != nil {
		c.flushStderr()
	}
	if c.mc != nil {
		done := make(chan struct{})
		go func() {
			_ = c.mc.Close()
			close(done)
		}()
		if c.proc != nil {
			c.proc.Stop()
		}
		select {
		case <-done:
		case <-time.After(transport.StopTerm):
		}
	} else if c.proc != nil {
		c.proc.Stop()
	}
	if c.stop != nil {
		c.stop()
	}
}

// Stderr returns the last lines the server wrote on stderr (stdio only),
// each masked and clipped as a human message quotes it (see shown).
func (c *Conn) Stderr(n int) []string {
	var lines []string
	switch {
	case c.proc != nil:
		lines = c.proc.Stderr(n)
	case c.warm:
		lines = c.warmStderr.last(n)
	default:
		return nil
	}
	for i, l := range lines {
		lines[i] = c.shown(l)
	}
	return lines
}

// callRaw runs one request of method (send sends it, see Conn.request)
// and returns the raw result the server sent: mcpx parses results itself.
//
// A server that accepted the 2026-07-28 era at server/discover and then
// refuses it (-32022, as the Go SDK's stateful HTTP server does) is
// connected to again in the legacy era, once, and the request sent again
// (see renegotiate): send reads c's state when it runs.
func (c *Conn) callRaw(ctx context.Context, method string, send func(context.Context) (json.RawMessage, error)) (json.RawMessage, error) {
	raw, err := c.callRawOnce(ctx, method, send)
	if refused, ok := asVersionRefusal(err); ok && mcp.IsModernProtocol(c.Protocol) && !c.renegotiated && c.mc != nil {
		if err := c.renegotiate(ctx, method, refused); err != nil {
			return nil, err
		}
		return c.callRawOnce(ctx, method, send)
	}
	return raw, err
}

// renegotiate replaces the connection, whose 2026-07-28 era the server
// refused during method, by a new one (a new session, or a new stdio
// server) initialized at the newest legacy version both sides speak: the
// newest of the versions it supports (refused.Known) that mcpx knows (the default version when the
// server named none), with the note any fallback from the 2026-07-28 era
// gives.
func (c *Conn) renegotiate(ctx context.Context, method string, refused *fail.Error) error {
	c.renegotiated = true
	version := DefaultProtocolVersion
	if len(refused.Known) > 0 {
		if version = newestLegacy(refused.Known); version == "" {
			return &fail.ConnectError{Server: c.T.Name, Phase: method, Err: refused,
				Msg: fmt.Sprintf("the server refused protocol %s during %s and speaks only %s, which mcpx does not",
					c.Protocol, method, c.clip(strings.Join(refused.Known, ", "), 200))}
		}
	}
	if c.debug != nil {
		c.debug("server %q refused protocol %s during %s (code %d); connecting again at %s", c.T.Name, c.Protocol, method, mcp.UNSUPPORTED_PROTOCOL_VERSION, version)
	}
	asked := c.opts.ProtocolVersion
	o := c.opts
	o.ProtocolVersion = version
	c.close()
	c.mc, c.proc, c.stop = nil, nil, nil // closed: Close has nothing more to do with them
	n, err := connect(ctx, c.T, o, c.kind, c.tokens)
	if err != nil {
		return err
	}
	c.adopt(n)
	if o.Note != nil {
		o.Note("server %q speaks protocol %s, not %s", c.T.Name, c.Protocol, asked)
	}
	return nil
}

// ConfirmEra makes sure that a server that accepted the 2026-07-28 era at
// server/discover also serves requests in it, as servers --probe must
// report what an operation would get: it asks for the first page of the
// first listing the server advertises, so that a server that then refuses
// the era (-32022) is connected to again at a legacy version, with its
// note, as any operation would be (see renegotiate). Nothing is sent in a
// legacy era, or to a server that advertises no listing. What the listing
// itself answers is not this check's concern; a failed renegotiation, a
// dead connection or a timeout is returned.
func (c *Conn) ConfirmEra(ctx context.Context) error {
	if !mcp.IsModernProtocol(c.Protocol) {
		return nil
	}
	for _, k := range Kinds {
		if !c.Advertised(k) {
			continue
		}
		spec := listSpecs[k]
		_, err := c.callRaw(ctx, spec.method, func(ctx context.Context) (json.RawMessage, error) {
			return c.plain(ctx, spec.method, spec.params(""))
		})
		var ce *fail.ConnectError
		var te *fail.TimeoutError
		if errors.As(err, &ce) || errors.As(err, &te) || err != nil && ctx.Err() != nil {
			return err
		}
		return nil
	}
	return nil
}

// newestLegacy is the newest version of versions that mcpx speaks and
// negotiates with the initialize handshake ("" when none).
func newestLegacy(versions []string) string {
	best := ""
	for _, v := range versions {
		if mcp.IsValidProtocolVersion(v) && !mcp.IsModernProtocol(v) && v > best {
			best = v
		}
	}
	return best
}

// adopt makes c the connection n is (renegotiate): n's session, transport,
// server process and what the server said at initialize. What n's
// watchers and handlers hold (its lost signal, its hooks) is n's and stays
// valid for c.
func (c *Conn) adopt(n *Conn) {
	c.setPhase(n.currentPhase())
	c.Protocol, c.ServerName, c.ServerVersion, c.Caps, c.Instructions = n.Protocol, n.ServerName, n.ServerVersion, n.Caps, n.Instructions
	c.mc, c.hooks, c.tap, c.kind, c.proc, c.rt, c.limit, c.stop, c.lost = n.mc, n.hooks, n.tap, n.kind, n.proc, n.rt, n.limit, n.stop, n.lost
	c.logLevel, c.headerTools = n.logLevel, n.headerTools
	n.times.mu.Lock()
	c.times.mu.Lock()
	c.times.t.Connect += n.times.t.Connect
	c.times.t.Initialize += n.times.t.Initialize
	c.times.mu.Unlock()
	n.times.mu.Unlock()
	c.warm, c.warmStderr = n.warm, n.warmStderr
}

// callRawOnce is callRaw without the renegotiation.
func (c *Conn) callRawOnce(ctx context.Context, method string, send func(context.Context) (json.RawMessage, error)) (json.RawMessage, error) {
	c.setPhase(method)
	if c.debug != nil {
		c.debug("server %q: request %s", c.T.Name, method)
	}
	refusals := c.hooks.refusals()
	gctx, cancel := c.guard(ctx)
	start := time.Now()
	raw, err := send(gctx)
	if method != "logging/setLevel" { // counted with the handshake
		c.count(method, start)
	}
	cancel()
	c.hooks.endCall()
	refused := c.hooks.refusals() > refusals
	if reply := (*replyError)(nil); errors.As(err, &reply) && reply.Broken != "" {
		return nil, c.classifyCall(ctx, method, err, refused)
	}
	var unanswered *unansweredError
	if errors.As(err, &unanswered) && ctx.Err() != nil {
		c.cancelled(unanswered.ID, method, context.Cause(ctx))
	}
	if err == nil && c.limit.Violation() != "" {
		// The answer came, but the framing broke meanwhile (the server
		// answered twice, say): the connection is not to be trusted.
		return nil, c.classify(ctx, method, mcptransport.ErrTransportClosed)
	}
	if err == nil {
		return raw, nil
	}
	return nil, c.classifyCall(ctx, method, err, refused)
}

// cancelTimeout bounds the sending of notifications/cancelled: the server
// is stopped right after it.
const cancelTimeout = 250 * time.Millisecond

// cancelled tells the server to stop working on request id, which mcpx
// abandoned (interrupted, or out of time), before the server is stopped or the
// session closed (see REQUESTS FROM SERVERS in mcpx(1)). Over HTTP in the
// 2026-07-28 era the aborted POST is the cancellation, and nothing is sent
// (a warm connection tells the daemon, which aborts its POST).
func (c *Conn) cancelled(id mcp.RequestId, method string, why error) {
	if c.tap == nil || (c.kind != config.Stdio && mcp.IsModernProtocol(c.Protocol) && !c.warm) {
		return
	}
	reason := "mcpx was interrupted"
	var r CancelReasoner
	switch {
	case errors.Is(why, context.DeadlineExceeded):
		reason = "mcpx timed out"
	case errors.As(why, &r) && r.CancelReason() != "":
		reason = r.CancelReason()
	}
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: string(mcp.MethodNotificationCancelled),
		Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": reason}},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), cancelTimeout)
	defer cancel()
	err := c.tap.inner.SendNotification(ctx, n)
	if c.debug != nil {
		if err != nil {
			c.debug("server %q: could not send notifications/cancelled for %s (request %s): %v", c.T.Name, method, fmt.Sprint(id.Value()), err)
		} else {
			c.debug("server %q: sent notifications/cancelled for %s (request %s)", c.T.Name, method, fmt.Sprint(id.Value()))
		}
	}
}

// awaitListen waits until the server has answered the standalone GET
// stream, so that a request it sends there during the operation is not
// sent before the stream exists (see transport.HTTP.AwaitListening).
func (c *Conn) awaitListen(ctx context.Context) {
	if c.rt != nil && !c.rt.AwaitListening(ctx) && c.debug != nil {
		c.debug("server %q: no answer to the GET stream within %s; going on without waiting", c.T.Name, transport.ListenWait)
	}
}

// setLevel asks the server for log messages from level up: logging/setLevel
// in the legacy era (a refusal is only a debug note), the level each
// request declares in the 2026-07-28 era.
func (c *Conn) setLevel(ctx context.Context, level string) error {
	if mcp.IsModernProtocol(c.Protocol) {
		// Nothing is sent: each request declares the level.
		c.logLevel = level
		if c.debug != nil {
			c.debug("server %q: requests declare the log level %s", c.T.Name, level)
		}
		return nil
	}
	_, err := c.callRaw(ctx, "logging/setLevel", func(ctx context.Context) (json.RawMessage, error) {
		return c.plain(ctx, "logging/setLevel", mcp.SetLevelParams{Level: mcp.LoggingLevel(level)})
	})
	if err != nil && ctx.Err() != nil {
		return err // out of time (or interrupted) during logging/setLevel
	}
	if err != nil && c.debug != nil {
		c.debug("server %q: logging/setLevel %s failed: %v", c.T.Name, level, err)
	}
	return nil
}
