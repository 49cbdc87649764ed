package commands

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/output"
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
	// keepAlive: --keep-alive's value (keepAliveBare when bare, "" when
	// not given); noKeepAlive, refresh: see WARM CONNECTIONS in mcpx(1).
	keepAlive   string
	noKeepAlive bool
	refresh     bool

	// timeoutSet and selectSet: --timeout and --select were given.
	timeoutSet, selectSet bool

	// Headless runs (headless.go, answers.go).
	answerPairs []string
	answersFile string
	onInput     string
	readOnly    bool
	timings     bool
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

	// stops: the connections being closed in the background (closeLater).
	stops sync.WaitGroup

	// elicitMu: one elicitation at a time; askingNow: one is being asked.
	elicitMu  sync.Mutex
	askingNow atomic.Bool

	cfgOnce sync.Once
	cfg     *config.Config
	cfgErr  error
	// everyWarning: show every warning about the hosts' files, not only
	// those not shown since the file last changed (mcpx servers).
	everyWarning bool

	// warmFallback: the note that the daemon cannot be used is given once.
	warmFallback sync.Once

	// Headless runs (see headless.go): the answers given, whether
	// --answers read stdin, MCPX_READ_ONLY, the trace context of the
	// environment, and the error that ended an operation from inside.
	answers                 answerSet
	answersStdin            bool
	readOnlyEnv             bool
	traceParent, traceState string
	opFailed                opFailure

	// catchSignals installs the SIGINT, SIGTERM, SIGHUP and SIGPIPE
	// handler (once; nil in tests that build an app without Main).
	catchSignals func()
}

// Main runs mcpx with args (args[0] is the program name) and returns the exit code.
func Main(args []string, s *output.Streams) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var caught atomic.Value // the signal that interrupted us
	sigc := make(chan os.Signal, 4)
	defer signal.Stop(sigc)
	// The handler is installed by the root's Before, once the command line
	// is parsed and a command is about to run, not here: signal.Notify
	// starts a thread, a measurable part of the start-up of --version and
	// --help, which have nothing to stop.
	catchSignals := sync.OnceFunc(func() {
		// SIGPIPE is caught so that a write to a closed stdout returns EPIPE
		// (mapped to 141 after the servers are stopped) instead of killing mcpx.
		signal.Notify(sigc, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
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
	})

	transport.BecomeSubreaper()
	cwd, _ := os.Getwd()
	a := &app{s: s, getenv: os.Getenv, environ: os.Environ(), cwd: cwd, self: config.Self(), args: args, catchSignals: catchSignals}
	// --json decides the error voice even when parsing fails before setup runs.
	a.log = output.NewLog(s, wantsJSON(args), false)
	root := a.newRoot()
	err := root.Run(ctx, bareKeepAlive(args))
	a.waitStops()
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
	if e := a.opFailed.get(); e != nil && sig == nil {
		err = e // what ended the operation from inside, not how it then ended
	}
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
		Flags: append([]cli.Flag{
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
			&cli.StringFlag{Name: "keep-alive", Usage: "use a warm connection kept by the mcpx daemon, idle at most `DUR` (bare: the server's \"keepAlive\", else 10m)", Destination: &g.keepAlive},
			&cli.BoolFlag{Name: "no-keep-alive", Usage: "never use a warm connection (also MCPX_KEEP_ALIVE=0)", Destination: &g.noKeepAlive},
			&cli.BoolFlag{Name: "refresh", Usage: "ignore the cached listings of a warm connection", Destination: &g.refresh},
			&cli.StringFlag{Name: "cache-dir", Usage: "root `DIR` of spilled files", Sources: cli.EnvVars("MCPX_CACHE_DIR"), Destination: &g.cacheDir},
		}, a.headlessFlags()...),
		Before: func(ctx context.Context, cmd *cli.Command) (context.Context, error) {
			if a.catchSignals != nil {
				a.catchSignals()
			}
			g.timeoutSet, g.selectSet = cmd.IsSet("timeout"), cmd.IsSet("select")
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
			a.newSnapshotCmd(),
			a.newDiffCmd(),
			a.newTaskCmd(),
			a.newWatchCmd(),
			a.newSkillsCmd(),
			a.newSearchCmd(),
			a.newAddCmd(),
			a.newLoginCmd(),
			a.newLogoutCmd(),
			a.newCompletionCmd(),
			a.newServeDemoCmd(),
			a.newCompleteCmd(),
			a.newDaemonCmd(),
			a.newDaemonServeCmd(),
			a.newHelpCmd(),
		},
		ExitErrHandler: func(context.Context, *cli.Command, error) {},
	}
	_ = root.Walk(func(c *cli.Command) error {
		for _, f := range c.Flags {
			repeatable(f)
		}
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

// repeatable makes help show a flag that may be given more than once with
// its names once and "...": the command line library writes them twice
// ("--root DIR [ --root DIR ]"), which reads like two flags.
func repeatable(f cli.Flag) {
	m, ok := f.(cli.DocGenerationMultiValueFlag)
	s, ok2 := f.(cli.StringerSetter)
	if !ok || !ok2 || !m.IsMultiValueFlag() {
		return
	}
	s.SetStringer(func(f cli.Flag) string {
		line := cli.FlagStringer(f)
		names, rest, _ := strings.Cut(line, "\t")
		if i := strings.Index(names, " [ "); i >= 0 && strings.HasSuffix(names, " ]") {
			names = names[:i] + " ..."
		}
		return names + "\t" + rest
	})
}

// flagsGiven is the set of the named flags that cmd's command line gives.
func flagsGiven(cmd *cli.Command, names ...string) map[string]bool {
	set := map[string]bool{}
	for _, n := range names {
		if cmd.IsSet(n) {
			set[n] = true
		}
	}
	return set
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
	if err := a.g.validate(); err != nil {
		return err
	}
	for _, h := range a.g.headers {
		_, v, _ := config.ParseHeader(h) // checked by validate
		a.s.Secrets().Add(config.HeaderSecrets(v)...)
	}
	return a.setupHeadless()
}

// validate checks the global flags, before any command runs.
func (g *globals) validate() error {
	if g.jobs < 1 {
		return usagef("--jobs must be at least 1, not %d", g.jobs)
	}
	if g.timeoutSet && g.timeout <= 0 {
		return usagef("--timeout must be positive, not %s", g.timeout)
	}
	if g.selectSet && g.selectPath == "" {
		return usagef("--select needs a gjson path (an empty one matches nothing)")
	}
	if !slices.Contains(client.ProtocolVersions(), g.protocolVersion) {
		return &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("unknown protocol version %q", g.protocolVersion),
			Hints: []string{"known versions: " + strings.Join(client.ProtocolVersions(), ", ")}}
	}
	for _, h := range g.headers {
		if _, _, err := config.ParseHeader(h); err != nil {
			return err
		}
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
		if a.cfg.Untrusted != "" {
			a.log.Note("%s", untrustedNote(a.cfg.Untrusted, a.cfg.Skipped, config.UserConfigPath(a.getenv)))
		}
		for _, w := range a.cfg.Warns {
			a.log.Warnf("%s", w)
		}
		for _, w := range a.cfg.HostWarnings(a.everyWarning || a.g.verbose) {
			a.log.Warnf("%s", w)
		}
	})
	return a.cfg, a.cfgErr
}

// asJSON reports whether the result is printed as a JSON document.
func (a *app) asJSON() bool { return a.g.json || a.g.selectPath != "" }

// writeDoc prints a JSON document (with --select applied).
func (a *app) writeDoc(v any) error {
	return a.s.WriteJSON(v, a.g.selectPath)
}
