package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/commands"
)

const (
	srcDir   = "../../man/src"
	pageFile = "../../man/mcpx.1"
)

func generate(t *testing.T, root *cli.Command, src string) (string, []string) {
	t.Helper()
	page, warns, err := Generate(root, src)
	if err != nil {
		t.Fatal(err)
	}
	return string(page), warns
}

// TestManPageIsCurrent fails when the committed man/mcpx.1 is not what the
// command definitions and man/src generate (a flag's usage changed, a
// command was added, the prose was edited without `make man`).
func TestManPageIsCurrent(t *testing.T) {
	page, warns := generate(t, commands.DocRoot(), srcDir)
	for _, w := range warns {
		t.Errorf("genman warns: %s", w)
	}
	committed, err := os.ReadFile(pageFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, []byte(page)) {
		t.Fatalf("%s\n%s", staleMsg, FirstDifference(committed, []byte(page)))
	}
}

func TestGenerateIsByteStable(t *testing.T) {
	a, _ := generate(t, commands.DocRoot(), srcDir)
	b, _ := generate(t, commands.DocRoot(), srcDir)
	if a != b {
		t.Fatalf("two runs differ:\n%s", FirstDifference([]byte(a), []byte(b)))
	}
}

// TestPageCoversTheTree checks the generated page against the tree itself:
// every visible command has a synopsis line and a subsection, every visible
// flag an entry, and no hidden command shows.
func TestPageCoversTheTree(t *testing.T) {
	root := commands.DocRoot()
	root.Commands = append(root.Commands, &cli.Command{Name: "secret-thing", Hidden: true, Usage: "never documented"})
	page, _ := generate(t, root, srcDir)
	root = commands.DocRoot()
	var hidden int
	for _, c := range root.Commands {
		name := esc(c.Name)
		if c.Hidden {
			hidden++
			for _, s := range []string{`.SS "` + name, `\fB` + name + `\fR`} {
				if strings.Contains(page, s) {
					t.Errorf("hidden command %q shows in the page (%q)", c.Name, s)
				}
			}
			continue
		}
		if !strings.Contains(page, `.SS "`+name) {
			t.Errorf("no subsection for %q", c.Name)
		}
		if !strings.Contains(page, "\n\\fB"+name+"\\fR\n") {
			t.Errorf("no synopsis line for %q", c.Name)
		}
		for _, f := range c.VisibleFlags() {
			if !strings.Contains(page, `\fB`+dashed(f.Names()[0])+`\fR`) {
				t.Errorf("no entry for --%s of %q", f.Names()[0], c.Name)
			}
		}
	}
	if hidden < 2 {
		t.Errorf("expected the hidden serve-demo and __complete in DocRoot, found %d hidden commands", hidden)
	}
	for _, s := range []string{"secret\\-thing", "never documented", "__complete", `.SH "SHELL COMPLETION"`} {
		if strings.Contains(page, s) {
			t.Errorf("the page has %q", s)
		}
	}
	for _, s := range []string{
		".SH SHELL COMPLETION", ".B MCPX_COMPLETE_TIMEOUT", ".B MCPX_CONFIG", ".B MCPX_CACHE_DIR",
		".SH EXIT STATUS", ".SH EXAMPLES", ".SH CONFIGURATION", ".SH LIMITS", ".SH CONTENT POLICY",
		`\fB\-h\fR, \fB\-\-help\fR`, `\fB\-\-version\fR`,
	} {
		if !strings.Contains(page, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
}

func findCmd(root *cli.Command, name string) *cli.Command {
	for _, c := range root.Commands {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// TestDefinitionChangesShowUp: a changed usage, a new command and a new flag
// change the page, so TestManPageIsCurrent catches them.
func TestDefinitionChangesShowUp(t *testing.T) {
	before, _ := generate(t, commands.DocRoot(), srcDir)

	root := commands.DocRoot()
	read := findCmd(root, "read")
	for _, f := range read.Flags {
		if sf, ok := f.(*cli.StringFlag); ok && sf.Name == "pattern" {
			sf.Usage = "keep only the lines that match `RE` (changed)"
		}
	}
	read.Flags = append(read.Flags, &cli.IntFlag{Name: "context", Usage: "print `N` lines around each match", Value: 2})
	root.Commands = append(root.Commands, &cli.Command{
		Name: "frobnicate", Usage: "frobnicate a server", ArgsUsage: "SRV [WHAT...]",
		Flags: []cli.Flag{&cli.StringSliceFlag{Name: "with", Aliases: []string{"w"}, Usage: "frobnicate with `THING`", Sources: cli.EnvVars("MCPX_FROB")}},
	})
	after, warns := generate(t, root, srcDir)
	if after == before {
		t.Fatal("the page did not change")
	}
	for _, want := range []string{
		`Keep only the lines that match \fIRE\fR (changed).`,
		"\\fB\\-\\-context\\fR \\fIN\\fR\nPrint \\fIN\\fR lines around each match. Default: \\fB2\\fR.",
		`.SS "frobnicate \fISRV\fP [\fIWHAT\fP...]"`,
		"\\fBfrobnicate\\fR\n\\fISRV\\fR [\\fIWHAT\\fR...]\\&\n[\\fB\\-w\\fR\\ \\fITHING\\fR]...\\&\n",
		"\\fB\\-w\\fR, \\fB\\-\\-with\\fR \\fITHING\\fR\nFrobnicate with \\fITHING\\fR. Environment variable: \\fBMCPX_FROB\\fR.",
		".B MCPX_FROB\nThe default of \\fBfrobnicate\\fR \\fB\\-\\-with\\fR \\fITHING\\fR: frobnicate with\n\\fITHING\\fR.",
	} {
		if !strings.Contains(after, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "commands/frobnicate.roff") {
		t.Errorf("want one warning about frobnicate's missing prose, got %q", warns)
	}
}

// TestCompletionProseFollowsTheCommand: SHELL COMPLETION, the completion
// example and MCPX_COMPLETE_TIMEOUT are there only with the command.
func TestCompletionProseFollowsTheCommand(t *testing.T) {
	root := commands.DocRoot()
	var keep []*cli.Command
	for _, c := range root.Commands {
		if c.Name != "completion" {
			keep = append(keep, c)
		}
	}
	root.Commands = keep
	page, warns := generate(t, root, srcDir)
	if len(warns) != 0 {
		t.Errorf("warnings: %q", warns)
	}
	for _, s := range []string{"SHELL COMPLETION", "MCPX_COMPLETE_TIMEOUT", "mcpx completion", `.SS "completion`} {
		if strings.Contains(page, s) {
			t.Errorf("without the completion command the page still has %q", s)
		}
	}
}

// copySrc copies man/src to a temporary directory for tests that break it.
func copySrc(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	err := filepath.WalkDir(srcDir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(srcDir, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func appendTo(t *testing.T, file, text string) {
	t.Helper()
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// TestBrokenSourcesAreErrors: prose for a flag that is gone (renamed,
// removed) and malformed sources stop the generator.
func TestBrokenSourcesAreErrors(t *testing.T) {
	for _, tc := range []struct {
		file, text, want string
	}{
		{"commands/read.roff", ".\\\" @flag no-such\nText.\n", "--no-such"},
		{"global-options.roff", ".\\\" @flag gone\nText.\n", "--gone"},
		{"environment.roff", ".\\\" @flag json\nText.\n", "do not belong"},
		{"secrets.roff", "\nText.\n", "blank line"},
		{"secrets.roff", ".\\\" @if-command servers\nText.\n", "without @endif"},
		{"secrets.roff", ".\\\" @frobnicate\n", "unknown directive"},
		{"secrets.roff", ".\\\" @include limits.roff\n", "only works in"},
	} {
		dir := copySrc(t)
		appendTo(t, filepath.Join(dir, tc.file), tc.text)
		_, _, err := Generate(commands.DocRoot(), dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s + %q: want an error with %q, got %v", tc.file, tc.text, tc.want, err)
		}
	}
}

func TestArgs(t *testing.T) {
	for _, tc := range []struct{ in, text, heading string }{
		{"SRV URI [VAR=VALUE ...]", `\fISRV\fR \fIURI\fR [\fIVAR\fB=\fIVALUE\fR\ ...]`, `\fISRV\fP \fIURI\fP [\fIVAR\fP=\fIVALUE\fP\ ...]`},
		{"--all [QUERY]", `\fB\-\-all\fR [\fIQUERY\fR]`, `\-\-all [\fIQUERY\fP]`},
		{"bash|zsh|fish", `\fBbash\fR|\fBzsh\fR|\fBfish\fR`, `bash|zsh|fish`},
		{"SRV TOOL [KEY:=JSON]", `\fISRV\fR \fITOOL\fR [\fIKEY\fB:=\fIJSON\fR]`, `\fISRV\fP \fITOOL\fP [\fIKEY\fP:=\fIJSON\fP]`},
	} {
		if got := args(tc.in, false); got != tc.text {
			t.Errorf("args(%q) = %q, want %q", tc.in, got, tc.text)
		}
		if got := args(tc.in, true); got != tc.heading {
			t.Errorf("args(%q, heading) = %q, want %q", tc.in, got, tc.heading)
		}
	}
	if got := alternatives("SRV [QUERY] | --all [QUERY]"); len(got) != 2 || got[0] != "SRV [QUERY]" || got[1] != "--all [QUERY]" {
		t.Errorf("alternatives = %q", got)
	}
	if got := alternatives("bash|zsh|fish"); len(got) != 1 {
		t.Errorf("alternatives(bash|zsh|fish) = %q", got)
	}
}

func TestSentence(t *testing.T) {
	for _, tc := range []struct{ usage, want string }{
		{"read servers from `FILE` alone", `Read servers from \fIFILE\fR alone.`},
		{"extra HTTP header `'K: V'` for URL servers", `Extra HTTP header \fI'K:\ V'\fR for URL servers.`},
		{"start at byte `N` (of the filtered text with --pattern)", `Start at byte \fIN\fR (of the filtered text with \fB\-\-pattern\fR).`},
		{"write to `FILE` (implies --raw; - is stdout)", `Write to \fIFILE\fR (implies \fB\-\-raw\fR; \- is stdout).`},
		{"never re-parsed.", `Never re\-parsed.`},
	} {
		if got := sentence(tc.usage, placeholderOf(tc.usage)); got != tc.want {
			t.Errorf("sentence(%q) = %q, want %q", tc.usage, got, tc.want)
		}
	}
}

func TestWrap(t *testing.T) {
	long := strings.Repeat("word ", 30) + `.dot \fBbold\ text\fR 'quote ` + strings.Repeat("x", 90)
	lines := wrap(long)
	var joined []string
	for _, ln := range lines {
		joined = append(joined, strings.TrimPrefix(ln, `\&`))
	}
	if strings.Join(joined, " ") != long {
		t.Errorf("wrap lost text: %q", lines)
	}
	for _, ln := range lines[:len(lines)-1] {
		if len(ln) > 80 {
			t.Errorf("line over 80 bytes: %q", ln)
		}
	}
	for _, ln := range lines {
		if strings.HasPrefix(ln, ".") || strings.HasPrefix(ln, "'") {
			t.Errorf("line starts with a control character: %q", ln)
		}
		if strings.HasSuffix(ln, `\`) {
			t.Errorf("line broken inside an escape: %q", ln)
		}
	}
}

// TestModel pins what the walk of the tree reads from the definitions.
func TestModel(t *testing.T) {
	root := &cli.Command{Name: "app", Usage: "does\nthings.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "say less"}},
		Commands: []*cli.Command{{Name: "parent", Usage: "a parent", ArgsUsage: "SRV",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "mode", Value: "fast", Usage: "the `MODE`", Sources: cli.EnvVars("APP_MODE", "APP_M")},
				&cli.DurationFlag{Name: "wait", Value: 3 * time.Second, DefaultText: "three seconds"},
				&cli.StringSliceFlag{Name: "tag", Aliases: []string{"t"}},
				&cli.IntFlag{Name: "secret", Hidden: true},
			},
			Commands: []*cli.Command{{Name: "child", Usage: "a child."}}}},
	}
	got := model(root)
	want := &appDoc{Name: "app", Usage: "does things",
		Flags: []flagDoc{{Names: []string{"q", "quiet"}, Type: "bool", Default: "false", Usage: "say less"}},
		Commands: []cmdDoc{
			{Name: "parent", Usage: "a parent", ArgsUsage: "SRV", Flags: []flagDoc{
				{Names: []string{"mode"}, TakesValue: true, Type: "string", Default: "fast", Env: []string{"APP_MODE", "APP_M"}, Usage: "the `MODE`"},
				{Names: []string{"wait"}, TakesValue: true, Type: "duration", Default: "three seconds"},
				{Names: []string{"t", "tag"}, TakesValue: true, Type: "string", Multi: true},
			}},
			{Name: "parent child", Usage: "a child"},
		}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("model:\n got %+v\nwant %+v", got, want)
	}
}
