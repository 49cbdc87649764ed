package completions

import (
	"context"
	"errors"
	"reflect"
	"regexp"
	"testing"
)

// testSpec is mcpx's command tree as completion sees it (see
// commands.completionSpec, which builds the real one).
var testSpec = &Spec{
	Flags: []Flag{
		{Names: []string{"config"}, Usage: "read servers from FILE alone", TakesValue: true, Path: Files},
		{Names: []string{"project"}},
		{Names: []string{"header", "H"}, Usage: "extra HTTP header", TakesValue: true},
		{Names: []string{"json"}, Usage: "print JSON"},
		{Names: []string{"select"}, TakesValue: true},
		{Names: []string{"protocol-version"}, TakesValue: true, Values: []string{"2025-06-18", "2025-03-26"}},
		{Names: []string{"verbose", "v"}},
		{Names: []string{"cache-dir"}, TakesValue: true, Path: Dirs},
	},
	Commands: []Command{
		{Name: "servers", Usage: "list servers", Flags: []Flag{{Names: []string{"probe"}}}},
		{Name: "import", Usage: "copy servers", Flags: []Flag{{Names: []string{"force"}}, {Names: []string{"dry-run"}}}},
		{Name: "catalog", Usage: "list the catalog", Flags: []Flag{
			{Names: []string{"kind"}, TakesValue: true, Values: []string{"tool", "resource", "resource_template", "prompt"}},
			{Names: []string{"all"}},
		}},
		{Name: "describe", Usage: "describe an item", Flags: []Flag{
			{Names: []string{"kind"}, TakesValue: true, Values: []string{"tool", "resource", "resource_template", "prompt"}},
		}},
		{Name: "read", Usage: "read a resource", Flags: []Flag{
			{Names: []string{"pattern"}, TakesValue: true},
			{Names: []string{"raw"}},
			{Names: []string{"output", "o"}, Usage: "write FILE", TakesValue: true, Path: Files},
		}},
		{Name: "prompt", Usage: "get a prompt"},
		{Name: "invoke", Usage: "call a tool", Flags: []Flag{{Names: []string{"args"}, TakesValue: true}}},
		{Name: "login", Usage: "log in", Flags: []Flag{{Names: []string{"scope"}, TakesValue: true}, {Names: []string{"no-browser"}}}},
		{Name: "logout", Usage: "log out"},
		{Name: "completion", Usage: "print a script"},
		{Name: "task", Usage: "follow a task"},
		{Name: "snapshot", Usage: "write a snapshot", Flags: []Flag{
			{Names: []string{"output", "o"}, Usage: "write FILE", TakesValue: true, Path: Files},
		}},
		{Name: "diff", Usage: "compare catalogs", Flags: []Flag{
			{Names: []string{"fail-on"}, TakesValue: true, Values: []string{"breaking", "risky", "compatible", "cosmetic"}},
		}},
		{Name: "skills", Usage: "list skills"},
	},
}

// call is one request of Complete to its source.
type call struct {
	Method, Srv string
	Ref         Ref
	Arg, Value  string
	Context     map[string]string
}

// fakeSource answers from its fields and records every call.
type fakeSource struct {
	calls     []call
	err       error // returned by every server method (with the results)
	prompts   []Prompt
	tasks     []Candidate
	tools     []Tool
	resources []Resource
	keys      []Candidate
	values    []string
}

var testServers = []Candidate{{"alpha", "stdio node a.js"}, {"demo", "built-in demo server"}}

func (f *fakeSource) Servers() []Candidate {
	f.calls = append(f.calls, call{Method: "Servers"})
	return testServers
}

var testSources = []Candidate{{"cursor", "2 servers in ~/.cursor/mcp.json"}, {"codex", "1 server in ~/.codex/config.toml"}}

func (f *fakeSource) ImportSources() []Candidate {
	f.calls = append(f.calls, call{Method: "ImportSources"})
	return testSources
}

func (f *fakeSource) ImportNames(source string) []Candidate {
	f.calls = append(f.calls, call{Method: "ImportNames", Srv: source})
	if source != "cursor" {
		return nil
	}
	return []Candidate{{"github", "stdio npx -y gh"}, {"linear", "http https://mcp.linear.app/mcp"}}
}

func (f *fakeSource) Prompts(_ context.Context, srv string) ([]Prompt, error) {
	f.calls = append(f.calls, call{Method: "Prompts", Srv: srv})
	return f.prompts, f.err
}

func (f *fakeSource) Tools(_ context.Context, srv string) ([]Tool, error) {
	f.calls = append(f.calls, call{Method: "Tools", Srv: srv})
	return f.tools, f.err
}

func (f *fakeSource) Resources(_ context.Context, srv string) ([]Resource, error) {
	f.calls = append(f.calls, call{Method: "Resources", Srv: srv})
	return f.resources, f.err
}

func (f *fakeSource) Keys(_ context.Context, srv string) ([]Candidate, error) {
	f.calls = append(f.calls, call{Method: "Keys", Srv: srv})
	return f.keys, f.err
}

func (f *fakeSource) Tasks(_ context.Context, srv string) ([]Candidate, error) {
	f.calls = append(f.calls, call{Method: "Tasks", Srv: srv})
	return f.tasks, f.err
}

func (f *fakeSource) Skills(_ context.Context, srv string) ([]Candidate, error) {
	f.calls = append(f.calls, call{Method: "Skills", Srv: srv})
	return testSkills, f.err
}

var testSkills = []Candidate{{"pdf-processing", "Extract, fill, and assemble PDF documents"}}

func (f *fakeSource) Complete(_ context.Context, srv string, ref Ref, arg, value string, ctx map[string]string) ([]string, error) {
	f.calls = append(f.calls, call{Method: "Complete", Srv: srv, Ref: ref, Arg: arg, Value: value, Context: ctx})
	return f.values, f.err
}

var varRE = regexp.MustCompile(`\{([^}]*)\}`)

func (f *fakeSource) TemplateVars(tmpl string) []string {
	var out []string
	for _, m := range varRE.FindAllStringSubmatch(tmpl, -1) {
		out = append(out, m[1])
	}
	return out
}

func newFake() *fakeSource {
	return &fakeSource{
		prompts: []Prompt{
			{Name: "review", Desc: "review code", Args: []PromptArg{
				{Name: "code", Desc: "the code", Required: true},
				{Name: "lang", Desc: "the language"},
				{Name: "style"},
			}},
			{Name: "greet", Desc: ""},
		},
		tools: []Tool{
			{Name: "add", Desc: "add two numbers", Params: []Param{
				{Name: "a", Type: "integer", Desc: "first addend", Required: true},
				{Name: "b", Type: "integer", Required: true},
				{Name: "mode", Type: "string", Values: []string{"fast", "slow"}},
				{Name: "exact", Type: "boolean", Values: []string{"true", "false"}},
				{Name: "note"},
			}},
			{Name: "echo", Desc: "echo"},
		},
		resources: []Resource{
			{URI: "file:///tmp/a b.txt", Desc: "a file"},
			{URI: "notes://{owner}/{id}", Desc: "template: a note", Template: true},
		},
		keys:   []Candidate{{"tool:add", "add two numbers"}, {"prompt:review", "review code"}},
		values: []string{"go", "rust:1", "a b"},
		tasks:  testTasks,
	}
}

var testTasks = []Candidate{{"t-1", "working: Gathering sources"}, {"t-2", "completed"}}

var kinds = []Candidate{{"tool", ""}, {"resource", ""}, {"resource_template", ""}, {"prompt", ""}}

func prefixKinds(prefix string) []Candidate {
	var out []Candidate
	for _, k := range kinds {
		out = append(out, Candidate{prefix + k.Value, ""})
	}
	return out
}

func TestComplete(t *testing.T) {
	servers := call{Method: "Servers"}
	commands := []Candidate{
		{"servers", "list servers"}, {"import", "copy servers"}, {"catalog", "list the catalog"}, {"describe", "describe an item"},
		{"read", "read a resource"}, {"prompt", "get a prompt"}, {"invoke", "call a tool"},
		{"login", "log in"}, {"logout", "log out"}, {"completion", "print a script"}, {"task", "follow a task"},
		{"snapshot", "write a snapshot"}, {"diff", "compare catalogs"}, {"skills", "list skills"},
	}
	rootFlags := []Candidate{
		{"--config", "read servers from FILE alone"}, {"--project", ""}, {"--header", "extra HTTP header"},
		{"-H", "extra HTTP header"}, {"--json", "print JSON"}, {"--select", ""}, {"--protocol-version", ""},
		{"--verbose", ""}, {"-v", ""}, {"--cache-dir", ""},
	}
	readFlags := append([]Candidate{{"--pattern", ""}, {"--raw", ""}, {"--output", "write FILE"}, {"-o", "write FILE"}}, rootFlags...)
	reviewArgs := []Candidate{{"code=", "(required) the code"}, {"lang=", "the language"}, {"style=", ""}}
	addKeys := []Candidate{
		{"a=", "integer (required) first addend"}, {"b=", "integer (required)"}, {"mode=", "string"},
		{"exact=", "boolean"}, {"note=", ""},
	}
	tests := []struct {
		name  string
		words []string
		cur   string
		want  result
		calls []call
	}{
		// commands and flags
		{"commands", nil, "", result{Cands: commands}, nil},
		{"commands after a root flag", []string{"--json"}, "re", result{Cands: commands}, nil},
		{"commands after a root flag's value", []string{"--config", "c.json"}, "", result{Cands: commands}, nil},
		{"root flags", nil, "-", result{Cands: rootFlags}, nil},
		{"a command's flags, then the root's", []string{"read", "alpha"}, "--", result{Cands: readFlags}, nil},
		{"flags of an unknown command are the root's", []string{"frobnicate"}, "--j", result{Cands: rootFlags}, nil},
		{"unknown command", []string{"frobnicate"}, "", result{}, nil},
		{"unknown command, more words", []string{"frobnicate", "alpha"}, "", result{}, nil},
		{"completion", []string{"completion"}, "", result{Cands: []Candidate{{"bash", ""}, {"zsh", ""}, {"fish", ""}, {"powershell", ""}}}, nil},
		{"completion SHELL", []string{"completion", "bash"}, "", result{}, nil},
		{"servers takes no argument", []string{"servers"}, "", result{}, nil},
		{"import <TAB>: the sources", []string{"import"}, "", result{Cands: testSources}, []call{{Method: "ImportSources"}}},
		{"import SOURCE <TAB>: its entries", []string{"import", "--dry-run", "cursor"}, "",
			result{Cands: []Candidate{{"github", "stdio npx -y gh"}, {"linear", "http https://mcp.linear.app/mcp"}}},
			[]call{{Method: "ImportNames", Srv: "cursor"}}},
		{"import SOURCE NAME <TAB>: the others", []string{"import", "cursor", "github"}, "",
			result{Cands: []Candidate{{"linear", "http https://mcp.linear.app/mcp"}}},
			[]call{{Method: "ImportNames", Srv: "cursor"}}},
		{"import of an unknown source", []string{"import", "nope"}, "", result{}, []call{{Method: "ImportNames", Srv: "nope"}}},

		// flag values
		{"--config <TAB>", []string{"--config"}, "", result{Path: Files}, nil},
		{"--config <TAB> after the command", []string{"servers", "--config"}, "x", result{Path: Files}, nil},
		{"--cache-dir <TAB>", []string{"read", "alpha", "--cache-dir"}, "", result{Path: Dirs}, nil},
		{"-o <TAB>", []string{"read", "alpha", "file:///x", "-o"}, "", result{Path: Files}, nil},
		{"--output <TAB>", []string{"read", "alpha", "--output"}, "/t", result{Path: Files}, nil},
		{"--output=<TAB> completes files after the =", []string{"read", "alpha", "x"}, "--output=", result{Path: Files}, nil},
		{"-o of another command is unknown", []string{"invoke", "alpha", "-o"}, "", result{Cands: []Candidate{{"add", "add two numbers"}, {"echo", "echo"}}},
			[]call{{Method: "Tools", Srv: "alpha"}}},
		{"--kind <TAB>", []string{"catalog", "--kind"}, "", result{Cands: kinds}, nil},
		{"--kind=<TAB>", []string{"catalog"}, "--kind=", result{Cands: prefixKinds("--kind=")}, nil},
		{"--kind=re<TAB> (the shell filters)", []string{"describe", "alpha", "x"}, "--kind=re", result{Cands: prefixKinds("--kind=")}, nil},
		{"--kind of another command is unknown", []string{"read"}, "--kind=", result{}, nil},
		{"--protocol-version <TAB>", []string{"--protocol-version"}, "", result{Cands: []Candidate{{"2025-06-18", ""}, {"2025-03-26", ""}}}, nil},
		{"pending value with no values", []string{"invoke", "alpha", "add", "--select"}, "", result{}, nil},
		{"pending value: -H", []string{"read", "-H"}, "", result{}, nil},
		{"--json= takes no value", []string{"read", "alpha"}, "--json=", result{}, nil},
		{"--unknown=", []string{"read", "alpha"}, "--bogus=x", result{}, nil},

		// snapshot and diff: servers, or files for a word that looks like a path
		{"snapshot <TAB>", []string{"snapshot"}, "", result{Cands: testServers}, []call{servers}},
		{"snapshot SRV <TAB>", []string{"snapshot", "alpha"}, "", result{}, nil},
		{"snapshot -o <TAB>", []string{"snapshot", "alpha", "-o"}, "", result{Path: Files}, nil},
		{"diff <TAB>", []string{"diff"}, "", result{Cands: testServers}, []call{servers}},
		{"diff old.<TAB>", []string{"diff"}, "old.", result{Path: Files}, nil},
		{"diff FILE ./<TAB>", []string{"diff", "old.json"}, "./", result{Path: Files}, nil},
		{"diff FILE <TAB>", []string{"diff", "old.json"}, "al", result{Cands: testServers}, []call{servers}},
		{"diff OLD NEW <TAB>", []string{"diff", "old.json", "alpha"}, "", result{}, nil},
		{"diff --fail-on <TAB>", []string{"diff", "--fail-on"}, "", result{Cands: []Candidate{{"breaking", ""}, {"risky", ""}, {"compatible", ""}, {"cosmetic", ""}}}, nil},

		// servers
		{"catalog <TAB>", []string{"catalog"}, "", result{Cands: testServers}, []call{servers}},
		{"catalog --kind tool <TAB>", []string{"catalog", "--kind", "tool"}, "", result{Cands: testServers}, []call{servers}},
		{"catalog --kind=tool <TAB>", []string{"catalog", "--kind=tool"}, "", result{Cands: testServers}, []call{servers}},
		{"catalog --all <TAB>", []string{"catalog", "--all"}, "", result{}, nil},
		{"catalog --all=false <TAB>", []string{"catalog", "--all=false"}, "", result{Cands: testServers}, []call{servers}},
		{"catalog --all=true <TAB>", []string{"catalog", "--all=true"}, "", result{}, nil},
		{"--all before the command", []string{"--all", "catalog"}, "", result{Cands: testServers}, []call{servers}},
		{"catalog SRV <TAB> (QUERY)", []string{"catalog", "alpha"}, "", result{}, nil},
		{"login <TAB>", []string{"login"}, "", result{Cands: testServers}, []call{servers}},
		{"login --scope S <TAB>", []string{"login", "--scope", "a"}, "", result{Cands: testServers}, []call{servers}},
		{"login SRV <TAB>", []string{"login", "alpha"}, "", result{}, nil},
		{"logout <TAB>", []string{"logout"}, "", result{Cands: testServers}, []call{servers}},
		{"logout SRV <TAB>", []string{"logout", "alpha"}, "", result{}, nil},
		{"task <TAB>", []string{"task"}, "", result{Cands: []Candidate{{"get", "show a task's status"},
			{"wait", "wait for a task and print its result"}, {"cancel", "cancel a task"}, {"list", "list a server's tasks"}}}, nil},
		{"task wait <TAB>", []string{"task", "wait"}, "", result{Cands: testServers}, []call{servers}},
		{"task wait SRV <TAB>", []string{"task", "wait", "alpha"}, "", result{Cands: testTasks}, []call{{Method: "Tasks", Srv: "alpha"}}},
		{"task list SRV <TAB>", []string{"task", "list", "alpha"}, "", result{}, nil},
		{"task get SRV ID <TAB>", []string{"task", "get", "alpha", "t-1"}, "", result{}, nil},
		{"skills <TAB>", []string{"skills"}, "", result{Cands: append([]Candidate{{"get", "write one of a server's skills as a skill directory"}, {"generate", "write a SKILL.md that teaches a server through mcpx"}}, testServers...)}, []call{servers}},
		{"skills generate <TAB>", []string{"skills", "generate"}, "", result{Cands: testServers}, []call{servers}},
		{"skills SRV <TAB>", []string{"skills", "alpha"}, "", result{}, nil},
		{"skills get <TAB>", []string{"skills", "get"}, "", result{Cands: testServers}, []call{servers}},
		{"skills get SRV <TAB>", []string{"skills", "get", "alpha"}, "", result{Cands: testSkills}, []call{{Method: "Skills", Srv: "alpha"}}},
		{"skills get SRV NAME <TAB>", []string{"skills", "get", "alpha", "pdf-processing"}, "", result{}, nil},
		{"describe <TAB>", []string{"describe"}, "", result{Cands: testServers}, []call{servers}},
		{"read <TAB>", []string{"read"}, "al", result{Cands: testServers}, []call{servers}},
		{"prompt <TAB>", []string{"prompt"}, "", result{Cands: testServers}, []call{servers}},
		{"invoke <TAB>", []string{"--json", "invoke", "-v"}, "", result{Cands: testServers}, []call{servers}},

		// describe
		{"describe SRV <TAB>", []string{"describe", "alpha"}, "", result{Cands: newFake().keys}, []call{{Method: "Keys", Srv: "alpha"}}},
		{"describe SRV ID <TAB>", []string{"describe", "alpha", "tool:add"}, "", result{}, nil},

		// prompt
		{"prompt SRV <TAB>", []string{"prompt", "alpha"}, "", result{Cands: []Candidate{{"review", "review code"}, {"greet", ""}}},
			[]call{{Method: "Prompts", Srv: "alpha"}}},
		{"prompt SRV NAME <TAB>", []string{"prompt", "alpha", "review"}, "", result{Cands: reviewArgs},
			[]call{{Method: "Prompts", Srv: "alpha"}}},
		{"prompt SRV NAME: typed args excluded", []string{"prompt", "alpha", "review", "lang=go", "code=@f.go"}, "s", result{Cands: []Candidate{{"style=", ""}}},
			[]call{{Method: "Prompts", Srv: "alpha"}}},
		{"prompt SRV NAME: every arg typed", []string{"prompt", "alpha", "review", "lang=", "code=x", "style=y"}, "", result{},
			[]call{{Method: "Prompts", Srv: "alpha"}}},
		{"prompt SRV NAME with no args", []string{"prompt", "alpha", "greet"}, "", result{},
			[]call{{Method: "Prompts", Srv: "alpha"}}},
		{"prompt SRV unknown NAME", []string{"prompt", "alpha", "nosuch"}, "", result{},
			[]call{{Method: "Prompts", Srv: "alpha"}}},
		{"prompt SRV NAME ARG=<TAB>", []string{"prompt", "alpha", "review"}, "lang=", result{Cands: []Candidate{{"lang=go", ""}, {"lang=rust:1", ""}, {"lang=a b", ""}}},
			[]call{{Method: "Complete", Srv: "alpha", Ref: Ref{Prompt: "review"}, Arg: "lang", Value: "", Context: map[string]string{}}}},
		{"prompt SRV NAME ARG=prefix<TAB> with context", []string{"prompt", "alpha", "review", "code=x=1", "lang=old", "file=@f.txt", "in=@-", "at=@@home", "bare", "--json", "style=terse", "style=plain"}, "lang=ru",
			result{Cands: []Candidate{{"lang=go", ""}, {"lang=rust:1", ""}, {"lang=a b", ""}}},
			[]call{{Method: "Complete", Srv: "alpha", Ref: Ref{Prompt: "review"}, Arg: "lang", Value: "ru",
				Context: map[string]string{"code": "x=1", "at": "@home", "style": "plain"}}}},
		{"prompt SRV NAME ARG=@<TAB> reads no file", []string{"prompt", "alpha", "review"}, "code=@", result{}, nil},
		{"prompt SRV NAME =<TAB>", []string{"prompt", "alpha", "review"}, "=x", result{}, nil},
		{"prompt args after --", []string{"prompt", "--", "-alpha", "review"}, "-x=", result{Cands: []Candidate{{"-x=go", ""}, {"-x=rust:1", ""}, {"-x=a b", ""}}},
			[]call{{Method: "Complete", Srv: "-alpha", Ref: Ref{Prompt: "review"}, Arg: "-x", Value: "", Context: map[string]string{}}}},

		// invoke
		{"invoke SRV <TAB>", []string{"invoke", "alpha"}, "", result{Cands: []Candidate{{"add", "add two numbers"}, {"echo", "echo"}}},
			[]call{{Method: "Tools", Srv: "alpha"}}},
		{"invoke SRV TOOL <TAB>", []string{"invoke", "alpha", "add"}, "", result{Cands: addKeys},
			[]call{{Method: "Tools", Srv: "alpha"}}},
		{"invoke SRV TOOL: KEY= and KEY:= excluded", []string{"invoke", "alpha", "add", "a=1", "b:=2", "--args", "{}", "note=@x"}, "", result{Cands: addKeys[2:4]},
			[]call{{Method: "Tools", Srv: "alpha"}}},
		{"invoke SRV TOOL enum values", []string{"invoke", "alpha", "add"}, "mode=", result{Cands: []Candidate{{"mode=fast", ""}, {"mode=slow", ""}}},
			[]call{{Method: "Tools", Srv: "alpha"}}},
		{"invoke SRV TOOL boolean values", []string{"invoke", "alpha", "add", "a=1"}, "exact=t", result{Cands: []Candidate{{"exact=true", ""}, {"exact=false", ""}}},
			[]call{{Method: "Tools", Srv: "alpha"}}},
		{"invoke SRV TOOL key with no values", []string{"invoke", "alpha", "add"}, "a=", result{Cands: []Candidate{}},
			[]call{{Method: "Tools", Srv: "alpha"}}},
		{"invoke SRV TOOL KEY:=<TAB>", []string{"invoke", "alpha", "add"}, "mode:=", result{},
			[]call{{Method: "Tools", Srv: "alpha"}}},
		{"invoke SRV TOOL unknown KEY=", []string{"invoke", "alpha", "add"}, "zzz=", result{},
			[]call{{Method: "Tools", Srv: "alpha"}}},
		{"invoke SRV unknown TOOL", []string{"invoke", "alpha", "nosuch"}, "", result{},
			[]call{{Method: "Tools", Srv: "alpha"}}},
		{"invoke flags anywhere", []string{"invoke", "-H", "K: V", "alpha", "--json", "add", "--args", "{}", "a=1"}, "", result{Cands: addKeys[1:]},
			[]call{{Method: "Tools", Srv: "alpha"}}},

		// read
		{"read SRV <TAB>", []string{"read", "alpha"}, "file:", result{Cands: []Candidate{{"file:///tmp/a b.txt", "a file"}, {"notes://{owner}/{id}", "template: a note"}}},
			[]call{{Method: "Resources", Srv: "alpha"}}},
		{"read SRV TEMPLATE <TAB>", []string{"read", "alpha", "notes://{owner}/{id}"}, "", result{Cands: []Candidate{{"owner=", "template variable"}, {"id=", "template variable"}}}, nil},
		{"read SRV TEMPLATE VAR=x <TAB>", []string{"read", "alpha", "notes://{owner}/{id}", "owner=me"}, "", result{Cands: []Candidate{{"id=", "template variable"}}}, nil},
		{"read SRV TEMPLATE VAR=<TAB>", []string{"read", "alpha", "notes://{owner}/{id}", "owner=me", "id=old"}, "id=4",
			result{Cands: []Candidate{{"id=go", ""}, {"id=rust:1", ""}, {"id=a b", ""}}},
			[]call{{Method: "Complete", Srv: "alpha", Ref: Ref{URI: "notes://{owner}/{id}"}, Arg: "id", Value: "4",
				Context: map[string]string{"owner": "me"}}}},
		{"read SRV TEMPLATE VAR=<TAB>: values are literal", []string{"read", "alpha", "notes://{owner}/{id}", "owner=@me", "x=@@y", "k:=1", "bare"}, "id=",
			result{Cands: []Candidate{{"id=go", ""}, {"id=rust:1", ""}, {"id=a b", ""}}},
			[]call{{Method: "Complete", Srv: "alpha", Ref: Ref{URI: "notes://{owner}/{id}"}, Arg: "id", Value: "",
				Context: map[string]string{"owner": "@me", "x": "@@y", "k:": "1"}}}},
		{"read SRV TEMPLATE VAR:=x <TAB> is no VAR", []string{"read", "alpha", "notes://{owner}/{id}", "owner:=me"}, "", result{Cands: []Candidate{{"owner=", "template variable"}, {"id=", "template variable"}}}, nil},
		{"read SRV TEMPLATE VAR=<TAB>, flags anywhere", []string{"read", "--json", "alpha", "-o", "out", "notes://{owner}/{id}", "--raw"}, "owner=",
			result{Cands: []Candidate{{"owner=go", ""}, {"owner=rust:1", ""}, {"owner=a b", ""}}},
			[]call{{Method: "Complete", Srv: "alpha", Ref: Ref{URI: "notes://{owner}/{id}"}, Arg: "owner", Value: "", Context: map[string]string{}}}},
		{"read SRV TEMPLATE unknown VAR=", []string{"read", "alpha", "notes://{owner}/{id}"}, "nope=", result{}, nil},
		{"read SRV URI <TAB>", []string{"read", "alpha", "file:///plain"}, "", result{}, nil},
		{"read SRV URI --pattern <TAB>", []string{"read", "alpha", "notes://{id}", "--pattern"}, "", result{}, nil},
		{"read after --: a dash is positional", []string{"read", "alpha", "--"}, "-", result{Cands: []Candidate{{"file:///tmp/a b.txt", "a file"}, {"notes://{owner}/{id}", "template: a note"}}},
			[]call{{Method: "Resources", Srv: "alpha"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := newFake()
			line := Parse(testSpec, tt.words)
			got := Complete(context.Background(), line, tt.cur, src)
			if !sameResult(got, tt.want) {
				t.Errorf("Complete(%q, %q)\n got %q\nwant %q", tt.words, tt.cur, got, tt.want)
			}
			if !reflect.DeepEqual(src.calls, tt.calls) {
				t.Errorf("Complete(%q, %q) calls\n got %+v\nwant %+v", tt.words, tt.cur, src.calls, tt.calls)
			}
		})
	}
}

// sameResult compares results, a nil and an empty list of candidates alike.
func sameResult(a, b result) bool {
	if len(a.Cands) == 0 && len(b.Cands) == 0 {
		return a.Path == b.Path
	}
	return reflect.DeepEqual(a, b)
}

func TestCompleteSourceError(t *testing.T) {
	boom := errors.New("boom")
	lines := []struct {
		words []string
		cur   string
	}{
		{[]string{"describe", "alpha"}, ""},
		{[]string{"prompt", "alpha"}, ""},
		{[]string{"prompt", "alpha", "review"}, ""},
		{[]string{"prompt", "alpha", "review"}, "lang="},
		{[]string{"invoke", "alpha"}, ""},
		{[]string{"invoke", "alpha", "add"}, ""},
		{[]string{"invoke", "alpha", "add"}, "mode="},
		{[]string{"read", "alpha"}, ""},
		{[]string{"read", "alpha", "notes://{id}"}, "id="},
	}
	for _, l := range lines {
		src := newFake() // the partial results come with the error
		src.err = boom
		got := Complete(context.Background(), Parse(testSpec, l.words), l.cur, src)
		if !reflect.DeepEqual(got, result{}) {
			t.Errorf("Complete(%q, %q) with a failing source = %q, want nothing", l.words, l.cur, got)
		}
		if len(src.calls) == 0 {
			t.Errorf("Complete(%q, %q) asked the source nothing", l.words, l.cur)
		}
	}
}

func TestCompleteCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	lines := []struct {
		words []string
		cur   string
	}{
		{nil, ""},
		{[]string{"read"}, ""},
		{[]string{"prompt", "alpha"}, ""},
		{[]string{"invoke", "alpha", "add"}, "mode="},
		{[]string{"read", "alpha", "notes://{id}"}, "id="},
		{[]string{"read", "alpha", "x", "-o"}, ""},
	}
	for _, l := range lines {
		got := Complete(ctx, Parse(testSpec, l.words), l.cur, newFake())
		if !reflect.DeepEqual(got, result{}) {
			t.Errorf("Complete(%q, %q) after the deadline = %q, want nothing", l.words, l.cur, got)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		words   []string
		command string
		args    []string
		flags   map[string][]string
		pending string
	}{
		{"nothing", nil, "", nil, map[string][]string{}, ""},
		{"command and args", []string{"read", "alpha", "file:///x"}, "read", []string{"alpha", "file:///x"}, map[string][]string{}, ""},
		{"root flags before the command", []string{"-v", "--config", "c.json", "read"}, "read", nil,
			map[string][]string{"verbose": {"true"}, "config": {"c.json"}}, ""},
		{"flags anywhere after the command", []string{"read", "--raw", "alpha", "-o", "f", "x", "--pattern=a=b"}, "read", []string{"alpha", "x"},
			map[string][]string{"raw": {"true"}, "output": {"f"}, "pattern": {"a=b"}}, ""},
		{"a command's flag before the command is unknown: no value", []string{"--pattern", "read", "x"}, "read", []string{"x"}, map[string][]string{}, ""},
		{"single-dash long flag", []string{"read", "-raw", "-output", "f"}, "read", nil,
			map[string][]string{"raw": {"true"}, "output": {"f"}}, ""},
		{"repeated flag, by alias", []string{"read", "-H", "A: 1", "--header", "B: 2", "--header=C:3", "-H=D: 4"}, "read", nil,
			map[string][]string{"header": {"A: 1", "B: 2", "C:3", "D: 4"}}, ""},
		{"a bool flag with a value", []string{"catalog", "--all=false"}, "catalog", nil, map[string][]string{"all": {"false"}}, ""},
		{"unknown flags take no value", []string{"invoke", "--bogus", "alpha", "--x=1", "-q", "tool"}, "invoke", []string{"alpha", "tool"}, map[string][]string{}, ""},
		{"-- ends flags", []string{"invoke", "alpha", "--", "--json", "-v", "--"}, "invoke", []string{"alpha", "--json", "-v", "--"}, map[string][]string{}, ""},
		{"-- before the command", []string{"--", "--json"}, "--json", nil, map[string][]string{}, ""},
		{"- is positional", []string{"invoke", "-", "--args", "-"}, "invoke", []string{"-"}, map[string][]string{"args": {"-"}}, ""},
		{"a flag's value may start with a dash", []string{"read", "--pattern", "-x", "alpha"}, "read", []string{"alpha"}, map[string][]string{"pattern": {"-x"}}, ""},
		{"a pending value", []string{"read", "alpha", "-o"}, "read", []string{"alpha"}, map[string][]string{}, "output"},
		{"a pending value after --flag=", []string{"--select=x", "--select"}, "", nil, map[string][]string{"select": {"x"}}, "select"},
		{"no pending value after --", []string{"read", "--", "-o"}, "read", []string{"-o"}, map[string][]string{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Parse(testSpec, tt.words)
			if l.Command != tt.command || !reflect.DeepEqual(l.Args, tt.args) || !reflect.DeepEqual(l.flags, tt.flags) {
				t.Errorf("Parse(%q) = command %q, args %q, flags %q; want %q, %q, %q", tt.words, l.Command, l.Args, l.flags, tt.command, tt.args, tt.flags)
			}
			pending := ""
			if l.pending != nil {
				pending = l.pending.Names[0]
			}
			if pending != tt.pending {
				t.Errorf("Parse(%q): pending %q, want %q", tt.words, pending, tt.pending)
			}
		})
	}
}

func TestLineFlag(t *testing.T) {
	l := Parse(testSpec, []string{"read", "-H", "A: 1", "alpha", "--header", "B: 2", "--json", "-o", "out", "x"})
	tests := []struct {
		name string
		want []string
	}{
		{"H", []string{"A: 1", "B: 2"}},
		{"header", []string{"A: 1", "B: 2"}},
		{"json", []string{"true"}},
		{"o", []string{"out"}},
		{"output", []string{"out"}},
		{"verbose", nil},
		{"v", nil},
		{"nosuch", nil},
		{"all", nil}, // catalog's, not read's
	}
	for _, tt := range tests {
		if got := l.Flag(tt.name); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Flag(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	// Without a command, only the root's flags.
	l = Parse(testSpec, []string{"--config", "c.json"})
	if got := l.Flag("config"); !reflect.DeepEqual(got, []string{"c.json"}) {
		t.Errorf("Flag(config) = %q", got)
	}
	if got := l.Flag("o"); got != nil {
		t.Errorf("Flag(o) without a command = %q", got)
	}
}
