package render

import (
	"bytes"
	"encoding/base64"
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpx-cli/mcpx/internal/limits"
)

func blkTool(content ...string) []byte {
	return []byte(`{"content":[` + strings.Join(content, ",") + `]}`)
}

// The whole document, as --json prints it.
func TestRenderToolResultJSON(t *testing.T) {
	p, root := blkPolicy(t)
	png := []byte{0x89, 'P', 'N', 'G', 0}
	raw := []byte(`{"content":[` +
		`{"type":"text","text":"hello\n","annotations":{"priority":1}},` +
		`{"type":"image","data":"` + base64.StdEncoding.EncodeToString(png) + `","mimeType":"image/png"},` +
		`{"type":"resource","resource":{"uri":"file:///r.txt","mimeType":"text/plain","text":"inline"}},` +
		`{"type":"resource_link","uri":"file:///x y","name":"x","title":"X","description":"d","mimeType":"text/plain","size":12,"annotations":{"audience":["user"]}},` +
		`{"type":"video","annotations":{"priority":0}}` +
		`],"isError":true,"structuredContent":{"n": 9007199254740993, "f": 1.10, "s": "<&>"}}`)
	doc, warnings, err := RenderToolResult(raw, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || warnings[0] != `item #4: content of type "video" is not something mcpx shows; it was left out` {
		t.Fatalf("warnings %q", warnings)
	}
	tool := "t"
	doc.Server, doc.Tool = "srv", &tool
	path := blkSpillPath(root, png, "png")
	want := `{"server":"srv","tool":"t","is_error":true,"content":[` +
		`{"type":"text","uri":null,"mime_type":null,"text":"hello\n","offset":0,"truncated":false,"total_bytes":6,"next_offset":null,"annotations":{"priority":1}},` +
		`{"type":"image","spilled":true,"path":"` + path + `","uri":null,"mime_type":"image/png","sniffed":false,"size_bytes":5,"sha256":"` + sha(png) + `","annotations":null},` +
		`{"type":"text","uri":"file:///r.txt","mime_type":"text/plain","text":"inline","offset":0,"truncated":false,"total_bytes":6,"next_offset":null,"annotations":null},` +
		`{"type":"resource_link","uri":"file:///x y","name":"x","title":"X","description":"d","mime_type":"text/plain","size":12,"annotations":{"audience":["user"]}},` +
		`{"type":"unknown","content_type":"video","omitted":true,"annotations":{"priority":0}}],` +
		`"structured_content":{"n":9007199254740993,"f":1.10,"s":"\u003c\u0026\u003e"},"structured_content_truncated":false,"structured_content_path":null,"omitted":0}`
	if got := blkJSON(t, doc); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if string(doc.StructuredContent) != `{"n":9007199254740993,"f":1.10,"s":"<&>"}` {
		t.Fatalf("structured content %s", doc.StructuredContent)
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, png) {
		t.Fatalf("spilled %q, %v", got, err)
	}
	lines := []string{"hello\n", path, "inline", "file:///x%20y", "[video content omitted]"}
	for i, it := range doc.Content {
		if got := ItemLine(it); got != lines[i] {
			t.Errorf("item %d shows %q, want %q", i, got, lines[i])
		}
	}
}

func TestRenderToolResultIsError(t *testing.T) {
	p, _ := blkPolicy(t)
	for raw, want := range map[string]bool{
		`{"content":[],"isError":true}`:    true,
		`{"content":[],"isError" : true }`: true,
		`{"isError":true,"isError":false}`: false, // the last wins
		`{"content":[],"isError":false}`:   false,
		`{"content":[],"isError":null}`:    false,
		`{"content":[]}`:                   false,
	} {
		doc, _, err := RenderToolResult([]byte(raw), p)
		if err != nil || doc.IsError != want {
			t.Errorf("%s: is_error %v, %v; want %v", raw, doc != nil && doc.IsError, err, want)
		}
	}
	// An isError that is not a boolean is malformed: never taken for success.
	for _, raw := range []string{`{"content":[],"isError":"true"}`, `{"content":[],"isError":1}`, `{"content":[],"isError":{"a":true}}`} {
		_, _, err := RenderToolResult([]byte(raw), p)
		if bc, ok := err.(*BadContentError); !ok || !strings.HasPrefix(bc.Msg, "its isError is not a boolean") {
			t.Errorf("%s: %v, want bad content", raw, err)
		}
	}
}

// Text is passed unchanged up to the slice clamp and cut on a character
// boundary past it; the response ceiling is shared by all texts.
func TestRenderToolResultText(t *testing.T) {
	p, root := blkPolicy(t)
	exact := strings.Repeat("é", limits.SliceClamp/2)
	doc, _, err := RenderToolResult(blkTool(blkText(exact)), p)
	if err != nil {
		t.Fatal(err)
	}
	if it := doc.Content[0].(*TextItem); it.Text != exact || it.Truncated || it.TotalBytes != limits.SliceClamp || doc.Omitted != 0 {
		t.Fatalf("%d bytes: %d kept, truncated %v", len(exact), len(it.Text), it.Truncated)
	}

	for _, c := range []struct {
		pad  int
		ch   string
		keep int
	}{
		{limits.SliceClamp - 1, "é", limits.SliceClamp - 1},
		{limits.SliceClamp - 2, "世", limits.SliceClamp - 2},
		{limits.SliceClamp - 1, "世", limits.SliceClamp - 1},
		{limits.SliceClamp - 3, "😀", limits.SliceClamp - 3},
		{limits.SliceClamp - 2, "😀", limits.SliceClamp - 2},
		{limits.SliceClamp - 1, "😀", limits.SliceClamp - 1},
		{limits.SliceClamp - 4, "😀", limits.SliceClamp},
	} {
		text := strings.Repeat("a", c.pad) + c.ch
		text += strings.Repeat("z", 300000-len(text))
		doc, _, err := RenderToolResult(blkTool(blkText(text), `{"type":"image","data":"AAEC"}`), p)
		if err != nil {
			t.Fatal(err)
		}
		it := doc.Content[0].(*TextItem)
		if it.Text != text[:c.keep] || !it.Truncated || it.TotalBytes != 300000 || !utf8.ValidString(it.Text) || len(doc.Content) != 1 || doc.Omitted != 1 {
			t.Errorf("%q after %d bytes: %d kept (want %d), truncated %v, total %d, %d items, %d omitted",
				c.ch, c.pad, len(it.Text), c.keep, it.Truncated, it.TotalBytes, len(doc.Content), doc.Omitted)
		}
	}

	third := strings.Repeat("c", 150000)
	doc, _, err = RenderToolResult(blkTool(blkText(strings.Repeat("a", 150000)), blkText(strings.Repeat("b", 150000)), blkText(third)), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Content) != 2 || doc.Omitted != 1 {
		t.Fatalf("%d items, %d omitted", len(doc.Content), doc.Omitted)
	}
	first, second := doc.Content[0].(*TextItem), doc.Content[1].(*TextItem)
	if len(first.Text) != 150000 || first.Truncated || len(second.Text) != limits.ResponseCeiling-150001 || !second.Truncated || second.TotalBytes != 150000 { // the first counts its newline
		t.Fatalf("first %d bytes (truncated %v), second %d bytes (truncated %v, total %d)",
			len(first.Text), first.Truncated, len(second.Text), second.Truncated, second.TotalBytes)
	}

	// blocks past the ceiling are never decoded or spilled
	doc, _, err = RenderToolResult(blkTool(blkText(strings.Repeat("x", limits.ResponseCeiling)), `{"type":"image","data":"!!!!"}`,
		`{"type":"resource","resource":{"uri":"r","blob":"AAEC"}}`, `{"type":"video"}`), p)
	if err != nil || len(doc.Content) != 1 || doc.Omitted != 3 || doc.Content[0].(*TextItem).Truncated {
		t.Fatalf("%v: %d items, %d omitted", err, len(doc.Content), doc.Omitted)
	}
	if files := blkSpilled(t, root); len(files) != 0 {
		t.Fatalf("spilled %q", files)
	}
}

// Many small items count against the ceiling, not only their text.
func TestRenderToolResultManyItems(t *testing.T) {
	p, _ := blkPolicy(t)
	const n = 250000
	items := make([]string, n)
	for i := range items {
		items[i] = `{"type":"text","text":""}`
	}
	doc, _, err := RenderToolResult(blkTool(items...), p)
	if err != nil || len(doc.Content) != limits.ResponseCeiling || doc.Omitted != n-limits.ResponseCeiling {
		t.Fatalf("%v: %d items, %d omitted", err, len(doc.Content), doc.Omitted)
	}
	for i := range items {
		items[i] = `{"type":"text","text":"a"}` // a byte and the newline text output adds
	}
	doc, _, err = RenderToolResult(blkTool(items...), p)
	if err != nil || len(doc.Content) != limits.ResponseCeiling/2 || doc.Omitted != n-limits.ResponseCeiling/2 {
		t.Fatalf("%v: %d items, %d omitted", err, len(doc.Content), doc.Omitted)
	}
	for i := range items {
		items[i] = `{"type":"resource_link","uri":"x://aaaaaaa"}` // 11 bytes and a newline a line, shown whole or not at all
	}
	doc, _, err = RenderToolResult(blkTool(items[:20000]...), p)
	if err != nil || len(doc.Content) != limits.ResponseCeiling/12 || doc.Omitted != 20000-len(doc.Content) {
		t.Fatalf("%v: %d items, %d omitted", err, len(doc.Content), doc.Omitted)
	}
}

func TestRenderToolResultStructured(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"n": 9007199254740993}`, `{"n":9007199254740993}`},
		{`{"n": 1e400, "m": -0.000000000000000000001, "x": 123456789012345678901234567890}`, `{"n":1e400,"m":-0.000000000000000000001,"x":123456789012345678901234567890}`},
		{`[1, 2.50, "a b", {"k" : [ ] }]`, `[1,2.50,"a b",{"k":[]}]`},
		{`"just a string"`, `"just a string"`},
		{`42`, `42`},
		{`false`, `false`},
		{` { "s" : "\u00e9\n" } `, `{"s":"\u00e9\n"}`}, // escapes kept as sent
	} {
		p, _ := blkPolicy(t)
		doc, _, err := RenderToolResult([]byte(`{"content":[],"structuredContent":`+c.in+`}`), p)
		if err != nil || string(doc.StructuredContent) != c.want || doc.StructuredContentTruncated || doc.StructuredContentPath != nil {
			t.Errorf("%s: %v %s", c.in, err, doc.StructuredContent)
		}
	}
	p, root := blkPolicy(t)
	doc, _, err := RenderToolResult([]byte(`{"content":[],"structuredContent":null}`), p)
	if err != nil || doc.StructuredContent != nil || blkJSON(t, doc) != `{"server":"","tool":null,"is_error":false,"content":[],"structured_content":null,"structured_content_truncated":false,"structured_content_path":null,"omitted":0}` {
		t.Fatalf("null: %v %s", err, blkJSON(t, doc))
	}

	// white space does not count: compacted, it fits
	spaced := `{"a":` + blkQ(strings.Repeat("v", limits.SliceClamp-8)) + strings.Repeat(" ", 1000) + `}`
	doc, _, err = RenderToolResult([]byte(`{"structuredContent":`+spaced+`}`), p)
	if err != nil || len(doc.StructuredContent) != limits.SliceClamp || doc.StructuredContentPath != nil {
		t.Fatalf("%v: %d bytes, path %v", err, len(doc.StructuredContent), doc.StructuredContentPath)
	}
	if files := blkSpilled(t, root); len(files) != 0 {
		t.Fatalf("spilled %q", files)
	}

	// one byte more, and it is spilled as SHA256.json
	big := `{"a" : ` + blkQ(strings.Repeat("v", limits.SliceClamp-7)) + `}`
	compact := []byte(`{"a":` + blkQ(strings.Repeat("v", limits.SliceClamp-7)) + `}`)
	doc, _, err = RenderToolResult([]byte(`{"content":[{"type":"text","text":"t"}],"structuredContent":`+big+`}`), p)
	if err != nil {
		t.Fatal(err)
	}
	path := blkSpillPath(root, compact, "json")
	if doc.StructuredContent != nil || !doc.StructuredContentTruncated || doc.StructuredContentPath == nil || *doc.StructuredContentPath != path {
		t.Fatalf("%d bytes inline, truncated %v, path %v; want %s", len(doc.StructuredContent), doc.StructuredContentTruncated, doc.StructuredContentPath, path)
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, compact) {
		t.Fatalf("the spilled file has %d bytes, %v", len(got), err)
	}
	want := `{"server":"","tool":null,"is_error":false,"content":[{"type":"text","uri":null,"mime_type":null,"text":"t","offset":0,"truncated":false,"total_bytes":1,"next_offset":null,"annotations":null}],` +
		`"structured_content":null,"structured_content_truncated":true,"structured_content_path":` + blkQ(path) + `,"omitted":0}`
	if got := blkJSON(t, doc); got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}

	// a spill failure fails the result
	boom := &limits.Error{Limit: "spill directory", Msg: "refused"}
	_, _, err = RenderToolResult([]byte(`{"structuredContent":`+big+`}`), Policy{Spill: func([]byte, string) (Spilled, error) { return Spilled{}, boom }})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
}

// TestRenderToolResultTextMirror: printed as text, the structured content
// of a result with content items mirrors them, and is neither rendered nor
// spilled (an image's mirror is its base64 again); without content items,
// or for a JSON document, it is.
func TestRenderToolResultTextMirror(t *testing.T) {
	img := `{"type":"image","data":"AAEC","mimeType":"image/png"}`
	big := `{"content":[` + img + `],"pad":` + blkQ(strings.Repeat("v", limits.SliceClamp)) + `}`
	p, root := blkPolicy(t)
	p.Text = true
	doc, _, err := RenderToolResult([]byte(`{"content":[`+img+`],"structuredContent":`+big+`}`), p)
	if err != nil || len(doc.Content) != 1 || doc.StructuredContent != nil || doc.StructuredContentPath != nil || doc.StructuredContentTruncated {
		t.Fatalf("text: %v, %d items, structured %.40s, path %v", err, len(doc.Content), doc.StructuredContent, doc.StructuredContentPath)
	}
	if files := blkSpilled(t, root); len(files) != 1 || !strings.HasSuffix(files[0], ".png") {
		t.Fatalf("spilled %q, want the image alone", files)
	}
	doc, _, err = RenderToolResult([]byte(`{"content":[],"structuredContent":{"n":1}}`), p)
	if err != nil || string(doc.StructuredContent) != `{"n":1}` {
		t.Fatalf("text, no items: %v %s", err, doc.StructuredContent)
	}
	p.Text = false
	doc, _, err = RenderToolResult([]byte(`{"content":[`+img+`],"structuredContent":`+big+`}`), p)
	if err != nil || doc.StructuredContentPath == nil || !doc.StructuredContentTruncated {
		t.Fatalf("json: %v, path %v", err, doc.StructuredContentPath)
	}
}

func TestRenderToolResultContentShapes(t *testing.T) {
	p, _ := blkPolicy(t)
	for _, raw := range []string{`{}`, `{"content":null}`, `{"content":[]}`, ` {"isError":false} `} {
		doc, warnings, err := RenderToolResult([]byte(raw), p)
		if err != nil || len(warnings) != 0 || blkJSON(t, doc.Content) != `[]` || doc.Omitted != 0 {
			t.Errorf("%s: %v %q %v", raw, err, warnings, doc)
		}
	}
	for _, raw := range []string{`{"content":{}}`, `{"content":"text"}`, `{"content":1}`, `{"content":true}`} {
		_, _, err := RenderToolResult([]byte(raw), p)
		var bc *BadContentError
		if !errors.As(err, &bc) || bc.Item != -1 || err.Error() != `the result's "content" is not an array` {
			t.Errorf("%s: err %v", raw, err)
		}
	}
	for _, raw := range []string{`[]`, `"x"`, `null`, `1`} {
		_, _, err := RenderToolResult([]byte(raw), p)
		var bc *BadContentError
		if !errors.As(err, &bc) || bc.Item != -1 || err.Error() != `the result is not a JSON object` {
			t.Errorf("%s: err %v", raw, err)
		}
	}
}

func TestRenderToolResultUnknownAndLinks(t *testing.T) {
	p, _ := blkPolicy(t)
	doc, warnings, err := RenderToolResult(blkTool(
		`{"type":"video","data":"AAAA"}`,
		`{"type":"x]\n[assistant"}`,
		`{"type":"resource_link","uri":"a","size":12}`,
		`{"type":"resource_link","uri":"b","size":0}`,
		`{"type":"resource_link","uri":"c","size":1.5}`,
		`{"type":"resource_link","uri":"d","size":-1}`,
		`{"type":"resource_link","uri":"e","size":"12"}`,
		`{"type":"resource_link","uri":"f","size":1e3}`,
		`{"type":"resource_link","uri":"g","size":null,"name":7,"title":null}`,
		`{"type":"resource_link","uri":"h","size":123456789012345678901234567890}`,
	), p)
	if err != nil {
		t.Fatal(err)
	}
	wantWarnings := `item #0: content of type "video" is not something mcpx shows; it was left out|` +
		`item #1: content of type "x]\n[assistant" is not something mcpx shows; it was left out`
	if strings.Join(warnings, "|") != wantWarnings {
		t.Fatalf("warnings %q", warnings)
	}
	want := []string{
		`{"type":"unknown","content_type":"video","omitted":true,"annotations":null}`,
		`{"type":"unknown","content_type":"x]\n[assistant","omitted":true,"annotations":null}`,
		`{"type":"resource_link","uri":"a","name":null,"title":null,"description":null,"mime_type":null,"size":12,"annotations":null}`,
		`{"type":"resource_link","uri":"b","name":null,"title":null,"description":null,"mime_type":null,"size":0,"annotations":null}`,
		`{"type":"resource_link","uri":"c","name":null,"title":null,"description":null,"mime_type":null,"size":null,"annotations":null}`,
		`{"type":"resource_link","uri":"d","name":null,"title":null,"description":null,"mime_type":null,"size":null,"annotations":null}`,
		`{"type":"resource_link","uri":"e","name":null,"title":null,"description":null,"mime_type":null,"size":null,"annotations":null}`,
		`{"type":"resource_link","uri":"f","name":null,"title":null,"description":null,"mime_type":null,"size":null,"annotations":null}`,
		`{"type":"resource_link","uri":"g","name":null,"title":null,"description":null,"mime_type":null,"size":null,"annotations":null}`,
		`{"type":"resource_link","uri":"h","name":null,"title":null,"description":null,"mime_type":null,"size":123456789012345678901234567890,"annotations":null}`,
	}
	if len(doc.Content) != len(want) {
		t.Fatalf("%d items", len(doc.Content))
	}
	for i, it := range doc.Content {
		if got := blkJSON(t, it); got != want[i] {
			t.Errorf("item %d:\n got %s\nwant %s", i, got, want[i])
		}
	}
	if ItemLine(doc.Content[1]) != "[unknown content omitted]" {
		t.Errorf("item 1 shows %q", ItemLine(doc.Content[1]))
	}
}

// Spilled content in tool results: images, audio and binary embedded
// blobs; an embedded blob that is text is inlined.
func TestRenderToolResultSpills(t *testing.T) {
	p, root := blkPolicy(t)
	wav, bin := []byte("RIFF\x00"), []byte{0xff, 0xfe}
	b64 := base64.StdEncoding.EncodeToString
	doc, _, err := RenderToolResult(blkTool(
		`{"type":"audio","data":"`+b64(wav)+`","mimeType":"audio/wav"}`,
		`{"type":"resource","resource":{"uri":"u1","blob":"`+b64(bin)+`"}}`,
		`{"type":"resource","resource":{"uri":"u2","mimeType":"image/png","blob":"`+b64([]byte("plain text"))+`"}}`,
		`{"type":"image","data":"`+b64(bin)+`","mimeType":"image/png)]\n"}`,
	), p)
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{blkSpillPath(root, wav, "wav"), blkSpillPath(root, bin, "bin"), "plain text", blkSpillPath(root, bin, "bin")}
	for i, it := range doc.Content {
		if got := ItemLine(it); got != lines[i] {
			t.Errorf("item %d shows %q, want %q", i, got, lines[i])
		}
	}
	if b := doc.Content[1].(*BlobItem); b.Type != "blob" || *b.URI != "u1" || b.SizeBytes != 2 {
		t.Errorf("embedded blob %+v", b)
	}
	if it := doc.Content[2].(*TextItem); *it.URI != "u2" || *it.MimeType != "image/png" {
		t.Errorf("embedded text %+v", it)
	}
	if files := blkSpilled(t, root); len(files) != 2 {
		t.Errorf("spilled %q", files)
	}
}

func TestRenderToolResultMalformed(t *testing.T) {
	for _, c := range []struct {
		raw  string
		item int
		err  string
	}{
		{`{"content":[{"type":"image","data":"AAEC"},{"text":"a"}]}`, 1, `item #1: the content block has no "type"`},
		{`{"content":[{"type":"image","data":"AAEC"},["a"]]}`, 1, `item #1: the content block is not a JSON object`},
		{`{"content":[{"type":"text","text":false}]}`, 0, `item #0: a text block without a string "text"`},
		{`{"content":[{"type":"image"}]}`, 0, `item #0: an image block without a string "data"`},
		{`{"content":[{"type":"text","text":"a"},{"type":"audio","data":"a b c d"}]}`, 1, `item #1: its audio data is not valid base64: illegal base64 data at input byte 1`},
		{`{"content":[{"type":"resource","resource":{"uri":"file:///r","text":"t","blob":"QQ=="}}]}`, 0, `item #0 (file:///r): embedded resource: the item has both text and blob`},
		{`{"content":[{"type":"image","data":"AAEC"},{"type":"resource","resource":{"mimeType":"text/plain"}}]}`, 1, `item #1: embedded resource: the item has neither text nor blob`},
		{`{"content":[{"type":"resource","resource":{"uri":"u","blob":"Q"}}]}`, 0, `item #0 (u): embedded resource: its blob is not valid base64: illegal base64 data at input byte 0`},
		{`{"content":[{"type":"resource_link","uri":null}]}`, 0, `item #0: a resource_link block without a string "uri"`},
	} {
		p, root := blkPolicy(t)
		doc, _, err := RenderToolResult([]byte(c.raw), p)
		var bc *BadContentError
		if !errors.As(err, &bc) || bc.Item != c.item || err.Error() != c.err || doc != nil {
			t.Errorf("%s:\n err %v (%T)\nwant %q", c.raw, err, err, c.err)
			continue
		}
		if files := blkSpilled(t, root); len(files) != 0 && !strings.Contains(c.err, "base64") {
			t.Errorf("%s: spilled %q", c.raw, files)
		}
	}
}

func TestRenderToolResultDecodeCeiling(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 70 MB result")
	}
	half := strings.Repeat("A", (limits.DecodeCeiling/2)/3*4+8)
	p, root := blkPolicy(t)
	_, _, err := RenderToolResult(blkTool(`{"type":"audio","data":"`+half+`"}`, `{"type":"resource","resource":{"uri":"x","blob":"`+half+`"}}`), p)
	var le *limits.Error
	if !errors.As(err, &le) || le.Limit != "decode ceiling" || le.Value != limits.DecodeCeiling {
		t.Fatalf("err %v (%T)", err, err)
	}
	_, _, err = RenderToolResult(blkTool(`{"type":"image","data":"`+half+`"}`, `{"type":"image","data":"`+half+`"}`), p)
	if !errors.As(err, &le) || le.Limit != "decode ceiling" {
		t.Fatalf("err %v (%T)", err, err)
	}
	if files := blkSpilled(t, root); len(files) != 0 {
		t.Fatalf("spilled %q before the ceiling was checked", files)
	}
}

// An image that cannot be shown under the ceiling is neither decoded nor
// spilled, and a text cut by the ceiling (not the slice clamp) says so.
func TestRenderToolResultNoRoomForImage(t *testing.T) {
	p, root := blkPolicy(t)
	img := `{"type":"image","data":"AAEC","mimeType":"image/png"}`
	doc, _, err := RenderToolResult(blkTool(blkText(strings.Repeat("a", limits.ResponseCeiling-100)), img), p)
	if err != nil || len(doc.Content) != 1 || doc.Omitted != 1 {
		t.Fatalf("%v: %d items, %d omitted", err, len(doc.Content), doc.Omitted)
	}
	if files := blkSpilled(t, root); len(files) != 0 {
		t.Fatalf("spilled %q", files)
	}
	doc, _, err = RenderToolResult(blkTool(blkText(strings.Repeat("a", 150000)), blkText(strings.Repeat("b", 150000))), p)
	if err != nil || len(doc.Content) != 2 {
		t.Fatalf("%v: %d items", err, len(doc.Content))
	}
	first, second := doc.Content[0].(*TextItem), doc.Content[1].(*TextItem)
	if first.Truncated || first.CutByCeiling || !second.Truncated || !second.CutByCeiling || len(second.Text) != limits.ResponseCeiling-150001 {
		t.Fatalf("first %v/%v, second %v/%v %d bytes", first.Truncated, first.CutByCeiling, second.Truncated, second.CutByCeiling, len(second.Text))
	}
	doc, _, err = RenderToolResult(blkTool(blkText(strings.Repeat("a", 300000))), p)
	if t0 := doc.Content[0].(*TextItem); err != nil || !t0.Truncated || t0.CutByCeiling {
		t.Fatalf("%v: a text over the slice clamp is cut by it, not by the ceiling", err)
	}
}

// TestRenderToolResultLegacy: a result of protocol 2024-10-07 ("toolResult",
// no "content") has its toolResult taken for structured content, in text
// and JSON alike; next to content or structuredContent it is ignored.
func TestRenderToolResultLegacy(t *testing.T) {
	for _, c := range []struct {
		in, want string
		items    int
	}{
		{`{"toolResult": {"n": 9007199254740993}}`, `{"n":9007199254740993}`, 0},
		{`{"toolResult": "plain"}`, `"plain"`, 0},
		{`{"toolResult": {"a": 1}, "structuredContent": {"b": 2}}`, `{"b":2}`, 0},
		{`{"toolResult": {"a": 1}, "content": []}`, ``, 0},
		{`{"toolResult": {"a": 1}, "content": [{"type": "text", "text": "t"}]}`, ``, 1},
	} {
		for _, text := range []bool{false, true} {
			p, _ := blkPolicy(t)
			p.Text = text
			doc, _, err := RenderToolResult([]byte(c.in), p)
			if err != nil || string(doc.StructuredContent) != c.want || len(doc.Content) != c.items {
				t.Errorf("%s (text %v): %v, structured %s, %d items", c.in, text, err, doc.StructuredContent, len(doc.Content))
			}
		}
	}
}
