package output

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/mcpx-cli/mcpx/internal/fail"
)

func TestSanitize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\twith tab\n", "plain text\twith tab\n"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"bell\a and CR\r", `bell\x07 and CR\x0d`},
		{"del\x7f", `del\x7f`},
		{"c1\u0085\u009b", `c1\u0085\u009b`},
		{"bidi \u202eevil\u202c \u2066x\u2069", `bidi \u202eevil\u202c \u2066x\u2069`},
		{"bad utf8 \xff\xfe", `bad utf8 \xff\xfe`},
		{"héllo wörld ✓ 😀", "héllo wörld ✓ 😀"},
	} {
		if got := sanitize(tc.in); got != tc.want {
			t.Errorf("sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSafeWriterSplitRune(t *testing.T) {
	var buf bytes.Buffer
	w := &safeWriter{w: &buf}
	s := "a😀b\x1b"
	for i := 0; i < len(s); i++ {
		if _, err := w.Write([]byte{s[i]}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := buf.String(), `a😀b\x1b`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTerminalOnlyEscapes(t *testing.T) {
	pipe, out, errb := ForTest(false)
	_, _ = pipe.Out.Write([]byte("\x1b[2J"))
	_, _ = pipe.Err.Write([]byte("\x1b[2J"))
	if out.String() != "\x1b[2J" || errb.String() != "\x1b[2J" {
		t.Errorf("pipe changed bytes: %q %q", out, errb)
	}
	tty, out, errb := ForTest(true)
	_, _ = tty.Out.Write([]byte("\x1b[2J"))
	_, _ = tty.Err.Write([]byte("\x1b[2J"))
	if out.String() != `\x1b[2J` || errb.String() != `\x1b[2J` {
		t.Errorf("terminal got raw bytes: %q %q", out, errb)
	}
}

func TestMask(t *testing.T) {
	s, out, errb := ForTest(false)
	s.Secrets().Add("s3cr3t-token", "ab", `quo"te`)
	_, _ = s.Out.Write([]byte("Authorization: Bearer s3cr3t-token\n"))
	_, _ = s.Err.Write([]byte(`{"v":"quo\"te"} ab` + "\n"))
	if got := out.String(); got != "Authorization: Bearer ***\n" {
		t.Errorf("stdout %q", got)
	}
	if got := errb.String(); got != `{"v":"***"} ab`+"\n" {
		t.Errorf("stderr %q (short values are not secrets)", got)
	}
}

func TestWriteJSONSelect(t *testing.T) {
	doc := map[string]any{"s": "a<b>", "n": 3, "arr": []any{"x", map[string]any{"k": 1}, 2}, "obj": map[string]any{"a": []int{1, 2}}}
	for _, tc := range []struct {
		path, want string
		err        bool
	}{
		{"", `{"arr":["x",{"k":1},2],"n":3,"obj":{"a":[1,2]},"s":"a<b>"}` + "\n", false},
		{"s", "a<b>\n", false},
		{"n", "3\n", false},
		{"arr", "x\n{\"k\":1}\n2\n", false},
		{"obj", `{"a":[1,2]}` + "\n", false},
		{"nope", "", true},
	} {
		s, out, _ := ForTest(false)
		err := s.WriteJSON(doc, tc.path)
		if tc.err != fail.Is(err, fail.NoMatch) {
			t.Errorf("%q: err = %v", tc.path, err)
		}
		if out.String() != tc.want {
			t.Errorf("%q: got %q, want %q", tc.path, out.String(), tc.want)
		}
	}
	s, out, _ := ForTest(true)
	_ = s.WriteJSON(map[string]int{"a": 1}, "")
	if out.String() != "{\n  \"a\": 1\n}\n" {
		t.Errorf("terminal JSON not indented: %q", out.String())
	}
}

func TestWriteTable(t *testing.T) {
	rows := [][]string{{"tool", "echo", "Echo\tit"}, {"resource_template", "x://{id}", "multi\nline"}}
	s, out, _ := ForTest(false)
	_ = s.WriteTable([]string{"KIND", "ID", "DESCRIPTION"}, rows)
	if got, want := out.String(), "tool\techo\tEcho it\nresource_template\tx://{id}\tmulti line\n"; got != want {
		t.Errorf("pipe table %q, want %q", got, want)
	}
	s, out, _ = ForTest(true)
	_ = s.WriteTable([]string{"KIND", "ID", "DESCRIPTION"}, rows)
	want := "KIND               ID        DESCRIPTION\ntool               echo      Echo it\nresource_template  x://{id}  multi line\n"
	if out.String() != want {
		t.Errorf("terminal table:\n%s\nwant:\n%s", out.String(), want)
	}
	s, out, _ = ForTest(true)
	_ = s.WriteTable([]string{"KIND"}, nil)
	if out.Len() != 0 {
		t.Errorf("an empty table prints a header: %q", out.String())
	}
}

func TestLogVoice(t *testing.T) {
	s, _, errb := ForTest(false)
	l := NewLog(s, false, false)
	l.Note("a %s", "note")
	l.Warn(Warning{Message: "careful"})
	l.Debug("hidden")
	l.Error(ErrorReport{Message: "it broke", Code: "connection", ExitCode: 3, Lines: []string{"boom"}, Hints: []string{"try again"}})
	want := "mcpx: note: a note\nmcpx: warning: careful\nmcpx: it broke\nmcpx: the server's stderr ends with:\nmcpx:   | boom\nmcpx: hint: try again\n"
	if errb.String() != want {
		t.Errorf("text voice:\n%s\nwant:\n%s", errb.String(), want)
	}
	s, _, errb = ForTest(false)
	l = NewLog(s, true, false)
	l.Note("n")
	l.Error(ErrorReport{Message: "m", Code: "usage", ExitCode: 2, Details: map[string]any{"missing": []string{"a"}}})
	lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
	if len(lines) != 2 || lines[0] != `{"note":"n"}` || lines[1] != `{"error":{"code":"usage","exit_code":2,"message":"m","missing":["a"]}}` {
		t.Errorf("json voice: %q", lines)
	}
}

// A blank hint is never printed: no empty "mcpx: hint:" line, no "hints":[""].
func TestLogNoEmptyHint(t *testing.T) {
	s, _, errb := ForTest(false)
	NewLog(s, false, false).Error(ErrorReport{Message: "m", Code: "usage", ExitCode: 2, Hints: []string{"", " ", "real"}})
	if want := "mcpx: m\nmcpx: hint: real\n"; errb.String() != want {
		t.Errorf("text voice: %q, want %q", errb.String(), want)
	}
	s, _, errb = ForTest(false)
	NewLog(s, true, false).Error(ErrorReport{Message: "m", Code: "usage", ExitCode: 2, Hints: []string{""}})
	if want := `{"error":{"code":"usage","exit_code":2,"message":"m"}}` + "\n"; errb.String() != want {
		t.Errorf("json voice: %q, want %q", errb.String(), want)
	}
}

// A line break in a message (a server's string its caller did not escape)
// is shown escaped: every line of the text voice is one line of mcpx's.
func TestLogOneLine(t *testing.T) {
	s, _, errb := ForTest(false)
	l := NewLog(s, false, false)
	l.Note("a\nmcpx: error: x")
	l.Warn(Warning{Message: "b\rmcpx: error: x"})
	l.ServerStderr("srv", "c\u2028mcpx: error: x")
	l.Error(ErrorReport{Message: "d\u0085mcpx: error: x", Lines: []string{"e\u2029x"}, Hints: []string{"f\r\ng"}})
	want := `mcpx: note: a\nmcpx: error: x
mcpx: warning: b\rmcpx: error: x
[srv] c\u2028mcpx: error: x
mcpx: d\u0085mcpx: error: x
mcpx: the server's stderr ends with:
mcpx:   | e\u2029x
mcpx: hint: f\r\ng
`
	if errb.String() != want {
		t.Errorf("text voice:\n%s\nwant:\n%s", errb.String(), want)
	}
	s, _, errb = ForTest(false)
	l = NewLog(s, true, false)
	l.ServerStderr("srv", "nel\u0085x")
	if want := `{"server":"srv","server_stderr":"nel\u0085x"}` + "\n"; errb.String() != want {
		t.Errorf("json voice: %q, want %q", errb.String(), want)
	}
}

func TestMaskJSON(t *testing.T) {
	s, out, errb := ForTest(false)
	s.Secrets().Add("true", "8080", `p&ss"w0rd`, "tok<en>")
	doc := map[string]any{"required": true, "size": 8080, "port": "8080", "pw": `value p&ss"w0rd`, "t": "tok<en>", "true": 1}
	if err := s.WriteJSON(doc, ""); err != nil {
		t.Fatal(err)
	}
	want := `{"port":"***","pw":"value ***","required":true,"size":8080,"t":"***","true":1}` + "\n"
	if out.String() != want {
		t.Errorf("got  %s\nwant %s", out.String(), want)
	}
	NewLog(s, true, false).Note("the password is %s", `p&ss"w0rd`)
	if got := errb.String(); got != `{"note":"the password is ***"}`+"\n" {
		t.Errorf("stderr %q", got)
	}
	out.Reset()
	_ = s.WriteJSON(doc, "pw")
	if out.String() != "value ***\n" {
		t.Errorf("select %q", out.String())
	}
}

func TestTerminalJSONStaysJSON(t *testing.T) {
	s, out, errb := ForTest(true)
	_ = s.WriteJSON(map[string]string{"d": "del\x7f c1\u0085 bidi\u202e esc\x1b"}, "")
	var v map[string]string
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("not JSON on a terminal: %v\n%s", err, out)
	}
	if strings.ContainsAny(out.String(), "\x7f\u0085\u202e\x1b") {
		t.Errorf("raw controls reached the terminal: %q", out)
	}
	NewLog(s, true, false).Note("x\x7f")
	if err := json.Unmarshal(errb.Bytes(), &v); err != nil {
		t.Errorf("stderr JSON on a terminal: %v %q", err, errb)
	}
}

// TestDataUnmasked: Data is stdout byte for byte (--raw to a pipe or a
// file); Out and RawOut mask.
func TestDataUnmasked(t *testing.T) {
	s, out, _ := ForTest(false)
	s.Secrets().Add("s3cr3t-token")
	_, _ = s.Data.Write([]byte("\x00s3cr3t-token\xff"))
	_, _ = s.RawOut.Write([]byte(" s3cr3t-token"))
	if got := out.String(); got != "\x00s3cr3t-token\xff ***" {
		t.Errorf("stdout %q", got)
	}
}

// TestDiscard: discarding streams take every write without error and are
// no terminal.
func TestDiscard(t *testing.T) {
	s := Discard()
	NewLog(s, false, false).Note("a note %d", 1)
	for _, w := range []io.Writer{s.Out, s.Err, s.RawOut, s.Data} {
		if n, err := io.WriteString(w, "data"); n != 4 || err != nil {
			t.Errorf("write: %d, %v", n, err)
		}
	}
	if s.InTTY || s.OutTTY || s.ErrTTY {
		t.Errorf("terminal flags %v %v %v", s.InTTY, s.OutTTY, s.ErrTTY)
	}
}
