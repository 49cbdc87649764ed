package render

import (
	"bytes"
	"encoding/binary"
	"math"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// patternContext is the number of lines of context around each match.
const patternContext = 2

// Grep keeps the lines of text that re matches, with patternContext lines of
// context, the way `grep -n -C2` prints them: "N:line" for a matching line,
// "N-line" for a context line (N counts lines from 1), and "--" between
// groups that are not contiguous. Every output line ends with "\n". No match,
// or an empty text, gives "".
//
// Lines are separated by "\n"; a trailing "\n" does not start another line,
// a last line without one is still a line, and "\r" stays part of its line.
// re is matched against each line alone, so ^ and $ anchor at the line.
//
// Grep is fast when every match of re must contain one of a few literals
// (ERROR, `\d{3} ms$`, `(?i)error`, `ERROR|WARN`): it jumps between their
// occurrences and runs re only on the lines holding one. Other patterns
// run line by line.
func Grep(text string, re *regexp.Regexp) string {
	out, _, _ := grepWindow(text, re, 0, math.MaxInt, nil)
	return out
}

// GrepPage is pageText(Grep(text, re), offset, max) without building the
// whole filtered text, which can be many times the size of text (a line
// number for every line): it keeps only the bytes the page needs and counts
// the rest. It stops early, returning false, once done is closed.
func GrepPage(text string, re *regexp.Regexp, offset, max int, done <-chan struct{}) (page, bool) {
	pg, _, _, ok := grepPage(text, re, offset, max, 0, done)
	return pg, ok
}

// grepPage is GrepPage that also returns up to ctx bytes of the filtered
// text on either side of the page (for masking a secret the page cuts).
func grepPage(text string, re *regexp.Regexp, offset, max, ctx int, done <-chan struct{}) (pg page, before, after string, ok bool) {
	offset, max = maxInt(offset, 0), maxInt(max, 1)
	// The page starts at or after offset (rounded forward at most 3 bytes)
	// and ends by offset+max+3 (a page holds at least one character).
	lo := maxInt(offset-ctx, 0)
	window, total, ok := grepWindow(text, re, lo, offset+max+2*utf8.UTFMax+ctx, done)
	if !ok {
		return page{}, "", "", false
	}
	if offset >= total {
		return page{Offset: total, Total: total}, "", "", true
	}
	pre, window := window[:offset-lo], window[offset-lo:]
	// An offset inside a character moves forward to the next one (the
	// output is UTF-8: text is).
	k := 0
	for k < utf8.UTFMax-1 && k < len(window) && !utf8.RuneStart(window[k]) {
		k++
	}
	// the page as a window without context after it would give it
	pg = pageText(window[k:min(len(window), max+2*utf8.UTFMax)], 0, max)
	before, after = pre+window[:k], window[k+len(pg.Text):]
	offset += k
	pg.Offset += offset
	pg.Total = total
	if pg.Next != nil {
		next := *pg.Next + offset
		pg.Next = &next
	} else if end := pg.Offset + len(pg.Text); end < total {
		pg.Next, pg.Truncated = &end, true
	}
	return pg, before, after, true
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// grepWindow runs the filter, keeping the output bytes [lo, hi) and counting all of them.
func grepWindow(text string, re *regexp.Regexp, lo, hi int, done <-chan struct{}) (string, int, bool) {
	if text == "" {
		return "", 0, true
	}
	g := grepper{text: text, re: re, countLine: 1, lo: lo, hi: hi, done: done}
	if needles := requiredNeedles(re); needles != nil {
		g.scanNeedles(needles)
	} else {
		g.scanLines()
	}
	if g.stopped {
		return "", 0, false
	}
	g.flushAfter(len(text) + 1)
	return g.b.String(), g.n, true
}

// grepper holds the state of one Grep: the output and where it stands.
type grepper struct {
	text string
	re   *regexp.Regexp
	b    strings.Builder // the output bytes [lo, hi)
	n    int             // the output bytes so far
	lo   int
	hi   int

	done    <-chan struct{} // closed: stop
	tick    int
	stopped bool

	// countPos is the start of line countLine: line numbers of later
	// matches are counted from there.
	countPos, countLine int

	// last is the last line written (0: none yet) and lastEnd the byte
	// where line last+1 starts; trailing context runs up to afterUntil.
	last, lastEnd, afterUntil int
}

// scanLines runs re on every line.
func (g *grepper) scanLines() {
	text := g.text
	for pos := 0; pos < len(text); {
		if g.stop() {
			return
		}
		end := grepLineEnd(text, pos)
		if g.re.MatchString(text[pos:end]) {
			g.match(pos, end)
		}
		pos = end + 1
	}
}

// scanNeedles runs re only on the lines that contain one of needles.
func (g *grepper) scanNeedles(needles []needle) {
	text := g.text
	finders := make([]finder, len(needles))
	for i, n := range needles {
		finders[i] = finder{needle: n, next: -2}
		if n.fold {
			finders[i].folder = &folder{lit: []byte(n.lit)}
		}
	}
	for pos := 0; pos < len(text); {
		if g.stop() {
			return
		}
		at := -1
		for i := range finders {
			if j := finders[i].find(text, pos); j >= 0 && (at < 0 || j < at) {
				at = j
			}
		}
		if at < 0 {
			return
		}
		start := pos + strings.LastIndexByte(text[pos:at], '\n') + 1
		end := grepLineEnd(text, at)
		if g.re.MatchString(text[start:end]) {
			g.match(start, end)
		}
		pos = end + 1
	}
}

// grepLineEnd returns the index of the "\n" that ends the line holding byte
// pos, or len(text) for a last line without one.
func grepLineEnd(text string, pos int) int {
	if j := strings.IndexByte(text[pos:], '\n'); j >= 0 {
		return pos + j
	}
	return len(text)
}

// match writes the matching line text[start:end], preceded by the trailing
// context of the previous group, a separator when the groups are not
// contiguous, and its own leading context.
func (g *grepper) match(start, end int) {
	n := g.countLine + strings.Count(g.text[g.countPos:start], "\n")
	g.countPos, g.countLine = start, n
	g.flushAfter(n - 1)
	first := max(1, n-patternContext, g.last+1)
	if g.last > 0 && first > g.last+1 {
		g.write("--\n")
	}
	pos := start
	for k := n; k > first; k-- {
		pos = strings.LastIndexByte(g.text[:pos-1], '\n') + 1
	}
	for k := first; k < n; k++ {
		e := grepLineEnd(g.text, pos)
		g.writeLine(k, '-', g.text[pos:e])
		pos = e + 1
	}
	g.writeLine(n, ':', g.text[start:end])
	g.last, g.lastEnd, g.afterUntil = n, end+1, n+patternContext
}

// flushAfter writes the trailing context of the last group, up to line
// limit at most.
func (g *grepper) flushAfter(limit int) {
	for g.last < g.afterUntil && g.last < limit && g.lastEnd < len(g.text) {
		e := grepLineEnd(g.text, g.lastEnd)
		g.last++
		g.writeLine(g.last, '-', g.text[g.lastEnd:e])
		g.lastEnd = e + 1
	}
}

func (g *grepper) writeLine(n int, sep byte, line string) {
	var num [24]byte
	b := strconv.AppendInt(num[:0], int64(n), 10)
	b = append(b, sep)
	g.write(string(b))
	g.write(line)
	g.write("\n")
}

// write emits s: its bytes inside the window are kept, all are counted.
func (g *grepper) write(s string) {
	start, end := g.n, g.n+len(s)
	g.n = end
	if end <= g.lo || start >= g.hi {
		return
	}
	g.b.WriteString(s[max(g.lo-start, 0) : len(s)-max(end-g.hi, 0)])
}

// stop reports, every few thousand lines, whether done is closed.
func (g *grepper) stop() bool {
	if g.done == nil {
		return false
	}
	if g.tick++; g.tick%4096 != 0 {
		return g.stopped
	}
	select {
	case <-g.done:
		g.stopped = true
	default:
	}
	return g.stopped
}

// needle is a literal to search for; when fold is set, lit is lowercase
// ASCII and is found ignoring ASCII case.
type needle struct {
	lit  string
	fold bool
}

// maxNeedles bounds the alternatives searched for at once.
const maxNeedles = 8

// requiredNeedles returns literals one of which every match of re contains,
// or nil when there are none worth searching for. It reads re's syntax tree
// (re.String() parsed as regexp.Compile does).
func requiredNeedles(re *regexp.Regexp) []needle {
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		if prefix, _ := re.LiteralPrefix(); prefix != "" {
			return []needle{{lit: prefix}}
		}
		return nil
	}
	return needlesOf(tree)
}

// needlesOf returns the needles of a syntax tree: a literal; the needles of
// a capture or of a repetition of at least once; the best needles of the
// parts of a concatenation; the needles of every branch of an alternation,
// when every branch has some.
func needlesOf(re *syntax.Regexp) []needle {
	switch re.Op {
	case syntax.OpLiteral:
		if lit, fold, ok := literalString(re.Rune, re.Flags&syntax.FoldCase != 0); ok {
			return []needle{{lit, fold}}
		}
	case syntax.OpCapture, syntax.OpPlus:
		return needlesOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return needlesOf(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []needle
		for _, sub := range re.Sub {
			if n := needlesOf(sub); n != nil && (best == nil || better(n, best)) {
				best = n
			}
		}
		return best
	case syntax.OpAlternate:
		var all []needle
		for _, sub := range re.Sub {
			n := needlesOf(sub)
			if n == nil || len(all)+len(n) > maxNeedles {
				return nil
			}
			all = append(all, n...)
		}
		return all
	}
	return nil
}

// better reports whether the needles a are cheaper to search for than b:
// their shortest is longer (a folded one counting a byte less), or as long
// and they are fewer.
func better(a, b []needle) bool {
	sa, sb := shortest(a), shortest(b)
	return sa > sb || sa == sb && len(a) < len(b)
}

func shortest(ns []needle) int {
	m := -1
	for _, n := range ns {
		l := len(n.lit)
		if n.fold {
			l--
		}
		if m < 0 || l < m {
			m = l
		}
	}
	return m
}

// literalString returns the bytes a literal matches in a text, and whether
// they are to be found ignoring ASCII case (then they are lowercase). ok is
// false when they cannot be found by a plain search: a literal U+FFFD also
// matches any invalid byte, and a case-folded letter whose variants are not
// all ASCII (k also matches U+212A KELVIN SIGN) escapes ASCII folding.
func literalString(runes []rune, folded bool) (s string, fold, ok bool) {
	var b strings.Builder
	for _, r := range runes {
		if r == utf8.RuneError {
			return "", false, false
		}
		if folded {
			if r >= utf8.RuneSelf {
				return "", false, false
			}
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				if f >= utf8.RuneSelf {
					return "", false, false
				}
				fold = true // r is a letter with another case
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String(), fold, b.Len() > 0
}

// finder finds the occurrences of one needle in order, remembering the
// next one so that each part of the text is searched once.
type finder struct {
	needle
	folder *folder // for a folded needle
	from   int     // next is the first occurrence at or after from
	next   int     // -1: none; -2: not searched yet
}

// find returns the index of the first occurrence at or after pos, or -1.
// pos never decreases from one call to the next.
func (f *finder) find(text string, pos int) int {
	if f.next == -1 || f.next >= pos && f.from <= pos {
		return f.next
	}
	f.from = pos
	if f.folder != nil {
		f.next = f.folder.index(text, pos)
	} else if i := strings.Index(text[pos:], f.lit); i >= 0 {
		f.next = pos + i
	} else {
		f.next = -1
	}
	return f.next
}

// folder finds a lowercase ASCII literal in a text ignoring ASCII case: it
// lowercases a window of the text into a reused buffer and searches that,
// sliding the window forward.
type folder struct {
	lit   []byte
	buf   []byte // the text from start, lowercased
	start int
}

const foldChunk = 16 << 10

// index returns the index of the first occurrence of f.lit in text at or
// after pos, or -1. pos never decreases from one call to the next.
func (f *folder) index(text string, pos int) int {
	k := len(f.lit)
	for {
		if pos >= f.start && pos <= f.start+len(f.buf) {
			if i := bytes.Index(f.buf[pos-f.start:], f.lit); i >= 0 {
				return pos + i
			}
			// An occurrence may straddle the end of the window.
			pos = max(pos, f.start+len(f.buf)-(k-1))
		}
		if pos+k > len(text) {
			return -1
		}
		f.start = pos
		f.buf = append(f.buf[:0], text[pos:min(len(text), pos+max(foldChunk, 4*k))]...)
		lowerASCII(f.buf)
	}
}

// lowerASCII lowercases the ASCII letters of b in place, eight bytes at a
// time: for each byte c below 0x80, c+0x3f has its top bit set when
// c >= 'A' and c+0x25 when c > 'Z'; neither sum carries into the next byte.
func lowerASCII(b []byte) {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		h := x &^ high
		upper := (h + (0x80-'A')*ones) &^ (h + (0x80-'Z'-1)*ones) &^ x & high
		binary.LittleEndian.PutUint64(b[i:], x|upper>>2)
	}
	for ; i < len(b); i++ {
		if c := b[i]; 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
}
