package commands

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/limits"
)

// usageOf fails the test unless err is a usage *fail.Error.
func usageOf(t *testing.T, err error) *fail.Error {
	t.Helper()
	u, ok := fail.As(err, fail.Usage)
	if !ok {
		t.Fatalf("got error %T %v, want a usage error", err, err)
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
			if u.Message != tc.msg {
				t.Errorf("message\n got %s\nwant %s", u.Message, tc.msg)
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
	if u := usageOf(t, err); u.Message != `argument "a": the value read from stdin is not valid UTF-8` ||
		!reflect.DeepEqual(u.Details, map[string]any{"key": "a", "file": "-"}) {
		t.Errorf("non-UTF-8 stdin: %q %v", u.Message, u.Details)
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
	if err := f.Truncate(limits.MessageCeiling + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = parsePairs([]string{"k=@" + huge}, false, nil, nil)
	var le *limits.Error
	if !errors.As(err, &le) {
		t.Fatalf("got %T %v, want *limits.Error", err, err)
	}
	if le.Limit != "message ceiling" || le.Value != limits.MessageCeiling {
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
		t.Fatalf("got %T %v, want *limits.Error", err, err)
	}
	if want := `argument "k": the value read from stdin is too large: over the message ceiling of 5 bytes`; err.Error() != want {
		t.Errorf("message\n got %s\nwant %s", err, want)
	}
	// a file that is not regular (no size to stat) is still capped while reading
	if _, err := parsePairsLimit([]string{"k=@/dev/zero"}, false, nil, nil, 1024); !errors.As(err, &le) {
		t.Errorf("/dev/zero: got %T %v, want *limits.Error", err, err)
	}
	// --args has the same ceiling
	if _, err := readArgsFlagLimit("-", strings.NewReader("{}    "), nil, 4); !errors.As(err, &le) {
		t.Errorf("--args -: got %T %v, want *limits.Error", err, err)
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
		if u := usageOf(t, err); u.Message != tc.msg {
			t.Errorf("%q: message %q, want %q", tc.in, u.Message, tc.msg)
		}
	}
}
