// Command genman writes man/mcpx.1 from mcpx's command definitions and the
// hand-written roff under man/src (`make man`; `make check-man` compares).
//
// Design. The page has two kinds of text. What the command definitions say
// (every visible command's name, ArgsUsage and Usage, every flag's names,
// placeholder, Usage, default and environment variables) is generated here,
// so that it cannot drift from `mcpx --help`: the SYNOPSIS, the NAME line, the
// heading, first sentence and flag list of each command under COMMANDS, the
// GLOBAL OPTIONS list and the ENVIRONMENT entries of variables that set a
// flag. Everything else is prose that no definition holds (CONFIGURATION,
// CONTENT POLICY, EXIT STATUS, EXAMPLES...) and stays hand-written roff in
// man/src: mcpx.1.in is the outline ("@generate PART" and "@include FILE"
// lines), commands/NAME.roff the prose of one command, with "@flag NAME"
// blocks appended to that flag's generated entry, global-options.roff and
// environment.roff the same for the global flags and the variables. A
// "@if-command NAME" ... "@endif" block is kept only while the tree has that
// visible command, so prose for a command still being written (completion)
// appears with it. man/src/README says the same for whoever edits the prose.
//
// cli-docs. github.com/urfave/cli-docs/v3's own page (ToManWithSection) is
// not usable as a whole: it renders through markdown and go-md2man, which
// gives no date, sorted flags each shown as `--flag="":`, no ArgsUsage, every
// command as a top-level .SH section, placeholders as \fB\fC...\fR code
// spans, and unescaped hyphens (so --flag does not copy-paste on groff). What
// it does well is walking the tree into a documentation model: each visible
// command's full name, Usage and ArgsUsage, each visible flag's names,
// whether it takes a value, its type, its default (DefaultText, else the
// value) and its environment variables. genman takes that model from
// cli-docs' tabular generator, with the generator's template (the exported
// MarkdownTabularDocTemplate) swapped for one that prints one quoted record
// per command and flag, and renders the roff itself. The model lacks only
// whether a flag repeats, which genman asks the flag (IsMultiValueFlag).
//
// The output is byte-stable: no date but the one in mcpx.1.in, no version,
// no map order.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	docs "github.com/urfave/cli-docs/v3"
	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/commands"
)

// outlineFile is the page's outline in the source directory.
const outlineFile = "mcpx.1.in"

// staleMsg is what -check (and the test) say when man/mcpx.1 differs.
const staleMsg = "man/mcpx.1 is stale: run 'make man' and commit"

func main() {
	src := flag.String("src", "man/src", "directory of the hand-written roff")
	out := flag.String("o", "", "write the page to `FILE` (default: standard output)")
	check := flag.Bool("check", false, "compare the page with -o FILE instead of writing it; exit 1 when they differ")
	flag.Parse()

	page, warns, err := Generate(commands.DocRoot(), *src)
	for _, w := range warns {
		fmt.Fprintln(os.Stderr, "genman: warning:", w)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genman:", err)
		os.Exit(2)
	}
	switch {
	case *check:
		if *out == "" {
			fmt.Fprintln(os.Stderr, "genman: -check needs -o FILE")
			os.Exit(2)
		}
		old, err := os.ReadFile(*out)
		if err != nil || !bytes.Equal(old, page) {
			fmt.Fprintln(os.Stderr, staleMsg)
			if err == nil {
				fmt.Fprintln(os.Stderr, FirstDifference(old, page))
			}
			os.Exit(1)
		}
	case *out == "":
		_, _ = os.Stdout.Write(page)
	default:
		if old, err := os.ReadFile(*out); err == nil && bytes.Equal(old, page) {
			return // unchanged: keep the file's time
		}
		if err := os.WriteFile(*out, page, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "genman:", err)
			os.Exit(1)
		}
	}
}

// FirstDifference describes the first line where the committed page (old)
// and the generated one differ.
func FirstDifference(old, gen []byte) string {
	a, b := strings.Split(string(old), "\n"), strings.Split(string(gen), "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y || i >= len(a) || i >= len(b) {
			return fmt.Sprintf("first difference at line %d:\n  committed: %q\n  generated: %q", i+1, x, y)
		}
	}
	return "no difference"
}

// Generate renders the page for the command tree root from the roff in src.
// It changes root (drops the hidden commands, adds --help and --version):
// give it a fresh tree, such as commands.DocRoot returns. Warnings are about missing prose; errors about prose that no longer fits
// the definitions (a block for a flag that is gone) or broken sources.
func Generate(root *cli.Command, src string) ([]byte, []string, error) {
	pruneHidden(root)
	addDefaultFlags(root)
	m, err := model(root)
	if err != nil {
		return nil, nil, err
	}
	g := &gen{m: m, src: src, visible: map[string]bool{}}
	for _, c := range m.Commands {
		g.visible[c.Name] = true
	}
	outline, err := g.fragment(outlineFile)
	if err != nil {
		return nil, nil, err
	}
	var w bytes.Buffer
	w.WriteString(`.\" Generated by scripts/genman from man/src and mcpx's command definitions.` + "\n")
	w.WriteString(`.\" Do not edit: change man/src or the definitions, then run 'make man'.` + "\n")
	for _, ln := range outline.Lines {
		d, ok := parseDirective(ln)
		if !ok {
			w.WriteString(ln + "\n")
			continue
		}
		var part []string
		switch d.verb {
		case "include":
			f, err := g.fragment(d.arg)
			if err != nil {
				return nil, nil, err
			}
			if len(f.Blocks) > 0 {
				return nil, nil, fmt.Errorf("%s: @%s blocks are only read from commands/, global-options.roff and environment.roff", d.arg, f.Blocks[0].Kind)
			}
			part = f.Lines
		case "generate":
			part, err = g.generate(d.arg)
			if err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, fmt.Errorf("%s: unknown directive @%s", outlineFile, d.verb)
		}
		for _, p := range part {
			w.WriteString(p + "\n")
		}
	}
	return w.Bytes(), g.warns, nil
}

// pruneHidden drops hidden commands (serve-demo, __complete) from the tree.
func pruneHidden(c *cli.Command) {
	var keep []*cli.Command
	for _, sub := range c.Commands {
		if !sub.Hidden {
			pruneHidden(sub)
			keep = append(keep, sub)
		}
	}
	c.Commands = keep
}

// addDefaultFlags adds the --help and --version flags urfave/cli adds to the
// root when it runs, minus the aliases another flag holds (-v is --verbose),
// as its setup does.
func addDefaultFlags(root *cli.Command) {
	taken := map[string]bool{}
	for _, f := range root.Flags {
		for _, n := range f.Names() {
			taken[n] = true
		}
	}
	defaults := []cli.Flag{cli.HelpFlag}
	if !root.HideVersion {
		defaults = append(defaults, cli.VersionFlag)
	}
	for _, def := range defaults {
		bf, ok := def.(*cli.BoolFlag)
		if !ok || taken[bf.Name] {
			continue
		}
		f := *bf
		f.Aliases = nil
		for _, a := range bf.Aliases {
			if !taken[a] {
				f.Aliases = append(f.Aliases, a)
			}
		}
		root.Flags = append(root.Flags, &f)
	}
}

// The documentation model, as cli-docs computes it.
type (
	appDoc struct {
		Name, Usage string
		Flags       []flagDoc
		Commands    []cmdDoc // depth first, subcommands after their parent
	}
	cmdDoc struct {
		Name      string // full name: "completion", or "parent child"
		Usage     string
		ArgsUsage string
		Flags     []flagDoc
	}
	flagDoc struct {
		Names      []string // without dashes, short ones first
		TakesValue bool
		Type       string
		Default    string
		Env        []string
		Usage      string
		Multi      bool
	}
)

// recordTemplate replaces cli-docs' tabular markdown template: one line per
// command and per flag, every string Go-quoted.
const recordTemplate = `{{ define "flags" }}{{ range . }}
flag {{ printf "%q" .Name }} {{ printf "%q" (join .Aliases " ") }} {{ .TakesValue }} {{ printf "%q" .Type }} {{ printf "%q" .Default }} {{ printf "%q" (join .EnvVars " ") }} {{ printf "%q" .Usage }}
{{ end }}{{ end }}
{{ define "command" }}
command {{ printf "%q" .Name }} {{ printf "%q" .Usage }} {{ printf "%q" .ArgsUsage }}
{{ template "flags" .Flags }}{{ range .SubCommands }}{{ template "command" . }}{{ end }}{{ end }}
app {{ printf "%q" .Name }} {{ printf "%q" .Usage }}
{{ template "flags" .GlobalFlags }}{{ range .Commands }}{{ template "command" . }}{{ end }}
`

func model(root *cli.Command) (*appDoc, error) {
	saved := docs.MarkdownTabularDocTemplate
	docs.MarkdownTabularDocTemplate = recordTemplate
	text, err := docs.ToTabularMarkdown(root, root.Name)
	docs.MarkdownTabularDocTemplate = saved
	if err != nil {
		return nil, fmt.Errorf("cli-docs: %w", err)
	}
	m := &appDoc{}
	var flags *[]flagDoc
	var cmd *cli.Command
	for _, ln := range strings.Split(text, "\n") {
		if strings.TrimSpace(ln) == "" {
			continue
		}
		kind, f, err := fields(ln)
		if err != nil {
			return nil, fmt.Errorf("cli-docs record %q: %w", ln, err)
		}
		switch {
		case kind == "app" && len(f) == 2:
			m.Name, m.Usage = f[0], f[1]
			flags, cmd = &m.Flags, root
		case kind == "command" && len(f) == 3:
			m.Commands = append(m.Commands, cmdDoc{Name: f[0], Usage: f[1], ArgsUsage: f[2]})
			flags = &m.Commands[len(m.Commands)-1].Flags
			if cmd = find(root, f[0]); cmd == nil {
				return nil, fmt.Errorf("cli-docs names a command %q that is not in the tree", f[0])
			}
		case kind == "flag" && len(f) == 7 && flags != nil:
			fd := flagDoc{TakesValue: f[2] == "true", Type: f[3], Default: strings.Trim(f[4], "`"), Usage: f[6]}
			fd.Names = append([]string{strings.TrimLeft(f[0], "-")}, splitNames(f[1])...)
			sort.SliceStable(fd.Names, func(i, j int) bool { return len(fd.Names[i]) == 1 && len(fd.Names[j]) > 1 })
			fd.Env = strings.Fields(f[5])
			if real := findFlag(cmd, strings.TrimLeft(f[0], "-")); real != nil {
				if mv, ok := real.(cli.DocGenerationMultiValueFlag); ok {
					fd.Multi = mv.IsMultiValueFlag()
				}
			}
			*flags = append(*flags, fd)
		default:
			return nil, fmt.Errorf("unexpected cli-docs record %q", ln)
		}
	}
	if m.Name == "" {
		return nil, fmt.Errorf("cli-docs gave no app record")
	}
	return m, nil
}

func splitNames(s string) []string {
	var out []string
	for _, n := range strings.Fields(s) {
		out = append(out, strings.TrimLeft(n, "-"))
	}
	return out
}

// fields splits a record line into its kind and its fields (Go-quoted
// strings, or bare words).
func fields(ln string) (string, []string, error) {
	kind, rest, _ := strings.Cut(strings.TrimSpace(ln), " ")
	var out []string
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
		if rest[0] == '"' {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return "", nil, err
			}
			s, _ := strconv.Unquote(q)
			out = append(out, s)
			rest = rest[len(q):]
			continue
		}
		word, tail, _ := strings.Cut(rest, " ")
		out = append(out, word)
		rest = tail
	}
	return kind, out, nil
}

func find(root *cli.Command, path string) *cli.Command {
	c := root
	for _, name := range strings.Fields(path) {
		var next *cli.Command
		for _, sub := range c.Commands {
			if sub.Name == name {
				next = sub
			}
		}
		if next == nil {
			return nil
		}
		c = next
	}
	return c
}

func findFlag(c *cli.Command, name string) cli.Flag {
	for _, f := range c.Flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

// Sources: fragments of roff with directives in roff comments.

type directive struct{ verb, arg string }

var directiveRE = regexp.MustCompile(`^\.\\"\s*@([a-z-]+)\s*(.*?)\s*$`)

func parseDirective(ln string) (directive, bool) {
	m := directiveRE.FindStringSubmatch(ln)
	if m == nil {
		return directive{}, false
	}
	return directive{m[1], m[2]}, true
}

// A fragment is a source file with its comments and false @if-command
// blocks removed: Lines before the first @flag/@env block, then the blocks.
type fragment struct {
	Name   string
	Lines  []string
	Blocks []block
}

type block struct {
	Kind, Name string // "flag", "env"
	Lines      []string
}

type gen struct {
	m       *appDoc
	src     string
	visible map[string]bool
	warns   []string
}

func (g *gen) fragment(name string) (*fragment, error) {
	data, err := os.ReadFile(filepath.Join(g.src, name))
	if err != nil {
		return nil, err
	}
	f := &fragment{Name: name}
	var skip []bool // the @if-command stack: true where the block is dropped
	dropped := func() bool {
		for _, s := range skip {
			if s {
				return true
			}
		}
		return false
	}
	seen := map[string]bool{}
	text := strings.TrimSuffix(string(data), "\n")
	for i, ln := range strings.Split(text, "\n") {
		ln = strings.TrimRight(ln, " \t")
		where := fmt.Sprintf("%s:%d", name, i+1)
		if d, ok := parseDirective(ln); ok {
			switch d.verb {
			case "if-command":
				skip = append(skip, !g.visible[d.arg])
			case "endif":
				if len(skip) == 0 {
					return nil, fmt.Errorf("%s: @endif without @if-command", where)
				}
				skip = skip[:len(skip)-1]
			case "flag", "env":
				if dropped() {
					continue
				}
				if d.arg == "" || seen[d.verb+" "+d.arg] {
					return nil, fmt.Errorf("%s: @%s needs a name, given once", where, d.verb)
				}
				seen[d.verb+" "+d.arg] = true
				f.Blocks = append(f.Blocks, block{Kind: d.verb, Name: d.arg})
			case "include", "generate":
				if name != outlineFile {
					return nil, fmt.Errorf("%s: @%s only works in %s", where, d.verb, outlineFile)
				}
				if !dropped() {
					f.Lines = append(f.Lines, ln) // expanded by Generate
				}
			default:
				return nil, fmt.Errorf("%s: unknown directive @%s", where, d.verb)
			}
			continue
		}
		if dropped() || strings.HasPrefix(ln, `.\"`) || strings.HasPrefix(ln, `'\"`) {
			continue
		}
		if ln == "" {
			return nil, fmt.Errorf("%s: blank line (use .PP, or .IP inside a list entry)", where)
		}
		if n := len(f.Blocks); n > 0 {
			f.Blocks[n-1].Lines = append(f.Blocks[n-1].Lines, ln)
		} else {
			f.Lines = append(f.Lines, ln)
		}
	}
	if len(skip) != 0 {
		return nil, fmt.Errorf("%s: @if-command without @endif", name)
	}
	return f, nil
}

// optional reads a fragment that may be missing.
func (g *gen) optional(name string) (*fragment, error) {
	if _, err := os.Stat(filepath.Join(g.src, name)); os.IsNotExist(err) {
		return &fragment{Name: name}, nil
	}
	return g.fragment(name)
}

func (g *gen) generate(part string) ([]string, error) {
	switch part {
	case "name":
		return []string{esc(g.m.Name) + ` \- ` + esc(g.m.Usage)}, nil
	case "synopsis":
		return g.synopsis(), nil
	case "commands":
		return g.commands()
	case "global-options":
		f, err := g.fragment("global-options.roff")
		if err != nil {
			return nil, err
		}
		return g.flagList(f, g.m.Flags)
	case "environment":
		return g.environment()
	}
	return nil, fmt.Errorf("mcpx.1.in: unknown @generate %q", part)
}

// synopsis is one .SY form per command: a command whose ArgsUsage has
// alternatives ("SRV [QUERY] | --all [QUERY]") has one per alternative. The
// command's flags follow, except those its ArgsUsage names.
func (g *gen) synopsis() []string {
	var out []string
	for _, c := range g.m.Commands {
		inArgs := map[string]bool{}
		for _, n := range flagNameRE.FindAllString(c.ArgsUsage, -1) {
			inArgs[strings.TrimLeft(n, "-")] = true
		}
		var opts []string
		for _, f := range c.Flags {
			if inArgs[f.Names[0]] || inArgs[f.Names[len(f.Names)-1]] {
				continue
			}
			o := `[\fB` + dashed(f.Names[0]) + `\fR`
			if f.TakesValue {
				o += `\ ` + `\fI` + nbsp(esc(placeholder(f))) + `\fR`
			}
			o += "]"
			if f.Multi {
				o += "..."
			}
			o += `\&` // not the end of a sentence
			opts = append(opts, o)
		}
		for _, alt := range alternatives(c.ArgsUsage) {
			out = append(out, ".SY "+esc(g.m.Name), `[\fIglobal\fR\ \fIoptions\fR]`, `\fB`+esc(c.Name)+`\fR`)
			if alt != "" {
				out = append(out, args(alt, false)+`\&`)
			}
			out = append(out, opts...)
		}
	}
	// One .YS after them all: consecutive .SY forms are set without blank
	// lines between them.
	return append(out, ".YS")
}

// commands is one .SS per command: its name and ArgsUsage, its Usage as a
// sentence, its prose from commands/NAME.roff, then its flags.
func (g *gen) commands() ([]string, error) {
	var out []string
	for _, c := range g.m.Commands {
		file := "commands/" + strings.ReplaceAll(c.Name, " ", "-") + ".roff"
		f, err := g.optional(file)
		if err != nil {
			return nil, err
		}
		if f.Lines == nil && f.Blocks == nil {
			g.warns = append(g.warns, fmt.Sprintf("no prose in man/src/%s: the page has only the generated lines for %q", file, c.Name))
		}
		head := esc(c.Name)
		if c.ArgsUsage != "" {
			head += " " + args(c.ArgsUsage, true)
		}
		out = append(out, `.SS "`+head+`"`)
		out = append(out, wrap(sentence(c.Usage, ""))...)
		out = append(out, f.Lines...)
		list, err := g.flagList(f, c.Flags)
		if err != nil {
			return nil, err
		}
		out = append(out, list...)
	}
	return out, nil
}

// flagList is one .TP entry per flag, in definition order: the names and
// placeholder, the Usage as a sentence with the default and the environment
// variables, then the flag's @flag block from f.
func (g *gen) flagList(f *fragment, flags []flagDoc) ([]string, error) {
	prose := map[string][]string{}
	for _, b := range f.Blocks {
		if b.Kind != "flag" {
			return nil, fmt.Errorf("%s: @%s blocks do not belong here", f.Name, b.Kind)
		}
		prose[b.Name] = b.Lines
	}
	var out []string
	for _, fl := range flags {
		var tag []string
		for _, n := range fl.Names {
			tag = append(tag, `\fB`+dashed(n)+`\fR`)
		}
		t := strings.Join(tag, ", ")
		if fl.TakesValue {
			t += ` \fI` + nbsp(esc(placeholder(fl))) + `\fR`
		}
		s := sentence(fl.Usage, placeholderOf(fl.Usage))
		if fl.TakesValue && fl.Default != "" {
			s += ` Default: \fB` + esc(fl.Default) + `\fR.`
		}
		for _, e := range fl.Env {
			s += ` Environment variable: \fB` + esc(e) + `\fR.`
		}
		out = append(out, ".TP", t)
		out = append(out, wrap(s)...)
		for _, n := range fl.Names {
			out = append(out, prose[n]...)
			delete(prose, n)
		}
	}
	if len(prose) > 0 {
		var stray []string
		for n := range prose {
			stray = append(stray, "--"+n)
		}
		sort.Strings(stray)
		return nil, fmt.Errorf("%s: prose for %s, which the command does not have", f.Name, strings.Join(stray, ", "))
	}
	return out, nil
}

// environment is one .TP entry per variable, sorted by name: the variables
// that set a flag (generated), and those environment.roff describes.
func (g *gen) environment() ([]string, error) {
	f, err := g.fragment("environment.roff")
	if err != nil {
		return nil, err
	}
	entries := map[string][]string{}
	fromFlags := func(cmd string, flags []flagDoc) {
		for _, fl := range flags {
			for _, e := range fl.Env {
				opt := `\fB` + dashed(fl.Names[len(fl.Names)-1]) + `\fR`
				if cmd != "" {
					opt = `\fB` + esc(cmd) + `\fR ` + opt
				}
				if fl.TakesValue {
					opt += ` \fI` + nbsp(esc(placeholder(fl))) + `\fR`
				}
				entries[e] = wrap("The default of " + opt + ": " + lowerFirst(sentence(fl.Usage, placeholderOf(fl.Usage))))
			}
		}
	}
	fromFlags("", g.m.Flags)
	for _, c := range g.m.Commands {
		fromFlags(c.Name, c.Flags)
	}
	for _, b := range f.Blocks {
		if b.Kind != "env" {
			return nil, fmt.Errorf("%s: @%s blocks do not belong here", f.Name, b.Kind)
		}
		entries[b.Name] = append(entries[b.Name], b.Lines...)
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	out := append([]string(nil), f.Lines...)
	for _, n := range names {
		out = append(out, ".TP", ".B "+esc(n))
		out = append(out, entries[n]...)
	}
	return out, nil
}

// Rendering helpers.

var (
	flagNameRE = regexp.MustCompile(`--?[A-Za-z][A-Za-z0-9-]*`)
	// usageFlagRE finds flag names in running text: after a space, a
	// parenthesis or the start, never inside a word (re-parsed, x-y).
	usageFlagRE = regexp.MustCompile(`(^|[\s(\[;,])(--?[A-Za-z][A-Za-z0-9-]*)`)
	argTokenRE  = regexp.MustCompile(`--?[a-z][a-z0-9-]*|[A-Z][A-Z0-9_]*|[a-z][a-z0-9_-]*|:=|=|@|\.\.\.|\s+|.`)
)

// esc escapes text for roff: backslashes, and hyphens as minus signs (so
// options copy and paste as typed).
func esc(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	return strings.ReplaceAll(s, "-", `\-`)
}

// nbsp keeps an escaped string on one output line.
func nbsp(s string) string { return strings.ReplaceAll(s, " ", `\ `) }

func dashed(name string) string {
	if len(name) == 1 {
		return `\-` + esc(name)
	}
	return `\-\-` + esc(name)
}

// placeholderOf is the name between the first pair of backquotes of a
// Usage, as urfave/cli shows it in --help.
func placeholderOf(usage string) string {
	i := strings.IndexByte(usage, '`')
	if i < 0 {
		return ""
	}
	j := strings.IndexByte(usage[i+1:], '`')
	if j < 0 {
		return ""
	}
	return usage[i+1 : i+1+j]
}

// placeholder is the value name shown after a flag: its Usage's, else one
// for its type.
func placeholder(f flagDoc) string {
	if p := placeholderOf(f.Usage); p != "" {
		return p
	}
	switch f.Type {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "N"
	case "duration":
		return "DUR"
	}
	return "VALUE"
}

// sentence renders a Usage as a sentence of roff: capitalized, ended with a
// period, the placeholder in italics, flag names in bold.
func sentence(usage, ph string) string {
	before, after := usage, ""
	if ph != "" {
		before, after, _ = strings.Cut(usage, "`"+ph+"`")
	}
	s := boldFlags(before)
	if ph != "" {
		s += `\fI` + nbsp(esc(ph)) + `\fR` + boldFlags(after)
	}
	if r := []rune(s); len(r) > 0 && unicode.IsLower(r[0]) {
		s = string(unicode.ToUpper(r[0])) + string(r[1:])
	}
	if !strings.HasSuffix(usage, ".") && !strings.HasSuffix(usage, "!") && !strings.HasSuffix(usage, "?") {
		s += "."
	}
	return s
}

func lowerFirst(s string) string {
	if r := []rune(s); len(r) > 1 && unicode.IsUpper(r[0]) && !unicode.IsUpper(r[1]) {
		return string(unicode.ToLower(r[0])) + string(r[1:])
	}
	return s
}

func boldFlags(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range usageFlagRE.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(esc(s[last:m[4]]))
		b.WriteString(`\fB` + esc(s[m[4]:m[5]]) + `\fR`)
		last = m[5]
	}
	b.WriteString(esc(s[last:]))
	return b.String()
}

// alternatives splits an ArgsUsage at its top-level " | ".
func alternatives(argsUsage string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(argsUsage); i++ {
		switch argsUsage[i] {
		case '[', '(', '{':
			depth++
		case ']', ')', '}':
			depth--
		case '|':
			if depth == 0 && i > 0 && argsUsage[i-1] == ' ' && i+1 < len(argsUsage) && argsUsage[i+1] == ' ' {
				out = append(out, strings.TrimSpace(argsUsage[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(argsUsage[start:]))
}

// args renders an ArgsUsage: metavariables (SRV, VAR) in italics; flags,
// literal words (bash) and the = := @ of pairs in bold; brackets, bars and
// ellipses roman. Spaces inside brackets do not break. In a heading (.SS,
// already bold) only the italics are marked.
func args(s string, heading bool) string {
	var b strings.Builder
	font, depth := "R", 0
	set := func(f string) {
		if heading && f == "B" {
			f = "R" // a heading is bold already
		}
		if f == font {
			return
		}
		font = f
		switch {
		case heading && f == "I":
			b.WriteString(`\fI`)
		case heading:
			b.WriteString(`\fP`)
		default:
			b.WriteString(`\f` + f)
		}
	}
	for _, tok := range argTokenRE.FindAllString(s, -1) {
		switch {
		case strings.TrimSpace(tok) == "":
			set("R")
			if depth > 0 {
				b.WriteString(`\ `)
			} else {
				b.WriteString(" ")
			}
			continue
		case tok == "[" || tok == "(" || tok == "{":
			depth++
			set("R")
		case tok == "]" || tok == ")" || tok == "}":
			depth--
			set("R")
		case tok[0] >= 'A' && tok[0] <= 'Z':
			set("I")
		case tok == "|" || tok == "...":
			set("R")
		case tok[0] == '-' || tok[0] >= 'a' && tok[0] <= 'z' || tok == "=" || tok == ":=" || tok == "@":
			set("B")
		default:
			set("R")
		}
		b.WriteString(esc(tok))
	}
	set("R")
	return b.String()
}

// wrap breaks a generated text line at spaces (not escaped ones) into lines
// of at most 80 bytes where it can, none starting with a control character.
func wrap(s string) []string {
	var lines []string
	for len(s) > 80 {
		cut := -1
		for i := 0; i < len(s); i++ {
			if s[i] == '\\' {
				i++
				continue
			}
			if s[i] == ' ' {
				if i > 80 && cut > 0 {
					break
				}
				cut = i
			}
		}
		if cut <= 0 {
			break
		}
		lines = append(lines, s[:cut])
		s = s[cut+1:]
	}
	lines = append(lines, s)
	for i, ln := range lines {
		if strings.HasPrefix(ln, ".") || strings.HasPrefix(ln, "'") {
			lines[i] = `\&` + ln
		}
	}
	return lines
}
