package snapshot

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func sp(s string) *string { return &s }

func TestBuild(t *testing.T) {
	info := Info{Name: "s", Version: "1.0", Protocol: "2025-06-18", Capabilities: map[string]bool{"tools": true, "prompts": false}}
	items := []Item{
		{Kind: "tool", ID: "b", Description: sp("B <tool>"), InputSchema: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string","title":"T","description":"d"}},"description":"x"}`),
			Annotations: json.RawMessage(`{"title":"B","readOnlyHint":true}`)},
		{Kind: "prompt", ID: "p", Arguments: []Argument{{Name: "x", Description: sp("an x"), Required: true}}},
		{Kind: "resource", ID: "r://a", Name: sp("a"), Size: func() *json.Number { n := json.Number("12"); return &n }()},
		{Kind: "tool", ID: "a", InputSchema: json.RawMessage(`{"z":1,"a":1.50}`)},
	}
	got, err := Build(info, items, false)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "capabilities": {
    "prompts": false,
    "tools": true
  },
  "descriptions": true,
  "items": [
    {
      "arguments": [
        {
          "description": "an x",
          "name": "x",
          "required": true,
          "title": null
        }
      ],
      "description": null,
      "key": "prompt:p",
      "kind": "prompt",
      "name": "p",
      "title": null
    },
    {
      "annotations": null,
      "description": null,
      "key": "resource:r://a",
      "kind": "resource",
      "mime_type": null,
      "name": "a",
      "size": 12,
      "title": null,
      "uri": "r://a"
    },
`
	if !bytes.HasPrefix(got, []byte(want)) {
		t.Errorf("got:\n%s", got)
	}
	for _, s := range []string{`"a": 1.50`, `"description": "B <tool>"`, `"size": 12`, `"key": "tool:a"`} {
		if !bytes.Contains(got, []byte(s)) {
			t.Errorf("no %s in\n%s", s, got)
		}
	}
	if i, j := bytes.Index(got, []byte(`"tool:a"`)), bytes.Index(got, []byte(`"tool:b"`)); i > j {
		t.Error("items not sorted by key")
	}
	again, _ := Build(info, []Item{items[3], items[2], items[1], items[0]}, false)
	if !bytes.Equal(got, again) {
		t.Error("the order items come in changes the snapshot")
	}
	bare, _ := Build(info, items, true)
	for _, s := range []string{`"description"`, `"T"`, `"B"`} {
		if bytes.Contains(bare, []byte(s)) {
			t.Errorf("--no-descriptions kept %s:\n%s", s, bare)
		}
	}
	if !bytes.Contains(bare, []byte(`"title": {`)) || !bytes.Contains(bare, []byte(`"readOnlyHint": true`)) {
		t.Errorf("--no-descriptions dropped a property named title or a hint:\n%s", bare)
	}
	if d, _ := Load(bare); d.Descriptions {
		t.Error("a --no-descriptions snapshot reads as with descriptions")
	}
	d, err := Load(got)
	if err != nil || len(d.Items) != 4 || len(Diff(d, d)) != 0 || !d.Descriptions {
		t.Errorf("Load: %v %+v", err, d)
	}
}

func TestLoadRefuses(t *testing.T) {
	for in, want := range map[string]string{
		`[]`:                             "not valid snapshot JSON",
		`{"items":[]}`:                   "not an mcpx snapshot",
		`{"mcpx_snapshot":2}`:            "snapshot format 2",
		`{"mcpx_snapshot":1,"items":{}}`: `"items" is not a list`,
		`{"mcpx_snapshot":1,"items":[{"kind":"tool"}]}`:           `item 0 has no "key"`,
		`{"mcpx_snapshot":1,"items":[{"key":"a"},{"key":"a"}]}`:   `item "a" is listed twice`,
		`{"mcpx_snapshot":1,"items":[{"key":"a"}],"server":null}`: "",
		`{"mcpx_snapshot":1,"items":[1]}`:                         `item 0 has no "key"`,
		`{"mcpx_snapshot":1,"items":[{"key":"a"}],"items":{}}`:    `"items" is not a list`,
		// Of a name given twice the last counts: items, and an item's key.
		`{"mcpx_snapshot":1,"items":[{"key":"a"},{"key":"a"}],"items":[{"key":"a"}]}`: "",
		`{"mcpx_snapshot":1,"items":[{"key":"a","k\u0065y":"b"},{"key":"b"}]}`:        `item "b" is listed twice`,
	} {
		_, err := Load([]byte(in))
		if (err == nil) != (want == "") || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}
