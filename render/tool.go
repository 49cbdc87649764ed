package render

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/internal/secret"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// ToolDoc is the document of `mcpx invoke` (its --json: see invoke in
// COMMANDS, mcpx(1)).
type ToolDoc struct {
	Server                     string          `json:"server"`
	Tool                       *string         `json:"tool"` // nil: not known (a task's result, fetched by its id)
	IsError                    bool            `json:"is_error"`
	Content                    []any           `json:"content"` // *TextItem, *BlobItem, *linkItem, *unknownItem
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
// an unknownItem and a warning. Blocks past the response ceiling are
// counted in Omitted, never decoded. Structured content is passed through
// compacted (its digits untouched), or spilled as a .json file when that is
// over the slice clamp; with p.Text, only when there are no content
// blocks. A result in the shape of protocol 2024-10-07 ("toolResult" and
// no "content") has its toolResult taken for structured content. Every block is checked, and the decode ceiling
// applied, before anything is decoded or spilled. Texts are decoded in place in raw.
func RenderToolResult(raw []byte, p Policy) (doc *ToolDoc, warnings []string, err error) {
	doc, f, err := readToolResult(raw, p.Secrets)
	if err != nil {
		return nil, nil, err
	}
	blocks := toolBlocks{raw: raw}
	switch c := f.get("content"); {
	case !c.present(raw):
	case !c.is(raw, '['):
		return nil, nil, &BadContentError{Item: -1, Msg: "the result's \"content\" is not an array"}
	default:
		blocks.list = c
	}
	// Every block is checked, and the decode ceiling applied, keeping
	// nothing (a reply can hold millions of blocks); then the blocks are
	// walked again and rendered until the ceiling.
	total, err := blocks.check()
	if err != nil {
		return nil, nil, err
	}
	// Printed as text, the structured content mirrors the content items:
	// with any, it is neither shown nor spilled (an image's mirror is its
	// base64 again).
	if sc := f.get("structuredContent"); sc.present(raw) && !(p.Text && total > 0) {
		if err := p.structuredContent(raw[sc.s:sc.e], doc, "structuredContent"); err != nil {
			return nil, nil, err
		}
	} else if tr := f.get("toolResult"); tr.present(raw) && !f.get("content").present(raw) && !sc.present(raw) {
		// The result of protocol 2024-10-07, which the TypeScript SDK
		// still accepts (and some servers still send): "toolResult", any
		// JSON value, and no content. It is shown as structured content
		// is (see invoke in COMMANDS, mcpx(1)).
		if err := p.structuredContent(raw[tr.s:tr.e], doc, "toolResult"); err != nil {
			return nil, nil, err
		}
	}
	w := &toolWriter{raw: raw, p: p, doc: doc, sm: newSeams(p)}
	if err := blocks.each(w.block); err != nil && err != errStop {
		return nil, nil, err
	}
	doc.Omitted = total - len(doc.Content)
	return doc, w.warnings, nil
}

// readToolResult reads a tools/call result's isError into a new document
// and returns the result's members.
func readToolResult(raw []byte, sec *secret.Set) (*ToolDoc, members, error) {
	res := gjson.Parse(text.StringView(raw))
	if !res.IsObject() {
		return nil, members{}, &BadContentError{Item: -1, Msg: "the result is not a JSON object"}
	}
	f := scanMembers(raw, res.Index, res.Index+len(res.Raw))
	doc := &ToolDoc{Content: []any{}}
	if isErr := f.get("isError"); isErr.present(raw) {
		switch string(raw[isErr.s:isErr.e]) {
		case "true":
			doc.IsError = true
		case "false":
		default: // "true" as a string may well mean an error: never guess success
			return nil, members{}, &BadContentError{Item: -1, Msg: "its isError is not a boolean: " + sec.Clip(string(raw[isErr.s:isErr.e]), 40)}
		}
	}
	return doc, f, nil
}

// toolBlocks is a result's content array in raw (none when list is zero).
type toolBlocks struct {
	raw  []byte
	list span
}

func (c toolBlocks) each(visit func(i int, sp span) error) error {
	if c.list.e == 0 {
		return nil
	}
	return eachBlock(c.raw, c.list, visit)
}

// check checks every block and applies the decode ceiling to them all,
// keeping nothing; it returns how many blocks there are.
func (c toolBlocks) check() (total int, err error) {
	var sizes int64
	err = c.each(func(i int, sp span) error {
		b, err := checkBlock(c.raw, sp.s, sp.e, i, "")
		if err != nil {
			return err
		}
		total++
		return b.checkSizes(c.raw, "", &sizes)
	})
	return total, err
}

// structuredContent puts sc, the result's structured content, into doc,
// compacted, or spills it when it is over the slice clamp. It comes before
// the blocks: it has its own ceiling, and spilling it can fail (the spill
// directory) before anything else is written.
func (p Policy) structuredContent(sc []byte, doc *ToolDoc, member string) error {
	var buf bytes.Buffer
	if err := json.Compact(&buf, sc); err != nil {
		return &BadContentError{Item: -1, Msg: "its " + member + " is not valid JSON"}
	}
	if buf.Len() <= limits.SliceClamp {
		doc.StructuredContent = buf.Bytes()
		return nil
	}
	s, err := p.Spill(buf.Bytes(), "application/json")
	if err != nil {
		return err
	}
	doc.StructuredContentTruncated, doc.StructuredContentPath = true, &s.Path
	return nil
}

// toolWriter renders checked blocks in order into doc.Content until the
// response ceiling: a text is cut at the slice clamp or the room left, a
// line that must be shown whole (a path, a URI) is left out when it does
// not fit, and what cannot be shown is never decoded or spilled.
type toolWriter struct {
	raw      []byte
	p        Policy
	doc      *ToolDoc
	used     int   // bytes of the response ceiling used
	decoded  int64 // bytes decoded so far (the decode ceiling)
	sm       *seams
	warnings []string
}

func (w *toolWriter) block(i int, sp span) error {
	if w.used >= limits.ResponseCeiling {
		// the first block left out ends the seams (see renderer.omit)
		if w.sm.waiting() {
			if b, err := checkBlock(w.raw, sp.s, sp.e, i, ""); err == nil {
				if t, ok := b.textOf(w.raw); ok {
					w.sm.omitted(t)
				}
			}
		}
		return errStop
	}
	b, err := checkBlock(w.raw, sp.s, sp.e, i, "")
	if err != nil {
		return err
	}
	left := limits.ResponseCeiling - w.used
	if b.minLine(w.raw, w.p.SpillDir, false) > left {
		// what cannot be shown is not decoded or spilled
		w.used = limits.ResponseCeiling
		return errStop
	}
	r, err := w.p.renderBlock(w.raw, &b, "", &w.decoded)
	if err != nil {
		return err
	}
	if t, ok := r.item.(*TextItem); ok {
		w.text(t, r.text, left)
	} else {
		w.sm.other()
		line := len(ItemLine(r.item)) + 1
		if line > left {
			// a path or a URI is shown whole or not at all (a
			// resource link's URI can be megabytes long)
			w.used = limits.ResponseCeiling
			return errStop
		}
		w.used += line
	}
	if r.warning != "" {
		w.warnings = append(w.warnings, r.warning)
	}
	w.doc.Content = append(w.doc.Content, r.item)
	return nil
}

// text cuts t, whose whole text is full, at the slice clamp or at left,
// the room under the ceiling, and counts what it uses.
func (w *toolWriter) text(t *TextItem, full string, left int) {
	n := min(limits.SliceClamp, left)
	if len(t.Text) > n {
		t.Text, t.Truncated = cutText(t.Text, n), true
		t.CutByCeiling = n < limits.SliceClamp
	}
	t.Bytes = len(t.Text)
	w.used += len(t.Text) // and the newline text output adds when it lacks one
	if !strings.HasSuffix(t.Text, "\n") {
		w.used++
	}
	if t.Truncated && n == left {
		// cut at the ceiling, maybe a few bytes short of it (a
		// character boundary): the blocks after it are omitted
		w.used = limits.ResponseCeiling
	}
	w.sm.text(t, full, 0, t.Bytes)
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
	case *linkItem:
		return safeURI(it.URI)
	case *unknownItem:
		return "[" + safeType(it.ContentType) + " content omitted]"
	}
	return ""
}
