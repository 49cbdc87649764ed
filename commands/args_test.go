package commands

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/render"
)

// usageOf fails the test unless err is a *UsageError.
func usageOf(t *testing.T, err error) *UsageError {
	t.Helper()
	var u *UsageError
	if !errors.As(err, &u) {
		t.Fatalf("got error %T %v, want *UsageError", err, err)
	}
	if r := classify(err, nil); r.ExitCode != exitUsage {
		t.Fatalf("exit code %d, want %d", r.ExitCode, exitUsage)
	}
	return u
}

// argsDir makes a directory of value files and changes into it.
func argsDir(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"note.txt":     "line one\nline two\n",
		"payload.json": "  {\"a\": [1, 2.50, 1e400],\n \"b\": \"<&>\"}\n",
		"count.txt":    "42\n",
		"big.txt":      "12345678901234567890\n",
		"list.json":    "[\n  {\"x\": 1},\n  {\"y\": null}\n]\n",
		"bad.bin":      "ok\xff\xfe",
		"empty.txt":    "",
		"at.txt":       "@not-a-file",
		"bad.json":     "{\"a\": ",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
}

func TestParsePairs(t *testing.T) {
	argsDir(t)
	for _, tc := range []struct {
		name     string
		args     []string
		allowRaw bool
		stdin    string
		want     []pair
	}{
		{"none", nil, true, "", []pair{}},
		{"plain", []string{"k=v"}, false, "", []pair{{Key: "k", Value: "v"}}},
		{"empty value", []string{"k="}, false, "", []pair{{Key: "k", Value: ""}}},
		{"equals in value", []string{"k=a=b"}, false, "", []pair{{Key: "k", Value: "a=b"}}},
		{"raw", []string{"a:=1"}, true, "", []pair{{Key: "a", Value: "1", Raw: true}}},
		{"raw value with equals", []string{`a:="x=y"`}, true, "", []pair{{Key: "a", Value: `"x=y"`, Raw: true}}},
		{"colon in key", []string{"a:b=1"}, true, "", []pair{{Key: "a:b", Value: "1"}}},
		{"colon key raw", []string{"a:b:=1"}, true, "", []pair{{Key: "a:b", Value: "1", Raw: true}}},
		{"double colon raw", []string{"a::=1"}, true, "", []pair{{Key: "a:", Value: "1", Raw: true}}},
		{"value with :=", []string{"k=a:=b"}, true, "", []pair{{Key: "k", Value: "a:=b"}}},
		{"raw not allowed", []string{"a:=1"}, false, "", []pair{{Key: "a:", Value: "1"}}},
		{"literal at", []string{"k=@@x"}, false, "", []pair{{Key: "k", Value: "@x"}}},
		{"literal lone at", []string{"k=@@"}, false, "", []pair{{Key: "k", Value: "@"}}},
		{"literal double at", []string{"k=@@@x"}, false, "", []pair{{Key: "k", Value: "@@x"}}},
		{"at inside value", []string{"k=a@b"}, false, "", []pair{{Key: "k", Value: "a@b"}}},
		{"file verbatim", []string{"k=@note.txt"}, false, "", []pair{{Key: "k", Value: "line one\nline two\n", File: "note.txt"}}},
		{"empty file", []string{"k=@empty.txt"}, false, "", []pair{{Key: "k", Value: "", File: "empty.txt"}}},
		{"file content not re-read", []string{"k=@at.txt"}, false, "", []pair{{Key: "k", Value: "@not-a-file", File: "at.txt"}}},
		{"stdin", []string{"k=@-"}, false, "from stdin\n", []pair{{Key: "k", Value: "from stdin\n", File: "-"}}},
		{"empty stdin", []string{"k=@-"}, false, "", []pair{{Key: "k", Value: "", File: "-"}}},
		{"raw from file", []string{"p:=@payload.json"}, true, "", []pair{{Key: "p", Value: "  {\"a\": [1, 2.50, 1e400],\n \"b\": \"<&>\"}\n", Raw: true, File: "payload.json"}}},
		{"unicode", []string{"ключ=значение ✓"}, false, "", []pair{{Key: "ключ", Value: "значение ✓"}}},
		{"order kept", []string{"b=1", "a=2", "c:=3"}, true, "", []pair{{Key: "b", Value: "1"}, {Key: "a", Value: "2"}, {Key: "c", Value: "3", Raw: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			used := false
			got, err := parsePairs(tc.args, tc.allowRaw, strings.NewReader(tc.stdin), &used)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v\nwant %#v", got, tc.want)
			}
			if wantUsed := strings.Contains(strings.Join(tc.args, " "), "@-"); used != wantUsed {
				t.Errorf("stdinUsed %v, want %v", used, wantUsed)
			}
		})
	}
}

func TestParsePairsErrors(t *testing.T) {
	argsDir(t)
	for _, tc := range []struct {
		name      string
		args      []string
		allowRaw  bool
		stdinUsed bool
		msg       string
		details   map[string]any
		hint      string // a substring of some hint
	}{
		{"no equals invoke", []string{"count"}, true, false,
			`"count" is not a KEY=VALUE or KEY:=JSON pair`, nil, "limit:=10"},
		{"no equals prompt", []string{"topic"}, false, false,
			`"topic" is not an ARG=VALUE pair`, nil, "mcpx prompt SRV NAME topic=rust"},
		{"empty key", []string{"=v"}, false, false,
			`"=v" has an empty name before "="`, nil, "ARG=VALUE"},
		{"empty raw key", []string{":=1"}, true, false,
			`":=1" has an empty name before "="`, nil, "KEY=VALUE"},
		{"duplicate", []string{"k=1", "k=2"}, false, false,
			`argument "k" is given twice`, map[string]any{"key": "k"}, "once"},
		{"duplicate raw and plain", []string{"k=1", "k:=2"}, true, false,
			`argument "k" is given twice`, map[string]any{"key": "k"}, `k:='["a","b"]'`},
		{"missing file", []string{"k=@nope.txt"}, false, false,
			`argument "k": cannot read @nope.txt: no such file or directory`,
			map[string]any{"key": "k", "file": "nope.txt"}, "k=@@nope.txt"},
		{"tilde file", []string{"k=@~/nope.txt"}, false, false,
			`argument "k": cannot read @~/nope.txt: no such file or directory`,
			map[string]any{"key": "k", "file": "~/nope.txt"}, "@$HOME/nope.txt"},
		{"directory", []string{"k=@sub"}, false, false,
			`argument "k": cannot read @sub: is a directory`,
			map[string]any{"key": "k", "file": "sub"}, "k=@@sub"},
		{"lone at", []string{"k=@"}, false, false,
			`argument "k": "@" names no file`, map[string]any{"key": "k", "file": ""}, "@@"},
		{"non-utf8 file", []string{"k=@bad.bin"}, false, false,
			`argument "k": bad.bin is not valid UTF-8 text`,
			map[string]any{"key": "k", "file": "bad.bin"}, "base64"},
		{"non-utf8 value", []string{"k=a\xffb"}, false, false,
			`argument "k": the value is not valid UTF-8`, map[string]any{"key": "k"}, "base64"},
		{"non-utf8 key", []string{"k\xff=1"}, false, false,
			`argument name "k\xff" is not valid UTF-8`, nil, ""},
		{"stdin twice", []string{"a=@-", "b=@-"}, false, false,
			`argument "b": @- reads stdin, which another value already read`,
			map[string]any{"key": "b", "file": "-"}, "read only once"},
		{"stdin used by --args", []string{"a=@-"}, true, true,
			`argument "a": @- reads stdin, which another value already read`,
			map[string]any{"key": "a", "file": "-"}, "@FILE"},
		{"raw invalid", []string{"n:=12x"}, true, false,
			`argument "n": n:=12x is not valid JSON (invalid character 'x' after top-level value)`,
			map[string]any{"key": "n", "value": "12x", "expected": "JSON"}, "n=TEXT"},
		{"raw empty", []string{"n:="}, true, false,
			`argument "n": n:= is not valid JSON (unexpected end of JSON input)`,
			map[string]any{"key": "n", "value": "", "expected": "JSON"}, "n:='"},
		{"raw bad file", []string{"p:=@bad.json"}, true, false,
			`argument "p": the content of bad.json is not valid JSON (unexpected end of JSON input)`,
			map[string]any{"key": "p", "value": `{"a": `, "expected": "JSON"}, ""},
		{"raw literal at", []string{"p:=@@x"}, true, false,
			`argument "p": p:=@x is not valid JSON (invalid character '@' looking for beginning of value)`,
			map[string]any{"key": "p", "value": "@x", "expected": "JSON"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			used := tc.stdinUsed
			_, err := parsePairs(tc.args, tc.allowRaw, strings.NewReader("data"), &used)
			u := usageOf(t, err)
			if u.Msg != tc.msg {
				t.Errorf("message\n got %s\nwant %s", u.Msg, tc.msg)
			}
			if tc.details == nil {
				if len(u.Details) != 0 {
					t.Errorf("details %v, want none", u.Details)
				}
			} else if !reflect.DeepEqual(u.Details, tc.details) {
				t.Errorf("details %#v, want %#v", u.Details, tc.details)
			}
			if tc.hint != "" && !strings.Contains(strings.Join(u.Hints, "\n"), tc.hint) {
				t.Errorf("hints %q lack %q", u.Hints, tc.hint)
			}
		})
	}
}

func TestParsePairsStdinOnce(t *testing.T) {
	// nil stdinUsed still allows one read per call
	got, err := parsePairs([]string{"a=@-"}, false, strings.NewReader("x"), nil)
	if err != nil || len(got) != 1 || got[0].Value != "x" {
		t.Fatalf("got %v, %v", got, err)
	}
	// a nil stdin reads as empty
	if got, err := parsePairs([]string{"a=@-"}, false, nil, nil); err != nil || got[0].Value != "" || got[0].File != "-" {
		t.Fatalf("nil stdin: got %v, %v", got, err)
	}
	// stdin that is not UTF-8
	_, err = parsePairs([]string{"a=@-"}, false, strings.NewReader("\xc3"), nil)
	if u := usageOf(t, err); u.Msg != `argument "a": the value read from stdin is not valid UTF-8` ||
		!reflect.DeepEqual(u.Details, map[string]any{"key": "a", "file": "-"}) {
		t.Errorf("non-UTF-8 stdin: %q %v", u.Msg, u.Details)
	}
	// stdin shared with --args: whichever reads second fails
	used := false
	if _, err := readArgsFlag("-", strings.NewReader("{}"), &used); err != nil || !used {
		t.Fatalf("readArgsFlag: %v used=%v", err, used)
	}
	if _, err := parsePairs([]string{"a=@-"}, false, strings.NewReader(""), &used); err == nil {
		t.Fatal("second read of stdin accepted")
	}
}

func TestParsePairsLimit(t *testing.T) {
	dir := t.TempDir()
	// a sparse file one byte over the message ceiling: refused before reading
	huge := filepath.Join(dir, "huge")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(render.MessageCeiling + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = parsePairs([]string{"k=@" + huge}, false, nil, nil)
	var le *render.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("got %T %v, want *render.LimitError", err, err)
	}
	if le.Limit != "message ceiling" || le.Value != render.MessageCeiling {
		t.Errorf("limit %q %d", le.Limit, le.Value)
	}
	if want := `argument "k": ` + huge + ` is too large: over the message ceiling of 128 MiB (134217728 bytes)`; err.Error() != want {
		t.Errorf("message\n got %s\nwant %s", err, want)
	}
	if r := classify(err, nil); r.ExitCode != exitLimit {
		t.Errorf("exit %d, want %d", r.ExitCode, exitLimit)
	}

	// stdin: exactly the ceiling passes, one byte more is refused
	if got, err := parsePairsLimit([]string{"k=@-"}, false, strings.NewReader("12345"), nil, 5); err != nil || got[0].Value != "12345" {
		t.Fatalf("at the ceiling: %v %v", got, err)
	}
	_, err = parsePairsLimit([]string{"k=@-"}, false, strings.NewReader("123456"), nil, 5)
	if !errors.As(err, &le) || le.Value != 5 {
		t.Fatalf("got %T %v, want *render.LimitError", err, err)
	}
	if want := `argument "k": the value read from stdin is too large: over the message ceiling of 5 bytes`; err.Error() != want {
		t.Errorf("message\n got %s\nwant %s", err, want)
	}
	// a file that is not regular (no size to stat) is still capped while reading
	if _, err := parsePairsLimit([]string{"k=@/dev/zero"}, false, nil, nil, 1024); !errors.As(err, &le) {
		t.Errorf("/dev/zero: got %T %v, want *render.LimitError", err, err)
	}
	// --args has the same ceiling
	if _, err := readArgsFlagLimit("-", strings.NewReader("{}    "), nil, 4); !errors.As(err, &le) {
		t.Errorf("--args -: got %T %v, want *render.LimitError", err, err)
	} else if want := "--args: the value read from stdin is too large"; le.Msg != want {
		t.Errorf("message %q, want %q", le.Msg, want)
	}
}

func TestReadArgsFlag(t *testing.T) {
	argsDir(t)
	for _, tc := range []struct {
		in, stdin, want string
	}{
		{`{"a":1}`, "", `{"a":1}`},
		{"-", `{"s":1}`, `{"s":1}`},
		{"@-", `{"s":2}`, `{"s":2}`},
		{"@payload.json", "", "  {\"a\": [1, 2.50, 1e400],\n \"b\": \"<&>\"}\n"},
		{"@@x", "", "@x"},
		{"", "", ""},
	} {
		got, err := readArgsFlag(tc.in, strings.NewReader(tc.stdin), nil)
		if err != nil || string(got) != tc.want {
			t.Errorf("%q: got %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, msg string }{
		{"@nope.json", "--args: cannot read @nope.json: no such file or directory"},
		{"@sub", "--args: cannot read @sub: is a directory"},
		{"@bad.bin", "--args: bad.bin is not valid UTF-8 text"},
	} {
		_, err := readArgsFlag(tc.in, nil, nil)
		if u := usageOf(t, err); u.Msg != tc.msg {
			t.Errorf("%q: message %q, want %q", tc.in, u.Msg, tc.msg)
		}
	}
}

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
		{"colon in key", typedSchema, "", []string{"a:b=1"}, "", `{"a:b":"1"}`},
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
			got, err := toolArgs("t", base, pairs, schema, nil)
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
			out, err := toolArgs("t", base, pairs, json.RawMessage(tc.schema), nil)
			if err == nil {
				t.Fatalf("no error; got %s", out)
			}
			u := usageOf(t, err)
			if u.Msg != tc.msg {
				t.Errorf("message\n got %s\nwant %s", u.Msg, tc.msg)
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

func TestToolArgsBaseWithEmptyBytes(t *testing.T) {
	// an empty --args (an empty file) is not "no --args"
	_, err := toolArgs("t", []byte{}, nil, nil, nil)
	if u := usageOf(t, err); u.Msg != "--args must be a JSON object: unexpected end of JSON input" {
		t.Errorf("message %q", u.Msg)
	}
}

func TestToolArgsPairsWithoutParse(t *testing.T) {
	// pairs built by hand: invalid UTF-8 and bad raw JSON are still refused
	_, err := toolArgs("t", nil, []pair{{Key: "k", Value: "\xff"}}, nil, nil)
	if u := usageOf(t, err); u.Msg != `argument "k": the value is not valid UTF-8` {
		t.Errorf("message %q", u.Msg)
	}
	_, err = toolArgs("t", nil, []pair{{Key: "k", Value: "{", Raw: true}}, nil, nil)
	usageOf(t, err)
	// the same key twice: the last wins, in the first place
	got, err := toolArgs("t", nil, []pair{{Key: "a", Value: "1"}, {Key: "b", Value: "2"}, {Key: "a", Value: "3"}}, nil, nil)
	if err != nil || string(got) != `{"a":"3","b":"2"}` {
		t.Errorf("got %s, %v", got, err)
	}
}

func strp(s string) *string { return &s }

func TestPromptArgs(t *testing.T) {
	declared := []client.PromptArgument{
		{Name: "topic", Description: strp("what to write about"), Required: true},
		{Name: "style", Description: strp("tone\nof voice")},
		{Name: "length", Required: true},
	}
	for _, tc := range []struct {
		name     string
		args     []string
		declared []client.PromptArgument
		values   map[string]string
		missing  []string
	}{
		{"all given", []string{"length=short", "topic=go"}, declared,
			map[string]string{"topic": "go", "length": "short"}, nil},
		{"optional too", []string{"topic=go", "style=dry", "length=1"}, declared,
			map[string]string{"topic": "go", "style": "dry", "length": "1"}, nil},
		{"missing in declared order", []string{"style=dry"}, declared,
			map[string]string{"style": "dry"}, []string{"topic", "length"}},
		{"nothing given", nil, declared, map[string]string{}, []string{"topic", "length"}},
		{"empty value counts", []string{"topic=", "length="}, declared,
			map[string]string{"topic": "", "length": ""}, nil},
		{"values verbatim", []string{"topic=<a&b> = c\n", "length=@@x"}, declared,
			map[string]string{"topic": "<a&b> = c\n", "length": "@x"}, nil},
		{"no declared arguments", nil, nil, map[string]string{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pairs, err := parsePairs(tc.args, false, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			values, missing, err := promptArgs("p", pairs, tc.declared)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(values, tc.values) {
				t.Errorf("values %#v, want %#v", values, tc.values)
			}
			var names []string
			for _, m := range missing {
				names = append(names, m.Name)
			}
			if !reflect.DeepEqual(names, tc.missing) {
				t.Errorf("missing %v, want %v", names, tc.missing)
			}
		})
	}
}

func TestPromptArgsUnknown(t *testing.T) {
	declared := []client.PromptArgument{{Name: "topic", Required: true}, {Name: "style"}}
	for _, tc := range []struct {
		name     string
		args     []string
		declared []client.PromptArgument
		msg      string
		details  map[string]any
		hints    []string
	}{
		{"one unknown", []string{"topic=x", "tpoic=y"}, declared,
			`prompt "p" has no argument "tpoic"; it declares: topic, style`,
			map[string]any{"declared": []string{"topic", "style"}, "unknown": []string{"tpoic"}},
			[]string{`did you mean "topic" instead of "tpoic"?`}},
		{"several unknown", []string{"Style=x", "zzz=y", "topic:=1"}, declared,
			`prompt "p" has no arguments "Style", "zzz", "topic:"; it declares: topic, style`,
			map[string]any{"declared": []string{"topic", "style"}, "unknown": []string{"Style", "zzz", "topic:"}, "missing": []string{"topic"}},
			[]string{`did you mean "style" instead of "Style"?`, `did you mean "topic" instead of "topic:"?`, "also missing: topic"}},
		{"takes none", []string{"x=1"}, nil,
			`prompt "p" takes no arguments, got "x"`,
			map[string]any{"declared": []string{}, "unknown": []string{"x"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pairs, err := parsePairs(tc.args, false, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = promptArgs("p", pairs, tc.declared)
			u := usageOf(t, err)
			if u.Msg != tc.msg {
				t.Errorf("message\n got %s\nwant %s", u.Msg, tc.msg)
			}
			if !reflect.DeepEqual(u.Details, tc.details) {
				t.Errorf("details %#v, want %#v", u.Details, tc.details)
			}
			if !reflect.DeepEqual(u.Hints, tc.hints) {
				t.Errorf("hints %q, want %q", u.Hints, tc.hints)
			}
		})
	}
}

func TestMissingPromptArgs(t *testing.T) {
	for _, tc := range []struct {
		missing []client.PromptArgument
		msg     string
		names   []string
		hint    string
	}{
		{[]client.PromptArgument{{Name: "topic", Description: strp("what to\n write   about"), Required: true}, {Name: "length", Required: true}, {Name: "x", Description: strp("  ")}},
			`prompt "p" is missing required arguments: topic (what to write about), length, x`,
			[]string{"topic", "length", "x"}, "add topic=VALUE length=VALUE x=VALUE"},
		{[]client.PromptArgument{{Name: "topic", Description: strp(strings.Repeat("d", 100))}},
			`prompt "p" is missing required argument: topic (` + strings.Repeat("d", 79) + `…)`,
			[]string{"topic"}, "add topic=VALUE"},
	} {
		u := usageOf(t, missingPromptArgs("p", tc.missing, nil))
		if u.Msg != tc.msg {
			t.Errorf("message\n got %s\nwant %s", u.Msg, tc.msg)
		}
		if !reflect.DeepEqual(u.Details, map[string]any{"missing": tc.names}) {
			t.Errorf("details %#v", u.Details)
		}
		if !reflect.DeepEqual(u.Hints, []string{tc.hint}) {
			t.Errorf("hints %q, want %q", u.Hints, tc.hint)
		}
	}
}

func TestArgsNearest(t *testing.T) {
	names := []string{"path", "limit", "Mode"}
	for in, want := range map[string]string{
		"pth": "path", "PATH": "path", "mode": "Mode", "limt": "limit", "lim": "limit", "li": "", "x": "", "": "", "zzzz": "",
	} {
		if got := argNearest(in, names); got != want {
			t.Errorf("argNearest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestArgsClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"ééé", 3, "ééé"},
		{"éééé", 3, "éé…"},
		{"", 3, ""},
	} {
		if got := argClip(tc.in, tc.n); got != tc.want {
			t.Errorf("argClip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
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
			got, err := toolArgs("t", nil, pairs, json.RawMessage(refSchema), nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
	// --args values are sent as given
	got, err := toolArgs("t", []byte(`{"color":"purple","priority":"x"}`), nil, json.RawMessage(refSchema), nil)
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
			out, err := toolArgs("t", nil, pairs, json.RawMessage(refSchema), nil)
			if err == nil {
				t.Fatalf("no error; got %s", out)
			}
			u := usageOf(t, err)
			if u.Msg != tc.msg {
				t.Errorf("message\n got %s\nwant %s", u.Msg, tc.msg)
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
	_, err := toolArgs("t", nil, pairs, json.RawMessage(refSchema), nil)
	if u := usageOf(t, err); !strings.Contains(u.Msg, "is a string (KEY=@FILE reads text, verbatim)") {
		t.Errorf("file into an integer enum: %s", u.Msg)
	}
	// a long list is cut in the message, whole in the details
	var many []string
	for i := range 60 {
		many = append(many, strconv.Itoa(i))
	}
	schema := `{"properties":{"n":{"enum":[` + strings.Join(many, ",") + `]}}}`
	pairs, _ = parsePairs([]string{"n=99"}, true, nil, nil)
	_, err = toolArgs("t", nil, pairs, json.RawMessage(schema), nil)
	u := usageOf(t, err)
	if !strings.HasSuffix(u.Msg, ", 48, 49, and 10 more") || len(u.Details["allowed"].([]json.RawMessage)) != 60 {
		t.Errorf("long enum: %s", u.Msg)
	}
}

func TestToolArgsRefsMissing(t *testing.T) {
	pairs, _ := parsePairs(nil, true, nil, nil)
	schema := `{"$defs":{"M":{"type":"object","description":"A model.\nMore."}},"properties":{"m":{"$ref":"#/$defs/M"},` +
		`"c":{"allOf":[{"$ref":"#/$defs/M"}],"description":"Own words"}},"required":["m","c"]}`
	_, err := toolArgs("t", nil, pairs, json.RawMessage(schema), nil)
	if u := usageOf(t, err); u.Msg != `tool "t" is missing required arguments: m (object, A model. More.), c (object, Own words)` {
		t.Errorf("message %s", u.Msg)
	}
}

func TestCanonJSON(t *testing.T) {
	same := [][]string{
		{`1`, `1.0`, `10e-1`, `0.1e1`, `1E0`, `1.000`},
		{`0`, `-0`, `0.0`, `0e5`, `-0.000e-3`},
		{`-25`, `-2.5e1`, `-250e-1`},
		{`100`, `1e2`, `1E+2`, `100.0`},
		{`1e400`, `10e399`},
		{`12345678901234567890`, `1234567890123456789e1`},
		{`"a\u0062"`, `"ab"`},
		{`{"a":1,"b":[true,null]}`, `{ "b" : [true, null], "a" : 1.0 }`, `{"a":2,"b":[true,null],"a":1}`},
	}
	var all []string
	for _, group := range same {
		c0, ok := canonJSON(json.RawMessage(group[0]))
		if !ok {
			t.Fatalf("%s: not canonical", group[0])
		}
		for _, v := range group[1:] {
			if c, _ := canonJSON(json.RawMessage(v)); c != c0 {
				t.Errorf("%s is %q, %s is %q", group[0], c0, v, c)
			}
		}
		all = append(all, c0)
	}
	for _, v := range []string{`12345678901234567891`, `"1"`, `true`, `null`, `[1]`, `{"a":1}`, `0.1`, `1e401`} {
		c, _ := canonJSON(json.RawMessage(v))
		if slices.Contains(all, c) {
			t.Errorf("%s reads as %q, like a different value", v, c)
		}
	}
	if _, ok := canonJSON(json.RawMessage(`{"a":`)); ok {
		t.Error("invalid JSON has a canonical form")
	}
}

// TestSchemaReadingBounded: cycles end, and unions of $refs to unions are
// read once per definition, not once per path.
func TestSchemaReadingBounded(t *testing.T) {
	var defs []string
	for i := range 15 {
		defs = append(defs, fmt.Sprintf(`"D%d":{"anyOf":[{"$ref":"#/$defs/D%d"},{"$ref":"#/$defs/D%d"}]}`, i, i+1, i+1))
	}
	schema := json.RawMessage(`{"$defs":{` + strings.Join(defs, ",") + `,"D15":{"enum":[1,2]},` +
		`"A":{"anyOf":[{"$ref":"#/$defs/A"},{"type":"integer"}]},"B":{"allOf":[{"$ref":"#/$defs/B"}],"enum":[true]}},` +
		`"properties":{"bomb":{"$ref":"#/$defs/D0"},"a":{"$ref":"#/$defs/A"},"b":{"$ref":"#/$defs/B"}}}`)
	start := time.Now()
	for _, tc := range []struct{ args, want string }{
		{"bomb=2", `{"bomb":2}`},
		{"a=5", `{"a":"5"}`}, // a cycle in a union: untyped, so the string
		{"b=true", `{"b":true}`},
	} {
		pairs, _ := parsePairs([]string{tc.args}, true, nil, nil)
		got, err := toolArgs("t", nil, pairs, schema, nil)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: %s %v, want %s", tc.args, got, err, tc.want)
		}
	}
	pairs, _ := parsePairs([]string{"bomb=3"}, true, nil, nil)
	if _, err := toolArgs("t", nil, pairs, schema, nil); err == nil || !strings.Contains(err.Error(), "allowed values: 1, 2") {
		t.Errorf("bomb=3: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}
