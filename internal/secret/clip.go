package secret

import (
	"unicode/utf8"

	"github.com/mcpx-cli/mcpx/internal/text"
)

// Head returns the start of s, a server's string that a message quotes,
// with its secrets masked, and whether s goes on past it: the first
// 4n+4096 bytes, enough for a cut at n characters, masked against the
// bytes after them, so that a secret the window cuts shows as *** too. A
// message masks before it cuts: a cut must never leave the start of a
// secret in clear (see SECRETS in mcpx(1)).
func (m *Set) Head(s string, n int) (head string, more bool) {
	w := len(s)
	if limit := utf8.UTFMax*n + 4096; w > limit {
		w = limit
		for w > 0 && !utf8.RuneStart(s[w]) {
			w--
		}
	}
	head, more = s[:w], w < len(s)
	if m.Longest() > 0 {
		head = m.MaskIn("", head, s[w:])
	}
	return head, more
}

// Clip is text.EscapeClip of a server's string whose secrets are masked
// before it is cut (see Head).
func (m *Set) Clip(s string, n int) string {
	head, more := m.Head(s, n)
	return text.EscapeClipHead(head, more, n)
}

// Quote is text.QuoteClip of a server's string whose secrets are masked
// before it is cut (see Head).
func (m *Set) Quote(s string, n int) string {
	head, more := m.Head(s, n)
	return text.QuoteClipHead(head, more, n)
}

// Window returns the first w bytes of s (cut back to a character
// boundary) with their secrets masked against the bytes after them, so
// that a secret the window cuts shows as *** too.
func (m *Set) Window(s string, w int) string {
	if len(s) > w {
		for w > 0 && !utf8.RuneStart(s[w]) {
			w--
		}
	} else {
		w = len(s)
	}
	return m.MaskIn("", s[:w], s[w:])
}
