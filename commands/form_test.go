package commands

import (
	"encoding/json"
	"testing"

	"github.com/mcpx-cli/mcpx/internal/schema"
)

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func TestObject(t *testing.T) {
	fields := []schema.Field{{Name: "z"}, {Name: "a\"b"}, {Name: "m"}, {Name: "a"}}
	for _, tc := range []struct {
		values map[string]json.RawMessage
		want   string
	}{
		{map[string]json.RawMessage{"a": raw(`1`), "z": raw(`{ "k" : [1, 2] }`), "extra": raw(`2`), `a"b`: raw(` "q" `)},
			`{"z":{"k":[1,2]},"a\"b":"q","a":1}`},
		{map[string]json.RawMessage{"m": raw(`[]`)}, `{"m":[]}`},
		{nil, `{}`},
	} {
		if got := string(object(fields, tc.values)); got != tc.want {
			t.Errorf("object = %s, want %s", got, tc.want)
		}
	}
}
