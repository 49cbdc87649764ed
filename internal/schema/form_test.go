package schema

import (
	"encoding/json"
	"reflect"
	"testing"
)

func fp(x float64) *float64 { return &x }
func ip(n int) *int         { return &n }

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func TestFormFields(t *testing.T) {
	schema := `{"type":"object","properties":{
		"z":{"type":"string","title":"Zed","description":"last","minLength":1,"maxLength":5,"format":"email","default":"a@b.c"},
		"n":{"type":"number","minimum":-1.5,"maximum":10},
		"i":{"type":"integer","default":3,"minimum":"0"},
		"b":{"type":"boolean","default":true},
		"e":{"type":"string","enum":["r","g","b"],"enumNames":["Red","Green"]},
		"o":{"type":"string","oneOf":[{"const":"x","title":"Ex"},{"title":"no const"},{"const":"y"}]},
		"o2":{"oneOf":[{"const":"p"}]},
		"m1":{"type":"array","items":{"type":"string","enum":["a","b"]},"minItems":1,"maxItems":2},
		"m2":{"type":"array","items":{"anyOf":[{"const":"c","title":"Cee"}]}},
		"m3":{"type":"array","items":{"oneOf":[{"const":"d"}]},"minItems":-1},
		"arr":{"type":"array","items":{"type":"string"}},
		"ref":{"$ref":"#/$defs/x","type":"string","minLength":2},
		"obj":{"type":"object"},
		"en":{"enum":["u","v"]},
		"none":{}
	},"required":["z","e","ghost",1]}`
	want := []Field{
		{Name: "z", Title: "Zed", Desc: "last", Kind: "string", Default: raw(`"a@b.c"`), Required: true, MinLen: ip(1), MaxLen: ip(5), Format: "email"},
		{Name: "n", Kind: "number", Min: fp(-1.5), Max: fp(10)},
		{Name: "i", Kind: "integer", Default: raw(`3`)},
		{Name: "b", Kind: "boolean", Default: raw(`true`)},
		{Name: "e", Kind: "enum", Required: true, Choices: []Choice{{"r", "Red"}, {"g", "Green"}, {"b", ""}}},
		{Name: "o", Kind: "enum", Choices: []Choice{{"x", "Ex"}, {"y", ""}}},
		{Name: "o2", Kind: "enum", Choices: []Choice{{"p", ""}}},
		{Name: "m1", Kind: "multi", Choices: []Choice{{"a", ""}, {"b", ""}}, MinLen: ip(1), MaxLen: ip(2)},
		{Name: "m2", Kind: "multi", Choices: []Choice{{"c", "Cee"}}},
		{Name: "m3", Kind: "multi", Choices: []Choice{{"d", ""}}},
		{Name: "arr"},
		{Name: "ref"},
		{Name: "obj"},
		{Name: "en"},
		{Name: "none"},
	}
	got := Fields(raw(schema))
	if len(got) != len(want) {
		t.Fatalf("%d fields, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("field %d:\n got %s\nwant %s", i, elShow(got[i]), elShow(want[i]))
		}
	}
	for _, s := range []string{`{}`, `{"properties":[]}`, `[]`, `"x"`, ``, `{"properties":{}}`} {
		if got := Fields(raw(s)); got != nil {
			t.Errorf("Fields(%s) = %+v", s, got)
		}
	}
}

func elShow(f Field) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// TestFieldCheck: every rule of a typed answer, and the exact value or
// complaint.
func TestFieldCheck(t *testing.T) {
	str := Field{Kind: "string"}
	lens := Field{Kind: "string", MinLen: ip(2), MaxLen: ip(3)}
	email := Field{Kind: "string", Format: "email"}
	uri := Field{Kind: "string", Format: "uri"}
	date := Field{Kind: "string", Format: "date"}
	dateTime := Field{Kind: "string", Format: "date-time"}
	other := Field{Kind: "string", Format: "ipv4"}
	num := Field{Kind: "number", Min: fp(-1.5), Max: fp(10)}
	integer := Field{Kind: "integer", Min: fp(0.5), Max: fp(100)}
	boolean := Field{Kind: "boolean"}
	enum := Field{Kind: "enum", Choices: []Choice{{"red", "Red"}, {"green", ""}, {"2", ""}}}
	multi := Field{Kind: "multi", Choices: []Choice{{"a", ""}, {"b", ""}, {"c,d", ""}}, MinLen: ip(1), MaxLen: ip(2)}
	anyMulti := Field{Kind: "multi", Choices: []Choice{{"a", ""}}}
	for _, tc := range []struct {
		name string
		f    Field
		in   string
		want string // the JSON value, or the complaint
	}{
		{"string", str, "hello", `"hello"`},
		{"string kept as typed", str, "  a\"b\\ ", `"  a\"b\\ "`},
		{"empty string", str, "", `""`},
		{"html escaped but equal", str, "<a&b>", `"\u003ca\u0026b\u003e"`},
		{"too short", lens, "é", "at least 2 characters"},
		{"runes counted", lens, "ééé", `"ééé"`},
		{"too long", lens, "abcd", "at most 3 characters"},
		{"email", email, "ann@example.com", `"ann@example.com"`},
		{"email with a name", email, "Ann <ann@example.com>", "an email address"},
		{"not an email", email, "ann", "an email address"},
		{"uri", uri, "https://example.com/x?y", `"https://example.com/x?y"`},
		{"urn", uri, "urn:isbn:1", `"urn:isbn:1"`},
		{"relative uri", uri, "/x/y", "an absolute URI"},
		{"bad uri", uri, "http://[::1", "an absolute URI"},
		{"date", date, "2024-02-29", `"2024-02-29"`},
		{"no such date", date, "2023-02-29", "a date (YYYY-MM-DD)"},
		{"date with time", date, "2024-02-29T00:00:00Z", "a date (YYYY-MM-DD)"},
		{"date-time", dateTime, "2024-02-29T10:11:12+02:00", `"2024-02-29T10:11:12+02:00"`},
		{"date-time without zone", dateTime, "2024-02-29T10:11:12", "a date and time (RFC 3339)"},
		{"unknown format not checked", other, "whatever", `"whatever"`},
		{"number", num, " 2.50 ", `2.5`},
		{"number exponent", num, "1e1", `10`},
		{"number min", num, "-1.5", `-1.5`},
		{"below min", num, "-2", "at least -1.5"},
		{"above max", num, "10.01", "at most 10"},
		{"not a number", num, "ten", "a number"},
		{"empty number", num, "", "a number"},
		{"infinity", num, "Inf", "a number"},
		{"nan", num, "NaN", "a number"},
		{"overflow", num, "1e400", "a number"},
		{"integer", integer, "42", `42`},
		{"integer written as float", integer, "42.0", `42`},
		{"integer exponent", integer, "1e2", `100`},
		{"fraction", integer, "4.5", "a whole number"},
		{"integer below min", integer, "0", "at least 0.5"},
		{"integer above max", integer, "101", "at most 100"},
		{"yes", boolean, "Y", `true`},
		{"yes spelled", boolean, " Yes ", `true`},
		{"true", boolean, "TRUE", `true`},
		{"no", boolean, "n", `false`},
		{"false", boolean, "False", `false`},
		{"not yes or no", boolean, "1", "yes or no"},
		{"enum by value", enum, "green", `"green"`},
		{"enum by number", enum, " 1 ", `"red"`},
		{"enum number first", enum, "2", `"green"`},
		{"enum value past the numbers", enum, "3", `"2"`},
		{"enum title is not a value", enum, "Red", "one of the choices (its number or its value)"},
		{"enum zero", enum, "0", "one of the choices (its number or its value)"},
		{"enum case", enum, "RED", "one of the choices (its number or its value)"},
		{"multi", multi, "b, 1", `["b","a"]`},
		{"multi by number past a comma", multi, "3", `["c,d"]`},
		{"multi value with a comma", multi, "c,d", `choices separated by commas ("c" is not one)`},
		{"multi unknown", multi, "a, x", `choices separated by commas ("x" is not one)`},
		{"multi too few", multi, " , ", "at least 1 choice"},
		{"multi too many", multi, "1,2,3", "at most 2 choices"},
		{"multi repeated counts once", multi, "a,b,a", `["a","b"]`},
		{"multi none", anyMulti, "", `[]`},
		{"multi empty parts", anyMulti, ",a,,", `["a"]`},
		{"no kind", Field{}, "x", "a value mcpx cannot ask for"},
	} {
		v, msg := tc.f.Check(tc.in)
		got := msg
		if msg == "" {
			got = string(v)
		} else if v != nil {
			t.Errorf("%s: a value %s with the complaint %q", tc.name, v, msg)
		}
		if got != tc.want {
			t.Errorf("%s: check(%q) = %s, want %s", tc.name, tc.in, got, tc.want)
		}
	}
}

// TestFieldCheckBigInteger: an integer is sent with the digits typed.
func TestFieldCheckBigInteger(t *testing.T) {
	f := Field{Kind: "integer"}
	for _, in := range []string{"12345678901234567890", "9007199254740993"} {
		if v, msg := f.Check(in); msg != "" || string(v) != in {
			t.Errorf("check(%s) = %s %q, want %s", in, v, msg, in)
		}
	}
}

func TestDefaultOK(t *testing.T) {
	for _, tc := range []struct {
		schema string // one property
		want   bool
	}{
		{`{"type":"string","default":"x"}`, true},
		{`{"type":"string"}`, false},
		{`{"type":"string","default":null}`, false},
		{`{"type":"string","default":3}`, false},
		{`{"type":"string","default":"x","minLength":2}`, false},
		{`{"type":"string","default":"x@y.z","format":"email"}`, true},
		{`{"type":"string","default":"nope","format":"email"}`, false},
		{`{"type":"number","default":1.5}`, true},
		{`{"type":"number","default":"1.5"}`, false},
		{`{"type":"number","default":11,"maximum":10}`, false},
		{`{"type":"integer","default":2}`, true},
		{`{"type":"integer","default":2.5}`, false},
		{`{"type":"boolean","default":false}`, true},
		{`{"type":"boolean","default":"false"}`, false},
		{`{"type":"string","enum":["a","b"],"default":"b"}`, true},
		{`{"type":"string","enum":["a","b"],"default":"c"}`, false},
		{`{"type":"array","items":{"enum":["a","b"]},"default":["a","b"]}`, true},
		{`{"type":"array","items":{"enum":["a","b"]},"default":[]}`, true},
		{`{"type":"array","items":{"enum":["a","b"]},"default":["a","x"]}`, false},
		{`{"type":"array","items":{"enum":["a","b"]},"default":"a"}`, false},
		{`{"type":"array","items":{"enum":["a","b"]},"default":[1]}`, false},
		{`{"type":"array","items":{"enum":["a","b"]},"minItems":1,"default":[]}`, false},
		{`{"$ref":"#/x","default":"a"}`, false},
		{`{"type":"object","default":{}}`, false},
	} {
		fs := Fields(raw(`{"properties":{"f":` + tc.schema + `}}`))
		if len(fs) != 1 {
			t.Fatalf("%s: %d fields", tc.schema, len(fs))
		}
		if got := fs[0].DefaultOK(); got != tc.want {
			t.Errorf("defaultOK(%s) = %v", tc.schema, got)
		}
	}
}

// TestDefaultOKChoiceValues: a choice's default is valid when it is one of
// the values (not a choice number), whatever the value holds.
func TestDefaultOKChoiceValues(t *testing.T) {
	for _, tc := range []struct {
		schema string
		want   bool
	}{
		{`{"type":"string","enum":["red","green"],"default":"2"}`, false},
		{`{"type":"array","items":{"enum":["red","green"]},"default":["1"]}`, false},
		{`{"type":"array","items":{"enum":["a,b","c"]},"default":["a,b"]}`, true},
	} {
		fs := Fields(raw(`{"properties":{"f":` + tc.schema + `}}`))
		if got := fs[0].DefaultOK(); got != tc.want {
			t.Errorf("defaultOK(%s) = %v, want %v", tc.schema, got, tc.want)
		}
	}
}
