package uritemplate

import (
	"reflect"
	"testing"

	"github.com/mcpx-cli/mcpx/internal/fail"
)

func TestExpand(t *testing.T) {
	for _, tc := range []struct {
		tpl  string
		vars map[string]string
		want string
	}{
		{"file:///{path}", map[string]string{"path": "notes.txt"}, "file:///notes.txt"},
		{"x://items/{id}", map[string]string{"id": "42"}, "x://items/42"},
		{"x://{a}/{b}", map[string]string{"a": "1", "b": "2"}, "x://1/2"},
		{"x://{a}/{a}", map[string]string{"a": "v"}, "x://v/v"},
		{"{a}{b}", map[string]string{"a": "1", "b": "2"}, "12"},
		{"x://{a}", map[string]string{"a": ""}, "x://"},
		{"x://{a}", map[string]string{"a": "AZaz09-._~"}, "x://AZaz09-._~"},
		{"x://{a}", map[string]string{"a": "a b/c?d#e&f=g+h%i"}, "x://a%20b%2Fc%3Fd%23e%26f%3Dg%2Bh%25i"},
		{"x://{a}", map[string]string{"a": "{}"}, "x://%7B%7D"},
		{"x://{a}", map[string]string{"a": "é"}, "x://%C3%A9"},
		{"x://{a}", map[string]string{"a": "世"}, "x://%E4%B8%96"},
		{"x://{a}", map[string]string{"a": "😀"}, "x://%F0%9F%98%80"},
		{"x://{a}", map[string]string{"a": "\x00\xff\n"}, "x://%00%FF%0A"},
		{"x://{a_b.c1}", map[string]string{"a_b.c1": "v"}, "x://v"},
		{"x://{a%20b}", map[string]string{"a%20b": "v"}, "x://v"},
		{"x://{_}", map[string]string{"_": "v"}, "x://v"},
		{"x://é/{a}?q=1&r", map[string]string{"a": "v"}, "x://é/v?q=1&r"},
		{"x://plain", nil, "x://plain"},
		{"x://plain", map[string]string{}, "x://plain"},
		{"", nil, ""},
	} {
		got, err := Expand(tc.tpl, tc.vars)
		if err != nil || got != tc.want {
			t.Errorf("Expand(%q, %v) = %q, %v; want %q", tc.tpl, tc.vars, got, err, tc.want)
		}
	}
}

func TestExpandErrors(t *testing.T) {
	const level1 = "; mcpx expands level 1 only: {var} replaced by the percent-encoded value"
	for _, tc := range []struct {
		tpl  string
		vars map[string]string
		want refusal
	}{
		// beyond level 1: refused whatever the pairs
		{"x://{+path}", map[string]string{"path": "a"}, refusal{Expression: "{+path}", Variables: []string{"path"},
			Msg: `the template uses "{+path}", a reserved expansion (RFC 6570 level 2)` + level1}},
		{"x://{#f}", nil, refusal{Expression: "{#f}", Variables: []string{"f"},
			Msg: `the template uses "{#f}", a fragment expansion (RFC 6570 level 2)` + level1}},
		{"x://{.a}", nil, refusal{Expression: "{.a}", Variables: []string{"a"},
			Msg: `the template uses "{.a}", a label expansion with dot prefix (RFC 6570 level 3)` + level1}},
		{"x://{/a*}", nil, refusal{Expression: "{/a*}", Variables: []string{"a"},
			Msg: `the template uses "{/a*}", a path segment expansion (RFC 6570 level 3)` + level1}},
		{"x://{;a}", nil, refusal{Expression: "{;a}", Variables: []string{"a"},
			Msg: `the template uses "{;a}", a path-style parameter expansion (RFC 6570 level 3)` + level1}},
		{"x://{?q,lang}", map[string]string{"q": "1"}, refusal{Expression: "{?q,lang}", Variables: []string{"q", "lang"},
			Msg: `the template uses "{?q,lang}", a form-style query expansion (RFC 6570 level 3)` + level1}},
		{"x://{a}{&q}", nil, refusal{Expression: "{&q}", Variables: []string{"q"},
			Msg: `the template uses "{&q}", a form-style query continuation (RFC 6570 level 3)` + level1}},
		{"x://{=a}", nil, refusal{Expression: "{=a}", Variables: []string{"a"},
			Msg: `the template uses "{=a}", whose operator "=" RFC 6570 reserves for future extensions` + level1}},
		{"x://{,a}", nil, refusal{Expression: "{,a}", Variables: []string{"a"},
			Msg: `the template uses "{,a}", whose operator "," RFC 6570 reserves for future extensions` + level1}},
		{"x://{!a}", nil, refusal{Expression: "{!a}", Variables: []string{"a"},
			Msg: `the template uses "{!a}", whose operator "!" RFC 6570 reserves for future extensions` + level1}},
		{"x://{@a}", nil, refusal{Expression: "{@a}", Variables: []string{"a"},
			Msg: `the template uses "{@a}", whose operator "@" RFC 6570 reserves for future extensions` + level1}},
		{"x://{|a}", nil, refusal{Expression: "{|a}", Variables: []string{"a"},
			Msg: `the template uses "{|a}", whose operator "|" RFC 6570 reserves for future extensions` + level1}},
		{"x://{a,b}", map[string]string{"a": "1", "b": "2"}, refusal{Expression: "{a,b}", Variables: []string{"a", "b"},
			Msg: `the template uses "{a,b}", an expression with several variables (RFC 6570 level 3)` + level1}},
		{"x://{a:3}", map[string]string{"a": "1"}, refusal{Expression: "{a:3}", Variables: []string{"a"},
			Msg: `the template uses "{a:3}", a prefix modifier ":N" (RFC 6570 level 4)` + level1}},
		{"x://{a*}", map[string]string{"a": "1"}, refusal{Expression: "{a*}", Variables: []string{"a"},
			Msg: `the template uses "{a*}", an explode modifier "*" (RFC 6570 level 4)` + level1}},
		{"x://{a}/{b*}", map[string]string{"zz": "1"}, refusal{Expression: "{b*}", Variables: []string{"b"},
			Msg: `the template uses "{b*}", an explode modifier "*" (RFC 6570 level 4)` + level1}},

		// malformed expressions
		{"x://{}", nil, refusal{Expression: "{}",
			Msg: `the template has an empty expression "{}" at byte 4: a variable is written {name}`}},
		{"x://{a-b}", nil, refusal{Expression: "{a-b}",
			Msg: `the template has an invalid variable name in "{a-b}" at byte 4: a name is letters, digits, "_" and %XX escapes, with single dots between`}},
		{"x://{a..b}", nil, refusal{Expression: "{a..b}",
			Msg: `the template has an invalid variable name in "{a..b}" at byte 4: a name is letters, digits, "_" and %XX escapes, with single dots between`}},
		{"{a.}", nil, refusal{Expression: "{a.}",
			Msg: `the template has an invalid variable name in "{a.}" at byte 0: a name is letters, digits, "_" and %XX escapes, with single dots between`}},
		{"{a%2}", nil, refusal{Expression: "{a%2}",
			Msg: `the template has an invalid variable name in "{a%2}" at byte 0: a name is letters, digits, "_" and %XX escapes, with single dots between`}},
		{"{a%zz}", nil, refusal{Expression: "{a%zz}",
			Msg: `the template has an invalid variable name in "{a%zz}" at byte 0: a name is letters, digits, "_" and %XX escapes, with single dots between`}},
		{"{ a}", nil, refusal{Expression: "{ a}",
			Msg: `the template has an invalid variable name in "{ a}" at byte 0: a name is letters, digits, "_" and %XX escapes, with single dots between`}},
		{"{é}", nil, refusal{Expression: "{é}",
			Msg: `the template has an invalid variable name in "{é}" at byte 0: a name is letters, digits, "_" and %XX escapes, with single dots between`}},

		// unbalanced braces
		{"x://{a", nil, refusal{Msg: `the template has a "{" at byte 4 with no "}" to close it: "{a"`}},
		{"x://a}/b", nil, refusal{Msg: `the template has a "}" at byte 5 with no "{" before it: "}/b"`}},
		{"x://{a}}", map[string]string{"a": "1"}, refusal{Msg: `the template has a "}" at byte 7 with no "{" before it: "}"`}},
		{"x://{a{b}", nil, refusal{Msg: `the template has a "{" at byte 4 that is not closed before the next "{": "{a{b}"`}},
		{"x://{aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", nil,
			refusal{Msg: `the template has a "{" at byte 4 with no "}" to close it: "{aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"...`}},
		{"x://{éééééééééééééééééééé", nil,
			refusal{Msg: `the template has a "{" at byte 4 with no "}" to close it: "{ééééééééééééééééééé"...`}},

		// pairs and variables
		{"x://{a}/{b}", nil, refusal{Variables: []string{"a", "b"},
			Msg: `the URI "x://{a}/{b}" is a template with variables a, b: give their values as VAR=VALUE pairs (a=VALUE b=VALUE)`}},
		{"x://{a}/{a}", map[string]string{}, refusal{Variables: []string{"a"},
			Msg: `the URI "x://{a}/{a}" is a template with the variable a: give its value as a VAR=VALUE pair (a=VALUE)`}},
		{"x://{a}/{b}/{c}", map[string]string{"b": "1"}, refusal{Variables: []string{"a", "c"},
			Msg: `no value for the template variables a, c of "x://{a}/{b}/{c}": give them as a=VALUE c=VALUE`}},
		{"x://{a}/{b}", map[string]string{"a": "1"}, refusal{Variables: []string{"b"},
			Msg: `no value for the template variable b of "x://{a}/{b}": give it as b=VALUE`}},
		{"x://{a}", map[string]string{"a": "1", "zz": "2", "b c": "3"}, refusal{Variables: []string{"b c", "zz"},
			Msg: `unknown template variables "b c", "zz"; the only variable of "x://{a}" is a`}},
		{"x://{a}/{b}", map[string]string{"a": "1", "z": "2"}, refusal{Variables: []string{"z"},
			Msg: `unknown template variable "z"; the variables of "x://{a}/{b}" are a, b`}},
		{"x://{path}", map[string]string{"pth": "1"}, refusal{Variables: []string{"pth"},
			Msg: `unknown template variable "pth"; the only variable of "x://{path}" is path`}},
		{"x://plain", map[string]string{"b": "2", "a": "1"}, refusal{Variables: []string{"a", "b"},
			Msg: `the URI "x://plain" is not a template, so it takes no VAR=VALUE pairs (given: "a", "b")`}},
	} {
		got, err := Expand(tc.tpl, tc.vars)
		te, ok := fail.As(err, fail.Usage)
		if !ok {
			t.Errorf("Expand(%q, %v) = %q, %v; want a usage error", tc.tpl, tc.vars, got, err)
			continue
		}
		if got != "" || te.Message != tc.want.Msg || te.Error() != tc.want.Msg || te.Name != tc.want.Expression ||
			!reflect.DeepEqual(te.Known, tc.want.Variables) {
			t.Errorf("Expand(%q, %v):\n got %q, %+v\nwant %+v", tc.tpl, tc.vars, got, *te, tc.want)
		}
	}
}

func TestValidVarname(t *testing.T) {
	for name, want := range map[string]bool{
		"a": true, "A9_": true, "a.b": true, "a.b.c": true, "%41": true, "a%2Fb": true, "_": true, "9": true,
		"": false, ".": false, ".a": false, "a.": false, "a..b": false, "a-b": false, "a b": false,
		"%": false, "%4": false, "%4g": false, "é": false, "a~": false,
	} {
		if got := validVarname(name); got != want {
			t.Errorf("validVarname(%q) = %v, want %v", name, got, want)
		}
	}
}

// refusal is what a refusal of Expand says: its message, the offending
// expression and the variables concerned.
type refusal struct {
	Msg        string
	Expression string
	Variables  []string
}
