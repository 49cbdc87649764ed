package render

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// grepNumbered joins "l1".."ln" with "\n", putting extra after the listed lines.
func grepNumbered(n int, extra map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "l%d%s\n", i, extra[i])
	}
	return b.String()
}

func TestGrep(t *testing.T) {
	for _, tc := range []struct {
		name, text, pattern, want string
	}{
		{"empty text", "", "x*", ""},
		{"no match", "a\nb\nc\n", "z", ""},
		{"one match with context", grepNumbered(9, map[int]string{5: " ERROR"}), "ERROR",
			"3-l3\n4-l4\n5:l5 ERROR\n6-l6\n7-l7\n"},
		{"match on the first line", grepNumbered(5, map[int]string{1: " ERROR"}), "ERROR",
			"1:l1 ERROR\n2-l2\n3-l3\n"},
		{"match on the second line", grepNumbered(5, map[int]string{2: " ERROR"}), "ERROR",
			"1-l1\n2:l2 ERROR\n3-l3\n4-l4\n"},
		{"match on the last line", grepNumbered(5, map[int]string{5: " ERROR"}), "ERROR",
			"3-l3\n4-l4\n5:l5 ERROR\n"},
		{"separate groups", grepNumbered(10, map[int]string{2: " ERROR", 8: " ERROR"}), "ERROR",
			"1-l1\n2:l2 ERROR\n3-l3\n4-l4\n--\n6-l6\n7-l7\n8:l8 ERROR\n9-l9\n10-l10\n"},
		{"groups that touch merge", grepNumbered(8, map[int]string{1: " ERROR", 6: " ERROR"}), "ERROR",
			"1:l1 ERROR\n2-l2\n3-l3\n4-l4\n5-l5\n6:l6 ERROR\n7-l7\n8-l8\n"},
		{"a one-line gap separates", grepNumbered(9, map[int]string{1: " ERROR", 7: " ERROR"}), "ERROR",
			"1:l1 ERROR\n2-l2\n3-l3\n--\n5-l5\n6-l6\n7:l7 ERROR\n8-l8\n9-l9\n"},
		{"overlapping groups", grepNumbered(9, map[int]string{4: " ERROR", 6: " ERROR"}), "ERROR",
			"2-l2\n3-l3\n4:l4 ERROR\n5-l5\n6:l6 ERROR\n7-l7\n8-l8\n"},
		{"adjacent matches", grepNumbered(5, map[int]string{2: " ERROR", 3: " ERROR"}), "ERROR",
			"1-l1\n2:l2 ERROR\n3:l3 ERROR\n4-l4\n5-l5\n"},
		{"every line matches", "a1\na2\na3\n", "a", "1:a1\n2:a2\n3:a3\n"},
		{"last line without newline", "a\nb\nc", "c", "1-a\n2-b\n3:c\n"},
		{"context reaches the last line without newline", "a\nb\nc", "a", "1:a\n2-b\n3-c\n"},
		{"trailing newline is no extra line", "a\nb\n", "^$", ""},
		{"empty lines", "\n\nx\n\n", "^$", "1:\n2:\n3-x\n4:\n"},
		{"a lone newline is one empty line", "\n", "^$", "1:\n"},
		{"empty pattern matches every line", "a\nb", "", "1:a\n2:b\n"},
		{"anchors apply per line", "foo\nxfoo\nfoox\n", "^foo$", "1:foo\n2-xfoo\n3-foox\n"},
		{"anchored literal prefix", "xERROR\nERRORx\n", "^ERROR", "1-xERROR\n2:ERRORx\n"},
		{"\\r stays in the line", "a\r\nb\r\n", `a\r$`, "1:a\r\n2-b\r\n"},
		{"$ does not match before \\r", "a\r\nb\r\n", `a$`, ""},
		{"literal containing a newline never matches", "a\nb\n", `a\nb`, ""},
		{"literal candidate that fails the regexp", "ERROR 1\nERROR x\n", `ERROR \d`, "1:ERROR 1\n2-ERROR x\n"},
		{"required literal inside", "took 123 ms\ntook 12 ms\ntook 1234 ms\n", `\b\d{3} ms$`,
			"1:took 123 ms\n2-took 12 ms\n3-took 1234 ms\n"},
		{"case-insensitive literal", "an Error\nok\nERROR!\nerr or\nerrors\n", `(?i)error`,
			"1:an Error\n2-ok\n3:ERROR!\n4-err or\n5:errors\n"},
		{"case-insensitive k matches the Kelvin sign", "\u212a\nx\n", `(?i)k`, "1:\u212a\n2-x\n"},
		{"case-insensitive s matches long s", "x\nmi\u017fs\n", `(?i)miss`, "1-x\n2:mi\u017fs\n"},
		{"U+FFFD matches an invalid byte", "ok\nbad \xff\n", "\uFFFD", "1-ok\n2:bad \xff\n"},
		{"alternation of literals", "WARN 1\nx\ny\nz\nw\nERROR 2\nWARNING\n", `^(ERROR|WARN) \d`,
			"1:WARN 1\n2-x\n3-y\n4-z\n5-w\n6:ERROR 2\n7-WARNING\n"},
		{"alternation, folded and not", "a\nb\nc\nd\nwArN\nf\ng\nh\ni\nERROR\nerror\n", `ERROR|(?i)warn`,
			"3-c\n4-d\n5:wArN\n6-f\n7-g\n8-h\n9-i\n10:ERROR\n11-error\n"},
		{"multibyte lines", "é\n世\n😀 ERROR\n", "ERROR", "1-é\n2-世\n3:😀 ERROR\n"},
		{"line numbers past 9", grepNumbered(12, map[int]string{11: " X"}), "X", "9-l9\n10-l10\n11:l11 X\n12-l12\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Grep(tc.text, regexp.MustCompile(tc.pattern))
			if got != tc.want {
				t.Errorf("Grep(%q, %q):\n got %q\nwant %q", tc.text, tc.pattern, got, tc.want)
			}
			if naive := naiveGrep(tc.text, regexp.MustCompile(tc.pattern)); naive != tc.want {
				t.Errorf("naive reference disagrees with the table: %q", naive)
			}
		})
	}
}

func TestRequiredNeedles(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		want    []needle
	}{
		{"ERROR", []needle{{"ERROR", false}}},
		{"^ERROR", []needle{{"ERROR", false}}},
		{`\d{3} ms$`, []needle{{" ms", false}}},
		{`(?i)error`, []needle{{"error", true}}},
		{`(?i)ERROR: \d`, []needle{{"error: ", true}}},
		{`(?i)123`, []needle{{"123", false}}},
		{`(?i)k`, nil},
		{`(?i)miss`, nil},
		{`x(abc)+y`, []needle{{"abc", false}}},
		{`x(abc)*y`, []needle{{"x", false}}},
		{`x(abc){2,}`, []needle{{"abc", false}}},
		{`x(abc){0,3}`, []needle{{"x", false}}},
		{`ERROR|WARN`, []needle{{"ERROR", false}, {"WARN", false}}},
		{`(ERROR|(?i)warn) \d+`, []needle{{"ERROR", false}, {"warn", true}}},
		{`ERROR|\w+`, nil},
		{`ERROR|`, nil},
		{`a|b|c`, nil}, // a character class
		{`ab|cd|ef|gh|ij|kl|mn|op`, []needle{{"ab", false}, {"cd", false}, {"ef", false}, {"gh", false}, {"ij", false}, {"kl", false}, {"mn", false}, {"op", false}}},
		{`a1|b2|c3|d4|e5|f6|g7|h8|i9`, nil},
		{`ab(?i:cd)e`, []needle{{"ab", false}}},
		{`ab(?i:cdef)`, []needle{{"cdef", true}}},
		{`\w+`, nil},
		{"\uFFFD", nil},
		{"é+", []needle{{"é", false}}},
	} {
		if got := requiredNeedles(regexp.MustCompile(tc.pattern)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("requiredNeedles(%q) = %v, want %v", tc.pattern, got, tc.want)
		}
	}
}

// TestFolder finds a case-folded literal across window boundaries.
func TestFolder(t *testing.T) {
	for _, at := range []int{0, 1, foldChunk - 5, foldChunk - 4, foldChunk - 1, foldChunk, 3*foldChunk + 7} {
		s := strings.Repeat("x", at) + "ErRoR" + strings.Repeat("y", 10) + "eRROR"
		f := folder{lit: []byte("error")}
		if got := f.index(s, 0); got != at {
			t.Errorf("at %d: index %d", at, got)
		}
		if got := f.index(s, at+1); got != at+15 {
			t.Errorf("at %d: second index %d, want %d", at, got, at+15)
		}
		if got := f.index(s, at+16); got != -1 {
			t.Errorf("at %d: third index %d, want -1", at, got)
		}
		f = folder{lit: []byte("error")}
		if got := f.index(s[:at+4], 0); got != -1 {
			t.Errorf("cut at %d: index %d, want -1", at+4, got)
		}
	}
}

func TestLowerASCII(t *testing.T) {
	for c := 0; c < 256; c++ {
		for at := 0; at < 11; at++ {
			b := []byte("@Z[`az{\x80\xc1\xdaQ")[:11]
			b[at] = byte(c)
			want := make([]byte, len(b))
			for i, x := range b {
				want[i] = x
				if 'A' <= x && x <= 'Z' {
					want[i] = x + 32
				}
			}
			lowerASCII(b)
			if !bytes.Equal(b, want) {
				t.Fatalf("byte %#x at %d: %q, want %q", c, at, b, want)
			}
		}
	}
}

// naiveGrep is the reference: split into lines, mark the lines to print,
// print them with separators between runs.
func naiveGrep(text string, re *regexp.Regexp) string {
	if text == "" {
		return ""
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	show := make([]bool, len(lines))
	match := make([]bool, len(lines))
	for i, l := range lines {
		if re.MatchString(l) {
			match[i] = true
			for j := i - patternContext; j <= i+patternContext; j++ {
				if j >= 0 && j < len(lines) {
					show[j] = true
				}
			}
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if !show[i] {
			continue
		}
		if i > 0 && !show[i-1] && b.Len() > 0 {
			b.WriteString("--\n")
		}
		sep := "-"
		if match[i] {
			sep = ":"
		}
		fmt.Fprintf(&b, "%d%s%s\n", i+1, sep, l)
	}
	return b.String()
}

// TestGrepAgainstGNUGrep compares Grep with `grep -n -C2 -E` on generated
// texts, for patterns Go and POSIX ERE read alike.
func TestGrepAgainstGNUGrep(t *testing.T) {
	grep, err := exec.LookPath("grep")
	if err != nil {
		t.Skip("grep is not on PATH")
	}
	if out, err := exec.Command(grep, "--version").Output(); err != nil || !strings.Contains(string(out), "GNU grep") {
		t.Skip("grep is not GNU grep")
	}
	// Go pattern → the same as ERE (with -i for case-insensitive ones).
	patterns := []struct {
		re, ere string
		fold    bool
	}{
		{"ERROR", "ERROR", false}, {"^foo", "^foo", false}, {"bar$", "bar$", false}, {"[0-9]{3}", "[0-9]{3}", false},
		{"^$", "^$", false}, {"o+b", "o+b", false}, {"^[a-z ]+$", "^[a-z ]+$", false}, {"q", "q", false},
		{"(foo|bar) [0-9]", "(foo|bar) [0-9]", false}, {"ERROR|WARN", "ERROR|WARN", false},
		{"[[:upper:]]{2}", "[[:upper:]]{2}", false}, {"", "", false},
		{"(?i)error", "error", true}, {"(?i)^warn|baz", "^warn|baz", true},
	}
	words := []string{"foo", "bar", "ERROR", "WARN", "Error", "wArn", "x", "12", "345", "", " ", "fooob", "Qq", "baz\r"}
	rng := rand.New(rand.NewSource(1))
	dir := t.TempDir()
	texts := 12
	if testing.Short() {
		texts = 3 // 42 runs of grep, not 168
	}
	for n := 0; n < texts; n++ {
		var b strings.Builder
		lines := rng.Intn(80)
		for i := 0; i < lines; i++ {
			for w := rng.Intn(4); w >= 0; w-- {
				b.WriteString(words[rng.Intn(len(words))])
				if rng.Intn(2) == 0 {
					b.WriteByte(' ')
				}
			}
			if i < lines-1 || rng.Intn(2) == 0 {
				b.WriteByte('\n')
			}
		}
		text := b.String()
		file := filepath.Join(dir, fmt.Sprintf("text%d", n))
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, p := range patterns {
			args := []string{"-n", "-C2", "-E", "-e", p.ere, file}
			if p.fold {
				args = append([]string{"-i"}, args...)
			}
			cmd := exec.Command(grep, args...)
			cmd.Env = append(os.Environ(), "LC_ALL=C")
			out, err := cmd.Output()
			if err != nil {
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
					t.Fatalf("grep %q: %v", args, err)
				}
			}
			if got := Grep(text, regexp.MustCompile(p.re)); got != string(out) {
				t.Errorf("text %q, pattern %q:\n   Grep %q\ngrep %q", text, p.re, got, out)
			}
		}
	}
}

// TestGrepAllocations keeps Grep free of per-line allocations: 20000
// lines cost a few dozen allocations (the output's growth, the pattern's
// parse), whatever the search strategy.
func TestGrepAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations")
	}
	const lines = 20000
	var b strings.Builder
	for i := 0; i < lines; i++ {
		if i%100 == 0 {
			b.WriteString("x ERROR y\n")
		} else {
			fmt.Fprintf(&b, "line %d ok took 12 ms\n", i)
		}
	}
	text := b.String()
	var pool sync.Pool
	pool.New = func() any { return new([64]byte) }
	if testing.AllocsPerRun(10, func() {
		for range 100 {
			pool.Put(pool.Get())
		}
	}) > 0 {
		t.Skip("sync.Pool drops items here (race detector), so regexp allocates matchers")
	}
	for _, p := range []string{"ERROR", "(?i)error", "ERROR|WARN", "^x E", `\d{5}`} {
		re := regexp.MustCompile(p)
		if n := testing.AllocsPerRun(3, func() { Grep(text, re) }); n > 64 {
			t.Errorf("Grep(%d lines, %q): %v allocations", lines, p, n)
		}
	}
}

// TestGrepLargeAgainstNaive compares Grep with the reference over a text
// many search windows long, for every search strategy.
func TestGrepLargeAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	words := []string{"error", "ERROR", "eRrOr", "warn", "WARN", "took", "123", "ms", "x", "é", "\u212a", ""}
	var b strings.Builder
	for b.Len() < 5*foldChunk {
		for w := rng.Intn(6); w >= 0; w-- {
			b.WriteString(words[rng.Intn(len(words))])
			b.WriteByte(" \n"[rng.Intn(2)])
		}
	}
	text := b.String()
	for _, p := range []string{"ERROR", "(?i)error", "ERROR|(?i)warn", "(?i)er+or", `\d{3} ms$`, `(?i)k`, "^$", "é x"} {
		re := regexp.MustCompile(p)
		if got, want := Grep(text, re), naiveGrep(text, re); got != want {
			t.Errorf("pattern %q: Grep and the reference differ (%d and %d bytes)", p, len(got), len(want))
		}
	}
}
