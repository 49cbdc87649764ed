package completions

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestUsable(t *testing.T) {
	tests := []struct {
		v    string
		want bool
	}{
		{"plain", true},
		{"a b", true},
		{"file:///tmp/a b.txt", true},
		{"héllo 日本 🙂", true},
		{"$(rm -rf /)", true}, // escaped when inserted, not refused
		{"", false},
		{"a\x00b", false},
		{"a\tb", false},
		{"a\nb", false},
		{"a\rb", false},
		{"a\x1b[31mb", false},
		{"a\x7fb", false},       // DEL
		{"a\u0085b", false},     // C1 (NEL)
		{"a\u009bb", false},     // C1 (CSI)
		{"a\u202eb", false},     // RIGHT-TO-LEFT OVERRIDE
		{"a\u2066b", false},     // LEFT-TO-RIGHT ISOLATE
		{"a\u200bb", false},     // ZERO WIDTH SPACE (format)
		{"\ufeffa", false},      // BOM (format)
		{"a\u2028b", false},     // LINE SEPARATOR
		{"a\u2029b", false},     // PARAGRAPH SEPARATOR
		{"a\xffb", false},       // invalid UTF-8
		{"a\xc3", false},        // truncated UTF-8
		{"\xed\xa0\x80", false}, // a surrogate
	}
	for _, tt := range tests {
		if got := usable(tt.v); got != tt.want {
			t.Errorf("usable(%q) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

func TestCleanDesc(t *testing.T) {
	long := strings.Repeat("x", 80)
	tests := []struct {
		d, want string
	}{
		{"", ""},
		{"plain words", "plain words"},
		{"  padded  ", "padded"},
		{"first line\nsecond line", "first line"},
		{"first line\r\nsecond line", "first line"},
		{"first\rsecond", "first"},
		{"\n\n  after blank lines\nmore", "after blank lines"},
		{"a\tb", "a b"},
		{"a  \t  b", "a b"},
		{"a\x1b[31mred", "a [31mred"},
		{"\x01\x02lead", "lead"},
		{"trail\x01\x02", "trail"},
		{"a\x7fb\u0085c", "a b c"},
		{"a\u202eb\u2066c", "a b c"},
		{"a\u2028b", "a b"},
		{"a\u00a0b", "a b"},
		{"a\xffb", "a\ufffdb"},
		{long, long},
		{long + "y", long + "…"},
		{long + " y", long + "…"},
		{long + "\x01", long},
		{strings.Repeat("é", 100), strings.Repeat("é", 80) + "…"},
		{strings.Repeat("ab ", 40), strings.TrimSpace(strings.Repeat("ab ", 27)) + "…"},
	}
	for _, tt := range tests {
		if got := cleanDesc(tt.d); got != tt.want {
			t.Errorf("cleanDesc(%q)\n got %q\nwant %q", tt.d, got, tt.want)
		}
	}
}

func TestClean(t *testing.T) {
	in := []Candidate{
		{"b", "second\nline"},
		{"", "empty"},
		{"a", "first"},
		{"b", "repeat"},
		{"bad\x1b", "escape"},
		{"\u202egnp.exe", "bidi"},
		{"c\xff", "invalid"},
		{"a", ""},
		{"d", ""},
	}
	want := []Candidate{{"b", "second"}, {"a", "first"}, {"d", ""}}
	if got := clean(in); !reflect.DeepEqual(got, want) {
		t.Errorf("clean\n got %q\nwant %q", got, want)
	}
	if got := clean(nil); len(got) != 0 {
		t.Errorf("clean(nil) = %q", got)
	}
}

func TestDirective(t *testing.T) {
	tests := []struct {
		name string
		res  result
		want string
	}{
		{"files", result{Path: Files}, "files"},
		{"dirs", result{Path: Dirs}, "dirs"},
		{"plain", result{Cands: []Candidate{{"a", ""}, {"b", ""}}}, "-"},
		{"a value with '=' inside", result{Cands: []Candidate{{"a=b", ""}}}, "-"},
		{"a candidate ending with '='", result{Cands: []Candidate{{"a", ""}, {"key=", ""}}}, "nospace"},
		{"nothing", result{}, "-"},
	}
	for _, tt := range tests {
		if got := directive(tt.res, tt.res.Cands); got != tt.want {
			t.Errorf("%s: directive = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestWriteTabbed(t *testing.T) {
	tests := []struct {
		name string
		res  result
		want string
	}{
		{"nothing is no output", result{}, ""},
		{"only unusable candidates is no output", result{Cands: []Candidate{{"", "x"}, {"a\nb", ""}}}, ""},
		{"values and descriptions", result{Cands: []Candidate{{"alpha", "stdio node a.js"}, {"file:///a b", ""}, {"demo", "built-in\tdemo\nserver"}}},
			"-\nalpha\tstdio node a.js\nfile:///a b\ndemo\tbuilt-in demo\n"},
		{"not filtered (the shell matches)", result{Cands: []Candidate{{"zeta", ""}, {"alpha", ""}}},
			"-\nzeta\nalpha\n"},
		{"not escaped", result{Cands: []Candidate{{"$(x) `y` 'z'", ""}}},
			"-\n$(x) `y` 'z'\n"},
		{"nospace", result{Cands: []Candidate{{"code=", "(required) the code"}, {"lang=", ""}}},
			"nospace\ncode=\t(required) the code\nlang=\n"},
		{"repeats and unusable values dropped", result{Cands: []Candidate{{"a", "1"}, {"a\u2066", ""}, {"a", "2"}}},
			"-\na\t1\n"},
		{"files", result{Path: Files}, "files\n"},
		{"dirs", result{Path: Dirs}, "dirs\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := WriteTabbed(&b, tt.res, "zsh"); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("%s: WriteTabbed\n got %q\nwant %q", tt.name, b.String(), tt.want)
		}
	}
	// fish would expand a leading '~' of a suggestion: such values go.
	var b bytes.Buffer
	res := result{Cands: []Candidate{{"~root", ""}, {"~", ""}, {"a~b", ""}}}
	if err := WriteTabbed(&b, res, "fish"); err != nil || b.String() != "-\na~b\n" {
		t.Errorf("WriteTabbed for fish = %q, %v; want %q", b.String(), err, "-\na~b\n")
	}
	b.Reset()
	if err := WriteTabbed(&b, res, "zsh"); err != nil || b.String() != "-\n~root\n~\na~b\n" {
		t.Errorf("WriteTabbed for zsh = %q, %v", b.String(), err)
	}
}
