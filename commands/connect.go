package commands

import (
	"context"
	"log/slog"
	"net/url"
	"time"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/client/auth"
	"github.com/mcpx-cli/mcpx/client/config"
	"github.com/mcpx-cli/mcpx/render"
)

// target finds and resolves the server a SRV argument names.
func (a *app) target(arg string) (*config.Target, error) {
	if config.IsURL(arg) {
		// A URL needs no config file (and a broken one does not stop it).
		if u, err := url.Parse(arg); err == nil {
			a.s.AddSecrets(config.URLSecrets(u)...)
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
	if err != nil {
		return nil, err
	}
	return a.resolve(srv)
}

// resolve makes a configured server a target: its variables expanded,
// its secrets known.
func (a *app) resolve(srv *config.Server) (*config.Target, error) {
	t, err := config.Resolve(srv, config.ResolveOptions{Getenv: a.getenv, Environ: a.environ, Headers: a.g.headers,
		Timeout: a.g.timeout, TokenDir: auth.TokenDir(a.getenv)})
	if err != nil {
		return nil, err
	}
	a.s.AddSecrets(t.Secrets...)
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
}

// connect connects to t under t's own --timeout.
func (a *app) connect(ctx context.Context, t *config.Target, o connectOptions) (*session, error) {
	roots, err := a.roots(t)
	if err != nil {
		return nil, err
	}
	clk, end := newClock(ctx, t.Timeout)
	co := client.Options{
		ProtocolVersion: a.g.protocolVersion,
		ClientVersion:   version(),
		MessageCeiling:  render.MessageCeiling,
		Debug:           a.log.Debug,
		Note:            a.log.Note,
		Mask:            a.s.Mask,
		MaskIn:          a.s.Secrets().MaskIn,
		AddSecrets:      a.s.AddSecrets,
		Elicit:          a.elicitor(ctx, clk, o.stdinUsed),
		Roots:           roots,
		OnLog:           a.onLog,
		OnProgress:      a.onProgress,
		Listen:          o.listen,
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
	s.a.log.Progress("")
	s.conn.Close()
	s.end()
}

// expires is when the --timeout runs out, if nobody is asked anything
// from now on.
func (s *session) expires() time.Time { return s.clk.expires() }
