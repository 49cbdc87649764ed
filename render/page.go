package render

import "unicode/utf8"

// page is one page of a text.
type page struct {
	Text      string
	Offset    int  // the byte where this page actually starts, after rounding forward to a character boundary (clamped to len(text))
	Truncated bool // more text remains after this page
	Total     int  // len(text) in bytes
	Next      *int // the offset of the next page; nil at the end
}

// pageText returns the page of text that starts at offset and holds at most
// max bytes, without ever splitting a character: an offset inside a
// character moves forward to the next character boundary, the end of the
// page moves back to one. An offset at or past the end gives an empty page
// with Next nil.
//
// A page always makes progress: when the character at the start of the page
// is longer than max, the page holds that one character (exceeding max by at
// most 3 bytes), so following Next always terminates and the pages
// concatenate to the text.
//
// Boundaries in text that is not valid UTF-8 are those of utf8.DecodeRune:
// every byte that is not a continuation byte starts a character, and a
// continuation byte that is not part of a valid encoding is a character of
// its own (as U+FFFD in a range loop). Rounding therefore never moves more
// than 3 bytes, and valid characters are never split.
//
// Callers pass offset >= 0 and max >= 1; smaller values are treated as 0 and 1.
func pageText(text string, offset, max int) page {
	n := len(text)
	if offset < 0 {
		offset = 0
	}
	if offset > n {
		offset = n
	}
	if max < 1 {
		max = 1
	}
	offset = boundaryForward(text, offset)
	p := page{Offset: offset, Total: n}
	if offset >= n {
		return p
	}
	end := n
	if max < n-offset {
		end = boundaryBack(text, offset+max)
		if end <= offset {
			// The first character is longer than max: take it whole.
			end = boundaryForward(text, offset+1)
		}
	}
	p.Text = text[offset:end]
	if end < n {
		p.Truncated = true
		next := end
		p.Next = &next
	}
	return p
}

// isBoundary reports whether a character starts at byte i of s (or i is
// the start or the end of s), decoding as utf8.DecodeRuneInString does.
func isBoundary(s string, i int) bool {
	if i <= 0 || i >= len(s) || utf8.RuneStart(s[i]) {
		return true
	}
	// s[i] is a continuation byte: it is inside a character only when the
	// nearest start byte before it, at most 3 bytes back, begins a valid
	// encoding long enough to cover it.
	for j := i - 1; j >= 0 && j >= i-(utf8.UTFMax-1); j-- {
		if utf8.RuneStart(s[j]) {
			_, size := utf8.DecodeRuneInString(s[j:min(len(s), j+utf8.UTFMax)])
			return j+size <= i
		}
	}
	return true
}

// boundaryForward returns the first boundary at or after i (i <= len(s)).
func boundaryForward(s string, i int) int {
	for i < len(s) && !isBoundary(s, i) {
		i++
	}
	return i
}

// boundaryBack returns the last boundary at or before i (0 <= i <= len(s)).
func boundaryBack(s string, i int) int {
	for i > 0 && !isBoundary(s, i) {
		i--
	}
	return i
}
