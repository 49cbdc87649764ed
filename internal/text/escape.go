// A server's string stays on one line when a message quotes it: no note,
// warning, hint or error of mcpx's may carry a line break of a server's,
// or a server could start a line that looks like mcpx's own ("mcpx:
// error: ...") in a terminal, a log or a script that reads stderr line by
// line.

package text

import "strings"

// Breaks are the characters that end a line for a terminal or for a
// line-oriented reader (Python's str.splitlines, Unicode line breaking).
const Breaks = "\n\r\v\f\x1c\x1d\x1e\u0085\u2028\u2029"

var escaper = strings.NewReplacer(
	"\n", `\n`, "\r", `\r`, "\v", `\v`, "\f", `\f`,
	"\x1c", `\x1c`, "\x1d", `\x1d`, "\x1e", `\x1e`,
	"\u0085", `\u0085`, "\u2028", `\u2028`, "\u2029", `\u2029`,
)

// Escape returns s with every line break shown escaped: LF as \n, CR as
// \r, NEL as \u0085, U+2028 and U+2029 as \u2028 and \u2029 (and \v, \f,
// \x1c to \x1e). Anything else is unchanged; s is returned as it is when
// it has no line break.
func Escape(s string) string {
	if !strings.ContainsAny(s, Breaks) {
		return s
	}
	return escaper.Replace(s)
}
