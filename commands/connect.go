package commands

// One connection of a command: the server a SRV argument or a config entry
// names, resolved; the clock of its --timeout; and what mcpx offers the
// server and shows of it while it works (see REQUESTS FROM SERVERS in
// mcpx(1)): roots, log messages and the progress line. Elicitations are
// answered in ask.go.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/client/auth"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/limits"
)

// target finds and resolves the server a SRV argument names.
func (a *app) target(arg string) (*config.Target, error) {
	if config.IsURL(arg) {
		// A URL needs no config file (and a broken one does not stop it).
		if u, err := url.Parse(arg); err == nil {
			a.s.Secrets().Add(config.URLSecrets(u)...)
		}
		srv, err := (&config.Config{}).Lookup(arg, a.self)
		if err != nil {
			return nil, err
		}
		return a.resolve(srv)
	}
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	srv, err := cfg.Lookup(arg, a.self)
	if nf, ok := fail.As(err, fail.NotFound); ok && nf.What == "server" {
		nf.Hints = append(unknownServerHints(cfg, arg), nf.Hints...)
	}
	if err != nil {
		return nil, err
	}
	return a.resolve(srv)
}

// hostPort is the start of a URL without its scheme: a host (a name, an
// IPv4 address or a bracketed IPv6 one), a port or a path after it.
var hostPort = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(localhost|[0-9]{1,3}(\.[0-9]{1,3}){3}|\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+)(:[0-9]{1,5})?([/?].*)?$`)
})

// unknownServerHints say what a SRV argument that names no server may
// have meant: a URL without its scheme (127.0.0.1:3917/mcp), or, for
// NAME@SOURCE, the sources that do define NAME, a source name misspelled,
// or a source that has no servers here.
func unknownServerHints(cfg *config.Config, arg string) []string {
	if m := hostPort().FindStringSubmatch(arg); m != nil && (m[4] != "" || m[5] != "") {
		scheme := "https://"
		if h := m[1]; h == "localhost" || strings.HasPrefix(h, "127.") || h == "[::1]" || h == "0.0.0.0" {
			scheme = "http://"
		}
		return []string{fmt.Sprintf("a URL needs its scheme: did you mean %s?", shellArg(scheme+arg))}
	}
	i := strings.LastIndexByte(arg, '@')
	if i <= 0 || i == len(arg)-1 {
		return nil
	}
	name, src := arg[:i], arg[i+1:]
	var defined []string
	origins := map[string]bool{}
	for _, s := range cfg.All {
		origins[s.Origin] = true
		if s.Name == name {
			defined = append(defined, shellArg(name+"@"+s.Origin))
		}
	}
	sources := config.Sources()
	switch {
	case !slices.Contains(sources, src):
		h := fmt.Sprintf("%q is not a source", src)
		var like []string
		for _, s := range sources {
			if strings.HasPrefix(s, src) || nearest(src, []string{s}) != "" {
				like = append(like, shellArg(name+"@"+s))
			}
		}
		if n := len(like); n > 0 {
			alt := like[n-1]
			if n > 1 {
				alt = strings.Join(like[:n-1], ", ") + " or " + alt
			}
			h += "; did you mean " + alt + "?"
		} else {
			h += " (the sources: " + strings.Join(sources, ", ") + ")"
		}
		hints := []string{h}
		if len(defined) > 0 {
			hints = append(hints, fmt.Sprintf("%q is defined as %s", name, strings.Join(defined, ", ")))
		} else if _, ok := cfg.Servers[name]; !ok {
			hints = append(hints, fmt.Sprintf("no source read here defines %q", name))
		}
		return hints
	case len(defined) == 0 && !origins[src]:
		return []string{fmt.Sprintf("source %s has no servers here: its file is missing or empty, not trusted (a project's), or left out by \"import\" in the user file", src)}
	}
	return nil
}

// resolve makes a configured server a target: its variables expanded,
// its secrets known.
func (a *app) resolve(srv *config.Server) (*config.Target, error) {
	t, err := config.Resolve(srv, config.ResolveOptions{Getenv: a.getenv, Environ: a.environ, Headers: a.g.headers,
		Timeout: a.g.timeout, TokenDir: auth.TokenDir(a.getenv)})
	if err != nil {
		return nil, err
	}
	a.s.Secrets().Add(t.Secrets...)
	return t, nil
}

// connectOptions say what a command's operation needs of its connection.
type connectOptions struct {
	// listen: the operation is one during which a server may send requests
	// (invoke, read, prompt): an HTTP server's GET stream is opened, and
	// the server is asked for the log messages mcpx shows.
	listen bool
	// stdinUsed: stdin gave a value, so no question can be asked on it.
	stdinUsed bool
	// notify is given the server's change notifications (watch); noWarm:
	// never through the daemon (a connection held as long as the command).
	notify func(client.Notification)
	noWarm bool
	// existing: only the warm connection the daemon holds to the target
	// will do (a task command); none is client.ErrNoWarmTarget.
	existing bool
	// oneShot: a one-shot connection, whatever keep-alive says.
	oneShot bool
	// op: the tool or prompt whose section of --answers answers the
	// server's forms.
	op string
	// listings: the kinds the operation lists (client.KindTool, ...): a
	// warm connection gets the pages the daemon has cached ahead.
	listings []string
}

// session is one connection of a command, under the clock of its
// --timeout.
type session struct {
	conn *client.Conn
	// ctx is the operation's context: it ends when the --timeout runs out
	// (the clock stopped while a person answers the server), at an
	// interrupt, or at close. It has no deadline: see clock, and timedOut
	// to tell the --timeout from an interrupt.
	ctx context.Context
	a   *app
	clk *clock
	end context.CancelFunc
	// timed: --timings has reported the connection (at its first close).
	timed sync.Once
}

// connect connects to t under t's own --timeout.
func (a *app) connect(ctx context.Context, t *config.Target, o connectOptions) (*session, error) {
	roots, err := a.roots(t)
	if err != nil {
		return nil, err
	}
	var warm *client.Warm
	if !o.noWarm {
		if warm, err = a.keepAlive(t, 0); err != nil {
			return nil, err
		}
	}
	if o.existing {
		warm = &client.Warm{Existing: true, Refresh: a.g.refresh, Getenv: a.getenv, Environ: a.environ, Version: version()}
	}
	if o.oneShot {
		warm = nil
	}
	if warm != nil {
		warm.Listings = o.listings
	}
	clk, end := newClock(ctx, t.Timeout)
	co := client.Options{
		Warm:            warm,
		ProtocolVersion: a.g.protocolVersion,
		ClientVersion:   version(),
		MessageCeiling:  limits.MessageCeiling,
		Debug:           a.log.Debug,
		Note:            a.log.Note,
		UnusableToken:   func(server string, err error) { a.log.Note("%s", unusableTokenNote(server, err)) },
		Secrets:         a.s.Secrets(),
		Elicit:          a.elicitor(ctx, clk, o.stdinUsed || a.answersStdin, o.op),
		Roots:           roots,
		OnLog:           a.onLog,
		OnProgress:      a.onProgress,
		Listen:          o.listen,
		OnNotification:  o.notify,
		Transports:      auth.TransportsDir(a.getenv),
		HideTool:        hideTool(t),
		TraceParent:     a.traceParent,
		TraceState:      a.traceState,
	}
	if o.listen && !a.g.verbose {
		// Servers often default to errors only: ask for what mcpx shows.
		co.LogLevel = "warning"
	}
	if a.g.verbose {
		co.LogLevel = "debug"
		name := t.Name
		co.OnStderr = func(line string) { a.log.ServerStderr(name, line) }
		co.Logger = slog.Default()
	}
	conn, err := client.Connect(clk.ctx, t, co)
	if err != nil {
		end()
		return nil, err
	}
	return &session{conn: conn, ctx: clk.ctx, a: a, clk: clk, end: end}, nil
}

// close closes the connection (stopping a stdio server) and stops the
// clock. It may be called more than once.
func (s *session) close() {
	s.timed.Do(func() { s.a.reportTimings(s) })
	s.a.log.Progress("")
	s.conn.Close()
	s.end()
}

// closeLater closes the connection in the background, once a command
// that contacts many servers (--all, --probe) has what it needs of it: the
// others, and the document, do not wait for its stop sequence. mcpx waits
// for every such close before it exits (app.waitStops).
func (s *session) closeLater() {
	s.a.stops.Go(s.close)
}

// waitStops waits for the connections closed by closeLater.
func (a *app) waitStops() { a.stops.Wait() }

// expires is when the --timeout runs out, if nobody is asked anything
// from now on.
func (s *session) expires() time.Time { return s.clk.expires() }

// roots are the directories offered to t as roots: --root (which replaces
// the server's list), else the server's "roots", else none: the current
// directory is never offered unasked (see REQUESTS FROM SERVERS in mcpx(1)).
func (a *app) roots(t *config.Target) ([]client.Root, error) {
	if len(a.g.roots) == 0 {
		var roots []client.Root
		for i, d := range t.Roots {
			bad := func(why string) error {
				return config.Invalid(t.Name, fmt.Sprintf("roots[%d] %s: %s", i, d, why))
			}
			if st, err := os.Stat(d); err != nil || !st.IsDir() {
				return nil, bad("not a directory")
			}
			r, err := client.RootFor(d)
			if err != nil {
				return nil, bad(err.Error())
			}
			roots = append(roots, r)
		}
		return roots, nil
	}
	var roots []client.Root
	for _, d := range a.g.roots {
		if d == "" { // "$UNSET" names no directory
			return nil, usagef("--root needs a directory (an empty value names none)")
		}
		if !filepath.IsAbs(d) && a.cwd != "" {
			d = filepath.Join(a.cwd, d)
		}
		st, err := os.Stat(d)
		if err != nil || !st.IsDir() {
			return nil, usagef("--root %s: not a directory", d)
		}
		r, err := client.RootFor(d)
		if err != nil {
			return nil, usagef("--root %s: %v", d, err)
		}
		roots = append(roots, r)
	}
	return roots, nil
}

// onLog shows a server's log message at warning and above as a note (every
// level with -v, which also asks the server for debug).
func (a *app) onLog(m client.LogMessage) {
	if client.LogSeverity(m.Level) < client.LogSeverity("warning") && !a.g.verbose {
		return
	}
	data := string(m.Data)
	var s string
	if json.Unmarshal(m.Data, &s) == nil {
		data = s
	}
	who := ""
	if m.Logger != "" {
		who = " " + a.line(m.Logger, 80) + ":"
	}
	if data = a.line(data, 500); data != "" {
		data = " " + data
	}
	a.log.Note("server %q logged %s:%s%s", m.Server, a.line(m.Level, 20), who, data)
}

// onProgress draws the progress line (on a terminal only; see Log.Progress),
// except while a question is asked.
func (a *app) onProgress(p client.Progress) {
	if a.askingNow.Load() {
		return
	}
	frac := fmtNum(p.Progress)
	if p.Total > 0 {
		pct := math.Min(100, math.Max(0, 100*p.Progress/p.Total))
		frac = fmt.Sprintf("%s/%s (%d%%)", fmtNum(p.Progress), fmtNum(p.Total), int(pct))
	}
	a.log.Progress(fmt.Sprintf("mcpx: server %q: %s %s", p.Server, frac, p.Message))
}

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
