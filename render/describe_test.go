package render

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

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

func TestDescribeTextFields(t *testing.T) {
	d := &Describe{CatalogItem: CatalogItem{Kind: "tool", ID: "order"},
		InputSchema: json.RawMessage(`{"$defs":{"M":{"type":"object","properties":{"a":{"type":"integer","description":"An a"},"b":{"$ref":"#/$defs/E"}},"required":["a"]},` +
			`"E":{"enum":[1,2]}},"properties":{"m":{"$ref":"#/$defs/M"},"ms":{"type":"array","items":{"$ref":"#/$defs/M"}},"e":{"$ref":"#/$defs/E"}},"required":["m"]}`)}
	want := "tool order\n\n  order(m: object, ms?: array<object>, e?: 1|2)\n\n" +
		"  PARAMETER  TYPE           REQUIRED  DESCRIPTION\n" +
		"  m          object         yes\n" +
		"    a        integer        yes       An a\n" +
		"    b        1|2            no\n" +
		"  ms         array<object>  no\n" +
		"    a        integer        yes       An a\n" +
		"    b        1|2            no\n" +
		"  e          1|2            no\n"
	if got := DescribeText(d); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestDescribeTextBigModel: every parameter names one model of many
// fields; the text lists a bounded number of them.
func TestDescribeTextBigModel(t *testing.T) {
	var fields, props []string
	for i := range 80 {
		fields = append(fields, fmt.Sprintf(`"f%d":{"type":"string"}`, i))
	}
	for i := range 30 {
		props = append(props, fmt.Sprintf(`"p%d":{"$ref":"#/$defs/Big"}`, i))
	}
	schema := `{"$defs":{"Big":{"properties":{` + strings.Join(fields, ",") + `},"type":"object"}},"properties":{` + strings.Join(props, ",") + `}}`
	text := DescribeText(&Describe{CatalogItem: CatalogItem{Kind: "tool", ID: "big"}, InputSchema: json.RawMessage(schema)})
	if !strings.Contains(text, "\n    f49      string     no\n    …        (30 more)\n  p1         object     no\n    f0 ") {
		t.Errorf("text:\n%s", text[:min(len(text), 3000)])
	}

}

// TestDescribeTextDuplicateKeys: a property named twice is listed once,
// in its first place, with its last schema.
func TestDescribeTextDuplicateKeys(t *testing.T) {
	d := &Describe{CatalogItem: CatalogItem{Kind: "tool", ID: "d"},
		InputSchema: json.RawMessage(`{"properties":{"n":{"type":"string"},"m":{},"n":{"type":"integer","description":"last"}}}`)}
	want := "tool d\n\n  d(n?: integer, m?: any)\n\n  PARAMETER  TYPE     REQUIRED  DESCRIPTION\n  n          integer  no        last\n  m          any      no\n"
	if got := DescribeText(d); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
