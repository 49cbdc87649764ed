package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/client/auth"
	"github.com/mcpx-cli/mcpx/completions"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/internal/schema"
	"github.com/mcpx-cli/mcpx/internal/skills"
	"github.com/mcpx-cli/mcpx/internal/snapshot"
	"github.com/mcpx-cli/mcpx/internal/uritemplate"
	"github.com/mcpx-cli/mcpx/output"
)

// completeBudget is the default bound on one TAB: server start, initialize
// and every request ($MCPX_COMPLETE_TIMEOUT changes it).
const completeBudget = 2 * time.Second

// completeCommand is the hidden command the completion scripts call.
const completeCommand = "__complete"

// completionOptions are completion's arguments; validate checks them.
type completionOptions struct {
	Args []string // bash, zsh, fish or powershell

	Shell string
}

func (o *completionOptions) validate() error {
	if len(o.Args) == 0 {
		return &fail.Error{Code: fail.Usage, Message: "completion needs the name of a shell: bash, zsh, fish or powershell",
			Hints: []string{"e.g. source <(mcpx completion bash) in ~/.bashrc; mcpx completion --help shows the others"}}
	}
	if len(o.Args) > 1 {
		return argCountError("completion", "one shell: bash, zsh, fish or powershell", o.Args, "")
	}
	o.Shell = o.Args[0]
	return nil
}

func (a *app) newCompletionCmd() *cli.Command {
	o := &completionOptions{}
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh, fish or powershell",
		ArgsUsage: "bash|zsh|fish|powershell",
		Description: "Prints a completion script that completes live, from the servers themselves: server names, then " +
			"prompt, tool and resource names, then ARG=, KEY= and VAR= for what is not typed yet, then argument values " +
			"the server suggests (completion/complete). Each TAB has one budget of 2s ($MCPX_COMPLETE_TIMEOUT) for " +
			"starting the server, initializing and every request; a timeout, an error, an unknown server or one that " +
			"needs authentication gives no suggestions. Completion never prompts, never authenticates and never starts " +
			"a server from an untrusted project file.\n\n" +
			"bash (no bash-completion package needed):  source <(mcpx completion bash)   in ~/.bashrc\n" +
			"zsh (runs compinit if it has not run):      source <(mcpx completion zsh)    in ~/.zshrc\n" +
			"fish:                                       mkdir -p ~/.config/fish/completions &&\n" +
			"                                            mcpx completion fish > ~/.config/fish/completions/mcpx.fish\n" +
			"PowerShell (in $PROFILE):                   mcpx completion powershell | Out-String | Invoke-Expression\n\n" +
			"EXIT STATUS: 0, or 2 for a shell other than bash, zsh, fish and powershell.",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o.Args = cmd.Args().Slice()
			if err := o.validate(); err != nil {
				return err
			}
			script, err := completions.Script(o.Shell, cmd.Root().Name)
			if err != nil {
				return &fail.Error{Code: fail.Usage, Message: err.Error()}
			}
			_, err = io.WriteString(a.s.RawOut, script)
			return err
		},
	}
}

func (a *app) newCompleteCmd() *cli.Command {
	return &cli.Command{
		Name:            completeCommand,
		Hidden:          true,
		SkipFlagParsing: true,
		Usage:           "answer a completion script (bash TYPE WORDBREAKS LINE | zsh -- WORDS... CUR | fish -- WORDS... CUR | powershell -- .WORDS... .CUR)",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			a.completeLine(ctx, cmd.Root(), cmd.Args().Slice())
			return nil // completion never fails out loud
		},
	}
}

// completeLine answers one TAB. Nothing but the answer is ever written:
// notes, warnings and errors are dropped, and a problem of any kind is an
// empty answer.
func (a *app) completeLine(ctx context.Context, root *cli.Command, args []string) {
	a.log = output.NewLog(output.Discard(), false, false)
	if len(args) < 1 {
		return
	}
	shell := args[0]
	words, cur, bash, compType, ok := completeWords(shell, args[1:])
	if !ok {
		return
	}
	spec := completionSpec(root)
	line := completions.Parse(spec, words)
	ctx, cancel := context.WithTimeout(ctx, completeTimeout(a.getenv("MCPX_COMPLETE_TIMEOUT")))
	defer cancel()
	src := &completeSource{a: a, line: line, ctx: ctx}
	defer src.close()
	for _, h := range line.Flag("header") {
		if _, v, err := config.ParseHeader(h); err == nil {
			a.s.Secrets().Add(config.HeaderSecrets(v)...)
		}
	}
	res := completions.Complete(ctx, line, cur, src)
	res.Cands = maskCandidates(res.Cands, a.s.Secrets().Mask)
	if shell == "bash" {
		_ = completions.WriteBash(a.s.RawOut, res, bash, int(compType))
	} else {
		_ = completions.WriteTabbed(a.s.RawOut, res, shell)
	}
}

// undot strips the leading '.' PowerShell's script puts before every word
// (an empty one would be lost); false when a word lacks it.
func undot(args []string) bool {
	for i, w := range args {
		if !strings.HasPrefix(w, ".") {
			return false
		}
		args[i] = w[1:]
	}
	return true
}

// completeWords reads the words of the line being completed as shell
// passes them to __complete: the words before the cursor and the one
// under it (for bash, its COMP_TYPE and the split line too); ok is false
// for what no shell sends.
func completeWords(shell string, args []string) (words []string, cur string, bash completions.BashWord, compType rune, ok bool) {
	compType = '\t'
	switch shell {
	case "bash":
		if len(args) != 3 {
			return nil, "", bash, compType, false
		}
		if n, err := strconv.Atoi(args[0]); err == nil {
			compType = rune(n)
		}
		bash = completions.SplitBash(args[2], args[1])
		if len(bash.Words) == 0 {
			return nil, "", bash, compType, false
		}
		words, cur = skipProgram(bash.Words), bash.Cur
	case "zsh", "fish", "powershell":
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		if len(args) == 0 || (shell == "powershell" && !undot(args)) {
			return nil, "", bash, compType, false
		}
		words, cur = args[:len(args)-1], args[len(args)-1]
	default:
		return nil, "", bash, compType, false
	}
	return words, cur, bash, compType, true
}

// maskCandidates masks secrets in the descriptions and leaves out the
// candidates whose value holds one: inserting *** into the command line
// as if it were the value would be wrong, and the value itself would end
// up in the shell's history (see SECRETS in mcpx(1)).
func maskCandidates(cands []completions.Candidate, mask func(string) string) []completions.Candidate {
	out := cands[:0]
	for _, c := range cands {
		if mask(c.Value) != c.Value {
			continue
		}
		c.Desc = mask(c.Desc)
		out = append(out, c)
	}
	return out
}

// skipProgram drops the program name and any VAR=value assignments before it.
func skipProgram(words []string) []string {
	for i, w := range words {
		if !isAssignment(w) {
			return words[i+1:]
		}
	}
	return nil
}

// isAssignment reports whether a word before the program is a shell
// variable assignment, NAME=value or NAME+=value ("/opt/a=b/mcpx" is not).
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	name = strings.TrimSuffix(name, "+")
	if !ok || name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for _, c := range name {
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// completeTimeout reads $MCPX_COMPLETE_TIMEOUT: a Go duration ("500ms") or
// seconds ("1.5"); anything else, a value that is not positive, or one over
// an hour, is the default.
func completeTimeout(v string) time.Duration {
	if v == "" {
		return completeBudget
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		f, ferr := strconv.ParseFloat(v, 64)
		if ferr != nil || f > 3600 {
			return completeBudget
		}
		d = time.Duration(f * float64(time.Second))
	}
	if d <= 0 || d > time.Hour {
		return completeBudget
	}
	return d
}

// completionSpec describes the visible command tree for completion.
func completionSpec(root *cli.Command) *completions.Spec {
	spec := &completions.Spec{Flags: specFlags(root)}
	for _, c := range root.Commands {
		if c.Hidden && c.Name != "help" {
			continue
		}
		sc := completions.Command{Name: c.Name, Usage: c.Usage, Flags: specFlags(c), Hidden: c.Hidden}
		for _, s := range c.Commands {
			if !s.Hidden {
				sc.Commands = append(sc.Commands, completions.Command{Name: s.Name, Usage: s.Usage})
			}
		}
		spec.Commands = append(spec.Commands, sc)
	}
	return spec
}

func specFlags(c *cli.Command) []completions.Flag {
	var out []completions.Flag
	for _, f := range c.Flags {
		names := f.Names()
		if slices.Contains(names, "help") || slices.Contains(names, "version") {
			continue
		}
		sf := completions.Flag{Names: names}
		if d, ok := f.(cli.DocGenerationFlag); ok {
			sf.TakesValue, sf.Usage = d.TakesValue(), flagUsage(d.GetUsage())
		}
		switch names[0] {
		case "config", "output", "answers":
			sf.Path = completions.Files
		case "on-input":
			sf.Values = []string{onInputDecline, onInputFail}
		case "cache-dir", "root":
			sf.Path = completions.Dirs
		case "kind":
			sf.Values = []string{client.KindTool, client.KindResource, client.KindTemplate, client.KindPrompt}
		case "protocol-version":
			sf.Values = client.ProtocolVersions()
		case "fail-on":
			sf.Values = snapshot.Classes
		}
		out = append(out, sf)
	}
	return out
}

// flagUsage is a flag's usage as help shows it: the command line library
// takes the first `NAME` in backticks for the placeholder of the value and
// prints it without them.
func flagUsage(usage string) string {
	if i := strings.IndexByte(usage, '`'); i >= 0 {
		if j := strings.IndexByte(usage[i+1:], '`'); j >= 0 {
			return usage[:i] + usage[i+1:i+1+j] + usage[i+2+j:]
		}
	}
	return usage
}

// completeSource answers completion from the config and the servers. It
// holds at most one connection (a line names one server), opened on first
// use under the TAB's deadline and closed (the server stopped) at the end.
// Config is read as a command would read it, except that a project file is
// used only when the user's config trusts it: --project on the line being
// completed is not a decision the user has made yet.
type completeSource struct {
	a    *app
	line *completions.Line
	ctx  context.Context // the TAB's: its budget bounds reading the config too

	cfg    *config.Config
	cfgErr error
	loaded bool

	srv  string
	conn *client.Conn
	err  error
	done func()
}

func (s *completeSource) config() (*config.Config, error) {
	if !s.loaded {
		s.loaded = true
		var cfg *config.Config
		var err error
		if !s.within(func() { cfg, err = s.load() }) {
			cfg, err = nil, context.DeadlineExceeded
		}
		s.cfg, s.cfgErr = cfg, err
	}
	return s.cfg, s.cfgErr
}

// keepAliveConfig is the config whose "completionKeepAlive" a TAB's warm
// connection takes: mcpx's own, as the command line before __complete
// gives it (--config, $MCPX_CONFIG). That is the config the TAB reads
// unless the line being completed names another (read once, either way).
func (s *completeSource) keepAliveConfig() (*config.Config, error) {
	if len(s.line.Flag("config")) == 0 && s.a.g.config == s.a.getenv("MCPX_CONFIG") {
		return s.config()
	}
	var cfg *config.Config
	var err error
	if !s.within(func() { cfg, err = s.a.config() }) {
		return nil, context.DeadlineExceeded
	}
	return cfg, err
}

// within runs f unless the TAB's budget ends first: the files it reads
// are the user's and the hosts' (a config file on a slow disk, a host's
// file of tens of thousands of servers), and the TAB answers within its
// budget whatever they hold. f reads files and nothing else; out of time
// it is left to finish on its own, its results dropped (its writes must go
// to variables of its own), and the TAB answers nothing.
func (s *completeSource) within(f func()) bool {
	if s.ctx.Err() != nil {
		return false
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return true
	case <-s.ctx.Done():
		return false
	}
}

// maxCompleteConfig bounds a config file completion reads.
const maxCompleteConfig = 16 << 20

func (s *completeSource) load() (*config.Config, error) {
	file := s.a.getenv("MCPX_CONFIG")
	if v := s.line.Flag("config"); len(v) > 0 {
		file = v[len(v)-1]
		if rest, ok := strings.CutPrefix(file, "~/"); ok && s.a.getenv("HOME") != "" {
			file = filepath.Join(s.a.getenv("HOME"), rest) // as the shell will expand it
		}
	}
	// Only regular files of a sane size: a FIFO, a terminal (/dev/stdin)
	// or /dev/zero would block the TAB or fill memory, and reading a file
	// does not watch the budget.
	paths := []string{file}
	if file == "" {
		paths = []string{config.UserConfigPath(s.a.getenv), filepath.Join(s.a.cwd, ".mcp.json")}
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil && file == "" {
			continue // a missing default file is no file
		}
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxCompleteConfig {
			return nil, fmt.Errorf("config %s is not a regular file under %d bytes", p, maxCompleteConfig)
		}
	}
	return config.Load(config.LoadOptions{File: file, Cwd: s.a.cwd, Getenv: s.a.getenv})
}

func (s *completeSource) close() {
	if s.done != nil {
		s.done()
	}
}

// open connects to srv (once) within ctx's deadline.
func (s *completeSource) open(ctx context.Context, srv string) (*client.Conn, error) {
	if s.conn != nil || s.err != nil {
		if s.srv != srv {
			return nil, context.Canceled
		}
		return s.conn, s.err
	}
	s.srv = srv
	s.conn, s.err = s.dial(ctx, srv)
	return s.conn, s.err
}

// headers are the -H of the line that parse (the others are left out).
func (s *completeSource) headers() []string {
	var headers []string
	for _, h := range s.line.Flag("header") {
		if _, _, err := config.ParseHeader(h); err == nil {
			headers = append(headers, h)
		}
	}
	return headers
}

// roots are the roots a TAB's connection offers: those of --root on the
// line (relative to the working directory), else the server's.
func (s *completeSource) roots(dirs []string) ([]client.Root, error) {
	if v := s.line.Flag("root"); len(v) > 0 {
		dirs = nil
		for _, d := range v {
			if d != "" && !filepath.IsAbs(d) && s.a.cwd != "" {
				d = filepath.Join(s.a.cwd, d)
			}
			dirs = append(dirs, d)
		}
	}
	var roots []client.Root
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("root %s: not a directory", d)
		}
		r, err := client.RootFor(d)
		if err != nil {
			return nil, err
		}
		roots = append(roots, r)
	}
	return roots, nil
}

func (s *completeSource) dial(ctx context.Context, srv string) (*client.Conn, error) {
	var cfg *config.Config
	if config.IsURL(srv) {
		cfg = &config.Config{}
	} else {
		var err error
		if cfg, err = s.config(); err != nil {
			return nil, err
		}
	}
	server, err := cfg.Lookup(srv, s.a.self)
	if err != nil {
		return nil, err
	}
	pv := client.DefaultProtocolVersion
	if v := s.line.Flag("protocol-version"); len(v) > 0 && slices.Contains(client.ProtocolVersions(), v[len(v)-1]) {
		pv = v[len(v)-1]
	}
	headers := s.headers()
	deadline, _ := ctx.Deadline()
	t, err := config.Resolve(server, config.ResolveOptions{Getenv: s.a.getenv, Environ: s.a.environ, Headers: headers,
		Timeout: time.Until(deadline), TokenDir: auth.TokenDir(s.a.getenv)})
	if err != nil {
		return nil, err
	}
	s.a.s.Secrets().Add(t.Secrets...)
	// A stored token is used while it is valid; a TAB never refreshes one
	// and never starts a login.
	t.NoRefresh = true
	// The same capabilities as the commands completed (servers list some
	// tools only to a client that offers elicitation or roots): the roots
	// of --root on the line, else the server's "roots", else none. A TAB
	// asks nobody anything: an elicitation is declined, without a note.
	roots, err := s.roots(t.Roots)
	if err != nil {
		return nil, err
	}
	// A TAB keeps the server warm ("completionKeepAlive", default 2m): a
	// slow server that misses this TAB's budget answers the next one.
	var warm *client.Warm
	if cfg, err := s.keepAliveConfig(); err == nil {
		warm, _ = s.a.keepAlive(t, cfg.CompletionKeepAlive)
		if warm != nil {
			warm.OnFallback = nil // a TAB is silent: one-shot, with no note
		}
	}
	conn, err := client.Connect(ctx, t, client.Options{
		Warm:            warm,
		ProtocolVersion: pv,
		ClientVersion:   version(),
		MessageCeiling:  limits.MessageCeiling,
		Elicit:          func(context.Context, client.Elicitation) client.Answer { return client.Answer{Action: "decline"} },
		Roots:           roots,
		Secrets:         s.a.s.Secrets(),
		Transports:      auth.TransportsDir(s.a.getenv),
		HideTool:        hideTool(t), // completion is silent about hidden tools
		TraceParent:     s.a.traceParent,
		TraceState:      s.a.traceState,
	})
	if err != nil {
		return nil, err
	}
	s.done = conn.Close
	return conn, nil
}

// ImportSources offers the host sources mcpx import can copy from here:
// those with at least one entry. A project source needs the same trust as
// anywhere else (completion never passes --project on).
func (s *completeSource) ImportSources() []completions.Candidate {
	var out []completions.Candidate
	if !s.within(func() {
		for _, src := range config.Sources()[2:] {
			servers, _, err := config.ReadSource(src, s.importOptions())
			if err != nil || len(servers) == 0 {
				continue
			}
			out = append(out, completions.Candidate{Value: src, Desc: count(len(servers), "server")})
		}
	}) {
		return nil
	}
	return out
}

// ImportNames offers the entries of source, the first of each name.
func (s *completeSource) ImportNames(source string) []completions.Candidate {
	if !config.IsHostSource(source) {
		return nil
	}
	var servers []*config.Server
	var err error
	if !s.within(func() { servers, _, err = config.ReadSource(source, s.importOptions()) }) || err != nil {
		return nil
	}
	var out []completions.Candidate
	seen := map[string]bool{}
	for _, srv := range servers {
		if !seen[srv.Name] {
			seen[srv.Name] = true
			out = append(out, completions.Candidate{Value: srv.Name, Desc: srv.Transport + " " + srv.Target()})
		}
	}
	return out
}

func (s *completeSource) importOptions() config.LoadOptions {
	return config.LoadOptions{Cwd: s.a.cwd, Getenv: s.a.getenv}
}

func (s *completeSource) Servers() []completions.Candidate {
	var out []completions.Candidate
	cfg, err := s.config()
	if err == nil {
		for _, name := range cfg.Enabled() {
			srv := cfg.Servers[name]
			out = append(out, completions.Candidate{Value: name, Desc: srv.Transport + " " + srv.Target()})
		}
		// An entry another source's takes the name of: NAME@SOURCE.
		for _, ref := range cfg.Refs() {
			srv, _ := cfg.Lookup(ref, s.a.self)
			out = append(out, completions.Candidate{Value: ref, Desc: srv.Transport + " " + srv.Target()})
		}
	}
	if cfg == nil || cfg.Servers[config.DemoName] == nil {
		out = append(out, completions.Candidate{Value: config.DemoName, Desc: "built-in demo server"})
	}
	return out
}

// catalog lists the kinds the server advertises (nothing for the others),
// in catalog order; a listing that fails lists nothing of its kind.
func (s *completeSource) catalog(ctx context.Context, srv string, kinds ...string) ([]*client.Item, error) {
	conn, err := s.open(ctx, srv)
	if err != nil {
		return nil, err
	}
	items, _, err := conn.Catalog(ctx, kinds)
	return items, err
}

// itemDesc is what a suggestion says about an item: its description, else
// its title, else its name when that is not the id itself.
func itemDesc(it *client.Item) string {
	for _, p := range []*string{it.Description, it.Title, it.Name} {
		if p != nil && strings.TrimSpace(*p) != "" && *p != it.ID {
			return *p
		}
	}
	return ""
}

func (s *completeSource) Prompts(ctx context.Context, srv string) ([]completions.Prompt, error) {
	items, err := s.catalog(ctx, srv, client.KindPrompt)
	out := make([]completions.Prompt, 0, len(items))
	for _, it := range items {
		p := completions.Prompt{Name: it.ID, Desc: itemDesc(it)}
		for _, arg := range it.Arguments {
			d := ""
			if arg.Description != nil {
				d = *arg.Description
			}
			p.Args = append(p.Args, completions.PromptArg{Name: arg.Name, Desc: d, Required: arg.Required})
		}
		out = append(out, p)
	}
	return out, err
}

func (s *completeSource) Tools(ctx context.Context, srv string) ([]completions.Tool, error) {
	items, err := s.catalog(ctx, srv, client.KindTool)
	out := make([]completions.Tool, 0, len(items))
	for _, it := range items {
		t := completions.Tool{Name: it.ID, Desc: itemDesc(it)}
		if sc := parseToolSchema(it.InputSchema); sc != nil && sc.PropsOK {
			sc.secrets = s.a.s.Secrets()
			sc.Props.Each(func(key string, raw json.RawMessage) {
				at := schema.TypeOf(sc.Doc, raw)
				p := completions.Param{Name: key, Type: at.Label, Desc: sc.description(raw),
					Required: slices.Contains(sc.Required, key), Values: schemaValues(sc.Doc, raw, at)}
				t.Params = append(t.Params, p)
			})
		}
		out = append(out, t)
	}
	return out, err
}

// schemaValues are the values a property can be given as typed on the
// line: those its enum or const allows, through local $refs and unions
// (strings as they are, other values as JSON), or true and false for a
// boolean.
func schemaValues(doc *schema.Doc, raw json.RawMessage, at schema.Type) []string {
	if set := schema.Allowed(doc, raw); set != nil {
		var out []string
		seen := map[string]bool{}
		for _, v := range set.Values {
			// the same text for two values ("1" and 1): KEY=VALUE gives the string
			if f := lineForm(v); !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
		return out
	}
	if slices.Equal(at.Kinds, []string{"boolean"}) {
		return []string{"true", "false"}
	}
	return nil
}

func (s *completeSource) Resources(ctx context.Context, srv string) ([]completions.Resource, error) {
	items, err := s.catalog(ctx, srv, client.KindResource, client.KindTemplate)
	if err != nil {
		return nil, err
	}
	out := make([]completions.Resource, 0, len(items))
	for _, it := range items {
		d := itemDesc(it)
		if it.Kind == client.KindTemplate {
			d = "template: " + d
		}
		out = append(out, completions.Resource{URI: it.ID, Desc: d, Template: it.Kind == client.KindTemplate})
	}
	return out, nil
}

func (s *completeSource) Keys(ctx context.Context, srv string) ([]completions.Candidate, error) {
	items, err := s.catalog(ctx, srv)
	if err != nil {
		return nil, err
	}
	out := make([]completions.Candidate, 0, len(items))
	for _, it := range items {
		out = append(out, completions.Candidate{Value: it.Key(), Desc: itemDesc(it)})
	}
	return out, nil
}

// Tasks are the server's task ids (tasks/list), described by their status.
func (s *completeSource) Tasks(ctx context.Context, srv string) ([]completions.Candidate, error) {
	conn, err := s.open(ctx, srv)
	if err != nil {
		return nil, err
	}
	tasks, _, err := conn.ListTasks(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]completions.Candidate, 0, len(tasks))
	for _, t := range tasks {
		desc := t.Status
		if t.StatusMessage != "" {
			desc += ": " + t.StatusMessage
		}
		out = append(out, completions.Candidate{Value: t.ID, Desc: desc})
	}
	return out, nil
}

func (s *completeSource) Skills(ctx context.Context, srv string) ([]completions.Candidate, error) {
	conn, err := s.open(ctx, srv)
	if err != nil || !conn.Caps.Skills {
		return nil, err
	}
	raws, _, err := conn.ListSkills(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]completions.Candidate, 0, len(raws))
	for _, raw := range raws {
		if e, perr := skills.ParseEntry(raw); perr == nil {
			out = append(out, completions.Candidate{Value: e.Name, Desc: e.Description})
		}
	}
	return out, nil
}

func (s *completeSource) Complete(ctx context.Context, srv string, ref completions.Ref, arg, value string, args map[string]string) ([]string, error) {
	conn, err := s.open(ctx, srv)
	if err != nil || !conn.Caps.Completions {
		return nil, err
	}
	return conn.Complete(ctx, client.CompleteRef{Prompt: ref.Prompt, URI: ref.URI}, arg, value, args)
}

func (s *completeSource) TemplateVars(tmpl string) []string {
	if !strings.Contains(tmpl, "{") {
		return nil
	}
	return uritemplate.Variables(tmpl)
}
