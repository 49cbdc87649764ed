package text

import (
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
	defer func() {
		if recover() == nil {
			t.Error("SubSlice of a string outside its slice did not panic")
		}
	}()
	SubSlice(b, "elsewhere")
}
