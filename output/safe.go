package output

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// sanitize makes s safe to show on a terminal: C0 controls other than LF and
// TAB, DEL, C1 controls (U+0080-U+009F), the bidi controls U+202A-U+202E and
// U+2066-U+2069, the marks U+200E, U+200F and U+061C, and bytes that are not
// UTF-8 are escaped (\x1b, \u202e, \xff), so a server cannot drive the
// terminal. Everything else is unchanged.
func sanitize(s string) string { return escapeUnsafe(s, false) }

// escapeUnsafe is sanitize, and for a JSON document (asJSON) with every
// escape inside its strings a valid JSON escape (\u007f, \u202e).
func escapeUnsafe(s string, asJSON bool) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case asJSON && (r < 0x20 && r != '\n' && r != '\t' || r == 0x7f):
			fmt.Fprintf(&b, `\u%04x`, r)
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f, isBidi(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func isBidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || c >= 0x80 {
			if c < 0x80 {
				return true
			}
			// Multi-byte: decide rune by rune.
			for _, r := range s[i:] {
				if r == utf8.RuneError || (r >= 0x80 && r <= 0x9f) || isBidi(r) || (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f {
					return true
				}
			}
			return false
		}
	}
	return false
}

// safeWriter escapes what it writes with sanitize. A UTF-8 sequence split
// across two writes is held back until it is complete.
type safeWriter struct {
	w       io.Writer
	json    bool // escape as JSON (\u00XX)
	pending []byte
}

func (sw *safeWriter) Write(p []byte) (int, error) {
	buf := p
	if len(sw.pending) > 0 {
		buf = append(sw.pending, p...)
		sw.pending = nil
	}
	// Hold back an incomplete trailing sequence (at most 3 bytes).
	cut := len(buf)
	for k := 1; k <= 3 && k <= len(buf); k++ {
		c := buf[len(buf)-k]
		if c < 0x80 {
			break
		}
		if c >= 0xc0 { // a lead byte
			if !utf8.FullRune(buf[len(buf)-k:]) {
				cut = len(buf) - k
			}
			break
		}
	}
	sw.pending = append([]byte(nil), buf[cut:]...)
	if _, err := io.WriteString(sw.w, escapeUnsafe(string(buf[:cut]), sw.json)); err != nil {
		return 0, err
	}
	return len(p), nil
}
