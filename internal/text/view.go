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
	off := int(uintptr(unsafe.Pointer(unsafe.StringData(s))) - uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	if off < 0 || off+len(s) > len(b) {
		panic("text: SubSlice of a string outside its slice")
	}
	return b[off : off+len(s) : off+len(s)]
}
