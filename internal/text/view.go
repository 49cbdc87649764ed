package text

import "unsafe"

// The views below share memory between a []byte and a string, without a
// copy: mcpx reads messages of tens of MiB, and each copy of one counts.
// They are sound only while the bytes are never modified: a string is
// immutable, and a view of bytes that change would change the string.
// Every caller holds bytes that nothing writes to after they are read
// (a framed line, a listed page, a decoded content item).

// StringView returns b's bytes as a string, without a copy. b must never
// be modified afterwards.
func StringView(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// BytesView returns s's bytes, without a copy. They must never be
// modified.
func BytesView(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// SubSlice turns s, a substring of StringView(b) (such as a value gjson
// found in it), back into a sub-slice of b, its capacity clipped so that
// an append never writes into b. An empty s is nil. It panics when s is
// not within b.
func SubSlice(b []byte, s string) []byte {
	if len(s) == 0 {
		return nil
	}
	off, ok := Within(b, s)
	if !ok {
		panic("text: SubSlice of a string outside its slice")
	}
	return b[off : off+len(s) : off+len(s)]
}

// Within reports whether s's bytes lie in b's memory (s is a view of part
// of b, not a copy), and where: s is then b[off:off+len(s)]. An empty s is
// within any b, at 0. Tests use it to show that a parser did not copy.
func Within(b []byte, s string) (off int, ok bool) {
	if len(s) == 0 {
		return 0, true
	}
	// Unsigned: a string before b is a huge difference, not a negative one.
	d := uintptr(unsafe.Pointer(unsafe.StringData(s))) - uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if d > uintptr(len(b)) || uintptr(len(s)) > uintptr(len(b))-d {
		return 0, false
	}
	return int(d), true
}

// SliceHeader is the size of a slice value itself (pointer, length and
// capacity), what each element of a [][]byte or []json.RawMessage costs
// beyond the bytes it points to.
const SliceHeader = int(unsafe.Sizeof([]byte(nil)))
