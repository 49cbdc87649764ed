package commands

import (
	"encoding/json"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// typedSchema has a property of every kind this file handles.
const typedSchema = `{
  "type": "object",
  "properties": {
    "s":     {"type": "string", "description": "a string"},
    "n":     {"type": "number"},
    "i":     {"type": "integer"},
    "b":     {"type": "boolean"},
    "z":     {"type": "null"},
    "a":     {"type": "array", "items": {"type": "object"}},
    "o":     {"type": "object"},
    "u":     {"description": "no type"},
    "us":    {"type": ["integer", "string"]},
    "un":    {"type": ["integer", "null"]},
    "unb":   {"type": ["number", "boolean"]},
    "ao":    {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    "oo":    {"oneOf": [{"type": "array"}, {"type": "object"}]},
    "ab":    {"anyOf": [{"type": "integer"}], "oneOf": [{"type": ["boolean", "null"]}]},
    "as":    {"anyOf": [{"type": "integer"}, {"$ref": "#/$defs/thing"}]},
    "astr":  {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    "aempty":{"anyOf": []},
    "abad":  {"anyOf": {"type": "integer"}},
    "ref":   {"$ref": "#/$defs/thing"},
    "weird": {"type": "int"},
    "tnone": {"type": []},
    "tbad":  {"type": 7},
    "ta":    {"type": "integer", "anyOf": [{"type": "string"}]},
    "bool":  true,
    "enum":  {"enum": [1, 2, 3]}
  }
}`

func TestToolArgs(t *testing.T) {
	argsDir(t)
	for _, tc := range []struct {
		name   string
		schema string // "" for none
		base   string // "" for no --args
		args   []string
		stdin  string
		want   string
	}{
		// no arguments at all
		{"nothing", typedSchema, "", nil, "", `{}`},
		{"nothing no schema", "", "", nil, "", `{}`},
		{"empty base", typedSchema, `{}`, nil, "", `{}`},

		// strings
		{"string", typedSchema, "", []string{"s=hello"}, "", `{"s":"hello"}`},
		{"string html", typedSchema, "", []string{"s=<a href='x'>&amp;</a>"}, "", `{"s":"<a href='x'>&amp;</a>"}`},
		{"string escapes", typedSchema, "", []string{"s=q\"b\\t\tn\nc\x01"}, "", `{"s":"q\"b\\t\tn\nc\u0001"}`},
		{"string unicode", typedSchema, "", []string{"s=héllo ✓ 😀 \u2028"}, "", `{"s":"héllo ✓ 😀 \u2028"}`},
		{"string digits", typedSchema, "", []string{"s=42"}, "", `{"s":"42"}`},
		{"string json text", typedSchema, "", []string{`s={"a":1}`}, "", `{"s":"{\"a\":1}"}`},
		{"string empty", typedSchema, "", []string{"s="}, "", `{"s":""}`},
		{"string with equals", typedSchema, "", []string{"s=a=b"}, "", `{"s":"a=b"}`},
		{"string spaces kept", typedSchema, "", []string{"s=  x \n"}, "", `{"s":"  x \n"}`},
		{"string from file verbatim", typedSchema, "", []string{"s=@note.txt"}, "", `{"s":"line one\nline two\n"}`},
		{"string from stdin verbatim", typedSchema, "", []string{"s=@-"}, " in\n", `{"s":" in\n"}`},
		{"string literal at", typedSchema, "", []string{"s=@@home"}, "", `{"s":"@home"}`},
		{"string from file holding @", typedSchema, "", []string{"s=@at.txt"}, "", `{"s":"@not-a-file"}`},

		// numbers keep their digits
		{"number", typedSchema, "", []string{"n=3.14"}, "", `{"n":3.14}`},
		{"number integer", typedSchema, "", []string{"n=7"}, "", `{"n":7}`},
		{"number big", typedSchema, "", []string{"n=12345678901234567890"}, "", `{"n":12345678901234567890}`},
		{"number huge exponent", typedSchema, "", []string{"n=1e400"}, "", `{"n":1e400}`},
		{"number exponent forms", typedSchema, "", []string{"n=-1.50E+010"}, "", `{"n":-1.50E+010}`},
		{"number negative zero", typedSchema, "", []string{"n=-0"}, "", `{"n":-0}`},
		{"number negative zero fraction", typedSchema, "", []string{"n=-0.0"}, "", `{"n":-0.0}`},
		{"number long fraction", typedSchema, "", []string{"n=0.10000000000000000000000001"}, "", `{"n":0.10000000000000000000000001}`},
		{"number trimmed", typedSchema, "", []string{"n= 3 "}, "", `{"n":3}`},
		{"integer", typedSchema, "", []string{"i=42"}, "", `{"i":42}`},
		{"integer negative", typedSchema, "", []string{"i=-7"}, "", `{"i":-7}`},
		{"integer zero", typedSchema, "", []string{"i=0"}, "", `{"i":0}`},
		{"integer negative zero", typedSchema, "", []string{"i=-0"}, "", `{"i":-0}`},
		{"integer big", typedSchema, "", []string{"i=12345678901234567890"}, "", `{"i":12345678901234567890}`},
		{"integer from file with newline, as JSON", typedSchema, "", []string{"i:=@count.txt"}, "", `{"i":42}`},
		{"integer big from file, as JSON", typedSchema, "", []string{"i:=@big.txt"}, "", `{"i":12345678901234567890}`},
		{"integer from stdin, as JSON", typedSchema, "", []string{"i:=@-"}, "\t-3\r\n", `{"i":-3}`},

		// booleans, null
		{"true", typedSchema, "", []string{"b=true"}, "", `{"b":true}`},
		{"false", typedSchema, "", []string{"b=false"}, "", `{"b":false}`},
		{"null", typedSchema, "", []string{"z=null"}, "", `{"z":null}`},

		// arrays and objects: compacted, digits and characters kept
		{"array of objects", typedSchema, "", []string{`a=[ {"x": 1}, {"y": [1, 2.50, 1e400]} ]`}, "", `{"a":[{"x":1},{"y":[1,2.50,1e400]}]}`},
		{"array empty", typedSchema, "", []string{"a=[]"}, "", `{"a":[]}`},
		{"array from file, as JSON", typedSchema, "", []string{"a:=@list.json"}, "", `{"a":[{"x":1},{"y":null}]}`},
		{"object", typedSchema, "", []string{`o={ "k": "<v>&", "n": 12345678901234567890 }`}, "", `{"o":{"k":"<v>&","n":12345678901234567890}}`},
		{"object escapes kept", typedSchema, "", []string{`o={"k":"\u003c\n"}`}, "", `{"o":{"k":"\u003c\n"}}`},
		{"object from file, as JSON", typedSchema, "", []string{"o:=@payload.json"}, "", `{"o":{"a":[1,2.50,1e400],"b":"<&>"}}`},
		{"object from stdin", typedSchema, "", []string{"o:=@-"}, "\n{\"q\": true}\n\n", `{"o":{"q":true}}`},

		// no type, unions, anyOf/oneOf, $ref
		{"no type is string", typedSchema, "", []string{"u=42"}, "", `{"u":"42"}`},
		{"union with string", typedSchema, "", []string{"us=42"}, "", `{"us":"42"}`},
		{"union integer", typedSchema, "", []string{"un=42"}, "", `{"un":42}`},
		{"union null", typedSchema, "", []string{"un=null"}, "", `{"un":null}`},
		{"union number takes integer", typedSchema, "", []string{"unb=1"}, "", `{"unb":1}`},
		{"union number", typedSchema, "", []string{"unb=2.5e3"}, "", `{"unb":2.5e3}`},
		{"union boolean", typedSchema, "", []string{"unb=false"}, "", `{"unb":false}`},
		{"anyOf integer", typedSchema, "", []string{"ao=7"}, "", `{"ao":7}`},
		{"anyOf null", typedSchema, "", []string{"ao=null"}, "", `{"ao":null}`},
		{"oneOf array", typedSchema, "", []string{"oo=[1, 2]"}, "", `{"oo":[1,2]}`},
		{"oneOf object", typedSchema, "", []string{`oo={"a": 1}`}, "", `{"oo":{"a":1}}`},
		{"anyOf and oneOf together", typedSchema, "", []string{"ab=true"}, "", `{"ab":true}`},
		{"anyOf member without type", typedSchema, "", []string{"as=7"}, "", `{"as":"7"}`},
		{"anyOf member string", typedSchema, "", []string{"astr=7"}, "", `{"astr":"7"}`},
		{"anyOf empty", typedSchema, "", []string{"aempty=7"}, "", `{"aempty":"7"}`},
		{"anyOf not an array", typedSchema, "", []string{"abad=7"}, "", `{"abad":"7"}`},
		{"ref only", typedSchema, "", []string{"ref=7"}, "", `{"ref":"7"}`},
		{"unknown type name", typedSchema, "", []string{"weird=7"}, "", `{"weird":"7"}`},
		{"empty type array", typedSchema, "", []string{"tnone=7"}, "", `{"tnone":"7"}`},
		{"type not a string", typedSchema, "", []string{"tbad=7"}, "", `{"tbad":"7"}`},
		{"type wins over anyOf", typedSchema, "", []string{"ta=7"}, "", `{"ta":7}`},
		{"boolean schema", typedSchema, "", []string{"bool=7"}, "", `{"bool":"7"}`},
		{"enum without type", typedSchema, "", []string{"enum=1"}, "", `{"enum":1}`},
		{"undeclared key is string", typedSchema, "", []string{"extra=7"}, "", `{"extra":"7"}`},

		// KEY:=JSON wins over typing
		{"raw over string", typedSchema, "", []string{"s:=42"}, "", `{"s":42}`},
		{"raw over integer", typedSchema, "", []string{`i:="seven"`}, "", `{"i":"seven"}`},
		{"raw compacted", typedSchema, "", []string{"x:=[ 1, {\"a\" : \"<>\"} ]"}, "", `{"x":[1,{"a":"<>"}]}`},
		{"raw big", typedSchema, "", []string{"x:=1e400", "y:=12345678901234567890"}, "", `{"x":1e400,"y":12345678901234567890}`},
		{"raw from file", typedSchema, "", []string{"x:=@payload.json"}, "", `{"x":{"a":[1,2.50,1e400],"b":"<&>"}}`},
		{"raw no schema", "", "", []string{"x:=true"}, "", `{"x":true}`},

		// keys
		{"colon in key", typedSchema, "", []string{"host:port=1"}, "", `{"host:port":"1"}`},
		{"raw key a", typedSchema, "", []string{"a:=1"}, "", `{"a":1}`},
		{"key escaped", typedSchema, "", []string{`k"<>=v`}, "", `{"k\"<>":"v"}`},
		{"order is command-line order", typedSchema, "", []string{"s=x", "o={}", "n=1", "extra=e"}, "", `{"s":"x","o":{},"n":1,"extra":"e"}`},

		// no schema: everything is a string, no checks
		{"no schema strings", "", "", []string{"i=42", "b=true", `o={}`}, "", `{"i":"42","b":"true","o":"{}"}`},
		{"schema null", "null", "", []string{"i=42"}, "", `{"i":"42"}`},
		{"schema array", `[{"type":"integer"}]`, "", []string{"i=42"}, "", `{"i":"42"}`},
		{"schema string", `"object"`, "", []string{"i=42"}, "", `{"i":"42"}`},
		{"schema true", `true`, "", []string{"i=42"}, "", `{"i":"42"}`},
		{"schema invalid json", `{"properties":`, "", []string{"i=42"}, "", `{"i":"42"}`},
		{"schema without properties", `{"type":"object"}`, "", []string{"i=42"}, "", `{"i":"42"}`},
		{"properties not an object", `{"properties":[{"i":{"type":"integer"}}]}`, "", []string{"i=42"}, "", `{"i":"42"}`},
		{"properties null", `{"properties":null,"additionalProperties":false}`, "", []string{"i=42"}, "", `{"i":"42"}`},
		{"property schema not an object", `{"properties":{"i":"integer"}}`, "", []string{"i=42"}, "", `{"i":"42"}`},

		// additionalProperties types undeclared keys
		{"additional typed", `{"properties":{"s":{"type":"string"}},"additionalProperties":{"type":"integer"}}`, "", []string{"s=1", "x=2"}, "", `{"s":"1","x":2}`},
		{"additional anyOf", `{"additionalProperties":{"anyOf":[{"type":"boolean"},{"type":"null"}]}}`, "", []string{"x=null"}, "", `{"x":null}`},
		{"additional untyped", `{"additionalProperties":{"description":"anything"}}`, "", []string{"x=2"}, "", `{"x":"2"}`},
		{"additional true", `{"additionalProperties":true}`, "", []string{"x=2"}, "", `{"x":"2"}`},
		{"additional ignored when properties unusable", `{"properties":7,"additionalProperties":{"type":"integer"}}`, "", []string{"x=2"}, "", `{"x":"2"}`},

		// --args: an object, key order kept, pairs override in place
		{"base only", typedSchema, `{"i": "not checked", "n": 12345678901234567890, "f": 1e400}`, nil, "", `{"i":"not checked","n":12345678901234567890,"f":1e400}`},
		{"base whitespace and html", typedSchema, "\n{ \"s\" : \"<&>\" ,\n \"a\" : [ 1 , 2 ] }\n", nil, "", `{"s":"<&>","a":[1,2]}`},
		{"base overridden in place", typedSchema, `{"z":null,"s":"old","n":1}`, []string{"s=new", "extra=1", "n=2.0"}, "", `{"z":null,"s":"new","n":2.0,"extra":"1"}`},
		{"base keeps order", "", `{"zeta":1,"alpha":2,"mid":3}`, []string{"beta=4", "alpha=5"}, "", `{"zeta":1,"alpha":"5","mid":3,"beta":"4"}`},
		{"base duplicate keys", "", `{"a":1,"b":2,"a":3}`, nil, "", `{"a":3,"b":2}`},
		{"base escaped key", "", `{"\u0061":1,"<":2}`, nil, "", `{"a":1,"<":2}`},
		{"base nested untouched", typedSchema, `{"o":{"deep":[{"x":-0.0}]}}`, nil, "", `{"o":{"deep":[{"x":-0.0}]}}`},

		// required and additionalProperties: false satisfied
		{"required satisfied by pairs", `{"properties":{"p":{"type":"string"}},"required":["p"]}`, "", []string{"p=x"}, "", `{"p":"x"}`},
		{"required satisfied by base", `{"properties":{"p":{"type":"string"}},"required":["p"]}`, `{"p":"x"}`, nil, "", `{"p":"x"}`},
		{"required empty string counts", `{"properties":{"p":{"type":"string"}},"required":["p"]}`, "", []string{"p="}, "", `{"p":""}`},
		{"closed with declared keys", `{"properties":{"p":{},"q":{}},"additionalProperties":false}`, "", []string{"q=1", "p=2"}, "", `{"q":"1","p":"2"}`},
		{"required not an array", `{"properties":{"p":{}},"required":"p"}`, "", nil, "", `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pairs, err := parsePairs(tc.args, true, strings.NewReader(tc.stdin), nil)
			if err != nil {
				t.Fatal(err)
			}
			var base []byte
			if tc.base != "" {
				base = []byte(tc.base)
			}
			var schema json.RawMessage
			if tc.schema != "" {
				schema = json.RawMessage(tc.schema)
			}
			got, _, err := toolArgs("t", base, pairs, schema, nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
			if !json.Valid(got) {
				t.Errorf("not valid JSON: %s", got)
			}
		})
	}
}

func TestToolArgsErrors(t *testing.T) {
	argsDir(t)
	bad := func(key, value, expected string) map[string]any {
		return map[string]any{"key": key, "value": value, "expected": expected}
	}
	const reqSchema = `{
	  "properties": {
	    "path":  {"type": "string", "description": "the file\n  to read"},
	    "limit": {"type": "integer"},
	    "mode":  {},
	    "flag":  {"type": ["boolean", "null"], "description": "a flag"}
	  },
	  "required": ["path", "limit", 7, "mode", "path", "flag", "ghost"]
	}`
	const closedSchema = `{
	  "properties": {"zeta": {"type": "string"}, "alpha": {}, "mid": {}},
	  "required": ["alpha"],
	  "additionalProperties": false
	}`
	for _, tc := range []struct {
		name    string
		schema  string
		base    string
		args    []string
		msg     string
		details map[string]any
		hint    string
	}{
		// bad values, each kind
		{"integer letters", typedSchema, "", []string{"i=12x"},
			`argument "i": "12x" is not an integer`, bad("i", "12x", "integer"), `"i" takes an integer, e.g. i=42; i:=JSON sends any JSON value as is`},
		{"integer fraction", typedSchema, "", []string{"i=1.0"},
			`argument "i": "1.0" is not an integer`, bad("i", "1.0", "integer"), "i:=JSON"},
		{"integer exponent", typedSchema, "", []string{"i=1e3"},
			`argument "i": "1e3" is not an integer`, bad("i", "1e3", "integer"), ""},
		{"integer leading zeros", typedSchema, "", []string{"i=007"},
			`argument "i": "007" is not an integer`, bad("i", "007", "integer"), ""},
		{"integer plus sign", typedSchema, "", []string{"i=+1"},
			`argument "i": "+1" is not an integer`, bad("i", "+1", "integer"), ""},
		{"integer empty", typedSchema, "", []string{"i="},
			`argument "i": "" is not an integer`, bad("i", "", "integer"), ""},
		{"integer quoted", typedSchema, "", []string{`i="1"`},
			`argument "i": "\"1\"" is not an integer`, bad("i", `"1"`, "integer"), ""},
		{"integer from file", typedSchema, "", []string{"i=@note.txt"},
			`argument "i": the content of note.txt is a string (KEY=@FILE reads text, verbatim), and "i" takes an integer`, bad("i", "line one\nline two\n", "integer"), ""},
		{"number leading zero", typedSchema, "", []string{"n=01"},
			`argument "n": "01" is not a number`, bad("n", "01", "number"), `"n" takes a number, e.g. n=3.14; n:=JSON`},
		{"number bare fraction", typedSchema, "", []string{"n=.5"},
			`argument "n": ".5" is not a number`, bad("n", ".5", "number"), ""},
		{"number trailing dot", typedSchema, "", []string{"n=1."},
			`argument "n": "1." is not a number`, bad("n", "1.", "number"), ""},
		{"number hex", typedSchema, "", []string{"n=0x10"},
			`argument "n": "0x10" is not a number`, bad("n", "0x10", "number"), ""},
		{"number NaN", typedSchema, "", []string{"n=NaN"},
			`argument "n": "NaN" is not a number`, bad("n", "NaN", "number"), ""},
		{"number Infinity", typedSchema, "", []string{"n=-Infinity"},
			`argument "n": "-Infinity" is not a number`, bad("n", "-Infinity", "number"), ""},
		{"number underscores", typedSchema, "", []string{"n=1_000"},
			`argument "n": "1_000" is not a number`, bad("n", "1_000", "number"), ""},
		{"number two values", typedSchema, "", []string{"n=1 2"},
			`argument "n": "1 2" is not a number`, bad("n", "1 2", "number"), ""},
		{"boolean capital", typedSchema, "", []string{"b=True"},
			`argument "b": "True" is not a boolean (true or false)`, bad("b", "True", "boolean"), `b=true; b:=JSON`},
		{"boolean upper", typedSchema, "", []string{"b=TRUE"},
			`argument "b": "TRUE" is not a boolean (true or false)`, bad("b", "TRUE", "boolean"), ""},
		{"boolean number", typedSchema, "", []string{"b=1"},
			`argument "b": "1" is not a boolean (true or false)`, bad("b", "1", "boolean"), ""},
		{"boolean yes", typedSchema, "", []string{"b=yes"},
			`argument "b": "yes" is not a boolean (true or false)`, bad("b", "yes", "boolean"), ""},
		{"null word", typedSchema, "", []string{"z=nil"},
			`argument "z": "nil" is not null`, bad("z", "nil", "null"), "z=null"},
		{"null empty", typedSchema, "", []string{"z="},
			`argument "z": "" is not null`, bad("z", "", "null"), ""},
		{"array given object", typedSchema, "", []string{"a={}"},
			`argument "a": "{}" is not a JSON array`, bad("a", "{}", "array"), `a='["a","b"]'`},
		{"array csv", typedSchema, "", []string{"a=x,y"},
			`argument "a": "x,y" is not a JSON array`, bad("a", "x,y", "array"), ""},
		{"array truncated", typedSchema, "", []string{"a=[1,"},
			`argument "a": "[1," is not a JSON array`, bad("a", "[1,", "array"), ""},
		{"object given array", typedSchema, "", []string{"o=[]"},
			`argument "o": "[]" is not a JSON object`, bad("o", "[]", "object"), `o='{"k":"v"}'`},
		{"object given null", typedSchema, "", []string{"o=null"},
			`argument "o": "null" is not a JSON object`, bad("o", "null", "object"), ""},
		{"object from stdin", typedSchema, "", []string{"o=@-"},
			`argument "o": the value read from stdin is a string (KEY=@FILE reads text, verbatim), and "o" takes a JSON object`, bad("o", "data", "object"), ""},
		{"union fraction", typedSchema, "", []string{"un=4.5"},
			`argument "un": "4.5" is not one of integer, null`, bad("un", "4.5", "one of integer, null"), `"un" takes one of integer, null, e.g. un=42; un:=JSON`},
		{"union word", typedSchema, "", []string{"un=x"},
			`argument "un": "x" is not one of integer, null`, bad("un", "x", "one of integer, null"), ""},
		{"union number boolean", typedSchema, "", []string{"unb=null"},
			`argument "unb": "null" is not one of number, boolean`, bad("unb", "null", "one of number, boolean"), ""},
		{"union json string refused", typedSchema, "", []string{`un="1"`},
			`argument "un": "\"1\"" is not one of integer, null`, bad("un", `"1"`, "one of integer, null"), ""},
		{"anyOf array refused", typedSchema, "", []string{"ao=[]"},
			`argument "ao": "[]" is not one of integer, null`, bad("ao", "[]", "one of integer, null"), ""},
		{"oneOf number refused", typedSchema, "", []string{"oo=1"},
			`argument "oo": "1" is not one of array, object`, bad("oo", "1", "one of array, object"), ""},
		{"anyOf plus oneOf", typedSchema, "", []string{"ab=1.5"},
			`argument "ab": "1.5" is not one of integer, boolean, null`, bad("ab", "1.5", "one of integer, boolean, null"), ""},
		{"type wins over anyOf", typedSchema, "", []string{"ta=x"},
			`argument "ta": "x" is not an integer`, bad("ta", "x", "integer"), ""},
		{"additional typed", `{"additionalProperties":{"type":"integer"}}`, "", []string{"x=a"},
			`argument "x": "a" is not an integer`, bad("x", "a", "integer"), ""},
		{"value clipped", typedSchema, "", []string{"i=" + strings.Repeat("é", 300)},
			`argument "i": "` + strings.Repeat("é", 59) + `…" is not an integer`,
			bad("i", strings.Repeat("é", 199)+"…", "integer"), ""},

		// --args
		{"base array", typedSchema, `[1,2]`, nil, "--args must be a JSON object, not a JSON array", nil, `--args '{"path"`},
		{"base string", typedSchema, `"x"`, nil, "--args must be a JSON object, not a string", nil, ""},
		{"base null", typedSchema, ` null `, nil, "--args must be a JSON object, not null", nil, ""},
		{"base number", typedSchema, `12`, nil, "--args must be a JSON object, not an integer", nil, ""},
		{"base invalid", typedSchema, `{"a":`, nil, "--args must be a JSON object: unexpected end of JSON input", nil, ""},
		{"base two objects", typedSchema, `{"a":1} {"b":2}`, nil, "--args must be a JSON object: invalid character '{' after top-level value", nil, ""},
		{"base whitespace only", typedSchema, "  \n", nil, "--args must be a JSON object: unexpected end of JSON input", nil, ""},
		{"base not utf8", typedSchema, "{\"a\":\"\xff\"}", nil, "--args is not valid UTF-8", nil, "base64"},

		// required, all of them, in schema order
		{"required all missing", reqSchema, "", nil,
			`tool "t" is missing required arguments: path (string, the file to read), limit (integer), mode, flag (boolean|null, a flag), ghost`,
			map[string]any{"missing": []string{"path", "limit", "mode", "flag", "ghost"}},
			"add path=VALUE limit=VALUE mode=VALUE flag=VALUE ghost=VALUE, or put them in --args"},
		{"required some given", reqSchema, `{"limit":1,"ghost":2}`, []string{"path=x"},
			`tool "t" is missing required arguments: mode, flag (boolean|null, a flag)`,
			map[string]any{"missing": []string{"mode", "flag"}}, ""},
		{"required one", reqSchema, `{"limit":1,"ghost":2,"flag":null}`, []string{"path=x"},
			`tool "t" is missing required argument: mode`,
			map[string]any{"missing": []string{"mode"}}, "add mode=VALUE"},
		{"required typing first", reqSchema, "", []string{"limit=x"},
			`argument "limit": "x" is not an integer`, bad("limit", "x", "integer"), ""},

		// additionalProperties: false
		{"forbidden", closedSchema, "", []string{"alpha=1", "alhpa=2", "other=3"},
			`tool "t" does not accept arguments "alhpa", "other"; it declares: zeta, alpha, mid`,
			map[string]any{"forbidden": []string{"alhpa", "other"}, "declared": []string{"zeta", "alpha", "mid"}},
			`did you mean "alpha" instead of "alhpa"?`},
		{"forbidden from base", closedSchema, `{"x":1,"alpha":2}`, nil,
			`tool "t" does not accept argument "x"; it declares: zeta, alpha, mid`,
			map[string]any{"forbidden": []string{"x"}, "declared": []string{"zeta", "alpha", "mid"}}, ""},
		{"forbidden and missing", closedSchema, "", []string{"Alpha=1"},
			`tool "t" does not accept argument "Alpha"; it declares: zeta, alpha, mid`,
			map[string]any{"forbidden": []string{"Alpha"}, "declared": []string{"zeta", "alpha", "mid"}, "missing": []string{"alpha"}},
			"also missing: alpha"},
		{"forbidden raw", closedSchema, "", []string{"alpha=1", "x:=1"},
			`tool "t" does not accept argument "x"; it declares: zeta, alpha, mid`,
			map[string]any{"forbidden": []string{"x"}, "declared": []string{"zeta", "alpha", "mid"}}, ""},
		{"takes nothing", `{"type":"object","additionalProperties":false}`, "", []string{"x=1"},
			`tool "t" takes no arguments, got "x"`,
			map[string]any{"forbidden": []string{"x"}, "declared": []string{}}, ""},
		{"properties unusable: required still checked", `{"properties":[],"required":["x"],"additionalProperties":false}`, "", []string{"y=1"},
			`tool "t" is missing required argument: x`,
			map[string]any{"missing": []string{"x"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pairs, err := parsePairs(tc.args, true, strings.NewReader("data"), nil)
			if err != nil {
				t.Fatal(err)
			}
			var base []byte
			if tc.base != "" {
				base = []byte(tc.base)
			}
			out, _, err := toolArgs("t", base, pairs, json.RawMessage(tc.schema), nil)
			if err == nil {
				t.Fatalf("no error; got %s", out)
			}
			u := usageOf(t, err)
			if u.Message != tc.msg {
				t.Errorf("message\n got %s\nwant %s", u.Message, tc.msg)
			}
			if tc.details == nil {
				if len(u.Details) != 0 {
					t.Errorf("details %v, want none", u.Details)
				}
			} else if !reflect.DeepEqual(u.Details, tc.details) {
				t.Errorf("details\n got %#v\nwant %#v", u.Details, tc.details)
			}
			if tc.hint != "" && !strings.Contains(strings.Join(u.Hints, "\n"), tc.hint) {
				t.Errorf("hints %q lack %q", u.Hints, tc.hint)
			}
		})
	}
}

// TestToolArgsUndeclared: a key the schema does not declare is sent and
// returned (the caller warns), unless it is a near miss of a declared key
// not given, which is refused; a schema that allows other keys
// (additionalProperties, patternProperties) declares them all.
func TestToolArgsUndeclared(t *testing.T) {
	const schema = `{"properties": {"path": {"type": "string"}, "head": {"type": "integer"}, "tail": {"type": "integer"},
	  "a": {"type": "number"}, "b": {"type": "number"}, "dry_run": {"type": "boolean"}}}`
	for _, tc := range []struct {
		name, schema string
		args         []string
		undeclared   []string // sent, with a warning
		refused      string   // the near miss refused ("" for none)
		hint         string
	}{
		{"transposed", schema, []string{"path=/x", "haed=2"}, nil, "haed", `did you mean "head" instead of "haed"?`},
		{"doubled", schema, []string{"a=1", "bb=2"}, nil, "bb", `did you mean "b" instead of "bb"?`},
		{"dash for underscore", schema, []string{"dry-run=true"}, nil, "dry-run", `did you mean "dry_run" instead of "dry-run"?`},
		{"case", schema, []string{"PATH=/x"}, nil, "PATH", `did you mean "path" instead of "PATH"?`},
		{"near a key given already", schema, []string{"head=1", "heads=2"}, []string{"heads"}, "", ""},
		{"far from every key", schema, []string{"path=/x", "encoding=utf8"}, []string{"encoding"}, "", ""},
		{"two edits, short", schema, []string{"hxyd=1"}, []string{"hxyd"}, "", ""},
		{"two edits, long", `{"properties": {"encoding": {}}}`, []string{"encodnig_=1"}, nil, "encodnig_", `did you mean "encoding"`},
		{"one letter", schema, []string{"c=1"}, []string{"c"}, "", ""},
		{"no properties", `{"type": "object"}`, []string{"x=1"}, []string{"x"}, "", ""},
		{"additionalProperties true", `{"properties": {"a": {}}, "additionalProperties": true}`, []string{"x=1"}, nil, "", ""},
		{"additionalProperties schema", `{"properties": {"a": {}}, "additionalProperties": {"type": "string"}}`, []string{"x=1"}, nil, "", ""},
		{"patternProperties", `{"properties": {"a": {}}, "patternProperties": {"^x_": {}}}`, []string{"x_1=1", "y=2"}, []string{"y"}, "", ""},
		{"near miss wins over additionalProperties", `{"properties": {"head": {}}, "additionalProperties": true}`, []string{"haed=1"}, nil, "haed", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pairs, err := parsePairs(tc.args, true, strings.NewReader(""), nil)
			if err != nil {
				t.Fatal(err)
			}
			_, undeclared, err := toolArgs("t", nil, pairs, json.RawMessage(tc.schema), nil)
			if tc.refused != "" {
				u := usageOf(t, err)
				if got := u.Details["unknown"]; !reflect.DeepEqual(got, []string{tc.refused}) {
					t.Errorf("unknown = %v, want %q (%s)", got, tc.refused, u.Message)
				}
				if !strings.Contains(strings.Join(u.Hints, "\n"), tc.hint) {
					t.Errorf("hints %q lack %q", u.Hints, tc.hint)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(undeclared, tc.undeclared) {
				t.Errorf("undeclared = %q, want %q", undeclared, tc.undeclared)
			}
		})
	}
}

func TestToolArgsBaseWithEmptyBytes(t *testing.T) {
	// an empty --args (an empty file) is not "no --args"
	_, _, err := toolArgs("t", []byte{}, nil, nil, nil)
	if u := usageOf(t, err); u.Message != "--args must be a JSON object: unexpected end of JSON input" {
		t.Errorf("message %q", u.Message)
	}
}

func TestToolArgsPairsWithoutParse(t *testing.T) {
	// pairs built by hand: invalid UTF-8 and bad raw JSON are still refused
	_, _, err := toolArgs("t", nil, []pair{{Key: "k", Value: "\xff"}}, nil, nil)
	if u := usageOf(t, err); u.Message != `argument "k": the value is not valid UTF-8` {
		t.Errorf("message %q", u.Message)
	}
	_, _, err = toolArgs("t", nil, []pair{{Key: "k", Value: "{", Raw: true}}, nil, nil)
	usageOf(t, err)
	// the same key twice: the last wins, in the first place
	got, _, err := toolArgs("t", nil, []pair{{Key: "a", Value: "1"}, {Key: "b", Value: "2"}, {Key: "a", Value: "3"}}, nil, nil)
	if err != nil || string(got) != `{"a":"3","b":"2"}` {
		t.Errorf("got %s, %v", got, err)
	}
}

// refSchema is shaped as pydantic v2 writes a FastMCP tool's input: models
// and enums in "$defs", reached through $ref, allOf and anyOf.
const refSchema = `{
  "$defs": {
    "Color":    {"enum": ["red", "green", "blue"], "title": "Color", "type": "string"},
    "Priority": {"enum": [1, 2, 3], "title": "Priority", "type": "integer"},
    "Ratio":    {"enum": [0.5, 1e2], "type": "number"},
    "Flag":     {"const": true},
    "Model":    {"properties": {"a": {"type": "string"}}, "required": ["a"], "title": "Model", "type": "object"},
    "Alias":    {"$ref": "#/$defs/Model"},
    "Loop":     {"$ref": "#/$defs/Loop"},
    "Mixed":    {"enum": ["a", 1, null]},
    "Shape":    {"enum": [{"k": [1, 2]}, [true]]},
    "a/b~c":    {"type": "integer"}
  },
  "definitions": {"Old": {"type": "boolean"}},
  "properties": {
    "model":    {"$ref": "#/$defs/Model"},
    "alias":    {"$ref": "#/$defs/Alias"},
    "color":    {"allOf": [{"$ref": "#/$defs/Color"}], "description": "Colour"},
    "maybe":    {"anyOf": [{"$ref": "#/$defs/Color"}, {"type": "null"}], "default": null},
    "optmodel": {"anyOf": [{"$ref": "#/$defs/Model"}, {"type": "null"}]},
    "models":   {"items": {"$ref": "#/$defs/Model"}, "type": "array"},
    "priority": {"$ref": "#/$defs/Priority", "default": 2},
    "ratio":    {"$ref": "#/$defs/Ratio"},
    "flag":     {"$ref": "#/$defs/Flag"},
    "loop":     {"$ref": "#/$defs/Loop"},
    "remote":   {"$ref": "https://schemas.example.invalid/x.json"},
    "other":    {"$ref": "other.json#/$defs/Model"},
    "escaped":  {"$ref": "#/$defs/a~1b~0c"},
    "pct":      {"$ref": "#/%24defs/Priority"},
    "old":      {"$ref": "#/definitions/Old"},
    "mixed":    {"$ref": "#/$defs/Mixed"},
    "shape":    {"$ref": "#/$defs/Shape"},
    "literal":  {"const": "sync", "type": "string"},
    "both":     {"allOf": [{"$ref": "#/$defs/Priority"}, {"enum": [2, 3, 4]}]},
    "colors":   {"type": "array", "items": {"$ref": "#/$defs/Color"}},
    "strenum":  {"type": "string", "enum": ["a", 1]},
    "empty":    {"enum": []}
  }
}`

func TestToolArgsRefs(t *testing.T) {
	argsDir(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"model is an object", []string{`model={"a": "x"}`}, `{"model":{"a":"x"}}`},
		{"ref to a ref", []string{`alias={}`}, `{"alias":{}}`},
		{"allOf enum", []string{"color=green"}, `{"color":"green"}`},
		{"Optional enum, a value", []string{"maybe=red"}, `{"maybe":"red"}`},
		{"Optional enum, null", []string{"maybe=null"}, `{"maybe":null}`},
		{"Optional model, an object", []string{`optmodel={"a":"b"}`}, `{"optmodel":{"a":"b"}}`},
		{"Optional model, null", []string{"optmodel=null"}, `{"optmodel":null}`},
		{"list of models", []string{`models=[{"a":"1"}]`}, `{"models":[{"a":"1"}]}`},
		{"integer enum", []string{"priority=3"}, `{"priority":3}`},
		{"number enum by value", []string{"ratio=0.50"}, `{"ratio":0.50}`},
		{"number enum exponent", []string{"ratio=100"}, `{"ratio":100}`},
		{"const true", []string{"flag=true"}, `{"flag":true}`},
		{"cycle is a string", []string{"loop=5"}, `{"loop":"5"}`},
		{"remote is a string", []string{"remote=5"}, `{"remote":"5"}`},
		{"other file is a string", []string{`other={}`}, `{"other":"{}"}`},
		{"escaped pointer", []string{"escaped=12345678901234567890"}, `{"escaped":12345678901234567890}`},
		{"percent-encoded pointer", []string{"pct=1"}, `{"pct":1}`},
		{"definitions", []string{"old=false"}, `{"old":false}`},
		{"mixed enum, the string", []string{"mixed=a"}, `{"mixed":"a"}`},
		{"mixed enum, JSON", []string{"mixed=1"}, `{"mixed":1}`},
		{"mixed enum, null", []string{"mixed=null"}, `{"mixed":null}`},
		{"the JSON of an allowed string", []string{`color="red"`}, `{"color":"red"}`},
		{"object enum, any key order", []string{`shape={ "k" : [1, 2] }`}, `{"shape":{"k":[1,2]}}`},
		{"array enum", []string{`shape=[true]`}, `{"shape":[true]}`},
		{"literal", []string{"literal=sync"}, `{"literal":"sync"}`},
		{"allOf of two enums", []string{"both=3"}, `{"both":3}`},
		{"items are not checked", []string{`colors=["purple"]`}, `{"colors":["purple"]}`},
		{"string enum filtered by type", []string{"strenum=a"}, `{"strenum":"a"}`},
		{"an empty enum checks nothing", []string{"empty=x"}, `{"empty":"x"}`},
		{"file value in the enum", []string{"color=@color.txt"}, `{"color":"blue"}`},
		{"raw is not checked", []string{`color:="purple"`, "priority:=9"}, `{"color":"purple","priority":9}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile("color.txt", []byte("blue"), 0o600); err != nil {
				t.Fatal(err)
			}
			pairs, err := parsePairs(tc.args, true, strings.NewReader(""), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := toolArgs("t", nil, pairs, json.RawMessage(refSchema), nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
	// --args values are sent as given
	got, _, err := toolArgs("t", []byte(`{"color":"purple","priority":"x"}`), nil, json.RawMessage(refSchema), nil)
	if err != nil || string(got) != `{"color":"purple","priority":"x"}` {
		t.Errorf("--args: %s, %v", got, err)
	}
}

func TestToolArgsEnumErrors(t *testing.T) {
	argsDir(t)
	raws := func(vs ...string) []json.RawMessage {
		out := make([]json.RawMessage, len(vs))
		for i, v := range vs {
			out[i] = json.RawMessage(v)
		}
		return out
	}
	colors := raws(`"red"`, `"green"`, `"blue"`)
	for _, tc := range []struct {
		name    string
		args    []string
		msg     string
		allowed []json.RawMessage
		value   string
		hint    string
	}{
		{"string enum", []string{"color=purple"},
			`argument "color": "purple" is not one of the allowed values: "red", "green", "blue"`, colors, "purple",
			"e.g. color=red; color:=JSON sends any JSON value as is"},
		{"close to one", []string{"color=gren"},
			`argument "color": "gren" is not one of the allowed values: "red", "green", "blue"`, colors, "gren",
			"did you mean color=green? color:=JSON sends any JSON value as is"},
		{"Optional enum", []string{"maybe=Red"},
			`argument "maybe": "Red" is not one of the allowed values: "red", "green", "blue", null`,
			raws(`"red"`, `"green"`, `"blue"`, "null"), "Red", "did you mean maybe=red?"},
		{"integer enum", []string{"priority=4"},
			`argument "priority": "4" is not one of the allowed values: 1, 2, 3`, raws("1", "2", "3"), "4", "e.g. priority=1"},
		{"integer enum, not a number", []string{"priority=high"},
			`argument "priority": "high" is not one of the allowed values: 1, 2, 3`, raws("1", "2", "3"), "high", ""},
		{"number enum", []string{"ratio=2"},
			`argument "ratio": "2" is not one of the allowed values: 0.5, 1e2`, raws("0.5", "1e2"), "2", ""},
		{"const", []string{"flag=false"},
			`argument "flag": "false" is not one of the allowed values: true`, raws("true"), "false", "e.g. flag=true"},
		{"mixed enum", []string{`mixed=b`},
			`argument "mixed": "b" is not one of the allowed values: "a", 1, null`, raws(`"a"`, "1", "null"), `b`, ""},
		{"object enum", []string{`shape={"k":[2,1]}`},
			`argument "shape": "{\"k\":[2,1]}" is not one of the allowed values: {"k":[1,2]}, [true]`,
			raws(`{"k": [1, 2]}`, `[true]`), `{"k":[2,1]}`, `did you mean 'shape={"k":[1,2]}'?`},
		{"allOf of two enums", []string{"both=1"},
			`argument "both": "1" is not one of the allowed values: 2, 3`, raws("2", "3"), "1", ""},
		{"literal", []string{"literal=async"},
			`argument "literal": "async" is not one of the allowed values: "sync"`, raws(`"sync"`), "async", ""},
		{"string enum filtered by type", []string{"strenum=1"},
			`argument "strenum": "1" is not one of the allowed values: "a"`, raws(`"a"`), "1", ""},
		{"from a file", []string{"color=@note.txt"},
			`argument "color": the content of note.txt is not one of the allowed values: "red", "green", "blue"`, colors,
			"line one\nline two\n", "e.g. color=red"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pairs, err := parsePairs(tc.args, true, strings.NewReader(""), nil)
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := toolArgs("t", nil, pairs, json.RawMessage(refSchema), nil)
			if err == nil {
				t.Fatalf("no error; got %s", out)
			}
			u := usageOf(t, err)
			if u.Message != tc.msg {
				t.Errorf("message\n got %s\nwant %s", u.Message, tc.msg)
			}
			key, _, _ := strings.Cut(tc.args[0], "=")
			want := map[string]any{"key": key, "value": tc.value, "allowed": tc.allowed}
			if !reflect.DeepEqual(u.Details, want) {
				t.Errorf("details\n got %#v\nwant %#v", u.Details, want)
			}
			if tc.hint != "" && !strings.Contains(strings.Join(u.Hints, "\n"), tc.hint) {
				t.Errorf("hints %q lack %q", u.Hints, tc.hint)
			}
		})
	}
	// a value of another type from a file: the type error, with its hint
	pairs, _ := parsePairs([]string{"priority=@count.txt"}, true, nil, nil)
	_, _, err := toolArgs("t", nil, pairs, json.RawMessage(refSchema), nil)
	if u := usageOf(t, err); !strings.Contains(u.Message, "is a string (KEY=@FILE reads text, verbatim)") {
		t.Errorf("file into an integer enum: %s", u.Message)
	}
	// a long list is cut in the message, whole in the details
	var many []string
	for i := range 60 {
		many = append(many, strconv.Itoa(i))
	}
	schema := `{"properties":{"n":{"enum":[` + strings.Join(many, ",") + `]}}}`
	pairs, _ = parsePairs([]string{"n=99"}, true, nil, nil)
	_, _, err = toolArgs("t", nil, pairs, json.RawMessage(schema), nil)
	u := usageOf(t, err)
	if !strings.HasSuffix(u.Message, ", 48, 49, and 10 more") || len(u.Details["allowed"].([]json.RawMessage)) != 60 {
		t.Errorf("long enum: %s", u.Message)
	}
}

func TestToolArgsRefsMissing(t *testing.T) {
	pairs, _ := parsePairs(nil, true, nil, nil)
	schema := `{"$defs":{"M":{"type":"object","description":"A model.\nMore."}},"properties":{"m":{"$ref":"#/$defs/M"},` +
		`"c":{"allOf":[{"$ref":"#/$defs/M"}],"description":"Own words"}},"required":["m","c"]}`
	_, _, err := toolArgs("t", nil, pairs, json.RawMessage(schema), nil)
	if u := usageOf(t, err); u.Message != `tool "t" is missing required arguments: m (object, A model. More.), c (object, Own words)` {
		t.Errorf("message %s", u.Message)
	}
}

// TestToolArgsDuplicateKeys: a property named twice is typed by its last
// schema, as describe and forms read it (first place, last value).
func TestToolArgsDuplicateKeys(t *testing.T) {
	schema := json.RawMessage(`{"properties":{"n":{"type":"string"},"n":{"type":"integer"}},"required":["x"],"required":["n"]}`)
	pairs, _ := parsePairs([]string{"n=7"}, true, nil, nil)
	got, undeclared, err := toolArgs("t", nil, pairs, schema, nil)
	if err != nil || string(got) != `{"n":7}` || len(undeclared) != 0 {
		t.Errorf("toolArgs = %s %q %v, want {\"n\":7}", got, undeclared, err)
	}
}
