package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/client/config"
	"github.com/mcpx-cli/mcpx/output"
)

// elApp is an app over buffers: stdin reads in, tty sets the three
// terminal flags; it returns the app and its stderr.
func elApp(in io.Reader, tty bool) (*app, *bytes.Buffer) {
	var out, errb bytes.Buffer
	s := output.New(in, &out, &errb, tty, tty, tty)
	return &app{s: s, log: output.NewLog(s, false, false), getenv: func(string) string { return "" }}, &errb
}

// elAsk runs the app's elicitor on one elicitation, the clock of the
// connection running meanwhile.
func elAsk(t *testing.T, a *app, e client.Elicitation) client.Answer {
	t.Helper()
	clk, cancel := newClock(context.Background(), time.Minute)
	defer cancel()
	if e.Server == "" {
		e.Server = "s"
	}
	return a.elicitor(context.Background(), clk, false)(context.Background(), e)
}

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
	want := []field{
		{Name: "z", Title: "Zed", Desc: "last", Kind: "string", Default: raw(`"a@b.c"`), Required: true, MinLen: ip(1), MaxLen: ip(5), Format: "email"},
		{Name: "n", Kind: "number", Min: fp(-1.5), Max: fp(10)},
		{Name: "i", Kind: "integer", Default: raw(`3`)},
		{Name: "b", Kind: "boolean", Default: raw(`true`)},
		{Name: "e", Kind: "enum", Required: true, Choices: []choice{{"r", "Red"}, {"g", "Green"}, {"b", ""}}},
		{Name: "o", Kind: "enum", Choices: []choice{{"x", "Ex"}, {"y", ""}}},
		{Name: "o2", Kind: "enum", Choices: []choice{{"p", ""}}},
		{Name: "m1", Kind: "multi", Choices: []choice{{"a", ""}, {"b", ""}}, MinLen: ip(1), MaxLen: ip(2)},
		{Name: "m2", Kind: "multi", Choices: []choice{{"c", "Cee"}}},
		{Name: "m3", Kind: "multi", Choices: []choice{{"d", ""}}},
		{Name: "arr"},
		{Name: "ref"},
		{Name: "obj"},
		{Name: "en"},
		{Name: "none"},
	}
	got := formFields(raw(schema))
	if len(got) != len(want) {
		t.Fatalf("%d fields, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("field %d:\n got %s\nwant %s", i, elShow(got[i]), elShow(want[i]))
		}
	}
	for _, s := range []string{`{}`, `{"properties":[]}`, `[]`, `"x"`, ``, `{"properties":{}}`} {
		if got := formFields(raw(s)); got != nil {
			t.Errorf("formFields(%s) = %+v", s, got)
		}
	}
}

func elShow(f field) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// TestFieldCheck: every rule of a typed answer, and the exact value or
// complaint.
func TestFieldCheck(t *testing.T) {
	str := field{Kind: "string"}
	lens := field{Kind: "string", MinLen: ip(2), MaxLen: ip(3)}
	email := field{Kind: "string", Format: "email"}
	uri := field{Kind: "string", Format: "uri"}
	date := field{Kind: "string", Format: "date"}
	dateTime := field{Kind: "string", Format: "date-time"}
	other := field{Kind: "string", Format: "ipv4"}
	num := field{Kind: "number", Min: fp(-1.5), Max: fp(10)}
	integer := field{Kind: "integer", Min: fp(0.5), Max: fp(100)}
	boolean := field{Kind: "boolean"}
	enum := field{Kind: "enum", Choices: []choice{{"red", "Red"}, {"green", ""}, {"2", ""}}}
	multi := field{Kind: "multi", Choices: []choice{{"a", ""}, {"b", ""}, {"c,d", ""}}, MinLen: ip(1), MaxLen: ip(2)}
	anyMulti := field{Kind: "multi", Choices: []choice{{"a", ""}}}
	for _, tc := range []struct {
		name string
		f    field
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
		{"no kind", field{}, "x", "a value mcpx cannot ask for"},
	} {
		v, msg := tc.f.check(tc.in)
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
	f := field{Kind: "integer"}
	for _, in := range []string{"12345678901234567890", "9007199254740993"} {
		if v, msg := f.check(in); msg != "" || string(v) != in {
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
		fs := formFields(raw(`{"properties":{"f":` + tc.schema + `}}`))
		if len(fs) != 1 {
			t.Fatalf("%s: %d fields", tc.schema, len(fs))
		}
		if got := fs[0].defaultOK(); got != tc.want {
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
		fs := formFields(raw(`{"properties":{"f":` + tc.schema + `}}`))
		if got := fs[0].defaultOK(); got != tc.want {
			t.Errorf("defaultOK(%s) = %v, want %v", tc.schema, got, tc.want)
		}
	}
}

func TestObject(t *testing.T) {
	fields := []field{{Name: "z"}, {Name: "a\"b"}, {Name: "m"}, {Name: "a"}}
	for _, tc := range []struct {
		values map[string]json.RawMessage
		want   string
	}{
		{map[string]json.RawMessage{"a": raw(`1`), "z": raw(`{ "k" : [1, 2] }`), "extra": raw(`2`), `a"b`: raw(` "q" `)},
			`{"z":{"k":[1,2]},"a\"b":"q","a":1}`},
		{map[string]json.RawMessage{"m": raw(`[]`)}, `{"m":[]}`},
		{nil, `{}`},
	} {
		if got := string(object(fields, tc.values)); got != tc.want {
			t.Errorf("object = %s, want %s", got, tc.want)
		}
	}
}

const elWhy = "(not asked: stdin is not a terminal)"

// TestElicitDefaults: with nobody to ask, mcpx accepts with the defaults
// when every required field has a valid one, and declines otherwise; the
// answer is a note.
func TestElicitDefaults(t *testing.T) {
	for _, tc := range []struct {
		name, message, schema string
		action, content       string
		note                  string
	}{
		{"all defaults", "Who?", `{"type":"object","properties":{"name":{"type":"string","default":"bob"},"n":{"type":"integer","default":3},"opt":{"type":"boolean"},"tags":{"type":"array","items":{"enum":["x","y"]},"default":["y", "x"]}},"required":["name","n"]}`,
			"accept", `{"name":"bob","n":3,"tags":["y","x"]}`,
			`server "s" asked: Who?; accepted with the defaults name="bob", n=3, tags=["y","x"] ` + elWhy},
		{"no fields", "Continue?", `{"type":"object","properties":{}}`,
			"accept", `{}`, `server "s" asked: Continue?; accepted with no values (no field has a default) ` + elWhy},
		{"only optional fields", "Notes?", `{"properties":{"a":{"type":"string"},"b":{"type":"string","default":7}}}`,
			"accept", `{}`, `server "s" asked: Notes?; accepted with no values (no field has a default) ` + elWhy},
		{"one required missing", "Name?", `{"properties":{"name":{"type":"string"},"n":{"type":"integer","default":1}},"required":["name"]}`,
			"decline", ``, `server "s" asked: Name?; declined ` + elWhy + `, since "name" has no default`},
		{"two required missing", "Both?", `{"properties":{"a":{"type":"string"},"b":{"type":"boolean"}},"required":["b","a"]}`,
			"decline", ``, `server "s" asked: Both?; declined ` + elWhy + `, since "a", "b" have no default`},
		{"invalid default", "Age?", `{"properties":{"age":{"type":"integer","default":"3"}},"required":["age"]}`,
			"decline", ``, `server "s" asked: Age?; declined ` + elWhy + `, since "age" has no default`},
		{"default outside the enum", "Color?", `{"properties":{"c":{"type":"string","enum":["r","g"],"default":"purple"}},"required":["c"]}`,
			"decline", ``, `server "s" asked: Color?; declined ` + elWhy + `, since "c" has no default`},
		{"default breaking the format", "Mail?", `{"properties":{"m":{"type":"string","format":"email","default":"nobody"}},"required":["m"]}`,
			"decline", ``, `server "s" asked: Mail?; declined ` + elWhy + `, since "m" has no default`},
		{"required field of no kind", "Ref?", `{"properties":{"r":{"$ref":"#/x","default":"a"}},"required":["r"]}`,
			"decline", ``, `server "s" asked: Ref?; declined ` + elWhy + `, since "r" has no default`},
		{"required but not a property", "Ghost?", `{"properties":{"a":{"type":"string","default":"x"}},"required":["ghost"]}`,
			"accept", `{"a":"x"}`, `server "s" asked: Ghost?; accepted with the defaults a="x" ` + elWhy},
		{"message on one line", "Line one\n\tline   two", `{"properties":{}}`,
			"accept", `{}`, `server "s" asked: Line one line two; accepted with no values (no field has a default) ` + elWhy},
		{"long message clipped", strings.Repeat("m", 600), `{"properties":{}}`,
			"accept", `{}`, `server "s" asked: ` + strings.Repeat("m", 500) + `...; accepted with no values (no field has a default) ` + elWhy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, stderr := elApp(strings.NewReader("y\n"), false)
			ans := elAsk(t, a, client.Elicitation{Mode: "form", Message: tc.message, Schema: raw(tc.schema)})
			if ans.Action != tc.action || string(ans.Content) != tc.content {
				t.Errorf("answer %s %s, want %s %s", ans.Action, ans.Content, tc.action, tc.content)
			}
			if got, want := stderr.String(), "mcpx: note: "+tc.note+"\n"; got != want {
				t.Errorf("stderr\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestElicitDefaultsChoiceNumber: a default that is a choice's number, not
// one of the enum's values, is no valid default.
func TestElicitDefaultsChoiceNumber(t *testing.T) {
	a, stderr := elApp(nil, false)
	ans := elAsk(t, a, client.Elicitation{Mode: "form", Message: "Color?",
		Schema: raw(`{"properties":{"c":{"type":"string","enum":["red","green"],"default":"2"}},"required":["c"]}`)})
	if ans.Action != "decline" || ans.Content != nil {
		t.Errorf("answer %s %s (stderr %q), want decline: \"2\" is not one of the enum's values", ans.Action, ans.Content, stderr)
	}
}

// TestElicitNotInteractive: each reason not to ask gives mcpx's own answer.
func TestElicitNotInteractive(t *testing.T) {
	schema := raw(`{"properties":{"a":{"type":"string"}},"required":["a"]}`)
	for _, tc := range []struct {
		name      string
		set       func(a *app)
		tty       bool
		stdinUsed bool
		why       string
	}{
		{"no terminal", func(*app) {}, false, false, "(not asked: stdin is not a terminal)"},
		{"--no-input", func(a *app) { a.g.noInput = true }, true, false, "(not asked: --no-input)"},
		{"stdin used", func(*app) {}, true, true, "(not asked: stdin gave a value)"},
		{"--json", func(a *app) { a.g.json = true }, true, false, "(not asked: --json)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, stderr := elApp(strings.NewReader("y\nvalue\n"), tc.tty)
			tc.set(a)
			if a.g.json {
				a.log = output.NewLog(a.s, true, false)
			}
			clk, stop := newClock(context.Background(), time.Minute)
			defer stop()
			ans := a.elicitor(context.Background(), clk, tc.stdinUsed)(context.Background(),
				client.Elicitation{Server: "s", Mode: "form", Message: "A?", Schema: schema})
			if ans.Action != "decline" {
				t.Errorf("answer %+v", ans)
			}
			want := "mcpx: note: server \"s\" asked: A?; declined " + tc.why + ", since \"a\" has no default\n"
			if a.g.json {
				want = `{"note":"server \"s\" asked: A?; declined ` + tc.why + `, since \"a\" has no default"}` + "\n"
			}
			if stderr.String() != want {
				t.Errorf("stderr\n got %q\nwant %q", stderr, want)
			}
		})
	}
}

func TestElicitURL(t *testing.T) {
	e := client.Elicitation{Mode: "url", Message: "Sign in\nplease", URL: "https://auth.example/cb?x=1", ID: "el-1"}
	shown := "mcpx: server \"s\" asks you to open a URL: Sign in please:\nhttps://auth.example/cb?x=1\n"
	question := "open it yourself, then answer: [y]es, I will / [n]o, decline / [c]ancel: "

	a, stderr := elApp(nil, false)
	if ans := elAsk(t, a, e); ans.Action != "decline" || ans.Content != nil {
		t.Errorf("not interactive: %+v", ans)
	}
	if want := shown + "mcpx: note: server \"s\": declined the URL request " + elWhy + "\n"; stderr.String() != want {
		t.Errorf("not interactive\n got %q\nwant %q", stderr, want)
	}

	a, stderr = elApp(nil, true)
	a.g.json = true
	a.log = output.NewLog(a.s, true, false)
	if ans := elAsk(t, a, e); ans.Action != "decline" {
		t.Errorf("--json: %+v", ans)
	}
	if want := `{"note":"server \"s\" asks you to open a URL: Sign in please","url":"https://auth.example/cb?x=1"}` + "\n" +
		`{"note":"server \"s\": declined the URL request (not asked: --json)"}` + "\n"; stderr.String() != want {
		t.Errorf("--json\n got %q\nwant %q", stderr, want)
	}

	for _, tc := range []struct {
		in, action, after string
	}{
		{"y\n", "accept", question + "mcpx: note: server \"s\": URL request accepted\n"},
		{"what\n YES \n", "accept", question + "answer y, n or c\n" + question + "mcpx: note: server \"s\": URL request accepted\n"},
		{"n\n", "decline", question + "mcpx: note: server \"s\": URL request declined\n"},
		{"No", "decline", question + "mcpx: note: server \"s\": URL request declined\n"}, // end of input ends the line
		{"c\n", "cancel", question + "mcpx: note: server \"s\": URL request cancelled\n"},
		{"cancel\n", "cancel", question + "mcpx: note: server \"s\": URL request cancelled\n"},
		{"maybe\n", "cancel", question + "answer y, n or c\n" + question + "\nmcpx: note: server \"s\": URL request cancelled (end of input)\n"},
	} {
		a, stderr := elApp(strings.NewReader(tc.in), true)
		if ans := elAsk(t, a, e); ans.Action != tc.action || ans.Content != nil {
			t.Errorf("%q: %+v, want %s", tc.in, ans, tc.action)
		}
		if want := shown + tc.after; stderr.String() != want {
			t.Errorf("%q\n got %q\nwant %q", tc.in, stderr, want)
		}
	}
}

// elForm is a form with a field of each kind.
const elForm = `{"type":"object","properties":{
	"name":{"type":"string","title":"Your name","description":"First and\nlast name","minLength":2},
	"age":{"type":"integer","minimum":0,"maximum":150,"default":30},
	"color":{"type":"string","enum":["r","g"],"enumNames":["Red","Green"]},
	"tags":{"type":"array","items":{"anyOf":[{"const":"a","title":"Alpha"},{"const":"b","title":"b"}]},"maxItems":1},
	"mail":{"type":"string","format":"email"},
	"ok":{"type":"boolean"},
	"ref":{"$ref":"#/$defs/x"}
},"required":["name","color"]}`

// TestAskForm: the whole exchange on a terminal, answer by answer.
func TestAskForm(t *testing.T) {
	const (
		answer = "answer? [y]es / [n]o, decline / [c]ancel: "
		name   = "Your name (name) [string]: "
		age    = "age [integer; default 30]: "
		color  = "color [one of 1) r Red, 2) g Green]: "
		tags   = "tags [any of, comma-separated, 1) a Alpha, 2) b; optional]: "
		mail   = "mail [string; email; optional]: "
		ok     = "ok [yes/no; optional]: "
	)
	head := "mcpx: server \"s\" asks: Tell me more\n"
	for _, tc := range []struct {
		name, in        string
		action, content string
		stderr          string
	}{
		{"every check", "maybe\ny\n\nA\nAnn\nabc\n200\n\n3\nGreen\n2\na,b\n1\nann\nann@x.org\n\n",
			"accept", `{"name":"Ann","age":30,"color":"g","tags":["a"],"mail":"ann@x.org"}`,
			head + answer + "answer y, n or c\n" + answer + "  First and last name\n" +
				name + "Your name (name) is required\n" +
				name + "Your name (name) must be at least 2 characters\n" +
				name + age + "age must be a number\n" +
				age + "age must be at most 150\n" +
				age + color + "color must be one of the choices (its number or its value)\n" +
				color + "color must be one of the choices (its number or its value)\n" +
				color + tags + "tags must be at most 1 choice\n" +
				tags + mail + "mail must be an email address\n" +
				mail + ok +
				"mcpx: note: server \"s\": elicitation accepted with {\"name\":\"Ann\",\"age\":30,\"color\":\"g\",\"tags\":[\"a\"],\"mail\":\"ann@x.org\"}\n"},
		{"empty answer is yes, values typed", "\nBo\n7\nr\n\n\nno\n",
			"accept", `{"name":"Bo","age":7,"color":"r","ok":false}`,
			head + answer + "  First and last name\n" + name + age + color + tags + mail + ok +
				"mcpx: note: server \"s\": elicitation accepted with {\"name\":\"Bo\",\"age\":7,\"color\":\"r\",\"ok\":false}\n"},
		{"decline", "n\n", "decline", ``, head + answer + "mcpx: note: server \"s\": elicitation declined\n"},
		{"decline spelled", " No \n", "decline", ``, head + answer + "mcpx: note: server \"s\": elicitation declined\n"},
		{"cancel", "c\n", "cancel", ``, head + answer + "mcpx: note: server \"s\": elicitation cancelled\n"},
		{"end of input at the start", "", "cancel", ``,
			head + answer + "\nmcpx: note: server \"s\": elicitation cancelled (end of input)\n"},
		{"end of input in the form", "y\nAnn\n", "cancel", ``,
			head + answer + "  First and last name\n" + name + age + "\nmcpx: note: server \"s\": elicitation cancelled (end of input)\n"},
		{"last line without a newline", "y\nAnn\n\n1\n\n\nyes", "accept", `{"name":"Ann","age":30,"color":"r","ok":true}`,
			head + answer + "  First and last name\n" + name + age + color + tags + mail + ok +
				"mcpx: note: server \"s\": elicitation accepted with {\"name\":\"Ann\",\"age\":30,\"color\":\"r\",\"ok\":true}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, stderr := elApp(strings.NewReader(tc.in), true)
			ans := elAsk(t, a, client.Elicitation{Mode: "form", Message: "Tell me\nmore", Schema: raw(elForm)})
			if ans.Action != tc.action || string(ans.Content) != tc.content {
				t.Errorf("answer %s %s, want %s %s", ans.Action, ans.Content, tc.action, tc.content)
			}
			if stderr.String() != tc.stderr {
				t.Errorf("stderr\n got %q\nwant %q", stderr, tc.stderr)
			}
		})
	}
}

// TestAskFormSecret: what is typed for a field whose name marks a secret
// (the TypeScript SDK's elicitation example asks for "password") is masked
// in the note that reports the answer, and from then on.
func TestAskFormSecret(t *testing.T) {
	a, stderr := elApp(strings.NewReader("y\nalice\nhunter22\n"), true)
	ans := elAsk(t, a, client.Elicitation{Mode: "form", Message: "M",
		Schema: raw(`{"properties":{"username":{"type":"string"},"password":{"type":"string","minLength":8}},"required":["username","password"]}`)})
	if ans.Action != "accept" || string(ans.Content) != `{"username":"alice","password":"hunter22"}` {
		t.Errorf("answer %s %s", ans.Action, ans.Content)
	}
	want := "mcpx: server \"s\" asks: M\nanswer? [y]es / [n]o, decline / [c]ancel: username [string]: password [string]: " +
		"mcpx: note: server \"s\": elicitation accepted with {\"username\":\"alice\",\"password\":\"***\"}\n"
	if stderr.String() != want {
		t.Errorf("stderr\n got %q\nwant %q", stderr, want)
	}
	if got := a.s.Mask("welcome alice, your password is hunter22"); got != "welcome alice, your password is ***" {
		t.Errorf("later output: %q", got)
	}
}

// TestAskFormRequiredUnaskable: a required field mcpx cannot ask for
// declines the form; an optional one is skipped.
func TestAskFormRequiredUnaskable(t *testing.T) {
	a, stderr := elApp(strings.NewReader("y\nx\n"), true)
	ans := elAsk(t, a, client.Elicitation{Mode: "form", Message: "M",
		Schema: raw(`{"properties":{"s":{"type":"string"},"o":{"type":"object"}},"required":["o"]}`)})
	if ans.Action != "decline" || ans.Content != nil {
		t.Errorf("answer %+v", ans)
	}
	want := "mcpx: server \"s\" asks: M\nanswer? [y]es / [n]o, decline / [c]ancel: s [string; optional]: " +
		"mcpx: note: server \"s\": field \"o\" is of a kind mcpx cannot ask for; elicitation declined\n"
	if stderr.String() != want {
		t.Errorf("stderr\n got %q\nwant %q", stderr, want)
	}

	a, stderr = elApp(strings.NewReader("y\n"), true)
	ans = elAsk(t, a, client.Elicitation{Mode: "form", Message: "M", Schema: raw(`{"properties":{"o":{"type":"object"}}}`)})
	if ans.Action != "accept" || string(ans.Content) != `{}` {
		t.Errorf("optional: %s %s", ans.Action, ans.Content)
	}
	if want := "mcpx: server \"s\" asks: M\nanswer? [y]es / [n]o, decline / [c]ancel: mcpx: note: server \"s\": elicitation accepted with {}\n"; stderr.String() != want {
		t.Errorf("optional\n got %q\nwant %q", stderr, want)
	}
}

// TestAskFormInterrupted: an interrupt ends the question at once (stdin
// still open) and cancels the elicitation.
func TestAskFormInterrupted(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	a, stderr := elApp(inR, true)
	clk, stop := newClock(context.Background(), time.Minute)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	ans := a.elicitor(ctx, clk, false)(context.Background(), client.Elicitation{Server: "s", Mode: "form", Message: "M", Schema: raw(`{"properties":{}}`)})
	if ans.Action != "cancel" {
		t.Errorf("answer %+v", ans)
	}
	if want := "mcpx: server \"s\" asks: M\nanswer? [y]es / [n]o, decline / [c]ancel: \nmcpx: note: server \"s\": elicitation cancelled (interrupted)\n"; stderr.String() != want {
		t.Errorf("stderr\n got %q\nwant %q", stderr, want)
	}
}

// TestElicitPausesClock: the connection's clock stops while a person
// answers, and runs again with the time that was left.
func TestElicitPausesClock(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	a, _ := elApp(inR, true)
	clk, stop := newClock(context.Background(), 80*time.Millisecond)
	defer stop()
	go func() {
		time.Sleep(200 * time.Millisecond) // longer than the clock's time
		_, _ = io.WriteString(inW, "y\nfine\n")
	}()
	ans := a.elicitor(context.Background(), clk, false)(context.Background(), client.Elicitation{Server: "s", Mode: "form", Message: "M",
		Schema: raw(`{"properties":{"a":{"type":"string"}}}`)})
	if ans.Action != "accept" || string(ans.Content) != `{"a":"fine"}` {
		t.Errorf("answer %s %s", ans.Action, ans.Content)
	}
	if err := clk.ctx.Err(); err != nil {
		t.Fatalf("the clock ran out while a person answered: %v", context.Cause(clk.ctx))
	}
	select {
	case <-clk.ctx.Done():
		if !timedOut(clk.ctx, clk.ctx.Err()) {
			t.Errorf("ended with %v", context.Cause(clk.ctx))
		}
	case <-time.After(2 * time.Second):
		t.Error("the clock never ran out after the answer")
	}
}

// TestElicitProgressLine: the question starts on a line of its own when a
// progress line is shown.
func TestElicitProgressLine(t *testing.T) {
	a, stderr := elApp(strings.NewReader("n\n"), true)
	a.onProgress(client.Progress{Server: "s", Progress: 1, Total: 2})
	elAsk(t, a, client.Elicitation{Mode: "form", Message: "M", Schema: raw(`{"properties":{}}`)})
	want := "mcpx: server \"s\": 1/2 (50%)\r\x1b[Kmcpx: server \"s\" asks: M\nanswer? [y]es / [n]o, decline / [c]ancel: mcpx: note: server \"s\": elicitation declined\n"
	if stderr.String() != want {
		t.Errorf("stderr\n got %q\nwant %q", stderr, want)
	}
}

// TestServerTextOneLine: what a server names (a log level, a field, a
// choice, a URL) cannot start a line of its own on stderr, where it could
// pass for mcpx's own words.
func TestServerTextOneLine(t *testing.T) {
	const fake = "\nmcpx: error: x"
	for _, tc := range []struct {
		name string
		run  func(a *app)
	}{
		{"log level", func(a *app) {
			a.onLog(client.LogMessage{Server: "s", Level: "e" + fake, Data: raw(`"x"`)})
		}},
		{"field name in the defaults note", func(a *app) {
			a.s = output.New(nil, io.Discard, a.s.Err, false, false, false)
			elAsk(t, a, client.Elicitation{Mode: "form", Message: "M", Schema: raw(`{"properties":{"a\nmcpx: error: x":{"type":"string","default":"x"}}}`)})
		}},
		{"field name asked", func(a *app) {
			elAsk(t, a, client.Elicitation{Mode: "form", Message: "M", Schema: raw(`{"properties":{"a\nmcpx: error: x":{"type":"string"}}}`)})
		}},
		{"choice", func(a *app) {
			elAsk(t, a, client.Elicitation{Mode: "form", Message: "M", Schema: raw(`{"properties":{"c":{"type":"string","enum":["r\nmcpx: error: x"]}}}`)})
		}},
		{"url", func(a *app) {
			a.g.noInput = true
			elAsk(t, a, client.Elicitation{Mode: "url", Message: "M", URL: "https://x.example/" + fake, ID: "i"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, stderr := elApp(strings.NewReader("y\n\n"), true)
			tc.run(a)
			for _, line := range strings.Split(stderr.String(), "\n") {
				if strings.HasPrefix(line, "mcpx: error: x") {
					t.Errorf("a line of the server's: %q in\n%s", line, stderr)
				}
			}
		})
	}
}

func TestRoots(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"sub", "other dir"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	base := "file://" + filepath.ToSlash(dir)
	for _, tc := range []struct {
		name   string
		roots  []string // --root
		server []string // the server's "roots", as Resolve makes them
		want   []client.Root
		err    string
	}{
		{"none by default (never the current directory)", nil, nil, nil, ""},
		{"relative to the current directory", []string{"sub", "./other dir/", filepath.Join(dir, "sub")}, nil,
			[]client.Root{{URI: base + "/sub", Name: "sub"}, {URI: base + "/other%20dir", Name: "other dir"}, {URI: base + "/sub", Name: "sub"}}, ""},
		{"the server's", nil, []string{filepath.Join(dir, "other dir"), dir + "/sub/"},
			[]client.Root{{URI: base + "/other%20dir", Name: "other dir"}, {URI: base + "/sub", Name: "sub"}}, ""},
		{"--root replaces the server's", []string{"sub"}, []string{filepath.Join(dir, "other dir")},
			[]client.Root{{URI: base + "/sub", Name: "sub"}}, ""},
		{"a file", []string{"sub", "file"}, nil, nil, "--root " + file + ": not a directory"},
		{"missing", []string{filepath.Join(dir, "gone")}, nil, nil, "--root " + filepath.Join(dir, "gone") + ": not a directory"},
		{"missing relative", []string{"gone/x"}, nil, nil, "--root " + filepath.Join(dir, "gone", "x") + ": not a directory"},
		{"the server's missing", nil, []string{filepath.Join(dir, "sub"), filepath.Join(dir, "gone")}, nil,
			`server "s": roots[1] ` + filepath.Join(dir, "gone") + ": not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := elApp(nil, false)
			a.cwd, a.g.roots = dir, tc.roots
			got, err := a.roots(&config.Target{Name: "s", Roots: tc.server})
			if tc.err != "" {
				if err == nil || err.Error() != tc.err || got != nil {
					t.Fatalf("roots() = %+v, %T %v; want error %q", got, err, err, tc.err)
				}
				if r := classify(err, nil); r.ExitCode != 2 || r.Code != "usage" || r.Message != tc.err {
					t.Errorf("classified %+v", r)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("roots() = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// TestRootsNoCurrentDirectory: when the current directory is unknown (it
// was removed) and no --root is given, nothing blames --root.
func TestRootsNoCurrentDirectory(t *testing.T) {
	a, _ := elApp(nil, false)
	if roots, err := a.roots(&config.Target{Name: "s"}); err != nil || roots != nil {
		t.Errorf("no --root, no current directory: %+v, %v", roots, err)
	}
}

func TestOnLog(t *testing.T) {
	for _, tc := range []struct {
		name    string
		verbose bool
		json    bool
		m       client.LogMessage
		want    string
	}{
		{"warning", false, false, client.LogMessage{Server: "s", Level: "warning", Data: raw(`"disk full"`)},
			"mcpx: note: server \"s\" logged warning: disk full\n"},
		{"error with a logger and JSON data", false, false, client.LogMessage{Server: "s", Level: "error", Logger: "db\npool", Data: raw(`{"a":[1,2]}`)},
			"mcpx: note: server \"s\" logged error: db pool: {\"a\":[1,2]}\n"},
		{"emergency", false, false, client.LogMessage{Server: "s", Level: "emergency", Data: raw(`42`)},
			"mcpx: note: server \"s\" logged emergency: 42\n"},
		{"info hidden", false, false, client.LogMessage{Server: "s", Level: "info", Data: raw(`"x"`)}, ""},
		{"notice hidden", false, false, client.LogMessage{Server: "s", Level: "notice", Data: raw(`"x"`)}, ""},
		{"debug hidden", false, false, client.LogMessage{Server: "s", Level: "debug", Data: raw(`"x"`)}, ""},
		{"debug with -v", true, false, client.LogMessage{Server: "s", Level: "debug", Data: raw(`"x"`)},
			"mcpx: note: server \"s\" logged debug: x\n"},
		{"unknown level shown", false, false, client.LogMessage{Server: "s", Level: "chatty", Data: raw(`"x"`)},
			"mcpx: note: server \"s\" logged chatty: x\n"},
		{"string data on one line", false, false, client.LogMessage{Server: "s", Level: "error", Data: raw(`"line one\n  line two"`)},
			"mcpx: note: server \"s\" logged error: line one line two\n"},
		{"no data", false, false, client.LogMessage{Server: "s", Level: "error", Data: raw(`null`)},
			"mcpx: note: server \"s\" logged error:\n"},
		{"long data clipped", false, false, client.LogMessage{Server: "s", Level: "error", Data: raw(`"` + strings.Repeat("d", 501) + `"`)},
			"mcpx: note: server \"s\" logged error: " + strings.Repeat("d", 500) + "...\n"},
		{"--json", false, true, client.LogMessage{Server: "s", Level: "critical", Logger: "l", Data: raw(`"x"`)},
			`{"note":"server \"s\" logged critical: l: x"}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, stderr := elApp(nil, false)
			a.g.verbose = tc.verbose
			a.log = output.NewLog(a.s, tc.json, tc.verbose)
			a.onLog(tc.m)
			if stderr.String() != tc.want {
				t.Errorf("stderr\n got %q\nwant %q", stderr, tc.want)
			}
		})
	}
}

func TestOnProgress(t *testing.T) {
	for _, tc := range []struct {
		p    client.Progress
		want string
	}{
		{client.Progress{Server: "s", Progress: 5, Total: 10, Message: "copying files"}, `mcpx: server "s": 5/10 (50%) copying files`},
		{client.Progress{Server: "s", Progress: 1, Total: 3}, `mcpx: server "s": 1/3 (33%)`},
		{client.Progress{Server: "s", Progress: 7, Message: "step"}, `mcpx: server "s": 7 step`},
		{client.Progress{Server: "s", Progress: 0.5}, `mcpx: server "s": 0.5`},
		{client.Progress{Server: "s", Progress: 12, Total: 10}, `mcpx: server "s": 12/10 (100%)`},
		{client.Progress{Server: "s", Progress: -1, Total: 10}, `mcpx: server "s": -1/10 (0%)`},
		{client.Progress{Server: "s", Progress: 1, Total: 1e21}, `mcpx: server "s": 1/1000000000000000000000 (0%)`},
		{client.Progress{Server: "s", Progress: 1, Total: 2, Message: "a\n\tb \x1b[2J"}, `mcpx: server "s": 1/2 (50%) a b \x1b[2J`},
		{client.Progress{Server: "s", Progress: 1, Message: strings.Repeat("x", 100)}, `mcpx: server "s": 1 ` + strings.Repeat("x", 78-20) + "…"},
	} {
		a, stderr := elApp(nil, true)
		a.onProgress(tc.p)
		if stderr.String() != tc.want {
			t.Errorf("%+v\n got %q\nwant %q", tc.p, stderr, tc.want)
		}
	}
	a, stderr := elApp(nil, false)
	a.onProgress(client.Progress{Server: "s", Progress: 1})
	if stderr.Len() != 0 {
		t.Errorf("not a terminal: %q", stderr)
	}
}
