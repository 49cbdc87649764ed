package snapshot

import (
	"fmt"
	"strings"
	"testing"
)

// doc is a snapshot of items (JSON objects), with the given capabilities.
func doc(t *testing.T, caps string, items ...string) *Doc {
	t.Helper()
	if caps == "" {
		caps = `{"tools":true,"prompts":true,"resources":true}`
	}
	d, err := Load([]byte(`{"mcpx_snapshot":1,"server":{"name":"s","version":"1"},"protocol_version":"2025-06-18",` +
		`"capabilities":` + caps + `,"items":[` + strings.Join(items, ",") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// tool is a tool item with an input schema and extra members.
func tool(name, input string, extra ...string) string {
	s := `{"key":"tool:` + name + `","kind":"tool","name":"` + name + `","input_schema":` + input
	for _, e := range extra {
		s += "," + e
	}
	return s + "}"
}

func lines(changes []Change) []string {
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = fmt.Sprintf("%s  %s  %s  %s", c.Class, c.Key, c.Path, c.What)
	}
	return out
}

// TestDiffRules: each rule of SNAPSHOTS AND DRIFT on a pair of small
// snapshots, with the exact change it reports.
func TestDiffRules(t *testing.T) {
	obj := func(props, required string) string {
		return `{"type":"object","properties":{` + props + `},"required":[` + required + `]}`
	}
	for _, tc := range []struct {
		name     string
		old, new []string
		caps     [2]string
		want     string
	}{
		// breaking
		{name: "tool removed", old: []string{tool("a", `{}`)}, new: nil,
			want: `breaking  tool:a    tool removed`},
		{name: "prompt removed", old: []string{`{"key":"prompt:p","kind":"prompt","name":"p","arguments":[]}`},
			want: `breaking  prompt:p    prompt removed`},
		{name: "resource removed", old: []string{`{"key":"resource:r://x","kind":"resource","uri":"r://x"}`},
			want: `breaking  resource:r://x    resource removed`},
		{name: "template removed", old: []string{`{"key":"resource_template:r://{x}","kind":"resource_template","uri_template":"r://{x}"}`},
			want: `breaking  resource_template:r://{x}    resource template removed`},
		{name: "new required property",
			old:  []string{tool("search", obj(`"q":{"type":"string"}`, `"q"`))},
			new:  []string{tool("search", obj(`"q":{"type":"string"},"limit":{"type":"integer"}`, `"q","limit"`))},
			want: `breaking  tool:search  /input_schema/properties/limit  new required property "limit"`},
		{name: "property made required",
			old:  []string{tool("a", obj(`"x":{}`, ``))},
			new:  []string{tool("a", obj(`"x":{}`, `"x"`))},
			want: `breaking  tool:a  /input_schema/required  property "x" made required`},
		{name: "property removed",
			old:  []string{tool("a", obj(`"x":{},"y":{}`, ``))},
			new:  []string{tool("a", obj(`"x":{}`, ``))},
			want: `breaking  tool:a  /input_schema/properties/y  property "y" removed`},
		{name: "type changed",
			old:  []string{tool("a", obj(`"n":{"type":"integer"}`, ``))},
			new:  []string{tool("a", obj(`"n":{"type":"string"}`, ``))},
			want: `breaking  tool:a  /input_schema/properties/n/type  property "n": type changed from integer to string`},
		{name: "type narrowed",
			old:  []string{tool("a", obj(`"n":{"type":"number"}`, ``))},
			new:  []string{tool("a", obj(`"n":{"type":"integer"}`, ``))},
			want: `breaking  tool:a  /input_schema/properties/n/type  property "n": type changed from number to integer`},
		{name: "enum value removed",
			old:  []string{tool("a", obj(`"c":{"enum":["r","g"]}`, ``))},
			new:  []string{tool("a", obj(`"c":{"enum":["r"]}`, ``))},
			want: `breaking  tool:a  /input_schema/properties/c/enum  property "c": enum value "g" removed`},
		{name: "minimum raised",
			old:  []string{tool("a", obj(`"n":{"type":"integer","minimum":1}`, ``))},
			new:  []string{tool("a", obj(`"n":{"type":"integer","minimum":2}`, ``))},
			want: `breaking  tool:a  /input_schema/properties/n/minimum  property "n": minimum tightened from 1 to 2`},
		{name: "maxLength set",
			old:  []string{tool("a", obj(`"s":{"type":"string"}`, ``))},
			new:  []string{tool("a", obj(`"s":{"type":"string","maxLength":5}`, ``))},
			want: `breaking  tool:a  /input_schema/properties/s/maxLength  property "s": maxLength 5 set`},
		{name: "additionalProperties turned false",
			old:  []string{tool("a", `{"type":"object"}`)},
			new:  []string{tool("a", `{"type":"object","additionalProperties":false}`)},
			want: `breaking  tool:a  /input_schema/additionalProperties  input: additionalProperties turned false`},
		{name: "nested required property",
			old:  []string{tool("a", obj(`"c":`+obj(`"n":{}`, ``), ``))},
			new:  []string{tool("a", obj(`"c":`+obj(`"n":{},"z":{}`, `"z"`), ``))},
			want: `breaking  tool:a  /input_schema/properties/c/properties/z  new required property "c.z"`},
		{name: "prompt gains a required argument",
			old:  []string{`{"key":"prompt:p","kind":"prompt","name":"p","arguments":[]}`},
			new:  []string{`{"key":"prompt:p","kind":"prompt","name":"p","arguments":[{"name":"x","required":true}]}`},
			want: `breaking  prompt:p  /arguments/x  new required argument "x"`},
		{name: "prompt loses an argument",
			old:  []string{`{"key":"prompt:p","kind":"prompt","name":"p","arguments":[{"name":"x","required":false}]}`},
			new:  []string{`{"key":"prompt:p","kind":"prompt","name":"p","arguments":[]}`},
			want: `breaking  prompt:p  /arguments/x  argument "x" removed`},
		{name: "output loses a property",
			old:  []string{tool("a", `{}`, `"output_schema":`+obj(`"k":{"type":"string"},"v":{}`, ``))},
			new:  []string{tool("a", `{}`, `"output_schema":`+obj(`"k":{"type":"string"}`, ``))},
			want: `breaking  tool:a  /output_schema/properties/v  output property "v" removed`},
		{name: "output changes a type",
			old:  []string{tool("a", `{}`, `"output_schema":`+obj(`"k":{"type":"integer"}`, ``))},
			new:  []string{tool("a", `{}`, `"output_schema":`+obj(`"k":{"type":"number"}`, ``))},
			want: `breaking  tool:a  /output_schema/properties/k/type  output property "k": type changed from integer to number`},
		{name: "capability removed", caps: [2]string{`{"tools":true,"prompts":true}`, `{"tools":true,"prompts":false}`},
			want: `breaking  server  /capabilities/prompts  capability "prompts" removed`},
		// risky
		{name: "readOnlyHint true to false",
			old:  []string{tool("a", `{}`, `"annotations":{"readOnlyHint":true}`)},
			new:  []string{tool("a", `{}`, `"annotations":{"readOnlyHint":false}`)},
			want: `risky  tool:a  /annotations/readOnlyHint  readOnlyHint turned false (less safe)`},
		{name: "destructiveHint false to absent (true)",
			old:  []string{tool("a", `{}`, `"annotations":{"destructiveHint":false}`)},
			new:  []string{tool("a", `{}`, `"annotations":{}`)},
			want: `risky  tool:a  /annotations/destructiveHint  destructiveHint turned true (less safe)`},
		{name: "openWorldHint false to true",
			old:  []string{tool("a", `{}`, `"annotations":{"openWorldHint":false}`)},
			new:  []string{tool("a", `{}`, `"annotations":{"openWorldHint":true}`)},
			want: `risky  tool:a  /annotations/openWorldHint  openWorldHint turned true (less safe)`},
		{name: "taskSupport becomes required",
			old:  []string{tool("a", `{}`, `"execution":{"taskSupport":"optional"}`)},
			new:  []string{tool("a", `{}`, `"execution":{"taskSupport":"required"}`)},
			want: `risky  tool:a  /execution/taskSupport  task support changed from "optional" to "required"`},
		// compatible
		{name: "tool added", new: []string{tool("b", `{}`)},
			want: `compatible  tool:b    tool added`},
		{name: "optional property added",
			old:  []string{tool("a", obj(``, ``))},
			new:  []string{tool("a", obj(`"x":{"type":"string"}`, ``))},
			want: `compatible  tool:a  /input_schema/properties/x  new optional property "x"`},
		{name: "enum value added",
			old:  []string{tool("a", obj(`"c":{"enum":["r"]}`, ``))},
			new:  []string{tool("a", obj(`"c":{"enum":["r","g"]}`, ``))},
			want: `compatible  tool:a  /input_schema/properties/c/enum  property "c": enum value "g" added`},
		{name: "required made optional",
			old:  []string{tool("a", obj(`"x":{}`, `"x"`))},
			new:  []string{tool("a", obj(`"x":{}`, ``))},
			want: `compatible  tool:a  /input_schema/required  property "x" made optional`},
		{name: "type widened",
			old:  []string{tool("a", obj(`"n":{"type":"integer"}`, ``))},
			new:  []string{tool("a", obj(`"n":{"type":"number"}`, ``))},
			want: `compatible  tool:a  /input_schema/properties/n/type  property "n": type widened from integer to number`},
		{name: "capability added", caps: [2]string{`{"tools":true}`, `{"tools":true,"prompts":true}`},
			want: `compatible  server  /capabilities/prompts  capability "prompts" added`},
		// cosmetic
		{name: "description changed",
			old:  []string{tool("a", `{}`, `"description":"old"`)},
			new:  []string{tool("a", `{}`, `"description":"new"`)},
			want: `cosmetic  tool:a  /description  description changed`},
		{name: "title changed",
			old:  []string{tool("a", `{}`, `"title":"A"`)},
			new:  []string{tool("a", `{}`, `"title":"Aa"`)},
			want: `cosmetic  tool:a  /title  title changed`},
		{name: "property description changed",
			old:  []string{tool("a", obj(`"x":{"description":"one"}`, ``))},
			new:  []string{tool("a", obj(`"x":{"description":"two"}`, ``))},
			want: `cosmetic  tool:a  /input_schema/properties/x/description  property "x": description changed`},
		{name: "enum order",
			old:  []string{tool("a", obj(`"c":{"enum":["r","g"]}`, ``))},
			new:  []string{tool("a", obj(`"c":{"enum":["g","r"]}`, ``))},
			want: `cosmetic  tool:a  /input_schema/properties/c/enum  property "c": enum order changed`},
		{name: "argument order",
			old:  []string{`{"key":"prompt:p","kind":"prompt","name":"p","arguments":[{"name":"a","required":false},{"name":"b","required":false}]}`},
			new:  []string{`{"key":"prompt:p","kind":"prompt","name":"p","arguments":[{"name":"b","required":false},{"name":"a","required":false}]}`},
			want: `cosmetic  prompt:p  /arguments  argument order changed`},
		// the other rules: narrowing is breaking, widening compatible
		{name: "maximum raised",
			old:  []string{tool("a", obj(`"n":{"maximum":5}`, ``))},
			new:  []string{tool("a", obj(`"n":{"maximum":9}`, ``))},
			want: `compatible  tool:a  /input_schema/properties/n/maximum  property "n": maximum loosened from 5 to 9`},
		{name: "pattern set",
			old:  []string{tool("a", obj(`"s":{"type":"string"}`, ``))},
			new:  []string{tool("a", obj(`"s":{"type":"string","pattern":"^a"}`, ``))},
			want: `breaking  tool:a  /input_schema/properties/s/pattern  property "s": pattern "^a" set`},
		{name: "const removed",
			old:  []string{tool("a", obj(`"s":{"const":"x"}`, ``))},
			new:  []string{tool("a", obj(`"s":{}`, ``))},
			want: `compatible  tool:a  /input_schema/properties/s/const  property "s": const removed`},
		{name: "additionalProperties no longer false",
			old:  []string{tool("a", `{"additionalProperties":false}`)},
			new:  []string{tool("a", `{}`)},
			want: `compatible  tool:a  /input_schema/additionalProperties  input: additionalProperties no longer false`},
		{name: "anyOf member removed",
			old: []string{tool("a", obj(`"v":{"anyOf":[{"type":"string"},{"type":"integer"}]}`, ``))},
			new: []string{tool("a", obj(`"v":{"anyOf":[{"type":"string"},{"type":"null"}]}`, ``))},
			want: "breaking  tool:a  /input_schema/properties/v/anyOf  property \"v\": anyOf member removed\n" +
				`compatible  tool:a  /input_schema/properties/v/anyOf  property "v": anyOf member added`},
		{name: "array items constrained",
			old:  []string{tool("a", obj(`"l":{"type":"array"}`, ``))},
			new:  []string{tool("a", obj(`"l":{"type":"array","items":{"type":"string"}}`, ``))},
			want: `breaking  tool:a  /input_schema/properties/l/items  property "l": items now constrained`},
		{name: "array items narrowed",
			old:  []string{tool("a", obj(`"l":{"type":"array","items":{"type":"number"}}`, ``))},
			new:  []string{tool("a", obj(`"l":{"type":"array","items":{"type":"integer"}}`, ``))},
			want: `breaking  tool:a  /input_schema/properties/l/items/type  property "l[]": type changed from number to integer`},
		{name: "output schema removed",
			old:  []string{tool("a", `{}`, `"output_schema":{"type":"object"}`)},
			new:  []string{tool("a", `{}`, `"output_schema":null`)},
			want: `breaking  tool:a  /output_schema  output schema removed`},
		{name: "output property no longer required",
			old:  []string{tool("a", `{}`, `"output_schema":`+obj(`"k":{}`, `"k"`))},
			new:  []string{tool("a", `{}`, `"output_schema":`+obj(`"k":{}`, ``))},
			want: `risky  tool:a  /output_schema/required  output property "k" no longer required`},
		{name: "output property added",
			old:  []string{tool("a", `{}`, `"output_schema":`+obj(``, ``))},
			new:  []string{tool("a", `{}`, `"output_schema":`+obj(`"k":{}`, ``))},
			want: `compatible  tool:a  /output_schema/properties/k  new output property "k"`},
		{name: "MIME type changed",
			old:  []string{`{"key":"resource:r://x","kind":"resource","uri":"r://x","mime_type":"text/plain"}`},
			new:  []string{`{"key":"resource:r://x","kind":"resource","uri":"r://x","mime_type":"text/markdown"}`},
			want: `risky  resource:r://x  /mime_type  MIME type changed from "text/plain" to "text/markdown"`},
		{name: "annotation made safer",
			old:  []string{tool("a", `{}`, `"annotations":{"destructiveHint":true}`)},
			new:  []string{tool("a", `{}`, `"annotations":{"destructiveHint":false}`)},
			want: `compatible  tool:a  /annotations/destructiveHint  destructiveHint turned false (safer)`},
		{name: "prompt argument made optional",
			old:  []string{`{"key":"prompt:p","kind":"prompt","name":"p","arguments":[{"name":"x","required":true}]}`},
			new:  []string{`{"key":"prompt:p","kind":"prompt","name":"p","arguments":[{"name":"x","required":false}]}`},
			want: `compatible  prompt:p  /arguments/x/required  argument "x" made optional`},
		// no change
		{name: "a model moved into $defs",
			old:  []string{tool("a", obj(`"c":{"type":"object","properties":{"n":{"type":"integer"}}}`, ``))},
			new:  []string{tool("a", `{"$defs":{"C":{"type":"object","properties":{"n":{"type":"integer"}}}},"type":"object","properties":{"c":{"$ref":"#/$defs/C"}},"required":[]}`)},
			want: ``},
		{name: "numbers by value, keys in any order",
			old:  []string{tool("a", `{"type":"object","properties":{"n":{"minimum":1}}}`)},
			new:  []string{tool("a", `{"properties":{"n":{"minimum":1.0}},"type":"object"}`)},
			want: ``},
		{name: "the same subschema, spelled otherwise, and equal bytes on both sides",
			old:  []string{tool("a", `{"type":"object","properties":{"n":{"enum":[1,"x"]},"m":{"type":"string"}},"required":["n"]}`)},
			new:  []string{tool("a", `{"required":[ "n" ],"properties":{"m":{"type":"string"},"n":{"enum":[1.0,"\u0078"]}},"type":"object"}`)},
			want: ``},
		{name: "a description that speaks of a ref, with no $ref",
			old:  []string{tool("a", obj(`"c":{"type":"string","description":"a ref"}`, ``))},
			new:  []string{tool("a", obj(`"c":{"type":"integer","description":"a ref"}`, ``))},
			want: `breaking  tool:a  /input_schema/properties/c/type  property "c": type changed from string to integer`},
		{name: "a keyword whose value is not what it should be, alike on both sides",
			old:  []string{tool("a", `{"uniqueItems":{},"minimum":[1],"type":"string"}`)},
			new:  []string{tool("a", `{"uniqueItems":{},"minimum":[1],"type":"integer"}`)},
			want: `breaking  tool:a  /input_schema/type  input: type changed from string to integer`},
		{name: "a remote $ref is compared as sent, never fetched",
			old:  []string{tool("a", obj(`"c":{"$ref":"https://x.invalid/a.json"}`, ``))},
			new:  []string{tool("a", obj(`"c":{"$ref":"https://x.invalid/b.json"}`, ``))},
			want: `risky  tool:a  /input_schema/properties/c/$ref  property "c": keyword $ref changed`},
	} {
		got := strings.Join(lines(Diff(doc(t, tc.caps[0], tc.old...), doc(t, tc.caps[1], tc.new...))), "\n")
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestDiffServer: the server's name, version and protocol are cosmetic.
func TestDiffServer(t *testing.T) {
	old, _ := Load([]byte(`{"mcpx_snapshot":1,"server":{"name":"s","version":"1.0"},"protocol_version":"2025-06-18","capabilities":{},"items":[]}`))
	new, _ := Load([]byte(`{"mcpx_snapshot":1,"server":{"name":"s","version":"1.1"},"protocol_version":"2025-11-25","capabilities":{},"items":[]}`))
	want := "cosmetic  server  /protocol_version  server protocol_version changed from \"2025-06-18\" to \"2025-11-25\"\n" +
		`cosmetic  server  /version  server version changed from "1.0" to "1.1"`
	if got := strings.Join(lines(Diff(old, new)), "\n"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestDiffOrder: grouped by class, most severe first, then by key.
func TestDiffOrder(t *testing.T) {
	old := doc(t, "", tool("a", `{}`, `"description":"x"`), tool("b", `{}`), tool("c", `{}`, `"annotations":{"readOnlyHint":true}`))
	new := doc(t, "", tool("a", `{}`, `"description":"y"`), tool("c", `{}`), tool("d", `{}`))
	want := "breaking  tool:b    tool removed\nrisky  tool:c  /annotations/readOnlyHint  readOnlyHint turned false (less safe)\n" +
		"compatible  tool:d    tool added\ncosmetic  tool:a  /description  description changed"
	if got := strings.Join(lines(Diff(old, new)), "\n"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if c := Counts(Diff(old, new)); c[Breaking] != 1 || c[Risky] != 1 || c[Compatible] != 1 || c[Cosmetic] != 1 {
		t.Errorf("counts %v", c)
	}
}
