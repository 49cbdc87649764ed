package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/completions"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/schema"
	"github.com/mcpx-cli/mcpx/output"
)

func TestCompleteTimeout(t *testing.T) {
	tests := []struct {
		v    string
		want time.Duration
	}{
		{"", 2 * time.Second},
		{"500ms", 500 * time.Millisecond},
		{"3s", 3 * time.Second},
		{"1m", time.Minute},
		{"1.5", 1500 * time.Millisecond},
		{"2", 2 * time.Second},
		{"0.25", 250 * time.Millisecond},
		{"3600", time.Hour},
		{"0", 2 * time.Second},
		{"0s", 2 * time.Second},
		{"0.0000000001", 2 * time.Second}, // rounds to 0
		{"-1s", 2 * time.Second},
		{"-1", 2 * time.Second},
		{"abc", 2 * time.Second},
		{"1.5x", 2 * time.Second},
		{" 1", 2 * time.Second},
		{"99999", 2 * time.Second},
		{"3601", 2 * time.Second},
		{"1h", time.Hour},
		{"61m", 2 * time.Second},
		{"99999h", 2 * time.Second},
		{"NaN", 2 * time.Second},
		{"Inf", 2 * time.Second},
		{"-Inf", 2 * time.Second},
	}
	for _, tt := range tests {
		if got := completeTimeout(tt.v); got != tt.want {
			t.Errorf("completeTimeout(%q) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

func TestSkipProgram(t *testing.T) {
	tests := []struct {
		words, want []string
	}{
		{nil, nil},
		{[]string{"mcpx"}, []string{}},
		{[]string{"mcpx", "read", "srv"}, []string{"read", "srv"}},
		{[]string{"./bin/mcpx", "read"}, []string{"read"}},
		{[]string{"MCPX_CONFIG=c.json", "mcpx", "read"}, []string{"read"}},
		{[]string{"A=1", "B=", "_c=x=y", "mcpx", "x=1"}, []string{"x=1"}},
		{[]string{"A+=1", "mcpx", "read"}, []string{"read"}},
		{[]string{"A=1"}, nil},
		{[]string{"=x", "read"}, []string{"read"}},
		{[]string{"/opt/a=b/mcpx", "read", "srv"}, []string{"read", "srv"}},
		{[]string{"1A=x", "read"}, []string{"read"}},
		{[]string{"A-B=x", "read"}, []string{"read"}},
	}
	for _, tt := range tests {
		if got := skipProgram(tt.words); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("skipProgram(%q) = %q, want %q", tt.words, got, tt.want)
		}
	}
}

func TestSchemaValues(t *testing.T) {
	tests := []struct {
		schema string
		want   []string
	}{
		{`{"type":"string","enum":["fast","slow down","a:b"]}`, []string{"fast", "slow down", "a:b"}},
		{`{"type":"integer","enum":[1,2,30]}`, []string{"1", "2", "30"}},
		{`{"type":"number","enum":[1.50,2e3,-0]}`, []string{"1.50", "2e3", "-0"}},
		{`{"type":"string","enum":["a",1,null,true]}`, []string{"a"}},
		{`{"enum":["a",1]}`, []string{"a", "1"}}, // 1 is typed as JSON: the string "1" is not allowed
		{`{"type":["integer","null"],"enum":[1,null]}`, []string{"1", "null"}},
		{`{"type":"integer","enum":["1",2]}`, []string{"2"}}, // the string is not an integer
		{`{"type":"boolean"}`, []string{"true", "false"}},
		{`{"type":"boolean","enum":[true]}`, []string{"true"}},
		{`{"type":["boolean","null"]}`, nil},
		{`{"type":"string"}`, nil},
		{`{"type":"integer"}`, nil},
		{`{}`, nil},
		{`{"enum":"x"}`, nil},
		{`{"type":"string","enum":[]}`, nil},
		{`true`, nil},
	}
	for _, tt := range tests {
		raw := json.RawMessage(tt.schema)
		doc := schema.New(raw)
		got := schemaValues(doc, raw, schema.TypeOf(doc, raw))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("schemaValues(%s) = %q, want %q", tt.schema, got, tt.want)
		}
	}
}

func testApp() (*app, *bytes.Buffer) {
	s, out, _ := output.ForTest(false)
	a := &app{s: s, log: output.NewLog(s, false, false), getenv: func(string) string { return "" }}
	return a, out
}

func TestFlagUsage(t *testing.T) {
	for in, want := range map[string]string{
		"root `DIR` of spilled files": "root DIR of spilled files",
		"a `N` and a `M`":             "a N and a `M`", // only the first pair names the placeholder
		"no placeholder":              "no placeholder",
		"one ` tick":                  "one ` tick",
		"":                            "",
	} {
		if got := flagUsage(in); got != want {
			t.Errorf("flagUsage(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCompletionSpec(t *testing.T) {
	a, _ := testApp()
	spec := completionSpec(a.newRoot())
	var names, hidden []string
	for _, c := range spec.Commands {
		if c.Hidden {
			hidden = append(hidden, c.Name)
		} else {
			names = append(names, c.Name)
		}
	}
	if want := []string{"servers", "import", "catalog", "describe", "read", "prompt", "invoke", "snapshot", "diff", "task", "watch", "skills", "search", "add", "login", "logout", "completion", "daemon"}; !slices.Equal(names, want) {
		t.Errorf("commands = %q, want %q", names, want)
	}
	if want := []string{"help"}; !slices.Equal(hidden, want) {
		t.Errorf("hidden commands = %q, want %q (completed after, never offered)", hidden, want)
	}
	flag := func(flags []completions.Flag, name string) *completions.Flag {
		for i := range flags {
			if slices.Contains(flags[i].Names, name) {
				return &flags[i]
			}
		}
		t.Errorf("no flag %q", name)
		return &completions.Flag{}
	}
	command := func(name string) *completions.Command {
		for i := range spec.Commands {
			if spec.Commands[i].Name == name {
				return &spec.Commands[i]
			}
		}
		t.Fatalf("no command %q", name)
		return nil
	}
	for _, f := range spec.Flags {
		if slices.Contains(f.Names, "help") || slices.Contains(f.Names, "version") {
			t.Errorf("root flag %q offered", f.Names)
		}
	}
	if f := flag(spec.Flags, "config"); f.Path != completions.Files || !f.TakesValue {
		t.Errorf("--config = %+v, want a file", f)
	}
	if f := flag(spec.Flags, "cache-dir"); f.Path != completions.Dirs || !f.TakesValue {
		t.Errorf("--cache-dir = %+v, want a directory", f)
	}
	if f := flag(spec.Flags, "H"); !slices.Equal(f.Names, []string{"header", "H"}) || !f.TakesValue || f.Path != completions.NoPath {
		t.Errorf("-H = %+v", f)
	}
	if f := flag(spec.Flags, "json"); f.TakesValue || f.Usage == "" {
		t.Errorf("--json = %+v, want a bool with usage", f)
	}
	if f := flag(spec.Flags, "timeout"); !f.TakesValue {
		t.Errorf("--timeout = %+v, want a value", f)
	}
	if f := flag(spec.Flags, "protocol-version"); !slices.Equal(f.Values, client.ProtocolVersions()) || len(f.Values) == 0 {
		t.Errorf("--protocol-version values = %q", f.Values)
	}
	read := command("read")
	for _, name := range []string{"o", "output"} {
		if f := flag(read.Flags, name); f.Path != completions.Files || !f.TakesValue {
			t.Errorf("read -%s = %+v, want a file", name, f)
		}
	}
	if f := flag(read.Flags, "raw"); f.TakesValue {
		t.Errorf("read --raw takes a value")
	}
	kinds := []string{"tool", "resource", "resource_template", "prompt"}
	for _, name := range []string{"catalog", "describe"} {
		if f := flag(command(name).Flags, "kind"); !slices.Equal(f.Values, kinds) || !f.TakesValue {
			t.Errorf("%s --kind values = %q, want %q", name, f.Values, kinds)
		}
	}
	if f := flag(command("catalog").Flags, "all"); f.TakesValue {
		t.Errorf("catalog --all takes a value")
	}
	if u := command("completion").Usage; u == "" {
		t.Errorf("completion has no usage")
	}
}

// TestCompleteLine answers lines that need no server through the hidden
// command, as the scripts run it.
func TestCompleteLine(t *testing.T) {
	const breaks = " \t\n\"'><=;|&(:"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bash: commands", []string{"bash", "9", breaks, "mcpx comp"}, "-\ncompletion\n"},
		{"bash: env assignment first", []string{"bash", "9", breaks, "MCPX_X=1 ./mcpx comp"}, "-\ncompletion\n"},
		{"bash: root flags", []string{"bash", "9", breaks, "mcpx -"}, "-\n--config\n--project\n--header\n-H\n--json\n--select\n--timeout\n--protocol-version\n--jobs\n--no-input\n--verbose\n-v\n--root\n--keep-alive\n--no-keep-alive\n--refresh\n--cache-dir\n--answer\n--answers\n--on-input\n--read-only\n--timings\n"},
		{"bash: no hidden command", []string{"bash", "9", breaks, "mcpx __"}, ""},
		{"bash: no hidden serve-demo", []string{"bash", "9", breaks, "mcpx serve"}, "-\nservers\n"},
		{"bash: shells", []string{"bash", "9", breaks, "mcpx completion "}, "-\nbash\nzsh\nfish\npowershell\n"},
		{"bash: listing", []string{"bash", "63", breaks, "mcpx completion "}, "-\nbash\nzsh\nfish\npowershell\n"},
		{"bash: flag value", []string{"bash", "9", breaks, "mcpx catalog --kind=resource_"}, "-\nresource_template\n"},
		{"bash: files", []string{"bash", "9", breaks, "mcpx --config "}, "files\n"},
		{"bash: dirs", []string{"bash", "9", breaks, "mcpx read --cache-dir "}, "dirs\n"},
		{"bash: --cache-dir= completes directories after the =", []string{"bash", "9", breaks, "mcpx x --cache-dir="}, "dirs\n"},
		{"bash: a bad COMP_TYPE is TAB", []string{"bash", "x", breaks, "mcpx completion "}, "-\nbash\nzsh\nfish\npowershell\n"},
		{"bash: too few arguments", []string{"bash", "9", "mcpx completion "}, ""},
		{"bash: empty line", []string{"bash", "9", breaks, ""}, ""},
		{"zsh", []string{"zsh", "--", "completion", ""}, "-\nbash\nzsh\nfish\npowershell\n"},
		{"fish without --", []string{"fish", "completion", "z"}, "-\nbash\nzsh\nfish\npowershell\n"},
		{"zsh: flags", []string{"zsh", "--", "catalog", "--kind", ""}, "-\ntool\nresource\nresource_template\nprompt\n"},
		{"zsh: nothing to complete", []string{"zsh", "--"}, ""},
		{"powershell (the script matches)", []string{"powershell", "--", ".completion", ".p"}, "-\nbash\nzsh\nfish\npowershell\n"},
		{"powershell: empty current word", []string{"powershell", "--", ".catalog", ".--kind", "."}, "-\ntool\nresource\nresource_template\nprompt\n"},
		{"powershell: without --", []string{"powershell", ".completion", ".z"}, "-\nbash\nzsh\nfish\npowershell\n"},
		{"powershell: files", []string{"powershell", "--", ".--config", "."}, "files\n"},
		{"powershell: a word without its dot", []string{"powershell", "--", "completion", "."}, ""},
		{"powershell: nothing to complete", []string{"powershell", "--"}, ""},
		{"unknown shell", []string{"tcsh", "--", "completion", ""}, ""},
		{"no shell", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, out := testApp()
			root := a.newRoot()
			if err := root.Run(context.Background(), append([]string{"mcpx", "__complete"}, tt.args...)); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("completeLine(%q)\n got %q\nwant %q", tt.args, out.String(), tt.want)
			}
		})
	}
}

// TestCompletionCommand prints the scripts and refuses other shells.
func TestCompletionCommand(t *testing.T) {
	for _, shell := range completions.Shells {
		a, out := testApp()
		root := a.newRoot()
		if err := root.Run(context.Background(), []string{"mcpx", "completion", shell}); err != nil {
			t.Fatalf("completion %s: %v", shell, err)
		}
		want, _ := completions.Script(shell, "mcpx")
		if out.String() != want {
			t.Errorf("completion %s printed %d bytes, want the script (%d bytes)", shell, out.Len(), len(want))
		}
	}
	for _, args := range [][]string{{"tcsh"}, {}, {"bash", "zsh"}} {
		a, out := testApp()
		root := a.newRoot()
		err := root.Run(context.Background(), append([]string{"mcpx", "completion"}, args...))
		if !fail.Is(err, fail.Usage) || out.Len() != 0 {
			t.Errorf("completion %q: err %v, output %q; want a usage error and no output", args, err, out.String())
		}
	}
}

func TestSchemaValuesRefs(t *testing.T) {
	sc := parseToolSchema(json.RawMessage(refSchema))
	for key, want := range map[string][]string{
		"color":    {"red", "green", "blue"},
		"maybe":    {"red", "green", "blue", "null"},
		"priority": {"1", "2", "3"},
		"flag":     {"true"},
		"mixed":    {"a", "1", "null"},
		"both":     {"2", "3"},
		"old":      {"true", "false"},
		"shape":    {`{"k":[1,2]}`, "[true]"},
		"loop":     nil,
		"remote":   nil,
		"model":    nil,
		"empty":    nil,
	} {
		raw, ok := sc.Prop(key)
		if !ok {
			t.Fatalf("no property %q", key)
		}
		if got := schemaValues(sc.Doc, raw, schema.TypeOf(sc.Doc, raw)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
	}
}
