package render

import (
	"math/rand"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpx-cli/mcpx/internal/limits"
)

// benchLog is a 50 MiB log-like text: lines of 80 to 120 bytes, about 1%
// of them holding ERROR, some ending in "took N ms".
var benchLog = sync.OnceValue(func() string {
	const size = 50 << 20
	rng := rand.New(rand.NewSource(50))
	levels := []string{"INFO ", "INFO ", "INFO ", "DEBUG", "WARN "}
	methods := []string{"GET", "GET", "POST", "PUT", "DELETE"}
	words := []string{"items", "users", "orders", "search", "health", "metrics", "v2", "export", "sessions", "billing"}
	b := make([]byte, 0, size+256)
	for len(b) < size {
		start := len(b)
		b = append(b, "2026-01-02T15:"...)
		b = strconv.AppendInt(b, int64(10+rng.Intn(50)), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(10+rng.Intn(50)), 10)
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(100+rng.Intn(900)), 10)
		b = append(b, "Z "...)
		if rng.Intn(100) == 0 {
			b = append(b, "ERROR"...)
		} else {
			b = append(b, levels[rng.Intn(len(levels))]...)
		}
		b = append(b, " [worker-"...)
		b = strconv.AppendInt(b, int64(rng.Intn(64)), 10)
		b = append(b, "] "...)
		b = append(b, methods[rng.Intn(len(methods))]...)
		b = append(b, " /api"...)
		for n := 1 + rng.Intn(2); n > 0; n-- {
			b = append(b, '/')
			b = append(b, words[rng.Intn(len(words))]...)
		}
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(rng.Intn(1e6)), 10)
		b = append(b, " status="...)
		b = strconv.AppendInt(b, int64(200+100*rng.Intn(4)), 10)
		if rng.Intn(3) == 0 {
			b = append(b, " took "...)
			b = strconv.AppendInt(b, int64(1+rng.Intn(2000)), 10)
			b = append(b, " ms"...)
		} else {
			b = append(b, " user=u"...)
			b = strconv.AppendInt(b, int64(rng.Intn(1e5)), 10)
			b = append(b, " bytes="...)
			b = strconv.AppendInt(b, int64(rng.Intn(1e6)), 10)
		}
		for len(b)-start < 80+rng.Intn(41) {
			b = append(b, " ."...)
		}
		b = append(b, '\n')
	}
	return string(b)
})

func BenchmarkGrep50MiB(b *testing.B) {
	text := benchLog()
	for _, bc := range []struct{ name, pattern string }{
		{"literal", "ERROR"},
		{"fold", "(?i)error"},
		{"no-prefix", `\d{3} ms$`},
		{"alternation", `ERROR|WARN`},
		{"line-by-line", `[EW][RA][RN]`}, // no literal: the regexp runs on every line
	} {
		re := regexp.MustCompile(bc.pattern)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			var out string
			for b.Loop() {
				out = Grep(text, re)
			}
			b.ReportMetric(float64(strings.Count(out, "\n")), "out-lines")
		})
	}
}

// BenchmarkPageText measures one page (limits.DefaultPage bytes) of a text mixing
// 1- to 4-byte characters, from offsets that mostly fall inside a
// character. Paging slices the text without copying it, so the cost does
// not depend on the page size.
func BenchmarkPageText(b *testing.B) {
	text := strings.Repeat("log line with é, 世 and 😀 characters\n", 1<<15) // 1.2 MiB
	off := 1
	for b.Loop() {
		p := pageText(text, off, limits.DefaultPage)
		off = 1
		if p.Next != nil {
			off = *p.Next + 1
		}
	}
}

// TestBenchLogShape keeps the benchmark text what it says it is.
func TestBenchLogShape(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 50 MiB")
	}
	text := benchLog()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	errs := 0
	for _, l := range lines {
		if len(l) < 80 || len(l) > 120 {
			t.Fatalf("line of %d bytes: %q", len(l), l)
		}
		if strings.Contains(l, "ERROR") {
			errs++
		}
	}
	if len(text) < 50<<20 || errs*1000 < len(lines)*7 || errs*1000 > len(lines)*13 {
		t.Errorf("%d bytes, %d lines, %d with ERROR", len(text), len(lines), errs)
	}
}
