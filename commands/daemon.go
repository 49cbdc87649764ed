package commands

// Warm connections (see WARM CONNECTIONS in mcpx(1)): when a command's
// connection is a warm one, `mcpx daemon status|stop`, and the hidden
// `mcpx __daemon` that is the daemon.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/daemon"
	"github.com/mcpx-cli/mcpx/internal/fail"
)

// keepAliveBare is the value a bare --keep-alive is given (see
// bareKeepAlive): the entry's "keepAlive", else 10 minutes.
const keepAliveBare = "on"

// bareKeepAlive rewrites a bare --keep-alive into --keep-alive=on, since
// the flag's value is optional (--keep-alive[=DUR]).
func bareKeepAlive(args []string) []string {
	out := make([]string, 0, len(args))
	for i, arg := range args {
		if arg == "--" {
			return append(out, args[i:]...)
		}
		if i > 0 && (arg == "--keep-alive" || arg == "-keep-alive") {
			arg = "--keep-alive=" + keepAliveBare
		}
		out = append(out, arg)
	}
	return out
}

// keepAlive decides whether t's connection is a warm one, and its idle
// time: --no-keep-alive, then --keep-alive[=DUR], then $MCPX_KEEP_ALIVE,
// then the entry's "keepAlive"; a zero duration anywhere is one-shot.
func (a *app) keepAlive(t *config.Target, fallback time.Duration) (*client.Warm, error) {
	w := &client.Warm{Refresh: a.g.refresh, Getenv: a.getenv, Environ: a.environ, Version: version()}
	switch {
	case a.g.noKeepAlive:
		return nil, nil
	case a.g.keepAlive != "":
		w.Required = true
		d, err := a.keepAliveFlag(t)
		if err != nil {
			return nil, err
		}
		w.KeepAlive = d
	case a.getenv("MCPX_KEEP_ALIVE") != "":
		v := a.getenv("MCPX_KEEP_ALIVE")
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, usagef("MCPX_KEEP_ALIVE takes a duration such as 10m (0: off), not %q", v)
		}
		w.KeepAlive = d
	case t.KeepAlive > 0:
		w.KeepAlive = t.KeepAlive
	default:
		w.KeepAlive = fallback
	}
	if w.KeepAlive <= 0 {
		return nil, nil
	}
	if cfg, err := a.config(); err == nil {
		w.MaxWarm = cfg.MaxWarm
	}
	if !daemon.Supported && w.Required {
		return nil, usagef("--keep-alive: warm connections are not supported on this platform yet")
	}
	if !w.Required {
		w.OnFallback = func(why string) {
			a.warmFallback.Do(func() { a.log.Note("the mcpx daemon cannot be used, connecting one-shot: %s", why) })
		}
	}
	return w, nil
}

// keepAliveFlag is the idle time --keep-alive[=DUR] gives: DUR, or bare,
// the entry's "keepAlive" (else config.DefaultKeepAlive).
func (a *app) keepAliveFlag(t *config.Target) (time.Duration, error) {
	if a.g.keepAlive == keepAliveBare {
		if t.KeepAlive > 0 {
			return t.KeepAlive, nil
		}
		return config.DefaultKeepAlive, nil
	}
	d, err := time.ParseDuration(a.g.keepAlive)
	if err != nil || d < 0 {
		return 0, usagef("--keep-alive takes a duration such as 10m, not %q", a.g.keepAlive)
	}
	return d, nil
}

func (a *app) newDaemonCmd() *cli.Command {
	return &cli.Command{
		Name:  "daemon",
		Usage: "show or stop the warm connections of the mcpx daemon",
		Description: "mcpx daemon status lists the connections this build's daemon holds (server, transport, stdio pid, " +
			"since, last use, calls, idle time left), and names the daemons of other mcpx builds; " +
			"mcpx daemon stop [SRV...] closes those of the named servers, or all of them, and then the daemon exits; " +
			"mcpx daemon stop --all stops the daemons of every build. Both wait at most --timeout (default 5s) " +
			"for a daemon that does not answer. See WARM CONNECTIONS in mcpx(1).",
		Commands: []*cli.Command{
			{
				Name:  "status",
				Usage: "list the warm connections",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					if cmd.Args().Present() {
						return usagef("daemon status takes no arguments")
					}
					return a.daemonStatus(ctx)
				},
			},
			{
				Name:      "stop",
				Usage:     "close warm connections (all, and the daemon exits, without SRV)",
				ArgsUsage: "[SRV...]",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "all", Usage: "stop the daemons of every mcpx build, and all their connections"},
				},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					names := cmd.Args().Slice()
					if cmd.Bool("all") {
						if len(names) > 0 {
							return usagef("daemon stop --all takes no server names")
						}
						return a.daemonStopAll(ctx)
					}
					return a.daemonStop(ctx, names)
				},
			},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return unknownCommand(cmd, cmd.Args().First())
			}
			return usagef("daemon needs a subcommand: status or stop")
		},
	}
}

// daemonEnv is where this mcpx finds the daemon.
func (a *app) daemonEnv() daemon.Env {
	return daemon.Env{Getenv: a.getenv, Environ: a.environ, Version: version()}
}

// daemonWait bounds how long `daemon status` and `daemon stop` wait for a
// daemon that does not answer (stopped, or wedged: one that works answers
// within a second, whatever its targets do).
const daemonWait = 5 * time.Second

// daemonBound is the bound of a daemon command: --timeout, else
// daemonWait; and a context that ends with it.
func (a *app) daemonBound(ctx context.Context) (context.Context, context.CancelFunc, time.Duration) {
	bound := daemonWait
	if a.g.timeoutSet {
		bound = a.g.timeout
	}
	ctx, cancel := context.WithTimeout(ctx, bound)
	return ctx, cancel, bound
}

// daemonFailure is err of a daemon command, its bound named when the
// daemon did not answer in time.
func daemonFailure(err error, bound time.Duration) error {
	var na *fail.TimeoutError
	if errors.Is(err, daemon.ErrNoAnswer) && errors.As(err, &na) {
		return daemon.NoAnswer(na.Pid, na.Phase, bound)
	}
	return fmt.Errorf("the mcpx daemon: %w", err)
}

// daemonTargetJSON is one target of `daemon status --json`.
type daemonTargetJSON struct {
	Server     string `json:"server"`
	Transport  string `json:"transport"`
	Pid        *int   `json:"pid"` // a stdio server's; null for http and sse
	Since      string `json:"since"`
	LastUse    string `json:"last_use"`
	Calls      int64  `json:"calls"`
	Callers    int    `json:"callers"`
	IdleLeftMs int64  `json:"idle_left_ms"`
}

// daemonOtherJSON is another daemon in `daemon status --json`: its build,
// executable and connections are null when it did not say (an mcpx older
// than this one says only its build; one that does not answer, nothing).
type daemonOtherJSON struct {
	Socket      string  `json:"socket"`
	Pid         *int    `json:"pid"`
	Build       *string `json:"build"`
	Exe         *string `json:"exe"`
	Connections *int    `json:"connections"`
	Draining    bool    `json:"draining"`
	Answers     bool    `json:"answers"`
}

func (a *app) daemonStatus(ctx context.Context) error {
	ctx, cancel, bound := a.daemonBound(ctx)
	defer cancel()
	cs, err := daemon.Status(ctx, a.daemonEnv())
	if err != nil {
		return daemonFailure(err, bound)
	}
	var targets []daemon.Target
	if cs.Own != nil {
		targets = cs.Own.Reply.Status
	}
	if a.asJSON() {
		return a.daemonStatusJSON(cs, targets)
	}
	return a.daemonStatusText(cs, targets)
}

// daemonStatusJSON writes daemon status --json: this build's daemon, its
// connections, and the other builds' daemons found.
func (a *app) daemonStatusJSON(cs *daemon.Census, targets []daemon.Target) error {
	out := struct {
		Running  bool               `json:"running"`
		Pid      *int               `json:"pid"`
		Socket   *string            `json:"socket"`
		Draining bool               `json:"draining"`
		Targets  []daemonTargetJSON `json:"targets"`
		Others   []daemonOtherJSON  `json:"others"`
	}{Running: cs.Own != nil, Targets: []daemonTargetJSON{}, Others: []daemonOtherJSON{}}
	if cs.Own != nil {
		out.Pid, out.Socket, out.Draining = &cs.Own.Pid, &cs.Own.Socket, cs.Own.Reply.Draining
	}
	for _, t := range targets {
		var pid *int
		if t.Pid != 0 {
			pid = &t.Pid
		}
		out.Targets = append(out.Targets, daemonTargetJSON{Server: t.Server, Transport: t.Transport, Pid: pid,
			Since: t.Since.UTC().Format(time.RFC3339), LastUse: t.LastUse.UTC().Format(time.RFC3339),
			Calls: t.Calls, Callers: t.Callers, IdleLeftMs: t.IdleLeft.Milliseconds()})
	}
	for _, f := range cs.Others {
		o := daemonOtherJSON{Socket: f.Socket, Answers: f.Reply != nil}
		if f.Pid != 0 {
			o.Pid = &f.Pid
		}
		if f.Reply != nil {
			o.Build = &f.Reply.Build
		}
		if f.Known() {
			n := len(f.Reply.Status)
			o.Connections, o.Exe, o.Draining = &n, &f.Reply.Exe, f.Reply.Draining
		}
		out.Others = append(out.Others, o)
	}
	return a.writeDoc(out)
}

// daemonStatusText tells of the daemons found and lists this build's
// connections as a table.
func (a *app) daemonStatusText(cs *daemon.Census, targets []daemon.Target) error {
	switch {
	case cs.Own == nil && len(cs.Others) == 0 && cs.NoDir != nil:
		a.log.Note("no mcpx daemon is running (%s)", cs.NoDir)
	case cs.Own == nil && len(cs.Others) == 0:
		a.log.Note("no mcpx daemon is running")
	case cs.Own == nil:
		a.log.Note("no mcpx daemon of this build is running")
	case cs.Own.Reply.Draining:
		a.log.Note("the mcpx daemon is draining: %s changed on disk; it takes no new connection, and exits once its callers are done", cs.Own.Reply.Exe)
	}
	for _, f := range cs.Others {
		n := 0
		if f.Known() {
			n = len(f.Reply.Status)
		}
		a.log.Note("%s", otherDaemon(f, "another mcpx daemon is running", n))
	}
	if cs.Own == nil {
		return nil
	}
	if len(targets) == 0 {
		a.log.Note("the mcpx daemon holds no connection")
		return nil
	}
	rows := make([][]string, 0, len(targets))
	for _, t := range targets {
		pid := "-"
		if t.Pid != 0 {
			pid = strconv.Itoa(t.Pid)
		}
		rows = append(rows, []string{t.Server, t.Transport, pid, t.Since.Local().Format(time.DateTime),
			t.LastUse.Local().Format(time.DateTime), strconv.FormatInt(t.Calls, 10), t.IdleLeft.Round(time.Second).String()})
	}
	return a.s.WriteTable([]string{"SERVER", "TRANSPORT", "PID", "SINCE", "LAST USE", "CALLS", "IDLE LEFT"}, rows)
}

// otherDaemon describes another build's daemon found: what it is
// ("another mcpx daemon is running", "stopped another mcpx daemon"), and
// its connections (held, or closed), when it says them.
func otherDaemon(f daemon.Found, what string, conns int) string {
	pid := "pid ?"
	if f.Pid != 0 {
		pid = "pid " + strconv.Itoa(f.Pid)
	}
	switch {
	case f.Err != nil:
		if errors.Is(f.Err, daemon.ErrNoAnswer) {
			return fmt.Sprintf("another mcpx daemon does not answer: %s, %s", pid, f.Socket)
		}
		return fmt.Sprintf("another mcpx daemon cannot be asked (%v): %s", f.Err, f.Socket)
	case f.Known() && f.Reply.Exe != "":
		msg := fmt.Sprintf("%s: %s, %s (build %s), %s", what, pid, f.Reply.Exe, f.Reply.Build, count(conns, "connection"))
		if f.Reply.Draining {
			msg += ", draining"
		}
		return msg
	}
	return fmt.Sprintf("%s: %s (build %s, an older mcpx), %s", what, pid, f.Reply.Build, f.Socket)
}

func (a *app) daemonStop(ctx context.Context, names []string) error {
	ctx, cancel, bound := a.daemonBound(ctx)
	defer cancel()
	rep, err := daemon.Stop(ctx, a.daemonEnv(), names)
	if err != nil {
		return daemonFailure(err, bound)
	}
	switch {
	case rep == nil && len(names) == 0:
		a.log.Note("no mcpx daemon is running")
	case rep == nil:
		return noWarm(names, true)
	case len(names) == 0:
		a.log.Note("stopped the mcpx daemon (%s)", count(rep.Stopped, "connection"))
	case rep.Stopped == 0:
		return noWarm(rep.Missed, false)
	default:
		var hit []string
		for _, n := range names {
			if !slices.Contains(rep.Missed, n) && !slices.Contains(hit, n) {
				hit = append(hit, n)
			}
		}
		a.log.Note("closed %s of %s", count(rep.Stopped, "connection"), strings.Join(hit, ", "))
		if len(rep.Missed) > 0 {
			a.log.Note("%s", noWarm(rep.Missed, false).Error())
		}
	}
	return nil
}

// daemonStopAll stops the daemons of every build (`daemon stop --all`).
func (a *app) daemonStopAll(ctx context.Context) error {
	ctx, cancel, bound := a.daemonBound(ctx)
	defer cancel()
	own, others := daemon.StopAll(ctx, a.daemonEnv())
	var failed error
	fail := func(err error) {
		if failed == nil {
			failed = daemonFailure(err, bound)
		} else {
			a.log.Note("%s", daemonFailure(err, bound))
		}
	}
	if own != nil {
		if own.Err != nil {
			fail(own.Err)
		} else {
			a.log.Note("stopped the mcpx daemon (%s)", count(own.Reply.Stopped, "connection"))
		}
	}
	for _, f := range others {
		if f.Err != nil {
			fail(f.Err)
			continue
		}
		a.log.Note("%s", otherDaemon(f, "stopped another mcpx daemon", f.Reply.Stopped))
	}
	if own == nil && len(others) == 0 {
		a.log.Note("no mcpx daemon is running")
	}
	return failed
}

// noWarm: `daemon stop SRV...` named servers of which the daemon held no
// connection (exit 4); noDaemon: no daemon of this build runs.
func noWarm(names []string, noDaemon bool) *fail.Error {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	msg := "no warm connection to server " + strings.Join(q, ", ")
	if len(q) > 1 {
		msg = "no warm connection to servers " + strings.Join(q, ", ")
	}
	if noDaemon {
		msg += " (no mcpx daemon is running)"
	}
	return &fail.Error{Code: fail.NotFound, Details: map[string]any{"servers": names}, Message: msg}
}

// newDaemonServeCmd is the daemon itself (started by a command that wants
// a warm connection; never by a person).
func (a *app) newDaemonServeCmd() *cli.Command {
	return &cli.Command{
		Name:   "__daemon",
		Hidden: true,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			// The directory is the one the caller that started it chose.
			o := daemon.ServeOptions{Getenv: a.getenv, Version: version(), Dir: cmd.Args().First()}
			if err := daemon.Serve(ctx, o); err != nil {
				return fmt.Errorf("mcpx daemon: %w", err)
			}
			return nil
		},
	}
}
