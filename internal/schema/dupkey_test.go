package schema

import (
	"encoding/json"
	"reflect"
	"testing"
)

// dupSchema repeats a property ("n": first a string, then an integer), a
// keyword ("type" of "m") and "required": every reader takes the first
// place and the last value, as JSON.parse does.
const dupSchema = `{"type":"object",
 "properties":{
  "n":{"type":"string","description":"first"},
  "m":{"type":"string","type":"boolean","enum":["x"],"enum":[true]},
  "n":{"type":"integer","description":"last","minimum":1,"minimum":2}
 },
 "required":["m"],
 "required":["n"]}`

func TestDuplicateKeysDescribe(t *testing.T) {
	want := []Param{{Name: "n", Type: "integer", Required: true, Description: "last"}, {Name: "m", Type: "true"}}
	if got := Params(json.RawMessage(dupSchema)); !reflect.DeepEqual(got, want) {
		t.Errorf("Params = %+v, want %+v", got, want)
	}
}

func TestDuplicateKeysTyping(t *testing.T) {
	in := ReadInput(json.RawMessage(dupSchema))
	if got := in.Declared(); !reflect.DeepEqual(got, []string{"n", "m"}) {
		t.Errorf("Declared = %q", got)
	}
	if !reflect.DeepEqual(in.Required, []string{"n"}) {
		t.Errorf("Required = %q", in.Required)
	}
	n, _ := in.Prop("n")
	if ty := TypeOf(in.Doc, n); ty.Str || !reflect.DeepEqual(ty.Kinds, []string{"integer"}) {
		t.Errorf("n types as %+v", ty)
	}
	m, _ := in.Prop("m")
	if set := Allowed(in.Doc, m); set == nil || len(set.Values) != 1 || string(set.Values[0]) != "true" {
		t.Errorf("m allows %+v", set)
	}
	// a $ref to a repeated name resolves to the last
	d := New(json.RawMessage(`{"$defs":{"A":{"type":"string"},"A":{"type":"number"}}}`))
	if ty := TypeOf(d, json.RawMessage(`{"$ref":"#/$defs/A"}`)); !reflect.DeepEqual(ty.Kinds, []string{"number"}) {
		t.Errorf("$ref types as %+v", ty)
	}
}

func TestDuplicateKeysForm(t *testing.T) {
	fs := Fields(json.RawMessage(dupSchema))
	if len(fs) != 2 {
		t.Fatalf("%d fields: %+v", len(fs), fs)
	}
	if f := fs[0]; f.Name != "n" || f.Kind != "integer" || f.Desc != "last" || !f.Required || *f.Min != 2 {
		t.Errorf("n: %+v", f)
	}
	if f := fs[1]; f.Name != "m" || f.Kind != "boolean" || f.Required {
		t.Errorf("m: %+v", f)
	}
}
