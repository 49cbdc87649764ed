package completions

import (
	"bytes"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// defaultBreaks is bash's default COMP_WORDBREAKS.
const defaultBreaks = " \t\n\"'><=;|&(:"

func TestSplitBash(t *testing.T) {
	tests := []struct {
		name, line, breaks string
		want               BashWord
	}{
		{"empty line", "", defaultBreaks, BashWord{}},
		{"plain words", "mcpx read srv", defaultBreaks,
			BashWord{Words: []string{"mcpx", "read"}, Cur: "srv"}},
		{"blanks of every kind", "mcpx  read\tsrv x", defaultBreaks,
			BashWord{Words: []string{"mcpx", "read", "srv"}, Cur: "x"}},
		{"trailing space: empty Cur", "mcpx read ", defaultBreaks,
			BashWord{Words: []string{"mcpx", "read"}, Cur: ""}},
		{"single quotes", "mcpx 'a b' c", defaultBreaks,
			BashWord{Words: []string{"mcpx", "a b"}, Cur: "c"}},
		{"single quotes keep backslashes", `mcpx 'a\b' `, defaultBreaks,
			BashWord{Words: []string{"mcpx", `a\b`}}},
		{"double quotes and their escapes", `mcpx "a \"b\" \$x \\ \q \` + "`" + `" `, defaultBreaks,
			BashWord{Words: []string{"mcpx", `a "b" $x \ \q ` + "`"}}},
		{"quotes inside a word", `mcpx a'b c'"d e"f g`, defaultBreaks,
			BashWord{Words: []string{"mcpx", "ab cd ef"}, Cur: "g"}},
		{"empty quotes are a word", `mcpx '' "" x`, defaultBreaks,
			BashWord{Words: []string{"mcpx", "", ""}, Cur: "x"}},
		{"open single quote at the cursor", "mcpx read srv 'file:///a b", defaultBreaks,
			BashWord{Words: []string{"mcpx", "read", "srv"}, Cur: "file:///a b", quote: '\''}},
		{"open double quote at the cursor", `mcpx read srv "a \"b`, defaultBreaks,
			BashWord{Words: []string{"mcpx", "read", "srv"}, Cur: `a "b`, quote: '"'}},
		{"open quote after a break: keep is the text before the quote", `mcpx x=y"a:b`, defaultBreaks,
			BashWord{Words: []string{"mcpx"}, Cur: "x=ya:b", keep: "x=y", quote: '"'}},
		{"open quote after a closed one", `mcpx "a"'b`, defaultBreaks,
			BashWord{Words: []string{"mcpx"}, Cur: "ab", keep: "a", quote: '\''}},
		{"backslash escapes a blank", `mcpx a\ b`, defaultBreaks,
			BashWord{Words: []string{"mcpx"}, Cur: "a b"}},
		{"backslash escapes a blank, then a word", `mcpx a\ b c`, defaultBreaks,
			BashWord{Words: []string{"mcpx", "a b"}, Cur: "c"}},
		{"backslash escapes a quote", `mcpx it\'s`, defaultBreaks,
			BashWord{Words: []string{"mcpx"}, Cur: "it's"}},
		{"backslash at the end of the line", `mcpx a\`, defaultBreaks,
			BashWord{Words: []string{"mcpx"}, Cur: "a"}},
		{"backslash-newline joins lines", "mcpx re\\\nad x", defaultBreaks,
			BashWord{Words: []string{"mcpx", "read"}, Cur: "x"}},
		{"; starts a new command", "foo bar; mcpx re", defaultBreaks,
			BashWord{Words: []string{"mcpx"}, Cur: "re"}},
		{"| starts a new command", "foo | mcpx", defaultBreaks,
			BashWord{Cur: "mcpx"}},
		{"&& starts a new command", "true && mcpx read ", defaultBreaks,
			BashWord{Words: []string{"mcpx", "read"}}},
		{"( starts a new command", "(mcpx read ", defaultBreaks,
			BashWord{Words: []string{"mcpx", "read"}}},
		{"quoted ; is a character", "mcpx 'a;b' c", defaultBreaks,
			BashWord{Words: []string{"mcpx", "a;b"}, Cur: "c"}},
		{"redirection ends a word", "mcpx x>out ", defaultBreaks,
			BashWord{Words: []string{"mcpx", "x", "out"}}},
		{"URI: readline keeps up to the colon", "mcpx read srv file:///x", defaultBreaks,
			BashWord{Words: []string{"mcpx", "read", "srv"}, Cur: "file:///x", keep: "file:"}},
		{"keep goes up to the last break", "mcpx prompt s n a=b:c", defaultBreaks,
			BashWord{Words: []string{"mcpx", "prompt", "s", "n"}, Cur: "a=b:c", keep: "a=b:"}},
		{"a word ending in a break keeps it all", "mcpx --kind=", defaultBreaks,
			BashWord{Words: []string{"mcpx"}, Cur: "--kind=", keep: "--kind="}},
		{"an escaped colon is no break", `mcpx read s a\:b`, defaultBreaks,
			BashWord{Words: []string{"mcpx", "read", "s"}, Cur: "a:b"}},
		{"a quoted colon is no break", `mcpx read s 'a:b'c`, defaultBreaks,
			BashWord{Words: []string{"mcpx", "read", "s"}, Cur: "a:bc"}},
		{"a break after a closed quote counts", `mcpx read s 'a b'c:d`, defaultBreaks,
			BashWord{Words: []string{"mcpx", "read", "s"}, Cur: "a bc:d", keep: "a bc:"}},
		{"COMP_WORDBREAKS without ':'", "mcpx read srv file:///x", " \t\n\"'><=;|&(",
			BashWord{Words: []string{"mcpx", "read", "srv"}, Cur: "file:///x"}},
		{"COMP_WORDBREAKS without ':' still breaks at '='", "mcpx read srv v=file:///x", " \t\n\"'><=;|&(",
			BashWord{Words: []string{"mcpx", "read", "srv"}, Cur: "v=file:///x", keep: "v="}},
		{"empty COMP_WORDBREAKS", "mcpx prompt s n a=b:c", "",
			BashWord{Words: []string{"mcpx", "prompt", "s", "n"}, Cur: "a=b:c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SplitBash(tt.line, tt.breaks)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SplitBash(%q)\n got %#v\nwant %#v", tt.line, got, tt.want)
			}
		})
	}
}

func TestBashInsert(t *testing.T) {
	tests := []struct {
		typed, value, want string
	}{
		{"", "plain", "plain"},
		{"", "a b", `a\ b`},
		{"", "$(rm -rf x)", `\$\(rm\ -rf\ x\)`},
		{"", "`id`", "\\`id\\`"},
		{"", `it's "q"`, `it\'s\ \"q\"`},
		{"", "wow!", `wow\!`},
		{"", "*?[a]{b,c}", `\*\?\[a\]\{b,c\}`},
		{"", "~root", `\~root`},
		{"", "#x", `\#x`},
		{"", "a;b|c&d<e>f^g", `a\;b\|c\&d\<e\>f\^g`},
		{"", `back\slash`, `back\\slash`},
		{"", "tab\tx", "tab\\\tx"},
		{"", "日本 é", `日本\ é`},
		{"file:", "file:///tmp/a b", `///tmp/a\ b`},
		{"code=", "code=x y", `x\ y`},
		{"a=b:", "a=b:$c", `\$c`},
		{"'", "a b'c$d", `'a b'\''c$d'`},
		{"'fi", "file:///a b", `'file:///a b'`},
		{`"`, "a $b `c` \"d\" \\e", "\"a \\$b \\`c\\` \\\"d\\\" \\\\e\""},
		{`"`, "x!y", `"x"\!"y"`},
		{`"`, "!;touch x #", `""\!";touch x #"`},
		{`k="`, "k=v w", `"v w"`},
	}
	for _, tt := range tests {
		w := SplitBash("mcpx read srv "+tt.typed, defaultBreaks)
		if got := w.insert(tt.value); got != tt.want {
			t.Errorf("typed %q, value %q: insert = %q, want %q", tt.typed, tt.value, got, tt.want)
		}
	}
}

// hostileValues are values a server may send that the shell must read
// back as written. (A tab cannot be one: usable drops it, and an interactive
// bash reading it would complete.)
var hostileValues = []string{
	"plain", "a b", "  two  spaces  ", "$(echo pwned)", "`echo pwned`", "$HOME", "${HOME}", "$'x'",
	"it's", `say "hi"`, `\`, `back\slash`, `x\`, "wow!", "!!", "a!b", "!-1", "!$", "!;touch pwned #", "x\"", "x'", "'x", "*", "?", "[ab]", "{a,b}",
	"~", "~root", "#x", "a#b", "a;b", "a|b", "a&b", "a&&b", "<x>", "(x)", "^x", "50%", "x=y", "a:b",
	"file:///tmp/a b.txt", "https://h/p?q=1&r=2#f", "é ü 日本", "-n", "--", "-", "'", `"`, `'"'"`,
	"\\'", "\\\"",
}

// TestBashInsertRoundTrip runs bash on what insert produces: the word the
// user typed, with readline's replacement put in, must read back as the
// value. It runs an interactive bash too, where '!' is history expansion.
func TestBashInsertRoundTrip(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	contexts := []struct {
		typed  string // the word as typed before TAB
		keep   string // the raw text readline leaves in place (an open quote is replaced)
		closer string // what closes the word
		prefix string // the start of every value (what typed reads as)
	}{
		{"", "", "", ""},
		{"'", "", "", ""},
		{`"`, "", "", ""},
		{"file:", "file:", "", "file:"},
		{"a=b:", "a=b:", "", "a=b:"},
		{`x\ y`, "", "", "x y"},
		{`'a b'=`, `'a b'=`, "", "a b="},
		{`k="`, `k=`, "", "k="},
		{`k='v`, `k=`, "", "k=v"},
	}
	var script strings.Builder
	var want []string
	for _, c := range contexts {
		w := SplitBash("mcpx read srv "+c.typed, defaultBreaks)
		if w.Cur != c.prefix {
			t.Fatalf("typed %q: Cur = %q, want %q", c.typed, w.Cur, c.prefix)
		}
		for _, v := range hostileValues {
			value := c.prefix + v
			script.WriteString("printf '%s\\0' " + c.keep + w.insert(value) + c.closer + "\n")
			want = append(want, value)
		}
	}
	for _, mode := range [][]string{{"--norc", "--noprofile", "-s"}, {"--norc", "--noprofile", "-i"}} {
		cmd := exec.Command(bash, mode...)
		cmd.Stdin = strings.NewReader(script.String() + "exit\n")
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent", "PS1=", "LC_ALL=C.UTF-8"}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("bash %v: %v\n%s", mode, err, stderr.String())
		}
		got := strings.Split(strings.TrimSuffix(stdout.String(), "\x00"), "\x00")
		lines := strings.Split(script.String(), "\n")
		for i := range max(len(got), len(want)) {
			switch {
			case i >= len(got):
				t.Errorf("bash %v: value %q missing (stderr: %s)", mode, want[i], stderr.String())
			case i >= len(want):
				t.Errorf("bash %v: extra word %q", mode, got[i])
			case got[i] != want[i]:
				t.Errorf("bash %v: %s\n read back %q, want %q", mode, lines[i], got[i], want[i])
			}
		}
		if t.Failed() {
			t.Logf("stderr: %s", stderr.String())
			return
		}
	}
}

func TestWriteBash(t *testing.T) {
	servers := []Candidate{{"alpha", "stdio node a.js"}, {"demo", "built-in demo server"}, {"日本", ""}}
	tests := []struct {
		name     string
		line     string
		res      result
		compType int
		want     string
	}{
		{"all candidates", "mcpx read ", result{Cands: servers}, '\t',
			"-\nalpha\ndemo\n日本\n"},
		{"filtered by the word", "mcpx read al", result{Cands: servers}, '\t',
			"-\nalpha\n"},
		{"no match is no output", "mcpx read zz", result{Cands: servers}, '\t', ""},
		{"nothing is no output", "mcpx read ", result{}, '\t', ""},
		{"only unusable candidates is no output", "mcpx read ", result{Cands: []Candidate{{"a\nb", ""}, {"", "x"}}}, '\t', ""},
		{"escaped", "mcpx read s ", result{Cands: []Candidate{{"a b", ""}, {"$(x)", ""}}}, '\t',
			"-\na\\ b\n\\$\\(x\\)\n"},
		{"only the part after ':'", "mcpx read s file:///t", result{Cands: []Candidate{{"file:///tmp/a b", ""}, {"file:///etc", ""}, {"http://x", ""}}}, '\t',
			"-\n///tmp/a\\ b\n"},
		{"only the part after '='", "mcpx prompt s n code=", result{Cands: []Candidate{{"code=x y", ""}, {"code=z", ""}}}, '\t',
			"-\nx\\ y\nz\n"},
		{"inside an open single quote", "mcpx read s 'file:", result{Cands: []Candidate{{"file:///it's", ""}}}, '\t',
			"-\n'file:///it'\\''s'\n"},
		{"inside an open double quote", `mcpx read s "x`, result{Cands: []Candidate{{"x $y \"z\"", ""}}}, '\t',
			"-\n\"x \\$y \\\"z\\\"\"\n"},
		{"a common prefix never ends in half an escape", "mcpx read s x", result{Cands: []Candidate{{"x$1", ""}, {"x(2", ""}}}, '\t',
			"-\nx\\$1\nx\\(2\nx\n"},
		{"a whole escape in the common prefix is kept", "mcpx read s x", result{Cands: []Candidate{{"x$1", ""}, {"x$2", ""}}}, '\t',
			"-\nx\\$1\nx\\$2\n"},
		{"nospace when a candidate ends with '='", "mcpx prompt s n ", result{Cands: []Candidate{{"code=", "(required)"}, {"lang=", ""}}}, '\t',
			"nospace\ncode=\nlang=\n"},
		{"nospace only from the kept candidates", "mcpx invoke s t m", result{Cands: []Candidate{{"code=", ""}, {"mode=fast", ""}}}, '\t',
			"-\nmode=fast\n"},
		{"files", "mcpx read s x -o ", result{Path: Files}, '\t', "files\n"},
		{"dirs", "mcpx --cache-dir ", result{Path: Dirs}, '\t', "dirs\n"},
		{"listing: aligned values and descriptions", "mcpx read ", result{Cands: servers}, '?',
			"-\nalpha  -- stdio node a.js\ndemo   -- built-in demo server\n日本\n"},
		{"listing: the whole value, not the part after ':'", "mcpx read s file:", result{Cands: []Candidate{{"file:///a b", "A"}, {"file:///c", "C"}}}, '?',
			"-\nfile:///a b  -- A\nfile:///c    -- C\n"},
		{"listing: descriptions are cleaned", "mcpx read ", result{Cands: []Candidate{{"a", "x\tline\nsecond"}, {"b", ""}}}, '?',
			"-\na  -- x line\nb\n"},
		{"listing with one candidate inserts it", "mcpx read ", result{Cands: []Candidate{{"a b", "desc"}}}, '?',
			"-\na\\ b\n"},
		{"listing with one candidate left by the word inserts it", "mcpx read al", result{Cands: servers}, '?',
			"-\nalpha\n"},
		{"other COMP_TYPEs insert", "mcpx read ", result{Cands: servers[:2]}, '!',
			"-\nalpha\ndemo\n"},
		{"repeats and unusable values dropped", "mcpx read ", result{Cands: []Candidate{{"a", ""}, {"a\u202eb", ""}, {"a", "again"}, {"b\x7f", ""}}}, '\t',
			"-\na\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteBash(&b, tt.res, SplitBash(tt.line, defaultBreaks), tt.compType); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("WriteBash(%q)\n got %q\nwant %q", tt.line, b.String(), tt.want)
			}
		})
	}
}
