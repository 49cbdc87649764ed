package commands

// Warm connections (see WARM CONNECTIONS in mcpx(1)): when a command's
// connection is a warm one, `mcpx daemon status|stop`, and the hidden
// `mcpx __daemon` that is the daemon.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/client/config"
	"github.com/mcpx-cli/mcpx/internal/daemon"
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
		if a.g.keepAlive == keepAliveBare {
			w.KeepAlive = t.KeepAlive
			if w.KeepAlive <= 0 {
				w.KeepAlive = config.DefaultKeepAlive
			}
		} else {
			d, err := time.ParseDuration(a.g.keepAlive)
			if err != nil || d < 0 {
				return nil, usagef("--keep-alive takes a duration such as 10m, not %q", a.g.keepAlive)
			}
			w.KeepAlive = d
		}
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
	if !daemon.Supported && w.Required {
		return nil, usagef("--keep-alive: warm connections are not supported on this platform yet")
	}
	return w, nil
}

func (a *app) newDaemonCmd() *cli.Command {
	return &cli.Command{
		Name:  "daemon",
		Usage: "show or stop the warm connections of the mcpx daemon",
		Description: "mcpx daemon status lists the connections the daemon holds (server, transport, stdio pid, " +
			"since, last use, calls, idle time left); mcpx daemon stop [SRV...] closes those of the named servers, " +
			"or all of them, and then the daemon exits. See WARM CONNECTIONS in mcpx(1).",
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
				Action: func(ctx context.Context, cmd *cli.Command) error {
					return a.daemonStop(ctx, cmd.Args().Slice())
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

func (a *app) daemonStatus(ctx context.Context) error {
	targets, running, err := daemon.Status(ctx, a.daemonEnv())
	if err != nil {
		return err
	}
	if a.asJSON() {
		out := struct {
			Running bool               `json:"running"`
			Targets []daemonTargetJSON `json:"targets"`
		}{Running: running, Targets: []daemonTargetJSON{}}
		for _, t := range targets {
			var pid *int
			if t.Pid != 0 {
				pid = &t.Pid
			}
			out.Targets = append(out.Targets, daemonTargetJSON{Server: t.Server, Transport: t.Transport, Pid: pid,
				Since: t.Since.UTC().Format(time.RFC3339), LastUse: t.LastUse.UTC().Format(time.RFC3339),
				Calls: t.Calls, Callers: t.Callers, IdleLeftMs: t.IdleLeft.Milliseconds()})
		}
		return a.writeDoc(out)
	}
	if !running {
		a.log.Note("no mcpx daemon is running")
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

func (a *app) daemonStop(ctx context.Context, names []string) error {
	n, running, err := daemon.Stop(ctx, a.daemonEnv(), names)
	if err != nil {
		return err
	}
	switch {
	case !running:
		a.log.Note("no mcpx daemon is running")
	case len(names) == 0:
		a.log.Note("stopped the mcpx daemon (%s)", count(n, "connection"))
	default:
		a.log.Note("closed %s of %s", count(n, "connection"), strings.Join(names, ", "))
	}
	return nil
}

// newDaemonServeCmd is the daemon itself (started by a command that wants
// a warm connection; never by a person).
func (a *app) newDaemonServeCmd() *cli.Command {
	return &cli.Command{
		Name:   "__daemon",
		Hidden: true,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := daemon.Serve(ctx, daemon.ServeOptions{Getenv: a.getenv, Version: version()}); err != nil {
				return fmt.Errorf("mcpx daemon: %w", err)
			}
			return nil
		},
	}
}
