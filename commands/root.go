// Package commands is mcpx's command line: one file per subcommand, each
// parsing its arguments into options, validating them before any side
// effect, doing one operation through client, rendering through render and
// printing through output. Errors travel back up as typed values; exit.go
// maps them to the exit codes of EXIT STATUS in mcpx(1) in one place.
package commands

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/client/auth"
	"github.com/mcpx-cli/mcpx/client/config"
	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/output"
	"github.com/mcpx-cli/mcpx/render"
)

// Version is set at link time (-ldflags "-X github.com/mcpx-cli/mcpx/commands.Version=...").
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// globals are the flags every command takes (GLOBAL OPTIONS in mcpx(1)).
type globals struct {
	config          string
	project         bool
	headers         []string
	json            bool
	selectPath      string
	timeout         time.Duration
	protocolVersion string
	jobs            int
	noInput         bool
	verbose         bool
	cacheDir        string
	roots           []string
}

// app is what every command shares: streams, the stderr voice, the
// environment, and the config (loaded once, on first use).
type app struct {
	s       *output.Streams
	log     *output.Log
	g       globals
	getenv  func(string) string
	environ []string
	cwd     string
	self    string
	args    []string // the command line, args[0] the program name

	timeoutSet, selectSet bool
	// listen: the command runs an operation during which a server may send
	// requests (invoke, read, prompt): an HTTP server's GET stream is opened.
	listen bool
	// stdinUsed: stdin gave a value, so nothing can be asked on it.
	stdinUsed bool
	// elicitMu: one elicitation at a time; askingNow: one is being asked.
	elicitMu  sync.Mutex
	askingNow atomic.Bool

	cfgOnce sync.Once
	cfg     *config.Config
	cfgErr  error
}

// Main runs mcpx with args (args[0] is the program name) and returns the exit code.
func Main(args []string, s *output.Streams) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var caught atomic.Value // the signal that interrupted us
	sigc := make(chan os.Signal, 4)
	// SIGPIPE is caught so that a write to a closed stdout returns EPIPE
	// (mapped to 141 after the servers are stopped) instead of killing mcpx.
	signal.Notify(sigc, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	defer signal.Stop(sigc)
	go func() {
		for sig := range sigc {
			if sig == syscall.SIGPIPE {
				continue
			}
			if first := caught.Load(); first != nil {
				// A second signal: the user insists, even if mcpx is
				// blocked where the first could not reach (reading a
				// config file that is a terminal or a FIFO). Servers are
				// still stopped first.
				transport.StopOrphans()
				os.Exit(classify(nil, first.(os.Signal)).ExitCode)
			}
			caught.Store(sig)
			cancel()
		}
	}()

	transport.BecomeSubreaper()
	cwd, _ := os.Getwd()
	a := &app{s: s, getenv: os.Getenv, environ: os.Environ(), cwd: cwd, self: config.Self(), args: args}
	// --json decides the error voice even when parsing fails before setup runs.
	a.log = output.NewLog(s, wantsJSON(args), false)
	root := a.newRoot()
	err := root.Run(ctx, args)
	transport.StopOrphans()
	var sig os.Signal
	if v := caught.Load(); v != nil {
		sig = v.(os.Signal)
	}
	return a.finish(err, sig)
}

func wantsJSON(args []string) bool {
	for _, arg := range args[1:] {
		switch arg {
		case "--":
			return false
		case "--json", "-json", "--json=true", "-json=true":
			return true
		}
	}
	return false
}

// finish reports err (if any) and returns the exit code.
func (a *app) finish(err error, sig os.Signal) int {
	if err == nil && sig == nil {
		return 0
	}
	rep := classify(err, sig)
	if rep.ExitCode == exitBrokenPipe {
		return rep.ExitCode
	}
	a.log.Error(rep)
	return rep.ExitCode
}

func (a *app) newRoot() *cli.Command {
	g := &a.g
	root := &cli.Command{
		Name:    "mcpx",
		Usage:   "make Model Context Protocol servers scriptable",
		Version: version(),
		Description: "mcpx opens one connection per server it needs, does one MCP operation, " +
			"renders the result through one content policy and prints it as text or JSON.",
		Writer:                    a.s.RawOut,
		ErrWriter:                 a.s.Err,
		DisableSliceFlagSeparator: true,
		HideHelpCommand:           true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "config", Usage: "read servers from `FILE` alone", Sources: cli.EnvVars("MCPX_CONFIG"), Destination: &g.config},
			&cli.BoolFlag{Name: "project", Usage: "trust ./.mcp.json for this invocation", Destination: &g.project},
			&cli.StringSliceFlag{Name: "header", Aliases: []string{"H"}, Usage: "extra HTTP header `'K: V'` for URL, http and sse servers (repeatable; values are secrets)", Destination: &g.headers},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON document on stdout; stderr lines become JSON objects", Destination: &g.json},
			&cli.StringFlag{Name: "select", Usage: "print the part of the JSON document at gjson `PATH`", Destination: &g.selectPath},
			&cli.DurationFlag{Name: "timeout", Usage: "bound on connect + initialize + the operation, a duration `DUR` such as 45s (else the server's \"timeout\")", DefaultText: "30s", Destination: &g.timeout},
			&cli.StringFlag{Name: "protocol-version", Usage: "MCP protocol `VERSION` to negotiate", Value: client.DefaultProtocolVersion, Destination: &g.protocolVersion},
			&cli.IntFlag{Name: "jobs", Usage: "`N` servers contacted at once by --all and --probe", Value: 8, Destination: &g.jobs},
			&cli.BoolFlag{Name: "no-input", Usage: "never prompt interactively", Destination: &g.noInput},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "stream servers' stderr, skipped lines and protocol notes to stderr", Destination: &g.verbose},
			&cli.StringSliceFlag{Name: "root", Usage: "offer `DIR` to servers as a root (repeatable; replaces a server's \"roots\"; default: none)", Destination: &g.roots},
			&cli.StringFlag{Name: "cache-dir", Usage: "root `DIR` of spilled files", Sources: cli.EnvVars("MCPX_CACHE_DIR"), Destination: &g.cacheDir},
		},
		Before: func(ctx context.Context, cmd *cli.Command) (context.Context, error) {
			a.timeoutSet, a.selectSet = cmd.IsSet("timeout"), cmd.IsSet("select")
			return ctx, a.setup()
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return unknownCommand(cmd, cmd.Args().First())
			}
			_ = cli.ShowRootCommandHelp(cmd)
			return nil
		},
		Commands: []*cli.Command{
			a.newServersCmd(),
			a.newImportCmd(),
			a.newCatalogCmd(),
			a.newDescribeCmd(),
			a.newReadCmd(),
			a.newPromptCmd(),
			a.newInvokeCmd(),
			a.newLoginCmd(),
			a.newLogoutCmd(),
			a.newCompletionCmd(),
			a.newServeDemoCmd(),
			a.newCompleteCmd(),
			a.newHelpCmd(),
		},
		ExitErrHandler: func(context.Context, *cli.Command, error) {},
	}
	_ = root.Walk(func(c *cli.Command) error {
		c.DisableSliceFlagSeparator = true
		c.OnUsageError = func(_ context.Context, c *cli.Command, err error, _ bool) error {
			return a.usageError(c, err)
		}
		if c != root {
			c.ExitErrHandler = root.ExitErrHandler
		}
		return nil
	})
	return root
}

// setup applies the global flags once they are parsed.
func (a *app) setup() error {
	a.log.JSON = a.g.json
	a.log.Verbose = a.g.verbose
	if a.g.verbose {
		slog.SetDefault(slog.New(slog.NewTextHandler(logWriter{a}, &slog.HandlerOptions{Level: slog.LevelWarn})))
	} else {
		slog.SetDefault(slog.New(slog.DiscardHandler))
	}
	if a.g.jobs < 1 {
		return usagef("--jobs must be at least 1, not %d", a.g.jobs)
	}
	if a.timeoutSet && a.g.timeout <= 0 {
		return usagef("--timeout must be positive, not %s", a.g.timeout)
	}
	if a.selectSet && a.g.selectPath == "" {
		return usagef("--select needs a gjson path (an empty one matches nothing)")
	}
	valid := false
	for _, v := range client.ProtocolVersions() {
		valid = valid || v == a.g.protocolVersion
	}
	if !valid {
		return &UsageError{Msg: fmt.Sprintf("unknown protocol version %q", a.g.protocolVersion),
			Hints: []string{"known versions: " + strings.Join(client.ProtocolVersions(), ", ")}}
	}
	for _, h := range a.g.headers {
		_, v, err := config.ParseHeader(h)
		if err != nil {
			return err
		}
		a.s.AddSecrets(config.HeaderSecrets(v)...)
	}
	return nil
}

// logWriter routes mcp-go's own log lines (shown with -v) to the stderr voice.
type logWriter struct{ a *app }

func (w logWriter) Write(p []byte) (int, error) {
	w.a.log.Debug("mcp-go: %s", string(trimNL(p)))
	return len(p), nil
}

func trimNL(p []byte) []byte {
	for len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r') {
		p = p[:len(p)-1]
	}
	return p
}

// config loads the config files once and prints their notes and warnings.
func (a *app) config() (*config.Config, error) {
	a.cfgOnce.Do(func() {
		a.cfg, a.cfgErr = config.Load(config.LoadOptions{File: a.g.config, Project: a.g.project, Cwd: a.cwd, Getenv: a.getenv})
		if a.cfgErr != nil {
			return
		}
		for _, n := range a.cfg.Notes {
			a.log.Note("%s", n)
		}
		for _, w := range a.cfg.Warns {
			a.log.Warnf("%s", w)
		}
	})
	return a.cfg, a.cfgErr
}

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

func (a *app) resolve(srv *config.Server) (*config.Target, error) {
	t, err := config.Resolve(srv, config.ResolveOptions{Getenv: a.getenv, Environ: a.environ, Headers: a.g.headers,
		Timeout: a.g.timeout, TokenDir: auth.TokenDir(a.getenv)})
	if err != nil {
		return nil, err
	}
	a.s.AddSecrets(t.Secrets...)
	return t, nil
}

// dial connects to t under t's own deadline. The returned context carries
// that deadline; done closes the connection (stopping a stdio server) and
// releases the deadline.
func (a *app) dial(ctx context.Context, t *config.Target) (*client.Conn, context.Context, func(), error) {
	roots, err := a.roots(t)
	if err != nil {
		return nil, nil, nil, err
	}
	parent := ctx
	clk, cancel := newClock(ctx, t.Timeout)
	ctx = clk
	o := client.Options{
		ProtocolVersion: a.g.protocolVersion,
		ClientVersion:   version(),
		MessageCeiling:  render.MessageCeiling,
		Debug:           a.log.Debug,
		Note:            a.log.Note,
		Mask:            a.s.Mask,
		MaskIn:          a.s.Secrets().MaskIn,
		AddSecrets:      a.s.AddSecrets,
		Elicit:          a.elicitor(parent, clk),
		Roots:           roots,
		OnLog:           a.onLog,
		OnProgress:      a.onProgress,
		Listen:          a.listen,
	}
	if a.listen && !a.g.verbose {
		// Servers often default to errors only: ask for what mcpx shows.
		o.LogLevel = "warning"
	}
	if a.g.verbose {
		o.LogLevel = "debug"
		name := t.Name
		o.OnStderr = func(line string) { a.log.ServerStderr(name, line) }
		o.Logger = slog.Default()
	}
	conn, err := client.Connect(ctx, t, o)
	if err != nil {
		cancel()
		return nil, nil, nil, err
	}
	return conn, ctx, func() { a.log.Progress(""); conn.Close(); cancel() }, nil
}

// open resolves the server a SRV argument names and connects to it.
func (a *app) open(ctx context.Context, arg string) (*client.Conn, context.Context, func(), error) {
	t, err := a.target(arg)
	if err != nil {
		return nil, nil, nil, err
	}
	return a.dial(ctx, t)
}

// openServer resolves a configured server and connects to it.
func (a *app) openServer(ctx context.Context, srv *config.Server) (*client.Conn, context.Context, func(), error) {
	t, err := a.resolve(srv)
	if err != nil {
		return nil, nil, nil, err
	}
	return a.dial(ctx, t)
}

// asJSON reports whether the result is printed as a JSON document.
func (a *app) asJSON() bool { return a.g.json || a.g.selectPath != "" }

// writeDoc prints a JSON document (with --select applied).
func (a *app) writeDoc(v any) error {
	return a.s.WriteJSON(v, a.g.selectPath)
}
