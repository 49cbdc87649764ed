package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestLabel(t *testing.T) {
	for schema, want := range map[string]string{
		`{"type":"string"}`:                                "string",
		`{"type":["string","null"]}`:                       "string|null",
		`{"type":"array","items":{"type":"integer"}}`:      "array<integer>",
		`{"anyOf":[{"type":"string"},{"type":"integer"}]}`: "string|integer",
		`{"type":"string","enum":["a","b"]}`:               `"a"|"b"`,
		`{"$ref":"#/$defs/x"}`:                             "ref",
		`{}`:                                               "any",
		`{"oneOf":[{"type":"object"},{"enum":[1,2]}]}`:     "object|1|2",
		// the Go SDK's slices: a nullable array keeps its items' type
		`{"type":["null","array"],"items":{"type":"string"}}`: "null|array<string>",
		`{"type":["array","null"]}`:                           "array|null",
	} {
		if got := Label(nil, json.RawMessage(schema)); got != want {
			t.Errorf("%s: %q, want %q", schema, got, want)
		}
	}
}

func TestParamsOrder(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"z":{"type":"string","description":"last\nsecond line"},"a":{"type":"number"}},"required":["a"]}`)
	got := Params(schema)
	want := []Param{{Name: "z", Type: "string", Description: "last"}, {Name: "a", Type: "number", Required: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%+v, want %+v", got, want)
	}
	if Params(nil) != nil || Params(json.RawMessage(`{"properties":[]}`)) != nil {
		t.Error("no properties gives no params")
	}
}

func TestLabelRefs(t *testing.T) {
	const defs = `"$defs": {
	  "Color": {"enum": ["red", "green"], "type": "string", "title": "Color"},
	  "Model": {"type": "object", "properties": {"a": {"type": "string"}}},
	  "Alias": {"$ref": "#/$defs/Model"},
	  "Loop": {"$ref": "#/$defs/Loop2"}, "Loop2": {"$ref": "#/$defs/Loop"},
	  "Items": {"type": "array", "items": {"$ref": "#/$defs/Items"}},
	  "Str": {"type": "string"}
	}`
	for schema, want := range map[string]string{
		`{"$ref": "#/$defs/Color"}`:                                         `"red"|"green"`,
		`{"allOf": [{"$ref": "#/$defs/Color"}], "description": "d"}`:        `"red"|"green"`,
		`{"anyOf": [{"$ref": "#/$defs/Model"}, {"type": "null"}]}`:          "object|null",
		`{"anyOf": [{"$ref": "#/$defs/Model"}, {"$ref": "#/$defs/Alias"}]}`: "object",
		`{"type": "array", "items": {"$ref": "#/$defs/Alias"}}`:             "array<object>",
		`{"allOf": [{"$ref": "#/$defs/Str"}, {"$ref": "#/$defs/Model"}]}`:   "string&object",
		`{"allOf": [{"description": "only words"}]}`:                        "any",
		`{"$ref": "#/$defs/Loop"}`:                                          "any",
		`{"$ref": "#/$defs/Nope"}`:                                          "ref",
		`{"$ref": "https://x.invalid/s.json"}`:                              "ref",
		`{"$ref": 7}`:                                                       "ref",
		`{"const": "only"}`:                                                 `"only"`,
		`{"$ref": "#/$defs/Model", "type": "string"}`:                       "string",
	} {
		doc := New(json.RawMessage(`{` + defs + `, "properties": {"p": ` + schema + `}}`))
		if got := Label(doc, json.RawMessage(schema)); got != want {
			t.Errorf("%s: %q, want %q", schema, got, want)
		}
	}
	// an array of itself: the cycle ends at once
	doc := New(json.RawMessage(`{` + defs + `}`))
	if got := Label(doc, json.RawMessage(`{"$ref": "#/$defs/Items"}`)); got != "array<any>" {
		t.Errorf("a self-nested array reads %q", got)
	}
	// a chain of $refs longer than MaxDepth reads as unknown
	var chain []string
	for i := range MaxDepth + 5 {
		chain = append(chain, fmt.Sprintf(`"C%d":{"$ref":"#/$defs/C%d"}`, i, i+1))
	}
	doc = New(json.RawMessage(`{"$defs":{` + strings.Join(chain, ",") + fmt.Sprintf(`,"C%d":{"type":"integer"}}}`, MaxDepth+5)))
	if got := Label(doc, json.RawMessage(`{"$ref": "#/$defs/C0"}`)); got != "any" {
		t.Errorf("a long chain reads %q", got)
	}
	if got := Label(doc, json.RawMessage(`{"$ref": "#/$defs/C10"}`)); got != "integer" {
		t.Errorf("a shorter chain reads %q", got)
	}
}

// unionBomb is a schema whose $defs D0..D(n-1) are each a union of two
// $refs to the next: reading it naively visits 2^n subschemas.
func unionBomb(n int) string {
	var b strings.Builder
	b.WriteString(`{"$defs":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"D%d":{"anyOf":[{"$ref":"#/$defs/D%d"},{"$ref":"#/$defs/D%d"}]}`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `,"D%d":{"type":"string"}},"properties":{"p":{"$ref":"#/$defs/D0"},"q":{"$ref":"#/$defs/D%d"}}}`, n, n-1)
	return b.String()
}

func TestParamsUnionBomb(t *testing.T) {
	// each $ref target is read once: 2^n readings become n
	if params := Params(json.RawMessage(unionBomb(15))); len(params) != 2 || params[0].Type != "string" || params[1].Type != "string" {
		t.Errorf("params %+v", params)
	}
	// deeper than MaxDepth, readings cut short are not kept: the budget
	// of the document ends them, and what is left reads as unknown
	start := time.Now()
	params := Params(json.RawMessage(unionBomb(40)))
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("reading took %v", d)
	}
	if len(params) != 2 || params[0].Type != "any" {
		t.Errorf("params %+v", params)
	}
}

// TestParamsBigModel: every parameter names one model of many
// fields; describe lists a bounded number of them.
func TestParamsBigModel(t *testing.T) {
	var fields, props []string
	for i := range 80 {
		fields = append(fields, fmt.Sprintf(`"f%d":{"type":"string"}`, i))
	}
	for i := range 30 {
		props = append(props, fmt.Sprintf(`"p%d":{"$ref":"#/$defs/Big"}`, i))
	}
	schema := `{"$defs":{"Big":{"properties":{` + strings.Join(fields, ",") + `},"type":"object"}},"properties":{` + strings.Join(props, ",") + `}}`
	params := Params(json.RawMessage(schema))
	rows := 0
	for i, p := range params {
		rows += len(p.Fields)
		if len(p.Fields)+p.MoreFields != 80 || len(p.Fields) > maxFields {
			t.Fatalf("param %d: %d fields and %d more", i, len(p.Fields), p.MoreFields)
		}
	}
	if rows != maxFieldRows || len(params[29].Fields) != 0 || len(params[0].Fields) != maxFields {
		t.Errorf("%d field rows", rows)
	}
}

// pydanticSchema is what pydantic v2 writes for a FastMCP tool taking a
// model, an enum (in allOf, with a description), Optional[model], a list of
// models and a recursive model.
const pydanticSchema = `{"$defs":{
  "Address":{"properties":{"street":{"title":"Street","type":"string"},"zip":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"title":"Zip"}},"required":["street"],"title":"Address","type":"object"},
  "Color":{"enum":["red","green"],"title":"Color","type":"string"},
  "Customer":{"description":"Who orders.\nMore.","properties":{"name":{"title":"Name","type":"string","description":"Full name"},"address":{"$ref":"#/$defs/Address"}},"required":["name"],"title":"Customer","type":"object"},
  "Node":{"properties":{"label":{"type":"string"},"children":{"items":{"$ref":"#/$defs/Node"},"type":"array"}},"required":["label"],"type":"object"}},
 "properties":{
  "customer":{"$ref":"#/$defs/Customer"},
  "color":{"allOf":[{"$ref":"#/$defs/Color"}],"description":"Colour"},
  "ship":{"anyOf":[{"$ref":"#/$defs/Address"},{"type":"null"}],"default":null},
  "lines":{"items":{"$ref":"#/$defs/Address"},"type":"array"},
  "tree":{"$ref":"#/$defs/Node"},
  "tags":{"items":{"type":"string"},"type":"array"},
  "either":{"anyOf":[{"$ref":"#/$defs/Address"},{"$ref":"#/$defs/Node"}]},
  "empty":{"type":"object","properties":{}}},
 "required":["customer","color"],"type":"object"}`

func TestParamsFields(t *testing.T) {
	address := []Param{{Name: "street", Type: "string", Required: true}, {Name: "zip", Type: "string|null"}}
	want := []Param{
		{Name: "customer", Type: "object", Required: true, Description: "Who orders.", Fields: []Param{
			{Name: "name", Type: "string", Required: true, Description: "Full name"},
			{Name: "address", Type: "object"}, // one level: its own fields are not listed
		}},
		{Name: "color", Type: `"red"|"green"`, Required: true, Description: "Colour"},
		{Name: "ship", Type: "object|null", Fields: address},
		{Name: "lines", Type: "array<object>", Fields: address},
		{Name: "tree", Type: "object", Fields: []Param{
			{Name: "label", Type: "string", Required: true}, {Name: "children", Type: "array<object>"}}},
		{Name: "tags", Type: "array<string>"},
		{Name: "either", Type: "object"}, // two models: which one's fields is not known
		{Name: "empty", Type: "object"},
	}
	got := Params(json.RawMessage(pydanticSchema))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("\n got %+v\nwant %+v", got, want)
	}
}

// The Go SDK (jsonschema-go) types every Go slice as ["null","array"]:
// describe lists the fields of its objects like those of any array.
func TestParamsNullableArray(t *testing.T) {
	schema := `{"type":"object","properties":{"entities":{"type":["null","array"],"items":{"type":"object",` +
		`"properties":{"name":{"type":"string"},"observations":{"type":["null","array"],"items":{"type":"string"}}},` +
		`"required":["name","observations"],"additionalProperties":false}}},"required":["entities"],"additionalProperties":false}`
	want := []Param{{Name: "entities", Type: "null|array<object>", Required: true, Fields: []Param{
		{Name: "name", Type: "string", Required: true},
		{Name: "observations", Type: "null|array<string>", Required: true},
	}}}
	if got := Params(json.RawMessage(schema)); !reflect.DeepEqual(got, want) {
		t.Errorf("\n got %+v\nwant %+v", got, want)
	}
}
