package render

import (
	"bytes"
	"unicode/utf8"
)

// isText reports whether b is to be treated as text: valid UTF-8 with no NUL
// byte. The mime type a server claimed plays no part (see CONTENT POLICY in
// mcpx(1)).
func isText(b []byte) bool {
	return bytes.IndexByte(b, 0) < 0 && utf8.Valid(b)
}
