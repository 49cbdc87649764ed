package commands

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/output"
)

// watchOptions are watch's arguments and flags.
type watchOptions struct {
	Server string
	URIs   []string
	Lists  bool
	Exec   []string // --exec -- CMD ARGS...
	Count  int      // --count; 0: no end
}

// Reconnection: the first wait, and the longest (see WATCHING in mcpx(1)).
var (
	backoffFirst = 500 * time.Millisecond
	backoffMax   = 30 * time.Second
)

// unsubscribeWait bounds the unsubscribing at the end.
const unsubscribeWait = 2 * time.Second

// A legacy-era watch over HTTP or SSE pings the server every pingEvery,
// waiting pingWait for the answer: a server gone is known only so (its
// GET stream may just go quiet).
const (
	pingEvery = 30 * time.Second
	pingWait  = 10 * time.Second
)

func (a *app) newWatchCmd() *cli.Command {
	o := &watchOptions{}
	var exe bool
	return &cli.Command{
		Name:      "watch",
		Usage:     "print a server's changes as they happen, or run a command for each",
		ArgsUsage: "SRV [URI ...] [--lists] [--exec -- CMD [ARGS ...]]",
		Description: "Holds one connection and prints one event a line: TIME  EVENT  TARGET, or with --json one JSON " +
			"object a line. Events: resource_updated (a URI given), list_changed (--lists: tools, prompts, resources), " +
			"reconnected (the connection was lost and made again; changes in between were missed). In the 2026-07-28 " +
			"era one subscriptions/listen request carries them; before it, resources/subscribe per URI. --exec runs CMD " +
			"for each event instead, one at a time, with MCPX_EVENT, MCPX_SERVER, MCPX_URI and MCPX_KIND in its " +
			"environment; the events that arrive while it runs are coalesced per target. --timeout bounds connecting " +
			"and subscribing only.\n\n" +
			"EXIT STATUS: 0 after --count events, 2 usage, 3 connection, 4 no such server, 5 the server offers no " +
			"resource subscriptions (for URIs), 6 authentication, 7 timeout, 129/130/143 SIGHUP/SIGINT/SIGTERM " +
			"(after unsubscribing), 141 stdout closed.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "lists", Usage: "report the tools, prompts and resources lists changing", Destination: &o.Lists},
			&cli.BoolFlag{Name: "exec", Usage: "run the command after -- for each event instead of printing it", Destination: &exe},
			&cli.IntFlag{Name: "count", Usage: "exit 0 after `N` events", Destination: &o.Count},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := o.parse(cmd.Args().Slice(), a.args, exe, cmd.IsSet("count")); err != nil {
				return err
			}
			if a.g.selectSet {
				return usagef("watch prints one JSON object a line: --select cannot be used with it")
			}
			return a.watch(ctx, o)
		},
	}
}

// parse splits the arguments into SRV, the URIs and the command after
// "--" (found in the command line as given, args).
func (o *watchOptions) parse(rest, args []string, exe, countSet bool) error {
	rest = o.splitExec(rest, args)
	switch {
	case exe && len(o.Exec) == 0:
		return usagef("--exec needs a command after --: mcpx watch SRV URI --exec -- CMD ARGS...")
	case !exe && len(o.Exec) > 0:
		return usagef("a command after -- needs --exec")
	case len(rest) == 0:
		return usagef("watch takes SRV and the URIs to watch (or --lists), got no arguments")
	case len(rest) == 1 && !o.Lists:
		return usagef("watch %s: name the URIs to watch, or --lists", rest[0])
	case countSet && o.Count < 1:
		return usagef("--count must be at least 1, not %d", o.Count)
	}
	o.Server, o.URIs = rest[0], slices.Compact(slices.Sorted(slices.Values(rest[1:])))
	if len(o.Exec) == 0 {
		return nil
	}
	if _, err := exec.LookPath(o.Exec[0]); err != nil {
		return usagef("--exec: %s: %v", o.Exec[0], errors.Unwrap(err))
	}
	return nil
}

// splitExec takes the command after "--" of the command line (args) off
// the arguments (rest) into o.Exec, and returns the others.
func (o *watchOptions) splitExec(rest, args []string) []string {
	i := slices.Index(args, "--")
	if i < 0 {
		return rest
	}
	o.Exec = slices.Clone(args[i+1:])
	if n := len(rest) - len(o.Exec); n >= 0 && slices.Equal(rest[n:], o.Exec) {
		return rest[:n]
	}
	return rest
}

// watcher is one run of mcpx watch.
type watcher struct {
	a *app
	o *watchOptions
	t *config.Target
	q *eventQueue

	mu     sync.Mutex
	listen *client.Listening // the 2026-07-28 era's request in flight
	// rejoin: the connection is being made again, and the reconnected
	// event not yet queued (it goes before the first event of the new one)
	rejoin bool
	// gen counts the reconnected events queued (see watchEvent.Gen)
	gen atomic.Int64
	// heard: an event of the server's came: the watch was made, so a
	// connection lost from then on is made again, even before the first
	// subscription is acknowledged (a server may send its events first)
	heard atomic.Bool
}

// rejoined queues the reconnected event, once a reconnection is made
// (and before any event of the new connection).
func (w *watcher) rejoined() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.rejoin {
		w.rejoin = false
		w.gen.Add(1)
		w.q.push(w.event(eventReconnected, "", ""))
	}
}

func (a *app) watch(ctx context.Context, o *watchOptions) error {
	t, err := a.target(o.Server)
	if err != nil {
		return err
	}
	w := &watcher{a: a, o: o, t: t, q: newEventQueue()}
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	consumed := make(chan error, 1)
	go func() { consumed <- w.consume(cctx) }()
	wait := backoffFirst
	for attempt := 0; ; attempt++ {
		s, ack, err := w.establish(ctx)
		if err != nil {
			if (attempt == 0 && !w.heard.Load()) || ctx.Err() != nil {
				return err
			}
			if attempt == 0 {
				// Events came before the listen request was acknowledged,
				// then the connection was lost: as a loss after it.
				a.log.Note("lost the connection to server %q (%s); reconnecting in %s", t.Name, a.line(err.Error(), 300), wait)
				w.mu.Lock()
				w.rejoin, w.listen = true, nil
				w.mu.Unlock()
			} else {
				a.log.Note("cannot reconnect to server %q: %s; trying again in %s", t.Name, a.line(err.Error(), 300), wait)
			}
			if !pause(ctx, wait) {
				return ctx.Err()
			}
			wait = min(2*wait, backoffMax)
			continue
		}
		w.warnUnacknowledged(ack)
		if attempt > 0 {
			a.log.Note("reconnected to server %q; changes in between were missed", t.Name)
			w.rejoined()
		}
		wait = backoffFirst
		why, err := w.hold(ctx, s, consumed)
		if why == "" {
			return err
		}
		a.log.Note("lost the connection to server %q (%s); reconnecting in %s", t.Name, why, wait)
		w.mu.Lock()
		w.rejoin, w.listen = true, nil
		w.mu.Unlock()
		if !pause(ctx, wait) {
			return ctx.Err()
		}
		wait = min(2*wait, backoffMax)
	}
}

// pause waits d; false when ctx ends first.
func pause(ctx context.Context, d time.Duration) bool {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// watching is one connection of a watch and what ends its subscription.
type watching struct {
	s      *session
	cancel context.CancelFunc // ends the listen request (2026-07-28 era)
	l      *client.Listening
}

// establish connects and subscribes, under --timeout; ack is what the
// server acknowledged in the 2026-07-28 era (nil before it).
func (w *watcher) establish(ctx context.Context) (*watching, *client.ListenFilter, error) {
	s, err := w.a.connect(ctx, w.t, connectOptions{listen: true, notify: w.notified, noWarm: true})
	if err != nil {
		return nil, nil, err
	}
	ws := &watching{s: s}
	if !s.conn.Modern() {
		for _, u := range w.o.URIs {
			if err := s.conn.Subscribe(s.ctx, u); err != nil {
				s.close()
				return nil, nil, err
			}
		}
		s.clk.pause() // --timeout bounds connecting and subscribing only
		return ws, nil, nil
	}
	lctx, cancel := context.WithCancel(s.ctx)
	filter := client.ListenFilter{URIs: w.o.URIs, Tools: w.o.Lists, Prompts: w.o.Lists, Resources: w.o.Lists}
	l, err := s.conn.Listen(lctx, filter)
	if err != nil {
		cancel()
		s.close()
		return nil, nil, err
	}
	w.mu.Lock()
	w.listen = l
	w.mu.Unlock()
	ws.cancel, ws.l = cancel, l
	select {
	case ack := <-l.Acked:
		s.clk.pause()
		return ws, &ack, nil
	case err := <-l.Done:
		cancel()
		s.close()
		if err == nil {
			err = fmt.Errorf("server %q ended subscriptions/listen before acknowledging it", w.t.Name)
		}
		return nil, nil, err
	}
}

// warnUnacknowledged warns of what the server did not acknowledge.
func (w *watcher) warnUnacknowledged(ack *client.ListenFilter) {
	if ack == nil {
		return
	}
	for _, u := range w.o.URIs {
		if !slices.Contains(ack.URIs, u) {
			w.a.log.Warnf("server %q did not acknowledge the subscription to %s: no updates of it will come", w.t.Name, w.a.line(u, 300))
		}
	}
	if !w.o.Lists {
		return
	}
	for _, l := range []struct {
		kind string
		ok   bool
	}{{"tools", ack.Tools}, {"prompts", ack.Prompts}, {"resources", ack.Resources}} {
		if !l.ok {
			w.a.log.Warnf("server %q did not acknowledge list changes of its %s: none will be reported", w.t.Name, l.kind)
		}
	}
}

// hold keeps the subscription until the watch ends (why "", and err: the
// interrupt, or what ended the events) or the connection is lost (why).
func (w *watcher) hold(ctx context.Context, ws *watching, consumed <-chan error) (why string, err error) {
	var done <-chan error
	if ws.l != nil {
		done = ws.l.Done
	}
	gone := ws.s.conn.Lost()
	var silent <-chan string
	if ws.l == nil && w.t.Transport != config.Stdio {
		silent = w.pinging(ctx, ws)
	}
	select {
	case why = <-silent:
	case <-ctx.Done():
		w.end(ws)
		return "", ctx.Err()
	case err := <-consumed:
		w.end(ws)
		return "", err
	case <-gone:
		why = "the server exited"
	case err := <-done:
		why = w.ended(ws, err)
	}
	if ws.cancel != nil {
		ws.cancel()
	}
	ws.s.close()
	return why, nil
}

// pinging pings the server every pingEvery until the watch's connection
// ends; a ping that fails sends why on the channel returned.
func (w *watcher) pinging(ctx context.Context, ws *watching) <-chan string {
	out := make(chan string, 1)
	go func() {
		tick := time.NewTicker(pingEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ws.s.ctx.Done():
				return
			case <-tick.C:
			}
			pctx, cancel := context.WithTimeout(ws.s.ctx, pingWait)
			err := ws.s.conn.Ping(pctx)
			cancel()
			if err != nil && !answered(err) && ctx.Err() == nil && ws.s.ctx.Err() == nil {
				out <- "the server did not answer a ping: " + w.a.line(err.Error(), 300)
				return
			}
		}
	}()
	return out
}

// answered reports whether a failed ping was answered all the same (an
// error reply, "method not found" among them): the server is there.
func answered(err error) bool {
	_, replied := client.AsServerError(err)
	return replied || fail.Is(err, fail.Unsupported)
}

// ended says why the listen request ended: the server closed the
// stream, or the connection failed (a stdio server that exits fails the
// request just before its connection is known lost: that is waited for,
// so that the note says the same either way).
func (w *watcher) ended(ws *watching, err error) string {
	if err == nil {
		return "the server ended the subscription"
	}
	if w.t.Transport == config.Stdio {
		select {
		case <-ws.s.conn.Lost():
			return "the server exited"
		case <-time.After(time.Second):
		}
	}
	return w.a.line(err.Error(), 300)
}

// end unsubscribes (or cancels the listen request) and closes.
func (w *watcher) end(ws *watching) {
	if ws.cancel != nil {
		ws.cancel() // the server is told that the request is cancelled
		select {
		case <-ws.l.Done:
		case <-time.After(unsubscribeWait):
		}
		ws.s.close()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), unsubscribeWait)
	defer cancel()
	for _, u := range w.o.URIs {
		if err := ws.s.conn.Unsubscribe(ctx, u); err != nil {
			w.a.log.Debug("server %q: resources/unsubscribe %s: %v", w.t.Name, u, err)
		}
	}
	ws.s.close()
}

// event is an event of this watch, now.
func (w *watcher) event(name, uri, kind string) watchEvent {
	now := time.Now().UTC()
	return watchEvent{Time: now, Stamp: now.Format("2006-01-02T15:04:05.000Z"), Server: w.t.Name, Event: name, URI: uri, Kind: kind,
		Gen: int(w.gen.Load())}
}

// listKinds maps the list_changed notifications to their kinds.
var listKinds = map[string]string{
	client.NotifyToolsChanged:     "tools",
	client.NotifyPromptsChanged:   "prompts",
	client.NotifyResourcesChanged: "resources",
}

// notified turns a server's notification into an event (called by the
// connection, as the notification arrives).
func (w *watcher) notified(n client.Notification) {
	w.mu.Lock()
	l := w.listen
	w.mu.Unlock()
	if l != nil {
		if l.Acknowledge(n) {
			return
		}
		if n.SubscriptionID != l.ID && n.SubscriptionID != "" {
			w.a.log.Debug("server %q: %s not of the subscription %s: ignored", w.t.Name, n.Method, l.ID)
			return
		}
		// One that carries no subscription id at all is taken as this
		// stream's: servers over stdio may not tag their notifications.

	}
	var name, uri, kind string
	switch k, ok := listKinds[n.Method]; {
	case ok && w.o.Lists:
		name, kind = eventListChanged, k
	case n.Method == client.NotifyResourceUpdated:
		uri = gjson.GetBytes(n.Params, "uri").String()
		if _, found := slices.BinarySearch(w.o.URIs, uri); !found {
			return
		}
		name = eventUpdated
	default:
		return
	}
	w.heard.Store(true)
	w.rejoined()
	w.q.push(w.event(name, uri, kind))
}

// consume prints or runs the events as they come; it ends (nil) after
// --count of them, or at a write that fails.
func (w *watcher) consume(ctx context.Context) error {
	for n := 0; w.o.Count == 0 || n < w.o.Count; n++ {
		e, ok := w.q.pop(ctx)
		if !ok {
			return ctx.Err()
		}
		if err := w.deliver(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// deliver prints e, or runs --exec's command for it.
func (w *watcher) deliver(ctx context.Context, e watchEvent) error {
	if len(w.o.Exec) > 0 {
		w.run(ctx, e)
		return nil
	}
	if w.a.g.json {
		doc, err := output.Marshal(e)
		if err != nil {
			return err
		}
		return w.a.s.WriteJSONLine(doc)
	}
	_, err := fmt.Fprintf(w.a.s.Out, "%s  %s  %s\n", e.Stamp, e.Event, w.a.line(e.target(), 1000))
	return err
}

// run runs --exec's command for e, and notes how it failed.
func (w *watcher) run(ctx context.Context, e watchEvent) {
	cmd := exec.CommandContext(ctx, w.o.Exec[0], w.o.Exec[1:]...)
	cmd.Env = append(slices.Clone(w.a.environ), "MCPX_EVENT="+e.Event, "MCPX_SERVER="+e.Server, "MCPX_URI="+e.URI, "MCPX_KIND="+e.Kind)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, w.a.s.Data, os.Stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil || ctx.Err() != nil:
	case errors.As(err, &ee):
		w.a.log.Note("--exec: %s exited with status %d for %s %s", shellArg(w.o.Exec[0]), ee.ExitCode(), e.Event, w.a.line(e.target(), 300))
	default:
		w.a.log.Note("--exec: %s: %s", shellArg(w.o.Exec[0]), strings.TrimSpace(err.Error()))
	}
}
