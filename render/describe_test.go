package render

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/tidwall/gjson"
)

func TestTemplateVariables(t *testing.T) {
	for tpl, want := range map[string][]string{
		"file:///{path}":                 {"path"},
		"x://{+path}/{id}{?q,lang}":      {"path", "id", "q", "lang"},
		"x://{a}/{a}{#frag}{/seg*}{x:3}": {"a", "frag", "seg", "x"},
		"no variables":                   nil,
		"x://{unterminated":              nil,
	} {
		if got := TemplateVariables(tpl); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %q, want %q", tpl, got, want)
		}
	}
}

func TestSchemaType(t *testing.T) {
	for schema, want := range map[string]string{
		`{"type":"string"}`:                                "string",
		`{"type":["string","null"]}`:                       "string|null",
		`{"type":"array","items":{"type":"integer"}}`:      "array<integer>",
		`{"anyOf":[{"type":"string"},{"type":"integer"}]}`: "string|integer",
		`{"type":"string","enum":["a","b"]}`:               `"a"|"b"`,
		`{"$ref":"#/$defs/x"}`:                             "ref",
		`{}`:                                               "any",
		`{"oneOf":[{"type":"object"},{"enum":[1,2]}]}`:     "object|1|2",
	} {
		if got := SchemaType(gjson.Parse(schema)); got != want {
			t.Errorf("%s: %q, want %q", schema, got, want)
		}
	}
}

func TestSchemaParamsOrder(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"z":{"type":"string","description":"last\nsecond line"},"a":{"type":"number"}},"required":["a"]}`)
	got := SchemaParams(schema)
	want := []Param{{Name: "z", Type: "string", Description: "last"}, {Name: "a", Type: "number", Required: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%+v, want %+v", got, want)
	}
	if SchemaParams(nil) != nil || SchemaParams(json.RawMessage(`{"properties":[]}`)) != nil {
		t.Error("no properties gives no params")
	}
}

func TestDescribeTextTool(t *testing.T) {
	desc := "Echo the text back.\nSecond line."
	d := &Describe{CatalogItem: CatalogItem{Kind: "tool", ID: "echo", Description: &desc},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"Text"},"n":{"type":"integer"}},"required":["text"]}`)}
	want := "tool echo\n\n  echo(text: string, n?: integer)\n\n  Echo the text back.\n  Second line.\n\n" +
		"  PARAMETER  TYPE     REQUIRED  DESCRIPTION\n  text       string   yes       Text\n  n          integer  no\n"
	if got := DescribeText(d); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestMatches(t *testing.T) {
	title, desc := "Big Title", "Some Description"
	nm := "nm"
	it := CatalogItem{ID: "x://id", Name: &nm, Title: &title, Description: &desc}
	for q, want := range map[string]bool{"X://": true, "NM": true, "big": true, "descr": true, "nope": false} {
		if it.Matches(q) != want {
			t.Errorf("%q: want %v", q, want)
		}
	}
}
