package render

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzPageText checks the paging properties: a page starts at the first
// boundary at or after the offset, ends on a boundary, is as long as max
// allows (or is one whole character when that is longer than max), Next
// follows it, and walking Next from 0 concatenates back to the text, in
// pages that are valid UTF-8 when the text is.
func FuzzPageText(f *testing.F) {
	for _, s := range []struct {
		text        string
		offset, max int
	}{
		{"", 0, 1},
		{"hello world", 3, 4},
		{"aé世😀b", 2, 1},
		{"x😀y", 3, 2},
		{"😀😀😀", 1, 5},
		{"\x80\x80\x80\x80\x80", 1, 2},
		{"\xe4\xb8a\xf0\x9f\x98", 1, 1},
		{"é\x80\xff世\xe4\xb8z", 4, 3},
		{"abc", 99, 1},
	} {
		f.Add(s.text, s.offset, s.max)
	}
	f.Fuzz(func(t *testing.T, text string, offset, max int) {
		n := len(text)
		offset = int(uint(offset) % uint(n+8))
		max = 1 + int(uint(max)%uint(n+8))
		bounds := pageDecodeBoundaries(text)

		p := pageText(text, offset, max)
		start := min(offset, n)
		end := p.Offset + len(p.Text)
		switch {
		case p.Total != n:
			t.Fatalf("Total %d, want %d", p.Total, n)
		case p.Offset < start || p.Offset-start > 3 || !bounds[p.Offset]:
			t.Fatalf("offset %d gave Offset %d", offset, p.Offset)
		case end > n || text[p.Offset:end] != p.Text:
			t.Fatalf("Text %q is not text[%d:]", p.Text, p.Offset)
		case !bounds[end]:
			t.Fatalf("page [%d,%d) ends inside a character", p.Offset, end)
		case p.Offset < n && p.Text == "":
			t.Fatalf("empty page at %d of %d", p.Offset, n)
		}
		for i := start; i < p.Offset; i++ {
			if bounds[i] {
				t.Fatalf("offset %d moved past the boundary %d to %d", offset, i, p.Offset)
			}
		}
		if len(p.Text) > max {
			// one character longer than max
			if len(p.Text) > max+3 || len(p.Text) > utf8.UTFMax {
				t.Fatalf("page of %d bytes for max %d", len(p.Text), max)
			}
			for i := p.Offset + 1; i < end; i++ {
				if bounds[i] {
					t.Fatalf("page %q over max %d holds more than one character", p.Text, max)
				}
			}
		} else {
			// as long as max allows
			for i := end + 1; i <= p.Offset+max && i <= n; i++ {
				if bounds[i] {
					t.Fatalf("page [%d,%d) could end at %d within max %d", p.Offset, end, i, max)
				}
			}
		}
		if (end < n) != p.Truncated || (end < n) != (p.Next != nil) || (p.Next != nil && *p.Next != end) {
			t.Fatalf("page [%d,%d) of %d: Truncated %v, Next %v", p.Offset, end, n, p.Truncated, p.Next)
		}

		var b strings.Builder
		valid := utf8.ValidString(text)
		for off, pages := 0, 0; ; pages++ {
			if pages > n {
				t.Fatalf("more than %d pages", n)
			}
			p := pageText(text, off, max)
			if p.Offset != off {
				t.Fatalf("Next %d gave a page at %d", off, p.Offset)
			}
			if valid && !utf8.ValidString(p.Text) {
				t.Fatalf("page %q of valid text is not valid UTF-8", p.Text)
			}
			b.WriteString(p.Text)
			if p.Next == nil {
				break
			}
			off = *p.Next
		}
		if b.String() != text {
			t.Fatalf("pages by %d concatenate to %q", max, b.String())
		}
	})
}

var grepOutputLine = regexp.MustCompile(`^(?:--|([0-9]+)([:-])(.*))$`)

// FuzzGrep checks Grep's output format, that every matching line it
// prints matches, and that its output equals the naive reference for fixed
// patterns (one per search strategy) and for the fuzzed pattern.
func FuzzGrep(f *testing.F) {
	for _, s := range []struct{ text, pattern string }{
		{"", ""},
		{"a\nERROR b\nc\nd\ne\nf\nERROR\n", "ERROR"},
		{"Error\nx\nerror\n", "(?i)error"},
		{"took 123 ms\ntook 1 ms", `\d{3} ms$`},
		{"\n\n\n", "^$"},
		{"a\r\nb\r\n", `\r$`},
		{"\u212a\n\u017f\n", "(?i)k|s"},
		{"\xff\n\xfe", "\uFFFD"},
		{"a\nb", `a\nb`},
	} {
		f.Add(s.text, s.pattern)
	}
	fixed := []*regexp.Regexp{regexp.MustCompile("ERROR"), regexp.MustCompile("(?i)err"), regexp.MustCompile("^a.$")}
	f.Fuzz(func(t *testing.T, text, pattern string) {
		res := fixed
		if len(pattern) <= 40 {
			if re, err := regexp.Compile(pattern); err == nil {
				res = append(res[:len(res):len(res)], re)
			}
		}
		for _, re := range res {
			got := Grep(text, re)
			if want := naiveGrep(text, re); got != want {
				t.Fatalf("Grep(%q, %q):\n got %q\nwant %q", text, re, got, want)
			}
			if got == "" {
				continue
			}
			if !strings.HasSuffix(got, "\n") {
				t.Fatalf("output %q does not end with a newline", got)
			}
			last := 0
			for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
				m := grepOutputLine.FindStringSubmatch(line)
				if m == nil {
					t.Fatalf("output line %q", line)
				}
				if m[1] == "" {
					continue
				}
				num, err := strconv.Atoi(m[1])
				if err != nil || num <= last {
					t.Fatalf("line number %q after %d", m[1], last)
				}
				last = num
				if m[2] == ":" && !re.MatchString(m[3]) {
					t.Fatalf("line %q printed as a match of %q", m[3], re)
				}
			}
		}
	})
}

// FuzzExtension checks that every mime type gives a safe extension, from
// the table or "bin".
func FuzzExtension(f *testing.F) {
	for _, s := range []string{"", "image/png", "TEXT/PLAIN; charset=utf-8", " image/svg+xml ", "image/png/../x", "\u0130mage/png", "application/x-sh", ";"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, mime string) {
		ext := extension(mime)
		if !safeExtPattern.MatchString(ext) {
			t.Fatalf("Extension(%q) = %q", mime, ext)
		}
		if ext == "bin" {
			return
		}
		key := mime
		if i := strings.IndexByte(key, ';'); i >= 0 {
			key = key[:i]
		}
		if mimeExtensions[strings.ToLower(strings.TrimSpace(key))] != ext {
			t.Fatalf("Extension(%q) = %q, not from the table", mime, ext)
		}
	})
}
