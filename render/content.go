package render

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
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

// ParseResourceContents reads the items of a resources/read result. An item
// with both text and blob, or neither, or a blob that is not base64, is a
// *BadContentError naming it; blobs that decode to more than the decode
// ceiling in total are a *LimitError. The result must be valid JSON (the
// transport has checked it).
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
	doc := gjson.Parse(unsafe.String(unsafe.SliceData(raw), len(raw)))
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
	c := Content{Index: i}
	if !v.IsObject() {
		return c, &BadContentError{Item: i, Msg: "the item is not a JSON object"}
	}
	if u := v.Get("uri"); u.Type == gjson.String {
		c.URI = validUTF8(u.String())
	}
	if m := v.Get("mimeType"); m.Type == gjson.String {
		c.MimeType = validUTF8(m.String())
	}
	c.Annotations = annotations(v)
	text, blob := present(v.Get("text")), present(v.Get("blob"))
	switch {
	case text && blob:
		return c, &BadContentError{Item: i, URI: c.URI, Msg: "the item has both text and blob, so it is neither text nor a blob"}
	case !text && !blob:
		return c, &BadContentError{Item: i, URI: c.URI, Msg: "the item has neither text nor blob"}
	case text:
		t := v.Get("text")
		if t.Type != gjson.String {
			return c, &BadContentError{Item: i, URI: c.URI, Msg: "its text is not a string"}
		}
		if decode {
			c.Text = validUTF8(t.String())
		}
		return c, nil
	}
	b := v.Get("blob")
	if b.Type != gjson.String {
		return c, &BadContentError{Item: i, URI: c.URI, Msg: "its blob is not a string"}
	}
	c.IsBlob = true
	src := jsonString(raw, b)
	if !decode {
		n := decodedSize(src)
		if n > DecodeCeiling-*decoded+2 {
			return c, decodeCeilingError()
		}
		*decoded += n
		return c, nil
	}
	data, err := DecodeBase64(src, DecodeCeiling-*decoded)
	if err != nil {
		if le, ok := err.(*LimitError); ok {
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

// present reports whether a field is there and not null.
func present(r gjson.Result) bool { return r.Exists() && r.Type != gjson.Null }

// annotations returns the item's annotations object, or nil.
func annotations(v gjson.Result) json.RawMessage {
	a := v.Get("annotations")
	if !a.IsObject() {
		return nil
	}
	return json.RawMessage(a.Raw)
}

// jsonString returns the contents of the JSON string r as bytes: a slice of
// raw when it has no escapes (the common case for base64, and no copy),
// else the unescaped value.
func jsonString(raw []byte, r gjson.Result) []byte {
	if r.Index > 0 && r.Index+len(r.Raw) <= len(raw) && !strings.Contains(r.Raw, `\`) {
		return raw[r.Index+1 : r.Index+len(r.Raw)-1]
	}
	return []byte(r.String())
}

// DecodeBase64 decodes standard base64 (padding optional; line breaks
// ignored), refusing output over left bytes with a *LimitError naming the
// decode ceiling.
func DecodeBase64(src []byte, left int64) ([]byte, error) {
	if decodedSize(src) > left+2 { // padding makes the estimate up to 2 bytes high
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

// decodedSize is the size src decodes to, counting padding (so up to 2
// bytes high) and ignoring line breaks.
func decodedSize(src []byte) int64 {
	n := len(src) - bytes.Count(src, []byte{'\n'}) - bytes.Count(src, []byte{'\r'})
	size := int64(n) / 4 * 3
	if r := n % 4; r > 1 {
		size += int64(r - 1)
	}
	return size
}

func decodeCeilingError() *LimitError {
	return &LimitError{Limit: "decode ceiling", Value: DecodeCeiling, Msg: "the blobs of this response are too large to decode"}
}
