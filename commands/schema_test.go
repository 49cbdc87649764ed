package commands

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
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
		c0, ok := canonJSON(json.RawMessage(group[0]))
		if !ok {
			t.Fatalf("%s: not canonical", group[0])
		}
		for _, v := range group[1:] {
			if c, _ := canonJSON(json.RawMessage(v)); c != c0 {
				t.Errorf("%s is %q, %s is %q", group[0], c0, v, c)
			}
		}
		all = append(all, c0)
	}
	for _, v := range []string{`12345678901234567891`, `"1"`, `true`, `null`, `[1]`, `{"a":1}`, `0.1`, `1e401`} {
		c, _ := canonJSON(json.RawMessage(v))
		if slices.Contains(all, c) {
			t.Errorf("%s reads as %q, like a different value", v, c)
		}
	}
	if _, ok := canonJSON(json.RawMessage(`{"a":`)); ok {
		t.Error("invalid JSON has a canonical form")
	}
}

// TestSchemaReadingBounded: cycles end, and unions of $refs to unions are
// read once per definition, not once per path.
func TestSchemaReadingBounded(t *testing.T) {
	var defs []string
	for i := range 15 {
		defs = append(defs, fmt.Sprintf(`"D%d":{"anyOf":[{"$ref":"#/$defs/D%d"},{"$ref":"#/$defs/D%d"}]}`, i, i+1, i+1))
	}
	schema := json.RawMessage(`{"$defs":{` + strings.Join(defs, ",") + `,"D15":{"enum":[1,2]},` +
		`"A":{"anyOf":[{"$ref":"#/$defs/A"},{"type":"integer"}]},"B":{"allOf":[{"$ref":"#/$defs/B"}],"enum":[true]}},` +
		`"properties":{"bomb":{"$ref":"#/$defs/D0"},"a":{"$ref":"#/$defs/A"},"b":{"$ref":"#/$defs/B"}}}`)
	start := time.Now()
	for _, tc := range []struct{ args, want string }{
		{"bomb=2", `{"bomb":2}`},
		{"a=5", `{"a":"5"}`}, // a cycle in a union: untyped, so the string
		{"b=true", `{"b":true}`},
	} {
		pairs, _ := parsePairs([]string{tc.args}, true, nil, nil)
		got, _, err := toolArgs("t", nil, pairs, schema, nil)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: %s %v, want %s", tc.args, got, err, tc.want)
		}
	}
	pairs, _ := parsePairs([]string{"bomb=3"}, true, nil, nil)
	if _, _, err := toolArgs("t", nil, pairs, schema, nil); err == nil || !strings.Contains(err.Error(), "allowed values: 1, 2") {
		t.Errorf("bomb=3: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}
