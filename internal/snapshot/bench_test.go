package snapshot

import (
	"encoding/json"
	"fmt"
	"testing"
)

// benchSnapshot is a snapshot of n tools, each with a small input schema
// of a few properties (an enum, a bound, a nested object); every
// changeEvery-th tool (none when 0) differs from the unchanged one in a
// description, a bound and an enum value.
func benchSnapshot(b *testing.B, n, changeEvery int) []byte {
	b.Helper()
	items := make([]Item, n)
	for i := range items {
		desc, min, extra := fmt.Sprintf("Tool number %d.", i), 1, ""
		if changeEvery > 0 && i%changeEvery == 0 {
			desc, min, extra = fmt.Sprintf("Tool %d, reworded.", i), 2, `,"c"`
		}
		schema := fmt.Sprintf(`{"type":"object","properties":{"q":{"type":"string","description":"the query"},`+
			`"limit":{"type":"integer","minimum":%d},"mode":{"enum":["a","b"%s]},`+
			`"opts":{"type":"object","properties":{"deep":{"type":"boolean"}}}},"required":["q"]}`, min, extra)
		items[i] = Item{Kind: "tool", ID: fmt.Sprintf("tool_%05d", i), Description: &desc,
			InputSchema: json.RawMessage(schema), Annotations: json.RawMessage(`{"readOnlyHint":true}`)}
	}
	doc, err := Build(Info{Name: "bench", Version: "1", Protocol: "2025-06-18", Capabilities: map[string]bool{"tools": true}}, items, false)
	if err != nil {
		b.Fatal(err)
	}
	return doc
}

// BenchmarkDiff10000: diff of two 10 000-item snapshots read from their
// bytes (as diff reads files): unchanged, with one item in a hundred
// changed, and with every item changed.
func BenchmarkDiff10000(b *testing.B) {
	old := benchSnapshot(b, 10000, 0)
	for _, tc := range []struct {
		name string
		new  []byte
		want int
	}{
		{"unchanged", old, 0},
		{"1%-changed", benchSnapshot(b, 10000, 100), 3 * 100},
		{"all-changed", benchSnapshot(b, 10000, 1), 3 * 10000},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(old) + len(tc.new)))
			b.ReportAllocs()
			cpu := cpuTime()
			for range b.N {
				o, err := Load(old)
				if err != nil {
					b.Fatal(err)
				}
				n, err := Load(tc.new)
				if err != nil {
					b.Fatal(err)
				}
				if got := len(Diff(o, n)); got != tc.want {
					b.Fatalf("%d changes, want %d", got, tc.want)
				}
			}
			// CPU time, not wall time: on a shared machine this is the figure
			// that says what one diff costs.
			b.ReportMetric(float64(cpuTime()-cpu)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}
