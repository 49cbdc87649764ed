package render

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// GrepPage gives exactly pageText(Grep(text, re), offset, max).
func TestGrepPageEqualsPageOfGrep(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"ERROR", "ok", "é", "世界", "😀", "", "warn", "x"}
	res := []*regexp.Regexp{regexp.MustCompile("ERROR"), regexp.MustCompile("^$"), regexp.MustCompile("(?i)warn|😀"), regexp.MustCompile(".")}
	for iter := range 3000 {
		var b strings.Builder
		for range rng.IntN(40) {
			for range rng.IntN(4) {
				b.WriteString(words[rng.IntN(len(words))])
			}
			b.WriteByte('\n')
		}
		text := b.String()
		re := res[iter%len(res)]
		full := Grep(text, re)
		offset, max := rng.IntN(len(full)+5), 1+rng.IntN(20)
		want := pageText(full, offset, max)
		got, ok := GrepPage(text, re, offset, max, nil)
		if !ok || got.Text != want.Text || got.Offset != want.Offset || got.Total != want.Total ||
			got.Truncated != want.Truncated || (got.Next == nil) != (want.Next == nil) || (got.Next != nil && *got.Next != *want.Next) {
			t.Fatalf("text %q re %v offset %d max %d:\n got %+v\nwant %+v", text, re, offset, max, got, want)
		}
	}
}

// GrepPage keeps only the page: a filter whose output is many times the
// text does not build it.
func TestGrepPageMemory(t *testing.T) {
	text := strings.Repeat("\n", 4<<20) // 4 Mi empty lines: "N:\n" each, ~36 MiB of output
	var m1, m2 runtimeMem
	m1.read()
	pg, ok := GrepPage(text, regexp.MustCompile("^$"), 100, 50, nil)
	m2.read()
	if !ok || len(pg.Text) != 50 || pg.Total < 30<<20 {
		t.Fatalf("page %q total %d", pg.Text, pg.Total)
	}
	if d := m2.total - m1.total; d > 1<<20 && !poolDropsItems() {
		t.Fatalf("GrepPage allocated %d bytes", d)
	}
	done := make(chan struct{})
	close(done)
	if _, ok := GrepPage(text, regexp.MustCompile("^$"), 0, 50, done); ok {
		t.Fatal("GrepPage did not stop when done was closed")
	}
}

func FuzzGrepPage(f *testing.F) {
	f.Add("a\nERROR x\nb\nc\nd\ne\nERROR é\n", "ERROR", 3, 7)
	f.Add("\n\n\n", "^$", 0, 1)
	f.Add("世界\n😀\n", ".", 2, 2)
	f.Fuzz(func(t *testing.T, text, pattern string, offset, max int) {
		if !utf8.ValidString(text) || len(pattern) > 40 || offset < 0 || max < 1 || max > 1<<16 {
			return
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			return
		}
		want := pageText(Grep(text, re), offset, max)
		got, ok := GrepPage(text, re, offset, max, nil)
		if !ok || got.Text != want.Text || got.Offset != want.Offset || got.Total != want.Total ||
			got.Truncated != want.Truncated || (got.Next == nil) != (want.Next == nil) || (got.Next != nil && *got.Next != *want.Next) {
			t.Fatalf("got %+v\nwant %+v", got, want)
		}
	})
}

// poolDropsItems reports whether sync.Pool drops what is put in it (it does
// under the race detector), so that regexp allocates a matcher per match.
func poolDropsItems() bool {
	var pool sync.Pool
	pool.New = func() any { return new([64]byte) }
	return testing.AllocsPerRun(10, func() {
		for range 100 {
			pool.Put(pool.Get())
		}
	}) > 0
}
