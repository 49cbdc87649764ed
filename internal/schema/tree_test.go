package schema

import (
	"encoding/json"
	"testing"
)

func treeText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestExpand(t *testing.T) {
	for in, want := range map[string]string{
		`{"$defs":{"A":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/A","description":"d"}}}`: `{"properties":{"a":{"description":"d","type":"integer"}}}`,
		`{"definitions":{"a/b":{"enum":[1]}},"items":{"$ref":"#/definitions/a~1b"}}`:                   `{"items":{"enum":[1]}}`,
		`{"properties":{"r":{"$ref":"https://x.invalid/s.json"}}}`:                                     `{"properties":{"r":{"$ref":"https://x.invalid/s.json"}}}`,
		`{"properties":{"r":{"$ref":"#/nothing"}}}`:                                                    `{"properties":{"r":{"$ref":"#/nothing"}}}`,
		// a cycle stays a $ref where it meets itself again
		`{"$defs":{"N":{"properties":{"c":{"$ref":"#/$defs/N"}}}},"properties":{"n":{"$ref":"#/$defs/N"}}}`: `{"properties":{"n":{"properties":{"c":{"$ref":"#/$defs/N"}}}}}`,
		`{"$defs":{"T":true},"properties":{"t":{"$ref":"#/$defs/T"}}}`:                                      `{"properties":{"t":true}}`,
		`{"anyOf":[{"$ref":"#"}]}`: `{"anyOf":[{"anyOf":[{"$ref":"#"}]}]}`,
	} {
		v, err := DecodeTree(json.RawMessage(in))
		if err != nil {
			t.Fatal(err)
		}
		if got := treeText(Expand(v)); got != want {
			t.Errorf("Expand(%s)\n got %s\nwant %s", in, got, want)
		}
	}
}

func TestExpandBounded(t *testing.T) {
	// every property names a union of a model that names the union: the
	// budget ends the expansion
	v, _ := DecodeTree(json.RawMessage(`{"$defs":{"U":{"anyOf":[{"$ref":"#/$defs/M"},{"$ref":"#/$defs/M"}]},` +
		`"M":{"properties":{"a":{"$ref":"#/$defs/U2"},"b":{"$ref":"#/$defs/U2"}}},"U2":{"anyOf":[{"$ref":"#/$defs/M2"},{"$ref":"#/$defs/M2"}]},` +
		`"M2":{"properties":{"a":{"$ref":"#/$defs/U"},"b":{"$ref":"#/$defs/U"}}}},"properties":{"p":{"$ref":"#/$defs/U"}}}`))
	if Expand(v) == nil {
		t.Error("no expansion")
	}
}

func TestStripAnnotations(t *testing.T) {
	v, _ := DecodeTree(json.RawMessage(`{"title":"T","description":"D","properties":{"title":{"type":"string","description":"x"}},` +
		`"items":[{"title":"i"}],"anyOf":[{"description":"u"}],"default":{"title":"kept"}}`))
	want := `{"anyOf":[{}],"default":{"title":"kept"},"items":[{}],"properties":{"title":{"type":"string"}}}`
	if got := treeText(StripAnnotations(v)); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestTreeTypes(t *testing.T) {
	for in, want := range map[string]string{`{"type":"string"}`: `["string"]`, `{"type":["a",1,"b"]}`: `["a","b"]`, `{}`: `null`, `true`: `null`} {
		v, _ := DecodeTree(json.RawMessage(in))
		if got := treeText(TreeTypes(v)); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
