package schema

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestCanonJSON(t *testing.T) {
	same := [][]string{
		{`1`, `1.0`, `10e-1`, `0.1e1`, `1E0`, `1.000`},
		{`0`, `-0`, `0.0`, `0e5`, `-0.000e-3`},
		{`-25`, `-2.5e1`, `-250e-1`},
		{`100`, `1e2`, `1E+2`, `100.0`},
		{`1e400`, `10e399`},
		{`12345678901234567890`, `1234567890123456789e1`},
		{`"a\u0062"`, `"ab"`},
		{`{"a":1,"b":[true,null]}`, `{ "b" : [true, null], "a" : 1.0 }`, `{"a":2,"b":[true,null],"a":1}`},
	}
	var all []string
	for _, group := range same {
		c0, ok := Canon(json.RawMessage(group[0]))
		if !ok {
			t.Fatalf("%s: not canonical", group[0])
		}
		for _, v := range group[1:] {
			if c, _ := Canon(json.RawMessage(v)); c != c0 {
				t.Errorf("%s is %q, %s is %q", group[0], c0, v, c)
			}
		}
		all = append(all, c0)
	}
	for _, v := range []string{`12345678901234567891`, `"1"`, `true`, `null`, `[1]`, `{"a":1}`, `0.1`, `1e401`} {
		c, _ := Canon(json.RawMessage(v))
		if slices.Contains(all, c) {
			t.Errorf("%s reads as %q, like a different value", v, c)
		}
	}
	if _, ok := Canon(json.RawMessage(`{"a":`)); ok {
		t.Error("invalid JSON has a canonical form")
	}
}
