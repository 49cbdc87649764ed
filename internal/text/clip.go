package text

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// FirstChars returns the first n characters of s, and whether s had more.
// A byte that is not UTF-8 counts as one character and is kept as it is;
// nothing but the head of a huge s is looked at.
func FirstChars(s string, n int) (head string, cut bool) {
	i := 0
	for k := range s {
		if i == n {
			return s[:k], true
		}
		i++
	}
	return s, false
}

// Clip shortens s to n characters, then "..." (see FirstChars).
func Clip(s string, n int) string {
	if head, cut := FirstChars(s, n); cut {
		return head + "..."
	}
	return s
}

// ClipBytes shortens s to at most n bytes, on a character boundary, then
// "...".
func ClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
}

// EscapeClip shortens s to at most n characters, marking a cut with
// "...", and shows its line breaks escaped (see Escape), for
// server-originated strings in messages: a uri can be megabytes long, and
// a mime type can carry a line break that would start a line of its own.
// A string that may hold a secret is masked first (secret.Set.Clip).
func EscapeClip(s string, n int) string {
	return EscapeClipHead(s, false, n)
}

// EscapeClipHead is EscapeClip of head, the start of a longer string when
// more (then marked cut too).
func EscapeClipHead(head string, more bool, n int) string {
	head, cut := FirstChars(head, n)
	if cut || more {
		return Escape(head) + "..."
	}
	return Escape(head)
}

// QuoteClip is EscapeClip for a string a message shows in double quotes:
// s shortened to n characters (then "..."), quoted as Go quotes it (%q),
// which shows its line breaks and other control characters escaped.
func QuoteClip(s string, n int) string {
	return QuoteClipHead(s, false, n)
}

// QuoteClipHead is QuoteClip of head, the start of a longer string when
// more (then marked cut too).
func QuoteClipHead(head string, more bool, n int) string {
	head, cut := FirstChars(head, n)
	if cut || more {
		head += "..."
	}
	return strconv.Quote(head)
}

// FirstBytes returns the longest start of s that has at most n bytes and
// ends on a character boundary, and whether s had more. A byte that is not
// UTF-8 counts as one character and is kept as it is (where ClipBytes
// cuts before a run of stray continuation bytes).
func FirstBytes(s string, n int) (head string, cut bool) {
	if len(s) <= n {
		return s, false
	}
	end := 0
	for {
		_, size := utf8.DecodeRuneInString(s[end:])
		if end+size > n {
			return s[:end], true
		}
		end += size
	}
}

// Truncate is Clip through a conversion to runes: when s is cut, each byte
// of it that is not UTF-8 comes out as U+FFFD (where Clip keeps the byte),
// and all of s is converted. The messages that quote a server's stray
// stdout line, its version strings and its odd "size" have always shown
// them so.
func Truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "..."
}

// MaxShown bounds how much of one server-originated string a human message
// quotes (see OneLine).
const MaxShown = 500

// OneLine makes a server's text fit in a human message: on one line, its
// line breaks shown escaped (see Escape), so that it can never forge a
// line of its own (an "mcpx: ..." line, say), yet nothing after its first
// line is lost (a TypeScript server's validation error is pretty-printed
// JSON whose first line is "["); at most MaxShown characters (then "...").
// Masking, where needed, comes first (secret.Set.Window): a secret must never
// be cut into a printable prefix.
func OneLine(s string) string {
	// Only what can be shown is escaped (one character more, so that the
	// clip still says there is more): never all of a huge s.
	head, _ := FirstChars(strings.TrimSpace(s), MaxShown+1)
	return Clip(Escape(head), MaxShown)
}

// Squash joins the words of s (split at any run of white space, line
// breaks included) with single spaces.
func Squash(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// ClipWindow bounds how much of a server's string a message quotes from:
// enough for masking to see whole secrets, without copying a 100 MiB line
// to quote 80 characters of it.
const ClipWindow = 64 << 10

// QuoteWord single-quotes s, a word of a shell command line, unless it
// consists of ASCII letters, digits and the characters of safe. A word
// that holds what a terminal or a line would take for something else (see
// ANSIQuote) is ANSI-C quoted instead.
func QuoteWord(s, safe string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(safe, r))
	}) < 0 {
		return s
	}
	if q, ok := ANSIQuote(s); ok {
		return q
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ANSIQuote writes s, a word of a shell command line, in ANSI-C quoting
// ($'...', as bash's printf %q does) when it holds a control character (C0,
// DEL, C1), a bidi control, a line or paragraph separator or a byte that is
// not UTF-8 (each such byte as \xHH, whatever the shell's locale): pasted
// into bash, zsh or ksh it gives s byte for byte, and the
// hint that shows it holds none of them (a terminal would act on them, and
// a message shows them escaped: pasted, \x1b is four characters). ok is
// false, and s returned, when s holds none.
func ANSIQuote(s string) (string, bool) {
	if strings.IndexFunc(s, needsANSI) < 0 && utf8.ValidString(s) {
		return s, false
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsANSI(r):
			// its UTF-8 bytes: \u depends on the shell's locale
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('\'')
	return b.String(), true
}

// needsANSI reports whether r cannot stand in a word a hint shows as it
// is: a control character, a bidi control, or a line break.
func needsANSI(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f ||
		r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c ||
		r == 0x2028 || r == 0x2029
}

// Plural is one when n is 1, else many: a message's "1 variable" and
// "2 variables", "it" and "them".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// HumanBytes writes a size the way messages name a limit: "50 MiB
// (52428800 bytes)".
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB (%d bytes)", n>>20, n)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB (%d bytes)", n>>10, n)
	}
	return fmt.Sprintf("%d bytes", n)
}

// CompactJSON is raw without insignificant white space; raw as it is when
// it is not JSON.
func CompactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
