package render

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/internal/text"
)

// ToolDoc is the document of `mcpx invoke` (its --json: see invoke in
// COMMANDS, mcpx(1)).
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
// over the slice clamp; with p.Text, only when there are no content
// blocks. Every block is checked, and the decode ceiling
// applied, before anything is decoded or spilled. Texts are decoded in place in raw.
func RenderToolResult(raw []byte, p Policy) (doc *ToolDoc, warnings []string, err error) {
	res := gjson.Parse(text.StringView(raw))
	if !res.IsObject() {
		return nil, nil, &BadContentError{Item: -1, Msg: "the result is not a JSON object"}
	}
	f := scanMembers(raw, res.Index, res.Index+len(res.Raw))
	isErr := f.get("isError")
	doc = &ToolDoc{Content: []any{}}
	if isErr.present(raw) {
		switch string(raw[isErr.s:isErr.e]) {
		case "true":
			doc.IsError = true
		case "false":
		default: // "true" as a string may well mean an error: never guess success
			return nil, nil, &BadContentError{Item: -1, Msg: "its isError is not a boolean: " + ClipMasked(p.Secrets, string(raw[isErr.s:isErr.e]), 40)}
		}
	}
	c := f.get("content")
	switch {
	case !c.present(raw):
		c = span{}
	case !c.is(raw, '['):
		return nil, nil, &BadContentError{Item: -1, Msg: "the result's \"content\" is not an array"}
	}
	// Every block is checked, and the decode ceiling applied, keeping
	// nothing (a reply can hold millions of blocks); then the blocks are
	// walked again and rendered until the ceiling.
	total := 0
	var sizes int64
	walk := func(visit func(i int, sp span) error) error {
		if c.e == 0 {
			return nil
		}
		return eachBlock(raw, c, visit)
	}
	if err := walk(func(i int, sp span) error {
		b, err := checkBlock(raw, sp.s, sp.e, i, "")
		if err != nil {
			return err
		}
		total++
		return b.checkSizes(raw, "", &sizes)
	}); err != nil {
		return nil, nil, err
	}

	// The structured content first: it has its own ceiling, and spilling
	// it can fail (the spill directory) before anything else is written.
	// Printed as text, it mirrors the content items: with any, it is
	// neither shown nor spilled (an image's mirror is its base64 again).
	if sc := f.get("structuredContent"); sc.present(raw) && !(p.Text && total > 0) {
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
	sm := newSeams(p)
	err = walk(func(i int, sp span) error {
		if used >= ResponseCeiling {
			// the first block left out ends the seams (see renderer.omit)
			if sm.waiting() {
				if b, err := checkBlock(raw, sp.s, sp.e, i, ""); err == nil {
					if t, ok := b.textOf(raw); ok {
						sm.omitted(t)
					}
				}
			}
			return errStop
		}
		b, err := checkBlock(raw, sp.s, sp.e, i, "")
		if err != nil {
			return err
		}
		left := ResponseCeiling - used
		if b.minLine(raw, p.SpillDir, false) > left {
			// what cannot be shown is not decoded or spilled
			used = ResponseCeiling
			return errStop
		}
		r, err := p.renderBlock(raw, &b, "", &decoded)
		if err != nil {
			return err
		}
		if t, ok := r.item.(*TextItem); ok {
			n := min(SliceClamp, left)
			if len(t.Text) > n {
				t.Text, t.Truncated = cutText(t.Text, n), true
				t.CutByCeiling = n < SliceClamp
			}
			t.Bytes = len(t.Text)
			used += len(t.Text) // and the newline text output adds when it lacks one
			if !strings.HasSuffix(t.Text, "\n") {
				used++
			}
			if t.Truncated && n == left {
				// cut at the ceiling, maybe a few bytes short of it (a
				// character boundary): the blocks after it are omitted
				used = ResponseCeiling
			}
			sm.text(t, r.text, 0, t.Bytes)
		} else {
			sm.other()
			line := len(ItemLine(r.item)) + 1
			if line > left {
				// a path or a URI is shown whole or not at all (a
				// resource link's URI can be megabytes long)
				used = ResponseCeiling
				return errStop
			}
			used += line
		}
		if r.warning != "" {
			warnings = append(warnings, r.warning)
		}
		doc.Content = append(doc.Content, r.item)
		return nil
	})
	if err != nil && err != errStop {
		return nil, nil, err
	}
	doc.Omitted = total - len(doc.Content)
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
