package text

import (
	"strconv"
	"strings"
	"testing"
)

func TestViews(t *testing.T) {
	b := []byte(`{"a":"xyz"}`)
	s := StringView(b)
	if s != `{"a":"xyz"}` {
		t.Fatalf("StringView = %q", s)
	}
	i := strings.Index(s, "xyz")
	sub := SubSlice(b, s[i:i+3])
	if string(sub) != "xyz" || cap(sub) != 3 || &sub[0] != &b[i] {
		t.Errorf("SubSlice = %q (cap %d), not b[%d:%d]", sub, cap(sub), i, i+3)
	}
	if SubSlice(b, "") != nil {
		t.Error("SubSlice of an empty string is not nil")
	}
	if v := BytesView(s); &v[0] != &b[0] || len(v) != len(b) {
		t.Error("BytesView copied")
	}
	for _, tc := range []struct {
		s   string
		off int
		ok  bool
	}{
		{s, 0, true},
		{s[i : i+3], i, true},
		{s[len(s)-1:], len(s) - 1, true},
		{"", 0, true},
		{strings.Clone(s), 0, false}, // equal bytes elsewhere
	} {
		if off, ok := Within(b, tc.s); off != tc.off || ok != tc.ok {
			t.Errorf("Within(b, %q) = %d, %v, want %d, %v", tc.s, off, ok, tc.off, tc.ok)
		}
	}
	whole := StringView(b)
	for name, sub := range map[string]string{
		"before": whole[:i], "across its start": whole[i-1 : i+1],
		"just past": whole[i+3 : i+4], "across its end": whole[i+2 : i+4],
	} {
		if off, ok := Within(b[i:i+3], sub); ok {
			t.Errorf("Within of a string %s the slice = %d, true", name, off)
		}
	}
	if SliceHeader != 3*strconv.IntSize/8 {
		t.Errorf("SliceHeader = %d, not three words", SliceHeader)
	}
	defer func() {
		if recover() == nil {
			t.Error("SubSlice of a string outside its slice did not panic")
		}
	}()
	SubSlice(b, "elsewhere")
}
