package render

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// Content is one item of a resources/read result (or an embedded resource),
// parsed defensively from the raw JSON the server sent.
type Content struct {
	Index       int
	URI         string
	MimeType    string
	IsBlob      bool
	Text        string          // when !IsBlob
	Blob        []byte          // decoded, when IsBlob
	Annotations json.RawMessage // the object the server sent, or nil
}

// asText is the text the content policy renders for c: its text, or its
// blob when that is text (see isText); ok is false for any other blob.
func (c Content) asText() (text string, ok bool) {
	switch {
	case !c.IsBlob:
		return c.Text, true
	case isText(c.Blob):
		return string(c.Blob), true
	}
	return "", false
}

// ParseResourceContents reads the items of a resources/read result. An item
// with both text and blob, or neither, or a blob that is not base64, is a
// *BadContentError naming it; blobs that decode to more than the decode
// ceiling in total are a *limits.Error. The result must be valid JSON (the
// transport has checked it). Texts are decoded in place: raw belongs to the
// items afterwards and must not be read as JSON again.
func ParseResourceContents(raw []byte) ([]Content, error) {
	var items []Content
	var decoded int64
	err := scanContents(raw, func(i int, v gjson.Result) error {
		c, err := parseItem(raw, v, i, &decoded, true)
		items = append(items, c)
		return err
	})
	if err != nil {
		return nil, err
	}
	return items, nil
}

// scanContents calls visit for each item of a resources/read result, in
// order, until it returns an error.
func scanContents(raw []byte, visit func(i int, v gjson.Result) error) error {
	// gjson over the bytes without a copy: a result can be tens of MiB, and
	// raw is not modified while the string is in use.
	doc := gjson.Parse(text.StringView(raw))
	if !doc.IsObject() {
		return &BadContentError{Item: -1, Msg: "the result is not a JSON object"}
	}
	list := doc.Get("contents")
	if !list.IsArray() {
		return &BadContentError{Item: -1, Msg: "the result has no contents array"}
	}
	i := 0
	var err error
	list.ForEach(func(_, v gjson.Result) bool {
		err = visit(i, v)
		i++
		return err == nil
	})
	return err
}

// parseItem reads item i. Without decode, a blob is checked and counted
// against the decode ceiling but not decoded (an item that will not be
// rendered).
func parseItem(raw []byte, v gjson.Result, i int, decoded *int64, decode bool) (Content, error) {
	if !v.IsObject() {
		return Content{Index: i}, &BadContentError{Item: i, Msg: "the item is not a JSON object"}
	}
	doc, base := raw, v.Index
	if base <= 0 || base+len(v.Raw) > len(raw) || string(raw[base:base+len(v.Raw)]) != v.Raw {
		doc, base = []byte(v.Raw), 0 // cannot happen: gjson gives each element's place
	}
	return parseItemAt(doc, base, base+len(v.Raw), i, decoded, decode)
}

// parseItemAt is parseItem for the JSON object doc[start:end].
func parseItemAt(doc []byte, start, end, i int, decoded *int64, decode bool) (Content, error) {
	c := Content{Index: i}
	f := scanItem(doc, start, end)
	str := func(sp span) string { // a short string: decoded into a copy
		if sp.e == 0 || doc[sp.s] != '"' {
			return ""
		}
		var s string
		if err := json.Unmarshal(doc[sp.s:sp.e], &s); err != nil {
			return ""
		}
		return s
	}
	c.URI = str(f.uri)
	c.MimeType = str(f.mimeType)
	if f.annotations.e > 0 && doc[f.annotations.s] == '{' {
		c.Annotations = json.RawMessage(append([]byte(nil), doc[f.annotations.s:f.annotations.e]...))
	}
	text, blob := f.text.present(doc), f.blob.present(doc)
	switch {
	case text && blob:
		return c, &BadContentError{Item: i, URI: c.URI, Msg: "the item has both text and blob"}
	case !text && !blob:
		return c, &BadContentError{Item: i, URI: c.URI, Msg: "the item has neither text nor blob"}
	case text:
		if doc[f.text.s] != '"' {
			return c, &BadContentError{Item: i, URI: c.URI, Msg: "its text is not a string"}
		}
		if decode {
			c.Text = textOf(doc, f.text)
		}
		return c, nil
	}
	if doc[f.blob.s] != '"' {
		return c, &BadContentError{Item: i, URI: c.URI, Msg: "its blob is not a string"}
	}
	c.IsBlob = true
	src := doc[f.blob.s+1 : f.blob.e-1]
	if containsByte(src, '\\') {
		var s string
		_ = json.Unmarshal(doc[f.blob.s:f.blob.e], &s) // escapes in base64 are rare: a copy is fine
		src = []byte(s)
	}
	if !decode {
		n := decodedSize(src)
		if n > limits.DecodeCeiling-*decoded {
			return c, decodeCeilingError()
		}
		*decoded += n
		return c, nil
	}
	data, err := decodeBase64(src, limits.DecodeCeiling-*decoded)
	if err != nil {
		if le, ok := err.(*limits.Error); ok {
			return c, le
		}
		return c, &BadContentError{Item: i, URI: c.URI, Msg: "its blob is not valid base64: " + err.Error()}
	}
	*decoded += int64(len(data))
	c.Blob = data
	return c, nil
}

// validUTF8 replaces bytes that are not UTF-8 (which JSON does not allow in
// a string) with U+FFFD, one per byte as encoding/json does: text is always UTF-8.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s { // each invalid byte decodes as one utf8.RuneError
		b.WriteRune(r)
	}
	return b.String()
}

// textOf returns the value of the JSON string at sp in doc: without escapes
// it is doc's own bytes; with escapes they are decoded where they stand, in
// place (a decoded escape is never longer than the escape), so a text of
// tens of MiB is never copied. Invalid UTF-8 becomes U+FFFD, as encoding/json
// does (then, and only then, the text is a copy).
func textOf(doc []byte, sp span) string {
	b := doc[sp.s+1 : sp.e-1]
	if containsByte(b, '\\') {
		b = unescapeInPlace(b)
	}
	return validUTF8(text.StringView(b))
}

// unescapeInPlace decodes the JSON string escapes of b (the bytes between
// the quotes of a valid JSON string) into b itself and returns the decoded
// prefix. Lone surrogates become U+FFFD, as in encoding/json.
func unescapeInPlace(b []byte) []byte {
	w := 0
	for r := 0; r < len(b); {
		c := b[r]
		if c != '\\' {
			b[w] = c
			w++
			r++
			continue
		}
		if r+1 >= len(b) {
			break // cannot happen in valid JSON
		}
		switch e := b[r+1]; e {
		case '"', '\\', '/':
			b[w] = e
		case 'b':
			b[w] = '\b'
		case 'f':
			b[w] = '\f'
		case 'n':
			b[w] = '\n'
		case 'r':
			b[w] = '\r'
		case 't':
			b[w] = '\t'
		case 'u':
			cp, n := unicodeEscape(b[r:])
			w += utf8.EncodeRune(b[w:], cp) // at most 4 bytes for the n >= 6 read
			r += n
			continue
		default:
			b[w] = e // cannot happen in valid JSON
		}
		w++
		r += 2
	}
	return b[:w]
}

// unicodeEscape reads \uXXXX (and a following \uXXXX low surrogate) at the
// start of b, returning the rune and the bytes read.
func unicodeEscape(b []byte) (rune, int) {
	hex4 := func(b []byte) (rune, bool) {
		if len(b) < 4 {
			return 0, false
		}
		var v rune
		for _, c := range b[:4] {
			switch {
			case '0' <= c && c <= '9':
				v = v<<4 | rune(c-'0')
			case 'a' <= c && c <= 'f':
				v = v<<4 | rune(c-'a'+10)
			case 'A' <= c && c <= 'F':
				v = v<<4 | rune(c-'A'+10)
			default:
				return 0, false
			}
		}
		return v, true
	}
	v, ok := hex4(b[2:])
	if !ok {
		return utf8.RuneError, 2
	}
	if utf16.IsSurrogate(v) {
		if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
			if lo, ok := hex4(b[8:]); ok {
				if r := utf16.DecodeRune(v, lo); r != utf8.RuneError {
					return r, 12
				}
			}
		}
		return utf8.RuneError, 6
	}
	return v, 6
}

// decodeBase64 decodes standard base64 (padding optional; line breaks
// ignored), refusing output over left bytes with a *limits.Error naming the
// decode ceiling.
func decodeBase64(src []byte, left int64) ([]byte, error) {
	if decodedSize(src) > left {
		return nil, decodeCeilingError()
	}
	enc := base64.StdEncoding
	if n := len(src) - bytes.Count(src, []byte{'\n'}) - bytes.Count(src, []byte{'\r'}); n%4 != 0 {
		enc = base64.RawStdEncoding
	}
	dst := make([]byte, enc.DecodedLen(len(src)))
	k, err := enc.Decode(dst, src)
	if err != nil {
		return nil, err
	}
	if int64(k) > left {
		return nil, decodeCeilingError()
	}
	return dst[:k], nil
}

// decodedSize is the size valid base64 src decodes to (line breaks
// ignored, padding optional).
func decodedSize(src []byte) int64 {
	n := len(src) - bytes.Count(src, []byte{'\n'}) - bytes.Count(src, []byte{'\r'})
	t := bytes.TrimRight(src, "\r\n")
	for k := 0; k < 2 && len(t) > 0 && t[len(t)-1] == '='; k++ {
		t = bytes.TrimRight(t[:len(t)-1], "\r\n")
		n--
	}
	return int64(n) * 3 / 4
}

func decodeCeilingError() *limits.Error {
	return &limits.Error{Limit: "decode ceiling", Value: limits.DecodeCeiling, Msg: "the blobs of this response are too large to decode"}
}
