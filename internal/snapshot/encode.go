package snapshot

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpx-cli/mcpx/internal/jsonscan"
)

// Encode writes a tree as the snapshot's JSON: keys sorted, two spaces of
// indent, no HTML escaping, a final newline — what encoding/json writes
// with SetIndent("", "  ") and SetEscapeHTML(false), without its
// reflection (a thousand tools cost a tenth of the time).
func Encode(v any) []byte {
	var b bytes.Buffer
	b.Grow(4096)
	writeTree(&b, v, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func writeTree(b *bytes.Buffer, v any, depth int) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case string:
		writeString(b, v)
	case json.Number:
		b.WriteString(string(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	case map[string]any:
		writeObject(b, v, depth)
	case object:
		writeFields(b, v, depth)
	case []any:
		writeArray(b, v, depth)
	case json.RawMessage:
		writeRaw(b, v, jsonscan.SkipSpace(v, 0), depth)
	default:
		// not a tree of decoded JSON: as encoding/json writes it
		raw, _ := json.Marshal(v)
		var ind bytes.Buffer
		if json.Indent(&ind, raw, indentOf(depth), "  ") == nil {
			b.Write(ind.Bytes())
		} else {
			b.Write(raw)
		}
	}
}

func indentOf(depth int) string {
	return string(bytes.Repeat([]byte("  "), depth))
}

func newline(b *bytes.Buffer, depth int) {
	b.WriteByte('\n')
	for range depth {
		b.WriteString("  ")
	}
}

func writeObject(b *bytes.Buffer, m map[string]any, depth int) {
	if len(m) == 0 {
		b.WriteString("{}")
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		newline(b, depth+1)
		writeString(b, k)
		b.WriteString(": ")
		writeTree(b, m[k], depth+1)
	}
	newline(b, depth)
	b.WriteByte('}')
}

// object is an object built member by member (an item of a snapshot),
// each name once: cheaper to make than a map; written with its names
// sorted all the same.
type object []field

type field struct {
	key string
	v   any
}

func writeFields(b *bytes.Buffer, o object, depth int) {
	if len(o) == 0 {
		b.WriteString("{}")
		return
	}
	slices.SortFunc(o, func(a, b field) int { return strings.Compare(a.key, b.key) })
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		newline(b, depth+1)
		writeString(b, f.key)
		b.WriteString(": ")
		writeTree(b, f.v, depth+1)
	}
	newline(b, depth)
	b.WriteByte('}')
}

func writeArray(b *bytes.Buffer, list []any, depth int) {
	if len(list) == 0 {
		b.WriteString("[]")
		return
	}
	b.WriteByte('[')
	for i, x := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		newline(b, depth+1)
		writeTree(b, x, depth+1)
	}
	newline(b, depth)
	b.WriteByte(']')
}

// writeRaw writes the (valid) JSON value at raw[at] as writeTree writes
// its decoded tree, without decoding it: keys sorted (of a repeated name
// the last value), strings re-escaped, numbers as sent.
func writeRaw(b *bytes.Buffer, raw json.RawMessage, at, depth int) {
	switch raw[at] {
	case '{':
		members := jsonscan.Members(raw, at)
		if len(members) == 0 {
			b.WriteString("{}")
			return
		}
		slices.SortFunc(members, func(a, b jsonscan.Member) int { return strings.Compare(a.Key, b.Key) })
		b.WriteByte('{')
		for i, m := range members {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, depth+1)
			writeString(b, m.Key)
			b.WriteString(": ")
			writeRaw(b, raw, m.S, depth+1)
		}
		newline(b, depth)
		b.WriteByte('}')
	case '[':
		elems := jsonscan.Elements(raw, at)
		if len(elems) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range elems {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, depth+1)
			writeRaw(b, raw, e[0], depth+1)
		}
		newline(b, depth)
		b.WriteByte(']')
	case '"':
		end := jsonscan.SkipString(raw, at)
		s := raw[at+1 : end-1]
		if jsonscan.HasEscape(s) || !utf8.Valid(s) {
			var d string
			_ = json.Unmarshal(raw[at:end], &d) // decoded as encoding/json decodes it
			writeString(b, d)
			return
		}
		writeString(b, string(s))
	default:
		b.Write(raw[at:jsonscan.SkipValue(raw, at)])
	}
}

const hexDigits = "0123456789abcdef"

// writeString writes s as encoding/json does without HTML escaping: the
// short escapes of \b \f \n \r \t, \u00XX for other controls, U+2028 and
// U+2029 escaped, an invalid byte as \ufffd.
func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b.WriteString(s[start:i])
			writeEscape(b, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
			b.WriteString(s[start:i])
			switch r {
			case utf8.RuneError:
				b.WriteString(`\ufffd`)
			default:
				b.WriteString(`\u202`)
				b.WriteByte(hexDigits[r&0xF])
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

func writeEscape(b *bytes.Buffer, c byte) {
	switch c {
	case '"', '\\':
		b.WriteByte('\\')
		b.WriteByte(c)
	case '\b':
		b.WriteString(`\b`)
	case '\f':
		b.WriteString(`\f`)
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	default:
		b.WriteString(`\u00`)
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&0xF])
	}
}
