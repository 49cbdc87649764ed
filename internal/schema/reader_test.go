package schema

import (
	"encoding/json"
	"reflect"
	"testing"
)

// members is an object's members as "name=value" in document order.
func members(o Object) []string {
	var out []string
	o.Each(func(k string, v json.RawMessage) { out = append(out, k+"="+string(v)) })
	return out
}

// TestReaderIndex: an object read from the index of its document is the
// object ReadObject reads, at any depth, repeated names included; a copy
// of its bytes is read as well, and nothing survives Reset.
func TestReaderIndex(t *testing.T) {
	doc := json.RawMessage(` {"a": {"x": 1, "y": [ {"z": true}, 2 ], "x": "last"}, "b\u0063": {}, "a2": [{"q": null}]} `)
	top, _ := ReadObject(doc)
	a := top.Get("a")
	ao, _ := ReadObject(a)
	list, _ := Array(ao.Get("y"))
	z := list[0]
	var r Reader
	r.Index(doc)
	for _, raw := range []json.RawMessage{doc, a, z, top.Get("bc"), append(json.RawMessage(nil), a...)} {
		want, _ := ReadObject(raw)
		got, ok := r.Object(raw)
		if !ok || !reflect.DeepEqual(members(got), members(want)) {
			t.Errorf("Object(%s) = %q, want %q", raw, members(got), members(want))
		}
	}
	if len(r.docs) != 1 || len(r.docs[0].objs) != 5 {
		t.Fatalf("indexed %+v, want 5 objects", r.docs)
	}
	r.Reset()
	if len(r.docs) != 0 || len(r.buf) != 0 {
		t.Errorf("after Reset: %d documents, %d members", len(r.docs), len(r.buf))
	}
	if _, ok := r.Object(json.RawMessage(`[1]`)); ok {
		t.Error("an array read as an object")
	}
}

func TestOffsetIn(t *testing.T) {
	doc := []byte(`{"a":{"b":1}}`)
	if off, ok := offsetIn(doc, doc[5:12]); !ok || off != 5 {
		t.Errorf("offsetIn(slice) = %d %v", off, ok)
	}
	if _, ok := offsetIn(doc, []byte(`{"b":1}`)); ok {
		t.Error("a copy found in the document")
	}
	if _, ok := offsetIn(doc, doc[5:12:12]); ok {
		t.Error("a slice with its capacity cut found at the wrong place")
	}
}
