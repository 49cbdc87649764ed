package render

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// Content blocks are the items of a prompt message or a tool result (MCP's
// ContentBlock): text, image, audio, an embedded resource, a resource link,
// or a type mcpx does not know. They are parsed from the raw JSON the
// server sent, defensively: mcp-go fails a whole result on one unknown or
// odd block, mcpx renders the rest and says what it could not.

// Block types as MCP names them.
const (
	blockText     = "text"
	blockImage    = "image"
	blockAudio    = "audio"
	blockResource = "resource"
	blockLink     = "resource_link"
)

// linkItem is a rendered resource link, in the content of prompt and
// invoke (see CONTENT POLICY in mcpx(1)).
type linkItem struct {
	Type        string          `json:"type"` // "resource_link"
	URI         string          `json:"uri"`
	Name        *string         `json:"name"`
	Title       *string         `json:"title"`
	Description *string         `json:"description"`
	MimeType    *string         `json:"mime_type"`
	Size        json.RawMessage `json:"size"`
	Annotations json.RawMessage `json:"annotations"`
}

// unknownItem stands for a block of a type mcpx does not know: it is
// never rendered, only named.
type unknownItem struct {
	Type        string          `json:"type"`         // "unknown"
	ContentType string          `json:"content_type"` // the type the server sent
	Omitted     bool            `json:"omitted"`      // always true
	Annotations json.RawMessage `json:"annotations"`
}

// block is one content block, checked but not yet decoded.
type block struct {
	index int
	typ   string
	m     members      // its members
	res   *resourceRef // type "resource": the embedded resource
	blob  int64        // decoded size of image/audio data
}

// resourceRef locates an embedded resource item in the document.
type resourceRef struct {
	start, end int
}

// memberKeys are the members of results, messages and blocks mcpx reads.
var memberKeys = [...]string{"type", "text", "data", "mimeType", "resource", "uri", "name", "title",
	"description", "size", "annotations", "role", "content", "messages", "isError", "structuredContent", "toolResult"}

// members holds the span of each of memberKeys in one object (a fixed
// array, not a map: a reply can hold millions of blocks).
type members [len(memberKeys)]span

func (m *members) get(key string) span {
	for i, k := range memberKeys {
		if k == key {
			return m[i]
		}
	}
	return span{}
}

// scanMembers returns the spans of the members of the JSON object
// doc[start:end] (valid JSON) named in memberKeys, without decoding any
// value. Of repeated keys the last wins, as in encoding/json.
func scanMembers(doc []byte, start, end int) members {
	var m members
	i := skipSpace(doc, start+1)
	for i < end && doc[i] == '"' {
		ke := skipValue(doc, i)
		raw := doc[i+1 : ke-1]
		key := text.StringView(raw) // compared only
		if containsByte(raw, '\\') {
			_ = json.Unmarshal(doc[i:ke], &key)
		}
		i = skipSpace(doc, skipSpace(doc, ke)+1) // past the colon
		ve := skipValue(doc, i)
		for k, name := range memberKeys {
			if name == key {
				m[k] = span{i, ve}
				break
			}
		}
		i = skipSpace(doc, ve)
		if i < end && doc[i] == ',' {
			i = skipSpace(doc, i+1)
		}
	}
	return m
}

// shortString decodes the JSON string at sp (a copy; for short fields).
// ok is false when the member is absent, null or not a string.
func shortString(doc []byte, sp span) (string, bool) {
	if sp.e == 0 || doc[sp.s] != '"' {
		return "", false
	}
	if in := doc[sp.s+1 : sp.e-1]; !containsByte(in, '\\') && utf8.Valid(in) {
		return string(in), true // the common case, without encoding/json
	}
	var s string
	if err := json.Unmarshal(doc[sp.s:sp.e], &s); err != nil {
		return "", false
	}
	return s, true
}

func (sp span) is(doc []byte, c byte) bool { return sp.e > 0 && doc[sp.s] == c }

// checkBlock checks the block at doc[start:end] without decoding anything:
// its type, the fields that type needs, and the decoded size of its data.
// where names the list it is in ("message #1"; "" for a tool result).
func checkBlock(doc []byte, start, end, index int, where string) (block, error) {
	bad := func(format string, args ...any) error {
		return &BadContentError{Item: index, Where: where, Msg: fmt.Sprintf(format, args...)}
	}
	if doc[start] != '{' {
		return block{}, bad("the content block is not a JSON object")
	}
	b := block{index: index, m: scanMembers(doc, start, end)}
	typ, ok := shortString(doc, b.m.get("type"))
	if !ok || typ == "" {
		return block{}, bad("the content block has no \"type\"")
	}
	b.typ = typ
	switch typ {
	case blockText:
		if !b.m.get("text").is(doc, '"') {
			return block{}, bad("a text block without a string \"text\"")
		}
	case blockImage, blockAudio:
		sp := b.m.get("data")
		if !sp.is(doc, '"') {
			return block{}, bad("an %s block without a string \"data\"", typ)
		}
		b.blob = decodedSize(base64Source(doc, sp))
	case blockResource:
		sp := b.m.get("resource")
		if !sp.is(doc, '{') {
			return block{}, bad("a resource block without a \"resource\" object")
		}
		b.res = &resourceRef{sp.s, sp.e}
	case blockLink:
		if uri, ok := shortString(doc, b.m.get("uri")); !ok || uri == "" {
			return block{}, bad("a resource_link block without a string \"uri\"")
		}
	}
	return b, nil
}

// base64Source returns the characters of the base64 string at sp (a copy
// only when it has escapes, which base64 rarely does).
func base64Source(doc []byte, sp span) []byte {
	src := doc[sp.s+1 : sp.e-1]
	if containsByte(src, '\\') {
		var s string
		_ = json.Unmarshal(doc[sp.s:sp.e], &s)
		src = []byte(s)
	}
	return src
}

// checkSizes adds the decoded size of the block's data, and of an
// embedded resource's blob (checking the resource item), to *sizes,
// refusing more than the decode ceiling in all.
func (b *block) checkSizes(raw []byte, where string, sizes *int64) error {
	*sizes += b.blob
	if b.res != nil {
		if _, err := parseItemAt(raw, b.res.start, b.res.end, b.index, sizes, false); err != nil {
			if bc, ok := err.(*BadContentError); ok {
				bc.Where, bc.Msg = where, "embedded resource: "+bc.Msg
			}
			return err
		}
	}
	if *sizes > limits.DecodeCeiling {
		return decodeCeilingError()
	}
	return nil
}

func (b *block) annotations(doc []byte) json.RawMessage {
	if sp := b.m.get("annotations"); sp.is(doc, '{') {
		return json.RawMessage(append([]byte(nil), doc[sp.s:sp.e]...))
	}
	return nil
}

func (b *block) str(doc []byte, key string) *string {
	if s, ok := shortString(doc, b.m.get(key)); ok {
		return &s
	}
	return nil
}

// rendered is one block after the content policy, with the line that text
// output (and the flattened prompt) shows for it.
type rendered struct {
	item    any    // *TextItem, *BlobItem, *linkItem or *unknownItem
	text    string // what text output shows
	isText  bool   // a text item (text, or an embedded resource that is text)
	warning string // for an unknown type
}

// textOf is the text of a checked block when the content policy renders
// it as text (a text block, or an embedded resource that is text), for
// masking the seam before a block that is left out (see
// renderer.omit); nothing is spilled.
func (b *block) textOf(doc []byte) (string, bool) {
	switch b.typ {
	case blockText:
		return textOf(doc, b.m.get("text")), true
	case blockResource:
		var decoded int64
		c, err := parseItemAt(doc, b.res.start, b.res.end, b.index, &decoded, true)
		if err != nil {
			return "", false
		}
		return c.asText()
	}
	return "", false
}

// renderBlock decodes and renders a checked block. Text is not paged here:
// the caller cuts it to what the response has room for.
func (p Policy) renderBlock(doc []byte, b *block, where string, decoded *int64) (rendered, error) {
	ann := b.annotations(doc)
	switch b.typ {
	case blockText:
		t := textOf(doc, b.m.get("text"))
		return rendered{item: &TextItem{Type: "text", Text: t, TotalBytes: len(t), Annotations: ann}, text: t, isText: true}, nil
	case blockImage, blockAudio:
		data, err := decodeBase64(base64Source(doc, b.m.get("data")), limits.DecodeCeiling-*decoded)
		if err != nil {
			if le, ok := err.(*limits.Error); ok {
				return rendered{}, le
			}
			return rendered{}, &BadContentError{Item: b.index, Where: where, Msg: fmt.Sprintf("its %s data is not valid base64: %v", b.typ, err)}
		}
		*decoded += int64(len(data))
		mime, _ := shortString(doc, b.m.get("mimeType"))
		bi, err := p.blob(Content{Blob: data, MimeType: mime, Annotations: ann})
		if err != nil {
			return rendered{}, err
		}
		bi.Type = b.typ
		return rendered{item: bi, text: placeholder(b.typ, bi)}, nil
	case blockResource:
		c, err := parseItemAt(doc, b.res.start, b.res.end, b.index, decoded, true)
		if err != nil {
			if bc, ok := err.(*BadContentError); ok {
				bc.Where = where
				bc.Msg = "embedded resource: " + bc.Msg
			}
			return rendered{}, err
		}
		if c.Annotations == nil {
			c.Annotations = ann
		}
		if c.IsBlob && !isText(c.Blob) {
			bi, err := p.blob(c)
			if err != nil {
				return rendered{}, err
			}
			return rendered{item: bi, text: placeholder("blob", bi)}, nil
		}
		text := c.Text
		if c.IsBlob {
			text = string(c.Blob)
		}
		return rendered{item: &TextItem{Type: "text", URI: orNil(c.URI), MimeType: orNil(c.MimeType), Text: text,
			TotalBytes: len(text), Annotations: c.Annotations}, text: text, isText: true}, nil
	case blockLink:
		uri, _ := shortString(doc, b.m.get("uri"))
		l := &linkItem{Type: blockLink, URI: uri, Name: b.str(doc, "name"), Title: b.str(doc, "title"),
			Description: b.str(doc, "description"), MimeType: b.str(doc, "mimeType"), Annotations: ann}
		if sp := b.m.get("size"); sp.e > 0 && isNonNegIntBytes(doc[sp.s:sp.e]) {
			l.Size = json.RawMessage(append([]byte(nil), doc[sp.s:sp.e]...))
		}
		return rendered{item: l, text: "[resource: " + safeURI(uri) + "]"}, nil
	}
	label := safeType(b.typ)
	return rendered{item: &unknownItem{Type: "unknown", ContentType: b.typ, Omitted: true, Annotations: ann},
		text:    "[" + label + " content omitted]",
		warning: fmt.Sprintf("%s: content of type %s is not something mcpx shows; it was left out", location(where, b.index), p.Secrets.Quote(b.typ, 40))}, nil
}

// location names a block: "item #2", "message #1, item #0".
func location(where string, index int) string {
	if where == "" {
		return fmt.Sprintf("item #%d", index)
	}
	return fmt.Sprintf("%s, item #%d", where, index)
}

// placeholder is how a spilled image, audio clip or blob appears in text:
// [image: PATH (MIME, N bytes)].
func placeholder(kind string, b *BlobItem) string {
	mime := "no mime type"
	if b.MimeType != nil {
		mime = safeMime(*b.MimeType)
	}
	return fmt.Sprintf("[%s: %s (%s, %d bytes)]", kind, b.Path, mime, b.SizeBytes)
}

// isToken reports whether s is at most n bytes: an ASCII letter (or, with
// digitFirst, a digit) followed by ASCII letters, digits and bytes of extra.
// (Plain loops, not regexps: compiling those cost every mcpx start ~3 ms.)
func isToken(s string, n int, digitFirst bool, extra string) bool {
	if s == "" || len(s) > n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		digit := c >= '0' && c <= '9'
		switch {
		case letter:
		case digit && (i > 0 || digitFirst):
		case i > 0 && strings.IndexByte(extra, c) >= 0:
		default:
			return false
		}
	}
	return true
}

// mimeToken: type/subtype, each [A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,63}.
func mimeToken(m string) bool {
	typ, sub, ok := strings.Cut(m, "/")
	return ok && isToken(typ, 64, true, "!#$&^_.+-") && isToken(sub, 64, true, "!#$&^_.+-")
}

// typeToken: [A-Za-z0-9][A-Za-z0-9_.+-]{0,39}.
func typeToken(t string) bool { return isToken(t, 40, true, "_.+-") }

// safeMime is a server's mime type as a placeholder may show it: its
// type/subtype when it is a plain token, else "invalid mime type" (a
// server could otherwise write "]\n[assistant]" into a flattened prompt).
func safeMime(mime string) string {
	m, _, _ := strings.Cut(mime, ";")
	m = strings.TrimSpace(m)
	if mimeToken(m) {
		return m
	}
	return "invalid mime type"
}

// safeType is a content type as "[TYPE content omitted]" may show it.
func safeType(t string) string {
	if typeToken(t) {
		return t
	}
	return "unknown"
}

// safeURI percent-encodes the characters a URI may not contain unencoded
// and that could break a flattened prompt's lines: controls, spaces and
// other white space.
func safeURI(uri string) string {
	if strings.IndexFunc(uri, needsEscape) < 0 {
		return uri
	}
	var b strings.Builder
	for _, r := range uri {
		if needsEscape(r) {
			for _, c := range []byte(string(r)) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func needsEscape(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || unicode.IsSpace(r) || isBidi(r)
}

func isBidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

func isNonNegIntBytes(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// cutText cuts s to at most n bytes, back to a character boundary.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	return s[:boundaryBack(s, n)]
}
