package render

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpx-cli/mcpx/internal/limits"
)

// fakeSpill records what would be spilled.
type fakeSpill struct{ calls []string }

func (f *fakeSpill) spill(data []byte, mime string) (Spilled, error) {
	f.calls = append(f.calls, mime+":"+string(data))
	return Spilled{Path: "/cache/" + mime, SHA256: "sha", Size: int64(len(data))}, nil
}

func TestRenderContents(t *testing.T) {
	f := &fakeSpill{}
	items := []Content{
		{URI: "x://t", MimeType: "text/plain", Text: "héllo wörld\n", Annotations: json.RawMessage(`{"priority":1}`)},
		{Index: 1, URI: "x://sniffed", MimeType: "image/png", IsBlob: true, Blob: []byte("really text")},
		{Index: 2, URI: "x://bin", MimeType: "image/png", IsBlob: true, Blob: []byte{0x89, 'P', 0}},
		{Index: 3, URI: "x://nul", MimeType: "text/plain", IsBlob: true, Blob: []byte("a\x00b")},
		{Index: 4, Text: ""},
	}
	got, omitted, err := renderContents(items, Policy{Offset: 1, Max: 3, Spill: f.spill})
	if err != nil || omitted != 0 {
		t.Fatalf("err %v, omitted %d", err, omitted)
	}
	b, _ := json.Marshal(got)
	want := `[{"type":"text","uri":"x://t","mime_type":"text/plain","text":"él","offset":1,"truncated":true,"total_bytes":14,"next_offset":4,"annotations":{"priority":1}},` +
		`{"type":"text","uri":"x://sniffed","mime_type":"image/png","text":"eal","offset":1,"truncated":true,"total_bytes":11,"next_offset":4,"annotations":null},` +
		`{"type":"blob","spilled":true,"path":"/cache/image/png","uri":"x://bin","mime_type":"image/png","sniffed":false,"size_bytes":3,"sha256":"sha","annotations":null},` +
		`{"type":"blob","spilled":true,"path":"/cache/text/plain","uri":"x://nul","mime_type":"text/plain","sniffed":false,"size_bytes":3,"sha256":"sha","annotations":null},` +
		`{"type":"text","uri":null,"mime_type":null,"text":"","offset":0,"truncated":false,"total_bytes":0,"next_offset":null,"annotations":null}]`
	if string(b) != want {
		t.Fatalf("got\n%s\nwant\n%s", b, want)
	}
	if strings.Join(f.calls, "|") != "image/png:\x89P\x00|text/plain:a\x00b" {
		t.Fatalf("spilled %q", f.calls)
	}
}

func TestRenderContentsPattern(t *testing.T) {
	text := "a\nERROR 1\nb\nc\nd\ne\nf\nERROR 2\n"
	got, _, err := renderContents([]Content{{Text: text}}, Policy{Pattern: regexp.MustCompile("ERROR"), Max: 1000})
	if err != nil {
		t.Fatal(err)
	}
	it := got[0].(*TextItem)
	want := "1-a\n2:ERROR 1\n3-b\n4-c\n--\n6-e\n7-f\n8:ERROR 2\n"
	if it.Text != want || it.TotalBytes != len(want) {
		t.Fatalf("got %q (%d), want %q", it.Text, it.TotalBytes, want)
	}
	// offsets count the filtered text
	got, _, _ = renderContents([]Content{{Text: text}}, Policy{Pattern: regexp.MustCompile("ERROR"), Offset: 22, Max: 6})
	it = got[0].(*TextItem)
	if it.Text != "--\n6-e" || *it.NextOffset != 28 {
		t.Fatalf("page at 22: %q next %v", it.Text, *it.NextOffset)
	}
}

// The response ceiling bounds the text of all items together; later items are omitted.
func TestRenderContentsCeiling(t *testing.T) {
	big := strings.Repeat("x", 90000)
	items := []Content{{Text: big}, {Text: big}, {Text: big}, {Text: "small"}, {IsBlob: true, Blob: []byte{0xff}}}
	f := &fakeSpill{}
	got, omitted, err := renderContents(items, Policy{Max: limits.SliceClamp, Spill: f.spill})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || omitted != 2 {
		t.Fatalf("%d rendered, %d omitted; want 3 and 2", len(got), omitted)
	}
	third := got[2].(*TextItem)
	if len(third.Text) != limits.ResponseCeiling-180000 || !third.Truncated || *third.NextOffset != limits.ResponseCeiling-180000 {
		t.Fatalf("third item: %d bytes, next %v", len(third.Text), third.NextOffset)
	}
	if len(f.calls) != 0 {
		t.Fatalf("an omitted blob was spilled: %q", f.calls)
	}
	// exactly at the ceiling: the next item is omitted
	got, omitted, _ = renderContents([]Content{{Text: strings.Repeat("y", limits.ResponseCeiling)}, {Text: "z"}}, Policy{Max: limits.SliceClamp})
	if len(got) != 1 || omitted != 1 {
		t.Fatalf("at the ceiling: %d rendered, %d omitted", len(got), omitted)
	}
}

func TestRenderContentsSpillError(t *testing.T) {
	boom := &limits.Error{Limit: "spill directory", Msg: "refused"}
	_, _, err := renderContents([]Content{{IsBlob: true, Blob: []byte{0}}}, Policy{Max: 10,
		Spill: func([]byte, string) (Spilled, error) { return Spilled{}, boom }})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
}

// RenderResourceRead checks every item before it spills anything, and keeps
// no more than the response ceiling allows however many items there are.
func TestRenderResourceRead(t *testing.T) {
	f := &fakeSpill{}
	raw := `{"contents":[{"uri":"a","blob":"/wA="},{"uri":"b","text":"ok"},{"uri":"c","text":"t","blob":"QQ=="}]}`
	_, _, err := RenderResourceRead([]byte(raw), Policy{Max: 10, Spill: f.spill})
	var bc *BadContentError
	if !errors.As(err, &bc) || bc.Item != 2 {
		t.Fatalf("err = %v, want bad content in item #2", err)
	}
	if len(f.calls) != 0 {
		t.Fatalf("spilled before the bad item was found: %q", f.calls)
	}

	var b strings.Builder
	b.WriteString(`{"contents":[`)
	const n = 300000
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"uri":"x","text":""}`)
	}
	b.WriteString(`]}`)
	got, omitted, err := RenderResourceRead([]byte(b.String()), Policy{Max: 10, Spill: f.spill})
	if err != nil || len(got) != limits.ResponseCeiling || omitted != n-limits.ResponseCeiling {
		t.Fatalf("%d empty items: %d rendered, %d omitted, %v; want %d and %d", n, len(got), omitted, err, limits.ResponseCeiling, n-limits.ResponseCeiling)
	}

	raw = `{"contents":[{"uri":"a","text":"` + strings.Repeat("x", limits.ResponseCeiling) + `"},{"uri":"b","blob":"/wA="},{"uri":"c","text":"late"}]}`
	got, omitted, err = RenderResourceRead([]byte(raw), Policy{Max: limits.SliceClamp, Spill: f.spill})
	if err != nil || len(got) != 1 || omitted != 2 || len(f.calls) != 0 {
		t.Fatalf("after the ceiling: %d rendered, %d omitted, %d spilled, %v", len(got), omitted, len(f.calls), err)
	}
}

// CutByCeiling marks the page the response ceiling shortened, and only it.
func TestRenderContentsCutByCeiling(t *testing.T) {
	big := strings.Repeat("x", 61440)
	got, _, err := renderContents([]Content{{Text: big}, {Text: big}, {Text: big}, {Text: big}}, Policy{Max: limits.SliceClamp})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range got {
		it := r.(*TextItem)
		if want := i == 3; it.CutByCeiling != want {
			t.Errorf("item %d (%d bytes): CutByCeiling %v, want %v", i, len(it.Text), it.CutByCeiling, want)
		}
	}
	got, _, _ = renderContents([]Content{{Text: big}, {Text: big}, {Text: big}, {Text: big}}, Policy{Max: 51200})
	for i, r := range got {
		if r.(*TextItem).CutByCeiling {
			t.Errorf("default pages: item %d marked as cut by the ceiling", i)
		}
	}
}
