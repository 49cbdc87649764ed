package render

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// GrepPage gives exactly PageText(Grep(text, re), offset, max).
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
		want := PageText(full, offset, max)
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
	if d := m2.total - m1.total; d > 1<<20 {
		t.Fatalf("GrepPage allocated %d bytes", d)
	}
	done := make(chan struct{})
	close(done)
	if _, ok := GrepPage(text, regexp.MustCompile("^$"), 0, 50, done); ok {
		t.Fatal("GrepPage did not stop when done was closed")
	}
}
