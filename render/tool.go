package render

import (
	"bytes"
	"encoding/json"
	"unsafe"

	"github.com/tidwall/gjson"
)

// ToolDoc is the document of `mcpx invoke` (CONTRACT §5).
type ToolDoc struct {
	Server                     string          `json:"server"`
	Tool                       string          `json:"tool"`
	IsError                    bool            `json:"is_error"`
	Content                    []any           `json:"content"` // *TextItem, *BlobItem, *LinkItem, *UnknownItem
	StructuredContent          json.RawMessage `json:"structured_content"`
	StructuredContentTruncated bool            `json:"structured_content_truncated"`
	StructuredContentPath      *string         `json:"structured_content_path"`
	Omitted                    int             `json:"omitted"` // content blocks past the response ceiling
}

// RenderToolResult applies the content policy to a raw tools/call result:
// a text is passed unchanged unless it is over the slice clamp (or the
// room left under the response ceiling), then cut there on a character
// boundary and marked truncated; images, audio and binary blobs are
// spilled; resource links are kept as links; a block of an unknown type is
// an UnknownItem and a warning. Blocks past the response ceiling are
// counted in Omitted, never decoded. Structured content is passed through
// compacted (its digits untouched), or spilled as a .json file when that is
// over the slice clamp. Every block is checked, and the decode ceiling
// applied, before anything is decoded or spilled. Texts are decoded in place in raw.
func RenderToolResult(raw []byte, p Policy) (doc *ToolDoc, warnings []string, err error) {
	res := gjson.Parse(unsafe.String(unsafe.SliceData(raw), len(raw)))
	if !res.IsObject() {
		return nil, nil, &BadContentError{Item: -1, Msg: "the result is not a JSON object"}
	}
	f := scanMembers(raw, res.Index, res.Index+len(res.Raw))
	doc = &ToolDoc{Content: []any{}, IsError: f["isError"].e > 0 && string(raw[f["isError"].s:f["isError"].e]) == "true"}
	c := f["content"]
	var spans []span
	switch {
	case !c.present(raw):
	case c.is(raw, '['):
		gjson.Parse(unsafe.String(unsafe.SliceData(raw[c.s:c.e]), c.e-c.s)).ForEach(func(_, v gjson.Result) bool {
			spans = append(spans, span{c.s + v.Index, c.s + v.Index + len(v.Raw)})
			return true
		})
	default:
		return nil, nil, &BadContentError{Item: -1, Msg: "the result's \"content\" is not an array"}
	}
	blocks := make([]*block, 0, len(spans))
	var sizes int64
	for i, sp := range spans {
		b, err := checkBlock(raw, sp.s, sp.e, i, "")
		if err != nil {
			return nil, nil, err
		}
		sizes += b.blob
		if b.res != nil {
			if _, err := parseItemAt(raw, b.res.start, b.res.end, i, &sizes, false); err != nil {
				if bc, ok := err.(*BadContentError); ok {
					bc.Msg = "embedded resource: " + bc.Msg
				}
				return nil, nil, err
			}
		}
		if sizes > DecodeCeiling {
			return nil, nil, decodeCeilingError()
		}
		blocks = append(blocks, b)
	}

	// The structured content first: it has its own ceiling, and spilling
	// it can fail (the spill directory) before anything else is written.
	if sc := f["structuredContent"]; sc.present(raw) {
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw[sc.s:sc.e]); err != nil {
			return nil, nil, &BadContentError{Item: -1, Msg: "its structuredContent is not valid JSON"}
		}
		if buf.Len() > SliceClamp {
			s, err := p.Spill(buf.Bytes(), "application/json")
			if err != nil {
				return nil, nil, err
			}
			doc.StructuredContentTruncated, doc.StructuredContentPath = true, &s.Path
		} else {
			doc.StructuredContent = buf.Bytes()
		}
	}

	used := 0
	var decoded int64
	for _, b := range blocks {
		if used >= ResponseCeiling {
			doc.Omitted++
			continue
		}
		r, err := p.renderBlock(raw, b, "", &decoded)
		if err != nil {
			return nil, nil, err
		}
		if r.warning != "" {
			warnings = append(warnings, r.warning)
		}
		if t, ok := r.item.(*TextItem); ok {
			left := ResponseCeiling - used
			n := min(SliceClamp, left)
			if len(t.Text) > n {
				t.Text, t.Truncated = cutText(t.Text, n), true
			}
			used += max(len(t.Text), 1)
			if t.Truncated && n == left {
				// cut at the ceiling, maybe a few bytes short of it (a
				// character boundary): the blocks after it are omitted
				used = ResponseCeiling
			}
		} else {
			used += len(ItemLine(r.item)) + 1
		}
		doc.Content = append(doc.Content, r.item)
	}
	return doc, warnings, nil
}

// ItemLine is what text output prints for a rendered tool result item:
// a text as it is, a spilled file's path, a link's URI (white space and
// controls percent-encoded), "[TYPE content omitted]" for an unknown type.
func ItemLine(item any) string {
	switch it := item.(type) {
	case *TextItem:
		return it.Text
	case *BlobItem:
		return it.Path
	case *LinkItem:
		return SafeURI(it.URI)
	case *UnknownItem:
		return "[" + SafeType(it.ContentType) + " content omitted]"
	}
	return ""
}
