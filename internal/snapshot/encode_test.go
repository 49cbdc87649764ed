package snapshot

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpx-cli/mcpx/internal/schema"
)

// TestEncodeAsEncodingJSON: Encode writes what encoding/json writes with
// two spaces of indent and no HTML escaping, byte for byte.
func TestEncodeAsEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{"b":[1,2.50,{"z":null,"a":true}],"a":{},"c":[],"d":"x"}`,
		`"<a&b> \" \\ \b\f\n\r\t \u0001 \u001f \u007f é \u2028 \u2029 \ud83d\ude00"`,
		`[[],[[]],{"":{"":[]}}]`,
		`1e400`, `-0.0`, `null`, `false`,
	} {
		v, err := schema.DecodeTree(json.RawMessage(in))
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(v)
		if got := Encode(v); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s:\n got %s\nwant %s", in, got, want.Bytes())
		}
		// the bytes, not decoded, encode the same (a repeated name: its last value)
		if got := Encode(json.RawMessage(" " + in)); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("raw %s:\n got %s\nwant %s", in, got, want.Bytes())
		}
	}
	dup := json.RawMessage(`{"a":1,"b":{"y":[],"x":"\u0041"},"a":2}`)
	if got, want := string(Encode(dup)), "{\n  \"a\": 2,\n  \"b\": {\n    \"x\": \"A\",\n    \"y\": []\n  }\n}\n"; got != want {
		t.Errorf("raw with a repeated name:\n got %s\nwant %s", got, want)
	}
	// invalid UTF-8 and the snapshot's own int
	bad := map[string]any{"s": "a\xffb", "n": 1}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(bad)
	if got := Encode(bad); !bytes.Equal(got, want.Bytes()) {
		t.Errorf("got %s\nwant %s", got, want.Bytes())
	}
}
