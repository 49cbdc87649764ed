package completions

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Candidate is one suggestion: the whole word and what it is.
type Candidate struct {
	Value string
	Desc  string
}

// pathKind says that a word is a path the shell completes itself.
type pathKind int

// The kinds of path a shell completes itself.
const (
	NoPath pathKind = iota
	Files
	Dirs
)

// Flag describes one flag of the command line.
type Flag struct {
	Names      []string // without dashes; one letter is a short flag
	Usage      string
	TakesValue bool
	Values     []string // a fixed set of values, when there is one
	Path       pathKind // the value is a file or a directory
}

// Command describes one command.
type Command struct {
	Name  string
	Usage string
	Flags []Flag
	// Commands are its visible subcommands (their flags left out).
	Commands []Command
	// Hidden: not offered as a command (help), yet completed after.
	Hidden bool
}

// Spec is the command tree: the root's flags (every command takes them) and
// the commands (hidden ones marked).
type Spec struct {
	Flags    []Flag
	Commands []Command
}

func (s *Spec) command(name string) *Command {
	for i := range s.Commands {
		if s.Commands[i].Name == name {
			return &s.Commands[i]
		}
	}
	return nil
}

// flags are the flags a command takes: its own, then the root's.
func (s *Spec) flags(cmd *Command) []Flag {
	if cmd == nil {
		return s.Flags
	}
	return append(slices.Clip(cmd.Flags), s.Flags...)
}

func findFlag(flags []Flag, name string) *Flag {
	for i := range flags {
		if slices.Contains(flags[i].Names, name) {
			return &flags[i]
		}
	}
	return nil
}

// Line is a parsed command line: the command, its positional arguments and
// the flags given, up to the word being completed.
type Line struct {
	Command  string
	Args     []string
	flags    map[string][]string // by the flag's first name
	spec     *Spec
	pending  *Flag // the last word is a flag whose value is being completed
	dashdash bool  // "--" was given: every later word is positional
}

// Flag returns the values given for a flag (by any of its names), in order;
// a flag without a value counts as "true".
func (l *Line) Flag(name string) []string {
	f := findFlag(l.spec.flags(l.spec.command(l.Command)), name)
	if f == nil {
		return nil
	}
	return l.flags[f.Names[0]]
}

// isTrue reports whether a boolean flag is set: its last value, as the
// command line reads it ("--all=false" is not set).
func (l *Line) isTrue(name string) bool {
	v := l.Flag(name)
	if len(v) == 0 {
		return false
	}
	b, err := strconv.ParseBool(v[len(v)-1])
	return b || err != nil
}

// Parse reads words, the words before the one being completed (the program
// name excluded), the way mcpx's command line reads them: flags may come
// anywhere after the command, "--" ends them, and an unknown flag takes no
// value.
func Parse(spec *Spec, words []string) *Line {
	l := &Line{spec: spec, flags: map[string][]string{}}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if l.dashdash || w == "-" || !strings.HasPrefix(w, "-") {
			if l.Command == "" {
				l.Command = w
			} else {
				l.Args = append(l.Args, w)
			}
			continue
		}
		if w == "--" {
			l.dashdash = true
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		f := findFlag(spec.flags(spec.command(l.Command)), name)
		if f == nil {
			continue
		}
		switch {
		case hasValue:
		case !f.TakesValue:
			value = "true"
		case i+1 < len(words):
			i++
			value = words[i]
		default:
			l.pending = f
			continue
		}
		l.flags[f.Names[0]] = append(l.flags[f.Names[0]], value)
	}
	return l
}

// Prompt is a prompt as completion needs it.
type Prompt struct {
	Name, Desc string
	Args       []PromptArg
}

// PromptArg is one declared prompt argument.
type PromptArg struct {
	Name, Desc string
	Required   bool
}

// Tool is a tool as completion needs it.
type Tool struct {
	Name, Desc string
	Params     []Param
}

// Param is one property of a tool's input schema.
type Param struct {
	Name, Type, Desc string
	Required         bool
	Values           []string // the enum (or true/false for a boolean), as typed on the line
}

// Resource is a resource URI or a resource template.
type Resource struct {
	URI, Desc string
	Template  bool
}

// Ref names what completion/complete completes an argument of: a prompt, or
// (when Prompt is empty) the resource template URI.
type Ref struct {
	Prompt, URI string
}

// source is where suggestions come from. Every method but Servers and
// TemplateVars asks a server; each returns nothing (and no error) when the
// server does not offer what is asked, and the caller bounds them all with
// one deadline in ctx.
type source interface {
	Servers() []Candidate
	Prompts(ctx context.Context, srv string) ([]Prompt, error)
	Tools(ctx context.Context, srv string) ([]Tool, error)
	Resources(ctx context.Context, srv string) ([]Resource, error)
	Keys(ctx context.Context, srv string) ([]Candidate, error)
	// Tasks are the ids of the server's tasks (tasks/list), with their status.
	Tasks(ctx context.Context, srv string) ([]Candidate, error)
	// Skills are the names of the skills the server publishes (skills/list),
	// with their descriptions.
	Skills(ctx context.Context, srv string) ([]Candidate, error)
	Complete(ctx context.Context, srv string, ref Ref, arg, value string, context map[string]string) ([]string, error)
	TemplateVars(tmpl string) []string
	// ImportSources and ImportNames answer mcpx import: the sources that
	// have servers here, and the entries of one. They read files only.
	ImportSources() []Candidate
	ImportNames(source string) []Candidate
}

// result is what a TAB offers.
type result struct {
	Cands []Candidate
	Path  pathKind // the shell completes a path instead (Cands is empty)
}

// Complete returns the suggestions for cur, the word being completed, after
// line. Any error from src means no suggestions.
func Complete(ctx context.Context, line *Line, cur string, src source) result {
	cands, path, err := complete(ctx, line, cur, src)
	if err != nil || ctx.Err() != nil {
		return result{}
	}
	return result{Cands: cands, Path: path}
}

func complete(ctx context.Context, l *Line, cur string, src source) ([]Candidate, pathKind, error) {
	spec := l.spec
	cmd := spec.command(l.Command)
	if l.pending != nil {
		return flagValues(l.pending, "", cur)
	}
	if !l.dashdash && strings.HasPrefix(cur, "-") {
		if name, value, ok := strings.Cut(strings.TrimLeft(cur, "-"), "="); ok {
			if f := findFlag(spec.flags(cmd), name); f != nil && f.TakesValue {
				return flagValues(f, cur[:len(cur)-len(value)], value)
			}
			return nil, NoPath, nil
		}
		return flagNames(spec.flags(cmd)), NoPath, nil
	}
	if l.Command == "" {
		return commandNames(spec.Commands), NoPath, nil
	}
	if cmd == nil {
		return nil, NoPath, nil
	}
	args := l.Args
	switch cmd.Name {
	case "help":
		// A command path: a command, then one of its subcommands.
		cmds := spec.Commands
		for _, a := range args {
			c := commandIn(cmds, a)
			if c == nil {
				return nil, NoPath, nil
			}
			cmds = c.Commands
		}
		return commandNames(cmds), NoPath, nil
	case "completion":
		if len(args) == 0 {
			return []Candidate{{"bash", ""}, {"zsh", ""}, {"fish", ""}, {"powershell", ""}}, NoPath, nil
		}
		return nil, NoPath, nil
	case "catalog":
		if len(args) == 0 && !l.isTrue("all") {
			return src.Servers(), NoPath, nil
		}
		return nil, NoPath, nil
	case "import":
		// SOURCE, then the names of its entries not typed yet.
		if len(args) == 0 {
			return src.ImportSources(), NoPath, nil
		}
		var out []Candidate
		for _, c := range src.ImportNames(args[0]) {
			if !slices.Contains(args[1:], c.Value) {
				out = append(out, c)
			}
		}
		return out, NoPath, nil
	case "task":
		// The subcommand, a server name, then (but for list) the server's
		// task ids.
		switch {
		case len(args) == 0:
			return []Candidate{{"get", "show a task's status"}, {"wait", "wait for a task and print its result"},
				{"cancel", "cancel a task"}, {"list", "list a server's tasks"}}, NoPath, nil
		case len(args) == 1:
			return src.Servers(), NoPath, nil
		case len(args) == 2 && args[0] != "list":
			tasks, err := src.Tasks(ctx, args[1])
			return tasks, NoPath, err
		}
		return nil, NoPath, nil
	case "snapshot":
		if len(args) == 0 {
			return src.Servers(), NoPath, nil
		}
		return nil, NoPath, nil
	case "diff":
		// OLD and NEW: a word that looks like a path is a snapshot file,
		// anything else a server name (no server is contacted).
		switch {
		case len(args) >= 2:
			return nil, NoPath, nil
		case looksLikePath(cur):
			return nil, Files, nil
		}
		return src.Servers(), NoPath, nil
	case "skills":
		return skillsStage(ctx, src, args)
	case "login", "logout":
		// Server names only: completing them contacts no server.
		if len(args) == 0 {
			return src.Servers(), NoPath, nil
		}
		return nil, NoPath, nil
	case "describe", "read", "prompt", "invoke":
	default:
		return moreStages(ctx, src, cmd.Name, args) // complete_more.go
	}
	if len(args) == 0 {
		return src.Servers(), NoPath, nil
	}
	srv := args[0]
	switch cmd.Name {
	case "describe":
		if len(args) == 1 {
			keys, err := src.Keys(ctx, srv)
			return keys, NoPath, err
		}
	case "prompt":
		return promptStage(ctx, src, srv, args[1:], cur)
	case "invoke":
		return invokeStage(ctx, src, srv, args[1:], cur)
	case "read":
		return readStage(ctx, src, srv, args[1:], cur)
	}
	return nil, NoPath, nil
}

// looksLikePath reports whether a word being typed names a file: it has a
// "/" or a ".", or starts with "~".
func looksLikePath(cur string) bool {
	return strings.ContainsAny(cur, "/.") || strings.HasPrefix(cur, "~")
}

// skillsStage completes skills: the subcommand get or generate, or a
// server name (whose skills it lists), then get's server and the server's
// skill names, or generate's server.
func skillsStage(ctx context.Context, src source, args []string) ([]Candidate, pathKind, error) {
	switch {
	case len(args) == 0:
		return append([]Candidate{{"get", "write one of a server's skills as a skill directory"},
			{"generate", "write a SKILL.md that teaches a server through mcpx"}}, src.Servers()...), NoPath, nil
	case args[0] == "generate":
		if len(args) == 1 {
			return src.Servers(), NoPath, nil
		}
		return nil, NoPath, nil
	case args[0] != "get":
		return nil, NoPath, nil
	case len(args) == 1:
		return src.Servers(), NoPath, nil
	case len(args) == 2:
		skills, err := src.Skills(ctx, args[1])
		return skills, NoPath, err
	}
	return nil, NoPath, nil
}

// commandNames are the candidates of the commands that are not hidden.
func commandNames(cmds []Command) []Candidate {
	var out []Candidate
	for _, c := range cmds {
		if !c.Hidden {
			out = append(out, Candidate{c.Name, c.Usage})
		}
	}
	return out
}

func commandIn(cmds []Command, name string) *Command {
	for i := range cmds {
		if cmds[i].Name == name && !cmds[i].Hidden {
			return &cmds[i]
		}
	}
	return nil
}

func flagNames(flags []Flag) []Candidate {
	var out []Candidate
	for _, f := range flags {
		for _, n := range f.Names {
			dash := "--"
			if len(n) == 1 {
				dash = "-"
			}
			out = append(out, Candidate{dash + n, f.Usage})
		}
	}
	return out
}

// flagValues completes the value of f; prefix is "--flag=" when the value is
// part of the flag's word (the scripts then complete the path after the '=').
func flagValues(f *Flag, prefix, _ string) ([]Candidate, pathKind, error) {
	if f.Path != NoPath {
		return nil, f.Path, nil
	}
	var out []Candidate
	for _, v := range f.Values {
		out = append(out, Candidate{prefix + v, ""})
	}
	return out, NoPath, nil
}

// given returns the KEY=VALUE pairs among words (the last one wins), and
// their keys in order.
func given(words []string) (map[string]string, []string) {
	m := map[string]string{}
	var keys []string
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			continue
		}
		k = strings.TrimSuffix(k, ":") // KEY:=JSON
		if _, seen := m[k]; !seen {
			keys = append(keys, k)
		}
		m[k] = v
	}
	return m, keys
}

// contextArgs are the values typed so far that can go in a completion
// request's context: @FILE and @- are never read for a TAB; @@x is "@x".
func contextArgs(words []string, except string) map[string]string {
	m, _ := given(words)
	out := map[string]string{}
	for k, v := range m {
		if k == except {
			continue
		}
		if strings.HasPrefix(v, "@@") {
			v = v[1:]
		} else if strings.HasPrefix(v, "@") {
			continue
		}
		out[k] = v
	}
	return out
}

func keyDesc(typ string, required bool, desc string) string {
	var parts []string
	if typ != "" {
		parts = append(parts, typ)
	}
	if required {
		parts = append(parts, "(required)")
	}
	if desc != "" {
		parts = append(parts, desc)
	}
	return strings.Join(parts, " ")
}

func promptStage(ctx context.Context, src source, srv string, args []string, cur string) ([]Candidate, pathKind, error) {
	if len(args) == 0 {
		prompts, err := src.Prompts(ctx, srv)
		var out []Candidate
		for _, p := range prompts {
			out = append(out, Candidate{p.Name, p.Desc})
		}
		return out, NoPath, err
	}
	name := args[0]
	typed := args[1:]
	if key, value, ok := strings.Cut(cur, "="); ok {
		if key == "" || strings.HasPrefix(value, "@") {
			return nil, NoPath, nil
		}
		values, err := src.Complete(ctx, srv, Ref{Prompt: name}, key, value, contextArgs(typed, key))
		return prefixed(key+"=", values), NoPath, err
	}
	prompts, err := src.Prompts(ctx, srv)
	if err != nil {
		return nil, NoPath, err
	}
	i := slices.IndexFunc(prompts, func(p Prompt) bool { return p.Name == name })
	if i < 0 {
		return nil, NoPath, nil
	}
	have, _ := given(typed)
	var out []Candidate
	for _, a := range prompts[i].Args {
		if _, ok := have[a.Name]; !ok {
			out = append(out, Candidate{a.Name + "=", keyDesc("", a.Required, a.Desc)})
		}
	}
	return out, NoPath, nil
}

func invokeStage(ctx context.Context, src source, srv string, args []string, cur string) ([]Candidate, pathKind, error) {
	tools, err := src.Tools(ctx, srv)
	if err != nil {
		return nil, NoPath, err
	}
	if len(args) == 0 {
		var out []Candidate
		for _, t := range tools {
			out = append(out, Candidate{t.Name, t.Desc})
		}
		return out, NoPath, nil
	}
	i := slices.IndexFunc(tools, func(t Tool) bool { return t.Name == args[0] })
	if i < 0 {
		return nil, NoPath, nil
	}
	tool := tools[i]
	if key, _, ok := strings.Cut(cur, "="); ok {
		if strings.HasSuffix(key, ":") { // KEY:=JSON
			return nil, NoPath, nil
		}
		j := slices.IndexFunc(tool.Params, func(p Param) bool { return p.Name == key })
		if j < 0 {
			return nil, NoPath, nil
		}
		return prefixed(key+"=", tool.Params[j].Values), NoPath, nil
	}
	have, _ := given(args[1:])
	var out []Candidate
	for _, p := range tool.Params {
		if _, ok := have[p.Name]; !ok {
			out = append(out, Candidate{p.Name + "=", keyDesc(p.Type, p.Required, p.Desc)})
		}
	}
	return out, NoPath, nil
}

func readStage(ctx context.Context, src source, srv string, args []string, cur string) ([]Candidate, pathKind, error) {
	if len(args) == 0 {
		res, err := src.Resources(ctx, srv)
		var out []Candidate
		for _, r := range res {
			out = append(out, Candidate{r.URI, r.Desc})
		}
		return out, NoPath, err
	}
	tmpl := args[0]
	vars := src.TemplateVars(tmpl)
	if len(vars) == 0 {
		return nil, NoPath, nil
	}
	// read takes every VAR=VALUE literally: no @FILE, no KEY:=JSON.
	have := map[string]string{}
	for _, w := range args[1:] {
		if k, v, ok := strings.Cut(w, "="); ok && k != "" {
			have[k] = v
		}
	}
	if key, value, ok := strings.Cut(cur, "="); ok {
		if !slices.Contains(vars, key) {
			return nil, NoPath, nil
		}
		others := maps.Clone(have)
		delete(others, key)
		values, err := src.Complete(ctx, srv, Ref{URI: tmpl}, key, value, others)
		return prefixed(key+"=", values), NoPath, err
	}
	var out []Candidate
	for _, v := range vars {
		if _, ok := have[v]; !ok {
			out = append(out, Candidate{v + "=", "template variable"})
		}
	}
	return out, NoPath, nil
}

func prefixed(prefix string, values []string) []Candidate {
	out := make([]Candidate, 0, len(values))
	for _, v := range values {
		out = append(out, Candidate{prefix + v, ""})
	}
	return out
}
