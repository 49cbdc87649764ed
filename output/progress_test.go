package output

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode"
)

const pgClear = "\r\x1b[K"

// TestProgress: what Log.Progress writes on a terminal, step by step, and
// how the other lines of the voice make room for it.
func TestProgress(t *testing.T) {
	p := func(text string) func(*Log) { return func(l *Log) { l.Progress(text) } }
	note := func(msg string) func(*Log) { return func(l *Log) { l.Note("%s", msg) } }
	for _, tc := range []struct {
		name string
		ops  []func(*Log)
		want string
	}{
		{"draw", []func(*Log){p("copying 1/3")}, "copying 1/3"},
		{"replace", []func(*Log){p("abc"), p("defg")}, "abc" + pgClear + "defg"},
		{"same text is not redrawn", []func(*Log){p("abc"), p("abc"), p(" abc ")}, "abc"},
		{"clear", []func(*Log){p("abc"), p("")}, "abc" + pgClear},
		{"clear twice", []func(*Log){p("abc"), p(""), p("")}, "abc" + pgClear},
		{"clear when nothing is shown", []func(*Log){p("")}, ""},
		{"only spaces clears", []func(*Log){p("abc"), p(" \n\t ")}, "abc" + pgClear},
		{"spaces collapsed", []func(*Log){p("  a \n\t b\r\n c  ")}, "a b c"},
		{"note under the progress line", []func(*Log){p("abc"), note("hi")}, "abc" + pgClear + "mcpx: note: hi\nabc"},
		{"two notes", []func(*Log){p("abc"), note("one"), note("two")},
			"abc" + pgClear + "mcpx: note: one\nabc" + pgClear + "mcpx: note: two\nabc"},
		{"note without a progress line", []func(*Log){note("hi")}, "mcpx: note: hi\n"},
		{"note after the line is cleared", []func(*Log){p("abc"), p(""), note("hi")}, "abc" + pgClear + "mcpx: note: hi\n"},
		{"a new line after a note", []func(*Log){p("abc"), note("hi"), p("xyz")}, "abc" + pgClear + "mcpx: note: hi\nabc" + pgClear + "xyz"},
		{"warning, url, server stderr", []func(*Log){p("P"), func(l *Log) { l.Warnf("w") }, func(l *Log) { l.URL("open", "https://x.example/") },
			func(l *Log) { l.ServerStderr("srv", "boom") }},
			"P" + pgClear + "mcpx: warning: w\nP" + pgClear + "mcpx: open:\nhttps://x.example/\nP" + pgClear + "[srv] boom\nP"},
		{"error with hints", []func(*Log){p("P"), func(l *Log) { l.Error(ErrorReport{Message: "it broke", Hints: []string{"h"}}) }},
			"P" + pgClear + "mcpx: it broke\nP" + pgClear + "mcpx: hint: h\nP"},
		{"escaped", []func(*Log){p("a\x1b[31mb\u202ec\x07")}, `a\x1b[31mb\u202ec\x07`},
		{"79 columns fit", []func(*Log){p(strings.Repeat("x", 79))}, strings.Repeat("x", 79)},
		{"80 columns cut", []func(*Log){p(strings.Repeat("x", 80))}, strings.Repeat("x", 78) + "…"},
		{"runes counted", []func(*Log){p(strings.Repeat("é", 100))}, strings.Repeat("é", 78) + "…"},
		{"cut after escaping", []func(*Log){p(strings.Repeat("x", 76) + "\x07yz")}, strings.Repeat("x", 76) + `\x` + "…"},
		{"cut after collapsing", []func(*Log){p(strings.Repeat("x ", 39) + "    x")}, strings.Repeat("x ", 39) + "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _, errb := ForTest(true)
			l := NewLog(s, false, false)
			for _, op := range tc.ops {
				op(l)
			}
			if errb.String() != tc.want {
				t.Errorf("stderr\n got %q\nwant %q", errb, tc.want)
			}
		})
	}
}

// TestProgressMasked: secrets never reach the progress line, not even cut
// in half.
func TestProgressMasked(t *testing.T) {
	s, _, errb := ForTest(true)
	s.Secrets().Add("s3cr3t-value")
	l := NewLog(s, false, false)
	l.Progress("token s3cr3t-value here")
	l.Progress(strings.Repeat("x", 70) + " s3cr3t-value")
	want := "token *** here" + pgClear + strings.Repeat("x", 70) + " ***"
	if errb.String() != want {
		t.Errorf("stderr\n got %q\nwant %q", errb, want)
	}
}

// TestProgressNotShown: nothing in a pipe, nothing under --json; the other
// lines are unchanged there.
func TestProgressNotShown(t *testing.T) {
	s, out, errb := ForTest(false)
	l := NewLog(s, false, false)
	l.Progress("abc")
	l.Note("hi")
	l.Progress("")
	if errb.String() != "mcpx: note: hi\n" || out.Len() != 0 {
		t.Errorf("pipe: stderr %q, stdout %q", errb, out)
	}
	s, out, errb = ForTest(true)
	l = NewLog(s, true, false)
	l.Progress("abc")
	l.Note("hi")
	l.Progress("")
	if errb.String() != `{"note":"hi"}`+"\n" || out.Len() != 0 {
		t.Errorf("--json: stderr %q, stdout %q", errb, out)
	}
}

// TestProgressConcurrent: progress lines and notes from many goroutines
// (for -race): every note is a whole line, after whatever progress line it
// cleared.
func TestProgressConcurrent(t *testing.T) {
	s, _, errb := ForTest(true)
	l := NewLog(s, false, false)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range 50 {
				l.Progress(fmt.Sprintf("p%d-%d", g, i))
			}
			l.Progress("")
		}()
		go func() {
			defer wg.Done()
			for i := range 50 {
				l.Note("n%d-%d", g, i)
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(errb.String(), "\n")
	notes := 0
	for _, line := range lines[:len(lines)-1] {
		last := line
		if i := strings.LastIndex(line, pgClear); i >= 0 {
			last = line[i+len(pgClear):]
		}
		var g, i int
		if n, err := fmt.Sscanf(last, "mcpx: note: n%d-%d", &g, &i); n != 2 || err != nil || last != fmt.Sprintf("mcpx: note: n%d-%d", g, i) {
			t.Errorf("line %q", line)
			continue
		}
		notes++
	}
	if notes != 200 {
		t.Errorf("%d notes, want 200", notes)
	}
}

// TestProgressWideRunes: a line of wide characters (two columns each) is
// cut so that it does not wrap on an 80-column terminal either: a wrapped
// line cannot be cleared with "\r\x1b[K".
func TestProgressWideRunes(t *testing.T) {
	s, _, errb := ForTest(true)
	l := NewLog(s, false, false)
	l.Progress("mcpx: server \"s\": 1/2 (50%) " + strings.Repeat("界", 60))
	cols := 0
	for _, r := range errb.String() {
		cols++
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			cols++
		}
	}
	if cols > progressWidth {
		t.Errorf("%d columns: %q", cols, errb)
	}
}
