package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

const refDoc = `{
  "$defs": {"A": {"type": "integer"}, "Odd Name": {"enum": ["x"]}, "50%off": {"type": "boolean"}},
  "definitions": {"a/b": {"type": "string"}, "~home": {"type": "null"}, "\u0041b": 1, "dup": 1, "dup": 2},
  "items": [{"type": "object"}, {"type": "array"}],
  "scalar": 7
}`

func TestDocResolve(t *testing.T) {
	doc := New(json.RawMessage(refDoc))
	for _, tc := range []struct {
		ref  string
		want string // "" for not resolved
	}{
		{"#/$defs/A", `{"type": "integer"}`},
		{"#/definitions/a~1b", `{"type": "string"}`},
		{"#/definitions/~0home", `{"type": "null"}`},
		{"#/$defs/Odd%20Name", `{"enum": ["x"]}`},
		{"#/$defs/Odd Name", `{"enum": ["x"]}`},
		{"#/$defs/50%25off", `{"type": "boolean"}`},
		{"#/$defs/50%off", `{"type": "boolean"}`}, // a stray "%" is taken as it is
		{"#/definitions/Ab", `1`},                 // the document's key was escaped
		{"#/definitions/dup", `2`},                // the last of repeated keys
		{"#/items/1", `{"type": "array"}`},
		{"#/items/0", `{"type": "object"}`},
		{"#/scalar", `7`},
		{"#", refDoc},
		{"#/items/01", ""},
		{"#/items/2", ""},
		{"#/items/-", ""},
		{"#/items/", ""},
		{"#/scalar/x", ""},
		{"#/$defs/B", ""},
		{"#/$defs/A/type/x", ""},
		{"#/definitions/~2home", ""},
		{"#/definitions/~", ""},
		{"#A", ""},                       // an anchor name, not a pointer
		{"other.json#/$defs/A", ""},      // another document: never fetched
		{"https://x.invalid/s.json", ""}, // a URL: never fetched
		{"", ""},
		{"#/" + strings.Repeat("a/", 70) + "a", ""},
	} {
		got, ok := doc.Resolve(tc.ref)
		if tc.want == "" {
			if ok {
				t.Errorf("%q resolved to %s, want nothing", tc.ref, got)
			}
			continue
		}
		if !ok || string(got) != tc.want {
			t.Errorf("%q: %s (%v), want %s", tc.ref, got, ok, tc.want)
		}
	}
	for _, bad := range []string{``, `{"a":`, `nope`} {
		if _, ok := New(json.RawMessage(bad)).Resolve("#"); ok {
			t.Errorf("%q: an invalid document resolves", bad)
		}
	}
	var none *Doc
	if _, ok := none.Resolve("#"); ok {
		t.Error("a nil document resolves")
	}
}

func TestDocVisit(t *testing.T) {
	doc := New(json.RawMessage(`{}`))
	n := 0
	for doc.Visit(0, 100) {
		n++
	}
	if n != (spendFactor*2+spendFloor)/100 || doc.Visit(0, 0) {
		t.Errorf("a document allows %d visits of 100 bytes", n)
	}
	if New(json.RawMessage(`{}`)).Visit(MaxDepth+1, 0) {
		t.Error("a visit past MaxDepth is allowed")
	}
	var none *Doc
	if none.Visit(MaxDepth+1, 0) || !none.Visit(MaxDepth, 1<<40) {
		t.Error("without a document only the depth counts")
	}
}

func TestFollow(t *testing.T) {
	doc := New(json.RawMessage(`{"$defs":{"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"},"C":{"type":"string"}}}`))
	calls := 0
	var read func(json.RawMessage) string
	read = func(raw json.RawMessage) string {
		calls++
		o, _ := ReadObject(raw)
		ref := o.Get("$ref")
		if ref == nil {
			return Text(o.Get("type"))
		}
		v, _ := Follow(doc, "t", ref, "cycle", read)
		return "via " + v
	}
	for range 2 {
		if v, ok := FollowString(doc, "t", "#/$defs/A", "cycle", read); !ok || v != "via via cycle" {
			t.Errorf("A: %q %v", v, ok)
		}
	}
	if v, ok := FollowString(doc, "t", "#/%24defs/C", "cycle", read); !ok || v != "string" {
		t.Errorf("C: %q %v", v, ok)
	}
	if calls != 3 {
		t.Errorf("read %d times, want 3 (A, B, C once each)", calls)
	}
	if _, ok := FollowString(doc, "t", "#/$defs/D", "cycle", read); ok {
		t.Error("a dangling $ref is followed")
	}
}
