package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/limits"
)

// The options types are checked here without running anything: each
// table gives the arguments and flags as parsed, and the error validate
// returns (its message, exactly) or what it sets.

// wantErr checks err against want: "" for none, else the exact message of
// a usage error.
func wantErr(t *testing.T, name string, err error, want string) bool {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Errorf("%s: error %v", name, err)
		}
		return err == nil
	}
	if _, ok := err.(*fail.Error); !ok || err.Error() != want {
		t.Errorf("%s: error %T %v\nwant the usage error %q", name, err, err, want)
	}
	return false
}

func TestGlobalsValidate(t *testing.T) {
	ok := globals{jobs: 8, protocolVersion: client.DefaultProtocolVersion}
	for _, tc := range []struct {
		name string
		set  func(g *globals)
		want string
	}{
		{"defaults", func(*globals) {}, ""},
		{"jobs 0", func(g *globals) { g.jobs = 0 }, "--jobs must be at least 1, not 0"},
		{"timeout not given", func(g *globals) { g.timeout = 0 }, ""},
		{"timeout 0", func(g *globals) { g.timeoutSet = true }, "--timeout must be positive, not 0s"},
		{"timeout negative", func(g *globals) { g.timeout, g.timeoutSet = -time.Second, true }, "--timeout must be positive, not -1s"},
		{"select empty", func(g *globals) { g.selectSet = true }, "--select needs a gjson path (an empty one matches nothing)"},
		{"select", func(g *globals) { g.selectPath, g.selectSet = "items", true }, ""},
		{"protocol", func(g *globals) { g.protocolVersion = "2024-11-05" }, ""},
		{"unknown protocol", func(g *globals) { g.protocolVersion = "1999-01-01" }, `unknown protocol version "1999-01-01"`},
		{"headers", func(g *globals) { g.headers = []string{"A: 1", "B:"} }, ""},
		{"jobs before headers", func(g *globals) { g.jobs, g.headers = 0, []string{"bad"} }, "--jobs must be at least 1, not 0"},
	} {
		g := ok
		tc.set(&g)
		wantErr(t, tc.name, g.validate(), tc.want)
	}
	g := ok
	g.headers = []string{"A: 1", "no colon secret"}
	if err := g.validate(); err == nil || err.Error() != "-H wants 'Name: value', got \"no ***\"" {
		t.Errorf("bad header: %v", err)
	}
}

func TestServersValidate(t *testing.T) {
	wantErr(t, "none", (&serversOptions{}).validate(), "")
	wantErr(t, "probe", (&serversOptions{Probe: true}).validate(), "")
	wantErr(t, "one", (&serversOptions{Args: []string{"x"}}).validate(), "servers takes no arguments")
}

func TestCatalogValidate(t *testing.T) {
	for _, tc := range []struct {
		name          string
		o             catalogOptions
		want          string
		server, query string
	}{
		{"server", catalogOptions{Args: []string{"s"}}, "", "s", ""},
		{"server and query", catalogOptions{Args: []string{"s", "q"}}, "", "s", "q"},
		{"no server", catalogOptions{}, "catalog needs a server: mcpx catalog SRV [QUERY], or mcpx catalog --all [QUERY]", "", ""},
		{"three", catalogOptions{Args: []string{"s", "q", "r"}}, "catalog takes SRV and at most one QUERY, got 3 arguments", "", ""},
		{"all", catalogOptions{All: true}, "", "", ""},
		{"all and query", catalogOptions{All: true, Args: []string{"q"}}, "", "", "q"},
		{"all and two", catalogOptions{All: true, Args: []string{"q", "r"}}, "catalog --all takes at most one QUERY, got 2 arguments", "", ""},
		{"kinds", catalogOptions{Args: []string{"s"}, Kinds: []string{"tool", "prompt"}}, "", "s", ""},
		{"bad kind", catalogOptions{Args: []string{"s"}, Kinds: []string{"tool", "tools"}},
			`unknown kind "tools" (want one of tool, resource, resource_template, prompt)`, "", ""},
	} {
		o := tc.o
		if wantErr(t, tc.name, o.validate(), tc.want) && (o.Server != tc.server || o.Query != tc.query) {
			t.Errorf("%s: server %q query %q, want %q %q", tc.name, o.Server, o.Query, tc.server, tc.query)
		}
	}
}

func TestDescribeValidate(t *testing.T) {
	for _, tc := range []struct {
		name            string
		o               describeOptions
		want            string
		keyKind, keyID  string
		server, id, fix string
	}{
		{"id", describeOptions{Args: []string{"s", "echo"}}, "", "", "", "s", "echo", ""},
		{"key", describeOptions{Args: []string{"s", "tool:echo"}}, "", "tool", "echo", "s", "tool:echo", ""},
		{"key and its kind", describeOptions{Args: []string{"s", "tool:echo"}, Kind: "tool"}, "", "tool", "echo", "s", "tool:echo", ""},
		{"uri, not a key", describeOptions{Args: []string{"s", "resource://x"}}, "", "resource", "//x", "s", "resource://x", ""},
		{"no kind of that name", describeOptions{Args: []string{"s", "file:///a"}}, "", "", "", "s", "file:///a", ""},
		{"key with no id", describeOptions{Args: []string{"s", "tool:"}}, "", "", "", "s", "tool:", ""},
		{"one", describeOptions{Args: []string{"s"}}, "describe takes SRV and ID, got 1 argument", "", "", "", "", ""},
		{"three", describeOptions{Args: []string{"s", "a", "b"}}, "describe takes SRV and ID, got 3 arguments", "", "", "", "", ""},
		{"bad kind", describeOptions{Args: []string{"s", "a"}, Kind: "tol"}, `unknown kind "tol" (want one of tool, resource, resource_template, prompt)`, "", "", "", "", ""},
		{"key against kind", describeOptions{Args: []string{"s", "tool:a"}, Kind: "prompt"}, `"tool:a" is a tool key, but --kind says prompt`, "", "", "", "", ""},
		{"empty", describeOptions{Args: []string{"s", ""}}, "describe needs a non-empty ID", "", "", "", "", ""},
	} {
		o := tc.o
		if wantErr(t, tc.name, o.validate(), tc.want) &&
			(o.Server != tc.server || o.ID != tc.id || o.KeyKind != tc.keyKind || o.KeyID != tc.keyID) {
			t.Errorf("%s: %+v", tc.name, o)
		}
	}
}

func TestReadValidate(t *testing.T) {
	read := func(args ...string) readOptions { return readOptions{Args: args, Max: limits.DefaultPage} }
	with := func(o readOptions, f func(o *readOptions)) readOptions { f(&o); return o }
	given := func(names ...string) map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	for _, tc := range []struct {
		name  string
		o     readOptions
		want  string
		check func(o *readOptions) string // what is wrong with what validate set
		notes string
	}{
		{"uri", read("s", "x://a"), "", func(o *readOptions) string {
			if o.Server != "s" || o.URI != "x://a" || o.Raw || o.Pattern != nil || o.Max != limits.DefaultPage {
				return fmt.Sprintf("%+v", o)
			}
			return ""
		}, ""},
		{"template", read("s", "x://items/{id}", "id=a b"), "", func(o *readOptions) string {
			if o.URI != "x://items/a%20b" {
				return o.URI
			}
			return ""
		}, ""},
		{"one argument", read("s"), "read takes SRV and URI (and VAR=VALUE pairs for a template), got 1 argument", nil, ""},
		{"not a pair", read("s", "x://{id}", "id"), `"id" is not a VAR=VALUE pair`, nil, ""},
		{"-o", with(read("s", "x://a"), func(o *readOptions) { o.Output, o.Given = "f", given("output") }), "", func(o *readOptions) string {
			if !o.Raw || o.Output != "f" {
				return fmt.Sprintf("%+v", o)
			}
			return ""
		}, ""},
		{"-o empty", with(read("s", "x://a"), func(o *readOptions) { o.Given = given("output") }), "-o needs a file name (or - for stdout)", nil, ""},
		{"--raw and --json", with(read("s", "x://a"), func(o *readOptions) { o.Raw, o.JSON = true, true }),
			"--raw cannot be combined with --json: it writes the contents whole", nil, ""},
		{"-o and the rest", with(read("s", "x://a"), func(o *readOptions) {
			o.Output, o.JSON, o.Select, o.Given = "f", true, true, given("output", "pattern", "offset", "max-bytes")
		}), "-o cannot be combined with --json, --select, --pattern, --offset, --max-bytes: it writes the contents whole", nil, ""},
		{"--json without --raw", with(read("s", "x://a"), func(o *readOptions) { o.JSON, o.Select = true, true }), "", nil, ""},
		{"offset", with(read("s", "x://a"), func(o *readOptions) { o.Offset = -1 }), "--offset must be 0 or more, not -1", nil, ""},
		{"max", with(read("s", "x://a"), func(o *readOptions) { o.Max = 0 }), "--max-bytes must be at least 1, not 0", nil, ""},
		{"max over the clamp", with(read("s", "x://a"), func(o *readOptions) { o.Max = limits.SliceClamp + 1 }), "", func(o *readOptions) string {
			if o.Max != limits.SliceClamp {
				return fmt.Sprint(o.Max)
			}
			return ""
		}, fmt.Sprintf("--max-bytes %d is over the slice clamp of 200 KiB (204800 bytes): using %d", limits.SliceClamp+1, limits.SliceClamp)},
		{"max over the clamp, then a bad pattern", with(read("s", "x://a"), func(o *readOptions) {
			o.Max, o.PatternText, o.Given = limits.SliceClamp+1, "(", given("pattern")
		}), "invalid --pattern: error parsing regexp: missing closing ): `(`", nil,
			fmt.Sprintf("--max-bytes %d is over the slice clamp of 200 KiB (204800 bytes): using %d", limits.SliceClamp+1, limits.SliceClamp)},
		{"pattern", with(read("s", "x://a"), func(o *readOptions) { o.PatternText, o.Given = "^a", given("pattern") }), "", func(o *readOptions) string {
			if o.Pattern == nil || o.Pattern.String() != "^a" {
				return fmt.Sprint(o.Pattern)
			}
			return ""
		}, ""},
		{"empty pattern given", with(read("s", "x://a"), func(o *readOptions) { o.Given = given("pattern") }), "", func(o *readOptions) string {
			if o.Pattern == nil {
				return "no pattern"
			}
			return ""
		}, ""},
	} {
		o := tc.o
		var notes []string
		err := o.validate(func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) })
		if wantErr(t, tc.name, err, tc.want) && tc.check != nil {
			if bad := tc.check(&o); bad != "" {
				t.Errorf("%s: %s", tc.name, bad)
			}
		}
		if got := strings.Join(notes, "\n"); got != tc.notes {
			t.Errorf("%s: notes %q, want %q", tc.name, got, tc.notes)
		}
	}
}

func TestInvokeValidate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "args.json")
	if err := os.WriteFile(file, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		o         invokeOptions
		stdin     string
		want      string
		base      string // "-" for nil
		pairs     []pair
		stdinUsed bool
	}{
		{"tool", invokeOptions{Args: []string{"s", "t"}}, "", "", "-", []pair{}, false},
		{"pairs", invokeOptions{Args: []string{"s", "t", "a=1", "b:=[2]"}}, "", "", "-",
			[]pair{{Key: "a", Value: "1"}, {Key: "b", Value: "[2]", Raw: true}}, false},
		{"--args inline", invokeOptions{Args: []string{"s", "t"}, ArgsFlag: `{"x":true}`, ArgsCount: 1}, "", "", `{"x":true}`, []pair{}, false},
		{"--args @FILE", invokeOptions{Args: []string{"s", "t"}, ArgsFlag: "@" + file, ArgsCount: 1}, "", "", `{"a":1}`, []pair{}, false},
		{"--args -", invokeOptions{Args: []string{"s", "t"}, ArgsFlag: "-", ArgsCount: 1}, `{"in":1}`, "", `{"in":1}`, []pair{}, true},
		{"a pair from stdin", invokeOptions{Args: []string{"s", "t", "a=@-"}}, "text", "", "-", []pair{{Key: "a", Value: "text", File: "-"}}, true},
		{"stdin twice", invokeOptions{Args: []string{"s", "t", "a=@-"}, ArgsFlag: "-", ArgsCount: 1}, `{}`,
			`argument "a": @- reads stdin, which another value already read`, "", nil, false},
		{"one argument", invokeOptions{Args: []string{"s"}}, "", "invoke takes SRV and TOOL (and KEY=VALUE pairs), got 1 argument", "", nil, false},
		{"--args twice", invokeOptions{Args: []string{"s", "t"}, ArgsFlag: "{}", ArgsCount: 2}, "",
			"--args is given 2 times; give the whole argument object once (KEY=VALUE pairs add to it)", "", nil, false},
		{"--args not an object", invokeOptions{Args: []string{"s", "t"}, ArgsFlag: "[1]", ArgsCount: 1}, "", "--args must be a JSON object, not a JSON array", "", nil, false},
		{"--args empty", invokeOptions{Args: []string{"s", "t"}, ArgsCount: 1}, "", "--args must be a JSON object: unexpected end of JSON input", "", nil, false},
		{"not a pair", invokeOptions{Args: []string{"s", "t", "a"}}, "", `"a" is not a KEY=VALUE or KEY:=JSON pair`, "", nil, false},
		{"bad JSON", invokeOptions{Args: []string{"s", "t", "a:={"}}, "", `argument "a": a:={ is not valid JSON (unexpected end of JSON input)`, "", nil, false},
	} {
		o := tc.o
		if !wantErr(t, tc.name, o.validate(strings.NewReader(tc.stdin)), tc.want) {
			continue
		}
		if o.Server != "s" || o.Tool != "t" {
			t.Errorf("%s: server %q tool %q", tc.name, o.Server, o.Tool)
		}
		if base := string(o.Base); (tc.base == "-") != (o.Base == nil) || tc.base != "-" && base != tc.base {
			t.Errorf("%s: base %q (nil %v), want %q", tc.name, base, o.Base == nil, tc.base)
		}
		if !reflect.DeepEqual(o.Pairs, tc.pairs) || o.StdinUsed != tc.stdinUsed {
			t.Errorf("%s: pairs %+v stdinUsed %v, want %+v %v", tc.name, o.Pairs, o.StdinUsed, tc.pairs, tc.stdinUsed)
		}
	}
}

func TestPromptValidate(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args      []string
		stdin     string
		want      string
		pairs     []pair
		stdinUsed bool
	}{
		{"prompt", []string{"s", "p"}, "", "", []pair{}, false},
		{"pairs", []string{"s", "p", "a=1", "b=@@x"}, "", "", []pair{{Key: "a", Value: "1"}, {Key: "b", Value: "@x"}}, false},
		{"from stdin", []string{"s", "p", "a=@-"}, "in", "", []pair{{Key: "a", Value: "in", File: "-"}}, true},
		{"no raw JSON", []string{"s", "p", "a:=1"}, "", "", []pair{{Key: "a:", Value: "1"}}, false},
		{"one argument", []string{"s"}, "", "prompt takes SRV and NAME (and ARG=VALUE pairs), got 1 argument", nil, false},
		{"twice", []string{"s", "p", "a=1", "a=2"}, "", `argument "a" is given twice`, nil, false},
	} {
		o := promptOptions{Args: tc.args}
		if !wantErr(t, tc.name, o.validate(strings.NewReader(tc.stdin)), tc.want) {
			continue
		}
		if o.Server != "s" || o.Name != "p" || !reflect.DeepEqual(o.Pairs, tc.pairs) || o.StdinUsed != tc.stdinUsed {
			t.Errorf("%s: %+v", tc.name, o)
		}
	}
}

func TestLoginLogoutCompletionValidate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		validate func() error
		want     string
	}{
		{"login", (&loginOptions{Args: []string{"s"}}).validate, ""},
		{"login none", (&loginOptions{}).validate, "login takes one argument: SRV"},
		{"login two", (&loginOptions{Args: []string{"s", "t"}}).validate, "login takes one argument: SRV"},
		{"logout", (&logoutOptions{Args: []string{"s"}}).validate, ""},
		{"logout none", (&logoutOptions{}).validate, "logout takes one argument: SRV"},
		{"completion", (&completionOptions{Args: []string{"bash"}}).validate, ""},
		{"completion of any name", (&completionOptions{Args: []string{"csh"}}).validate, ""},
		{"completion none", (&completionOptions{}).validate, "completion needs the name of a shell: bash, zsh, fish or powershell"},
		{"completion two", (&completionOptions{Args: []string{"bash", "zsh"}}).validate, "completion takes one shell: bash, zsh, fish or powershell, got 2 arguments"},
	} {
		wantErr(t, tc.name, tc.validate(), tc.want)
	}
	lo := &loginOptions{Args: []string{"s"}}
	if lo.validate(); lo.Server != "s" {
		t.Errorf("login server %q", lo.Server)
	}
	out := &logoutOptions{Args: []string{"s"}}
	if out.validate(); out.Server != "s" {
		t.Errorf("logout server %q", out.Server)
	}
	co := &completionOptions{Args: []string{"zsh"}}
	if co.validate(); co.Shell != "zsh" {
		t.Errorf("completion shell %q", co.Shell)
	}
}
