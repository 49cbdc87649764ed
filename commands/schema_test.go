package commands

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

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
