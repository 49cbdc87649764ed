package render

import (
	"context"
	"encoding/json"
	"regexp"

	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/internal/secret"
)

// TextItem is a rendered text item (see read in COMMANDS, mcpx(1)).
type TextItem struct {
	Type        string          `json:"type"` // "text"
	URI         *string         `json:"uri"`
	MimeType    *string         `json:"mime_type"`
	Text        string          `json:"text"`
	Offset      int             `json:"offset"`
	Truncated   bool            `json:"truncated"`
	TotalBytes  int             `json:"total_bytes"`
	NextOffset  *int            `json:"next_offset"`
	Annotations json.RawMessage `json:"annotations"`

	// CutByCeiling: the page is shorter than --max-bytes because the
	// response ceiling was reached in it (for the notes; not in the JSON).
	CutByCeiling bool `json:"-"`
	// Bytes is how many bytes of the server's text the page holds: Text
	// may be shorter or longer once secrets are masked (for the notes).
	Bytes int `json:"-"`
}

// BlobItem is a rendered blob: spilled to a file, never inline (see
// CONTENT POLICY in mcpx(1)).
type BlobItem struct {
	Type        string          `json:"type"` // "blob"
	Spilled     bool            `json:"spilled"`
	Path        string          `json:"path"`
	URI         *string         `json:"uri"`
	MimeType    *string         `json:"mime_type"`
	Sniffed     bool            `json:"sniffed"` // always false: text is never spilled
	SizeBytes   int64           `json:"size_bytes"`
	SHA256      string          `json:"sha256"`
	Annotations json.RawMessage `json:"annotations"`
}

// ReadDoc is the document of `mcpx read`.
type ReadDoc struct {
	Server   string `json:"server"`
	URI      string `json:"uri"`
	Contents []any  `json:"contents"` // *TextItem or *BlobItem
	Omitted  int    `json:"omitted"`
}

// Policy is what the content policy needs to know about one response.
type Policy struct {
	Pattern *regexp.Regexp // --pattern, or nil
	Offset  int            // --offset
	Max     int            // --max-bytes, already clamped to limits.SliceClamp
	// Spill writes binary content to a file (the spill writer, bound to the server).
	Spill func(data []byte, mime string) (Spilled, error)
	// Ctx bounds the work (the filter over a big text): its end stops it.
	Ctx context.Context
	// SpillDir is where Spill writes (for its length: a spilled file's
	// path is known to be at least this long plus a file name before the
	// blob is decoded), or "".
	SpillDir string
	// Secrets masks a secret that a page, a cut or an item boundary
	// splits (nil: nothing is masked here; output masks whole secrets).
	Secrets *secret.Set
	// Text says the result is printed as text, not as a JSON document:
	// a tool result's structured content, which mirrors its content
	// items, is then rendered (and spilled) only when there are none.
	Text bool
}

// renderContents applies the content policy to the items of a response, in
// order: text is filtered by the pattern and paged; a blob that is text
// (isText) is treated as text whatever its claimed mime type, any other
// blob is spilled. Once the text of the response reaches the response
// ceiling, the remaining items are counted in omitted instead of rendered
// (a spilled blob counts as the line that shows its path, an empty text as
// one byte, so that no number of items can grow a response without bound).
func renderContents(items []Content, p Policy) (rendered []any, omitted int, err error) {
	r := renderer{p: p, seams: newSeams(p)}
	for _, c := range items {
		if r.full() {
			r.omit(c)
			continue
		}
		if err := r.add(c); err != nil {
			return nil, 0, err
		}
	}
	return r.rendered, r.omitted, nil
}

// RenderResourceRead is renderContents for a raw resources/read result,
// parsed defensively (see ParseResourceContents): every item is checked, and
// the decode ceiling applied, before anything is decoded or spilled; then
// items are decoded and rendered one at a time, and items past the response
// ceiling are counted, never decoded or kept. Like ParseResourceContents,
// it decodes texts in place in raw.
func RenderResourceRead(raw []byte, p Policy) (rendered []any, omitted int, err error) {
	var decoded int64
	err = scanContents(raw, func(i int, v gjson.Result) error {
		_, err := parseItem(raw, v, i, &decoded, false)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	r := renderer{p: p, seams: newSeams(p)}
	decoded = 0
	err = scanContents(raw, func(i int, v gjson.Result) error {
		// an item past the ceiling is decoded only to mask the seam
		// before it (see renderer.omit)
		c, err := parseItem(raw, v, i, &decoded, !r.full() || r.omitted == 0 && r.seams.waiting())
		if err != nil {
			return err
		}
		if r.full() {
			r.omit(c)
			return nil
		}
		return r.add(c)
	})
	if err != nil {
		return nil, 0, err
	}
	return r.rendered, r.omitted, nil
}

// renderer renders items one by one under the response ceiling.
type renderer struct {
	p        Policy
	used     int // text bytes of the response so far
	rendered []any
	omitted  int
	seams    *seams
}

func (r *renderer) full() bool { return r.used >= limits.ResponseCeiling }

// omit counts c, an item the response ceiling leaves out. The first one
// ends the seams: a page that reached the end of its text, right before
// it, is masked against the start of c's text, so that a secret split
// between them is masked on the side that is shown.
func (r *renderer) omit(c Content) {
	if r.omitted == 0 && r.seams.waiting() {
		if t, ok := c.asText(); ok {
			r.seams.omitted(t)
		}
		r.seams.other()
	}
	r.omitted++
}

func (r *renderer) add(c Content) error {
	if c.IsBlob && !isText(c.Blob) {
		b, err := r.p.blob(c)
		if err != nil {
			return err
		}
		r.used += len(b.Path) + 1 // the line text output prints
		r.rendered = append(r.rendered, b)
		r.seams.other()
		return nil
	}
	text := c.Text
	if c.IsBlob {
		text = string(c.Blob)
	}
	left := limits.ResponseCeiling - r.used
	t, err := r.p.text(text, min(r.p.Max, left), r.seams)
	if err != nil {
		return err
	}
	t.URI, t.MimeType, t.Annotations = orNil(c.URI), orNil(c.MimeType), c.Annotations
	t.CutByCeiling = left < r.p.Max && t.NextOffset != nil
	r.used += max(len(t.Text), 1)
	r.rendered = append(r.rendered, t)
	return nil
}

// text renders one text at most max bytes a page, masking the secrets the
// page cuts (sm: the seams between the items of the response).
func (p Policy) text(text string, max int, sm *seams) (*TextItem, error) {
	if p.Pattern != nil {
		var done <-chan struct{}
		if p.Ctx != nil {
			done = p.Ctx.Done()
		}
		pg, before, after, ok := grepPage(text, p.Pattern, p.Offset, max, sm.n, done)
		if !ok {
			return nil, p.Ctx.Err()
		}
		t := &TextItem{Type: "text", Text: pg.Text, Offset: pg.Offset, Truncated: pg.Truncated,
			TotalBytes: pg.Total, NextOffset: pg.Next, Bytes: len(pg.Text)}
		if sm.n > 0 {
			// filtered lines are not joined to the next item's text
			t.Text = p.Secrets.MaskIn(before, pg.Text, after)
		}
		sm.other()
		return t, nil
	}
	pg := pageText(text, p.Offset, max)
	t := &TextItem{Type: "text", Text: pg.Text, Offset: pg.Offset, Truncated: pg.Truncated,
		TotalBytes: pg.Total, NextOffset: pg.Next, Bytes: len(pg.Text)}
	sm.text(t, text, pg.Offset, pg.Offset+len(pg.Text))
	return t, nil
}

func (p Policy) blob(c Content) (*BlobItem, error) {
	s, err := p.Spill(c.Blob, c.MimeType)
	if err != nil {
		return nil, err
	}
	return &BlobItem{Type: "blob", Spilled: true, Path: s.Path, URI: orNil(c.URI), MimeType: orNil(c.MimeType),
		SizeBytes: s.Size, SHA256: s.SHA256, Annotations: c.Annotations}, nil
}

func orNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
