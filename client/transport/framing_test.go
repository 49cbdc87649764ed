package transport

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/internal/secret"
)

// frameAll reads every message of in, joined by newlines as they came.
func frameAll(f *framer) (string, error) {
	var out strings.Builder
	for {
		line, _, err := f.next()
		if err != nil {
			if err.Error() == "EOF" {
				err = nil
			}
			return out.String(), err
		}
		out.Write(line)
		out.WriteByte('\n')
	}
}

func TestFramer(t *testing.T) {
	long := `{"a":"` + strings.Repeat(" ", 200<<10) + `","jsonrpc":"2.0","method":"m"}` // spaces across chunks
	in := "starting...\n{\"id\":1}\n\n   \n" + long + "\n" + strings.Repeat("y", 100<<10) + "\n{\"id\":2}"
	var skipped []string
	f := newFramer(strings.NewReader(in), 1<<20, &Limit{}, func(s string) { skipped = append(skipped, s) })
	out, err := frameAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\"id\":1}\n" + long + "\n{\"id\":2}\n"; out != want {
		t.Errorf("got %d bytes, want %d", len(out), len(want))
	}
	// The last line had no newline: the stream ends after it, for good.
	if _, _, err := f.next(); err == nil || err.Error() != "EOF" {
		t.Errorf("after the end: %v", err)
	}
	if len(skipped) != 2 || skipped[0] != "starting..." || !strings.HasSuffix(skipped[1], "...") {
		t.Errorf("skipped %q", skipped)
	}
}

func TestFramerLimit(t *testing.T) {
	lf := &Limit{}
	in := "{\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n{\"big\":\"" + strings.Repeat("z", 5000) + "\"}\n"
	f := newFramer(strings.NewReader(in), 4096, lf, nil)
	out, err := frameAll(f)
	var le *limits.Error
	if !errors.As(err, &le) || lf.Get() != le {
		t.Fatalf("err %v", err)
	}
	if out != "{\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n" {
		t.Errorf("passed %q", out)
	}
	if le.Error() != "the server sent a JSON-RPC message too large to accept: over the message ceiling of 4 KiB (4096 bytes)" {
		t.Errorf("message %q", le.Error())
	}
	// A line that is not a message counts too, and stops the stream.
	f = newFramer(strings.NewReader(strings.Repeat("log ", 2000)+"\n{\"id\":1}\n"), 4096, &Limit{}, nil)
	if _, err := frameAll(f); !errors.As(err, &le) {
		t.Errorf("a long log line: %v", err)
	}
}

func TestFramerChecksLongLines(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":5,"result":{"x":"` + strings.Repeat("a", 100<<10) + `"}}`
	ids := &inflight{}
	ids.add("5")
	f := newFramer(strings.NewReader(long+"\n"), 1<<20, &Limit{}, nil)
	f.inflight = ids
	if out, err := frameAll(f); err != nil || len(out) != len(long)+1 {
		t.Fatalf("a long valid answer: %d bytes, %v", len(out), err)
	}
	for name, line := range map[string]string{
		"unparseable": `{"jsonrpc":"2.0","id":5,"result":{"x":"` + strings.Repeat("a", 100<<10),
		"wrong id":    `{"jsonrpc":"2.0","id":6,"result":{"x":"` + strings.Repeat("a", 100<<10) + `"}}`,
		"batch":       `[{"jsonrpc":"2.0","id":5,"result":{"x":"` + strings.Repeat("a", 100<<10) + `"}}]`,
	} {
		lf := &Limit{}
		f := newFramer(strings.NewReader(line+"\n"), 1<<20, lf, nil)
		f.inflight = ids
		_, err := frameAll(f)
		if err == nil || lf.Violation() == "" || lf.Violation() != err.Error() {
			t.Errorf("%s: err %v", name, err)
		}
	}
}

func TestFramerJudges(t *testing.T) {
	ids := &inflight{}
	ids.add("1")
	ids.add(`"s"`)
	in := "\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n" + // a BOM before the first line
		"{INFO} starting\n" + // a log line in braces
		"{\"level\":30,\"msg\":\"listening\"}\n" + // a JSON log line
		"{\"method\":null}\n" + // no method is none
		"[not, a batch\n" + // a log line in brackets
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n" +
		"  {\"jsonrpc\":\"2.0\",\"id\":\"s\",\"result\":{}} \r\n" + // spaces around, CRLF
		"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"parse error\"}}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n" // the server's own request: any id
	var skipped []string
	f := newFramer(strings.NewReader(in), 1<<20, &Limit{}, func(s string) { skipped = append(skipped, s) })
	f.inflight = ids
	out, err := frameAll(f)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n" +
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"result\":{}}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"parse error\"}}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n"
	if out != want {
		t.Errorf("passed %q", out)
	}
	if want := []string{"{INFO} starting", `{"level":30,"msg":"listening"}`, `{"method":null}`, "[not, a batch"}; strings.Join(skipped, "|") != strings.Join(want, "|") {
		t.Errorf("skipped %q", skipped)
	}
	for _, tc := range []struct{ name, line, msg string }{
		{"batch", `[{"jsonrpc":"2.0","id":1,"result":{}}]`,
			`the server sent a JSON-RPC batch, which MCP does not allow since 2025-06-18: [{"jsonrpc":"2.0","id":1,"result":{}}]`},
		{"broken", `{"jsonrpc":"2.0","id":1,"result":{`,
			`the server sent a line that is not valid JSON-RPC (unexpected end of JSON input): {"jsonrpc":"2.0","id":1,"result":{`},
		{"bad method", `{"jsonrpc":"2.0","id":1,"method":5}`,
			`the server sent a line that is not valid JSON-RPC (json: cannot unmarshal number into Go struct field .method of type string): {"jsonrpc":"2.0","id":1,"method":5}`},
		{"no id", `{"jsonrpc":"2.0","result":{}}`,
			`the server sent a message with neither method nor id: {"jsonrpc":"2.0","result":{}}`},
		{"unknown id", `{"jsonrpc":"2.0","id":7,"result":{}}`,
			`the server answered request id 7, which mcpx never sent (or which was already answered)`},
		{"string for number", `{"jsonrpc":"2.0","id":"1","result":{}}`,
			`the server answered request id "1", which mcpx never sent (or which was already answered)`},
		{"error code a string", `{"jsonrpc":"2.0","id":1,"error":{"code":"-32002","message":"x"}}`,
			`the server sent an error reply whose error is not an object with an integer code and a string message: {"jsonrpc":"2.0","id":1,"error":{"code":"-32002","message":"x"}}`},
		{"error code a fraction", `{"jsonrpc":"2.0","id":1,"error":{"code":-1.5,"message":"x"}}`,
			`the server sent an error reply whose error is not an object with an integer code and a string message: {"jsonrpc":"2.0","id":1,"error":{"code":-1.5,"message":"x"}}`},
		{"error not an object", `{"jsonrpc":"2.0","id":1,"error":[1]}`,
			`the server sent an error reply whose error is not an object with an integer code and a string message: {"jsonrpc":"2.0","id":1,"error":[1]}`},
		{"long quote", `{"jsonrpc":"2.0","result":"` + strings.Repeat("r", 1<<20) + `"}`,
			`the server sent a message with neither method nor id: {"jsonrpc":"2.0","result":"` + strings.Repeat("r", 80-27) + `...`},
	} {
		lf := &Limit{}
		f := newFramer(strings.NewReader(tc.line+"\n"), 4<<20, lf, nil)
		f.inflight = &inflight{}
		f.inflight.add("1")
		if _, err := frameAll(f); err == nil || err.Error() != tc.msg || lf.Violation() != tc.msg {
			t.Errorf("%s: %v\nwant %s", tc.name, err, tc.msg)
		}
	}
}

// A second answer to a request id is a framing violation: right behind the
// first (in the same read), it is refused before the first is handed on;
// later, it answers an id no longer in flight.
func TestFramerDuplicateAnswer(t *testing.T) {
	one := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
	ids := &inflight{}
	ids.add("1")
	ids.add("2")
	ids.add("2") // two requests in flight with one id: two answers are fine
	in := `{"jsonrpc":"2.0","id":2,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":2,"result":{}}` + "\n" +
		one + `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"again"}}` + "\n"
	lf := &Limit{}
	f := newFramer(strings.NewReader(in), 1<<20, lf, nil)
	f.inflight = ids
	out, err := frameAll(f)
	want := "the server answered request id 1 twice"
	if err == nil || err.Error() != want || lf.Violation() != want {
		t.Errorf("back to back: err %v, want %s", err, want)
	}
	if strings.Count(out, "\n") != 2 {
		t.Errorf("back to back: passed %q", out)
	}

	// the second answer comes in a read of its own
	pr, pw := io.Pipe()
	ids.add("1")
	lf = &Limit{}
	f = newFramer(pr, 1<<20, lf, nil)
	f.inflight = ids
	go func() {
		_, _ = io.WriteString(pw, one)
		time.Sleep(50 * time.Millisecond)
		_, _ = io.WriteString(pw, one)
		pw.Close()
	}()
	out, err = frameAll(f)
	want = "the server answered request id 1, which mcpx never sent (or which was already answered)"
	if err == nil || err.Error() != want || lf.Violation() != want || out != one {
		t.Errorf("later: passed %q, err %v, want %s", out, err, want)
	}
}

func TestFramerMasks(t *testing.T) {
	var skipped []string
	f := newFramer(strings.NewReader("token=sekrit-value\n{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":\"sekrit-value\"}\n"), 1<<20, &Limit{}, func(s string) { skipped = append(skipped, s) })
	f.inflight = &inflight{}
	f.secrets = &secret.Set{}
	f.secrets.Add("sekrit-value")
	_, err := frameAll(f)
	if len(skipped) != 1 || skipped[0] != "token=***" {
		t.Errorf("skipped %q", skipped)
	}
	if err == nil || strings.Contains(err.Error(), "sekrit") {
		t.Errorf("err %v", err)
	}
}

// TestMaskWindowCutSecret: a message quotes a server's text from a window
// at its start; a long secret (a JWT) that the window cuts is masked for
// the part in the window too, even when masking the secrets before it
// shrinks the window below what the message shows.
func TestMaskWindowCutSecret(t *testing.T) {
	jwt := "eyJ" + strings.Repeat("0123456789", 40)
	f := &framer{secrets: &secret.Set{}}
	f.secrets.Add(jwt)
	msg := strings.Repeat(jwt, 200) + " tail"
	if got := f.clip([]byte(msg), 1000); strings.Contains(got, "eyJ") || strings.Contains(got, "0123") {
		t.Errorf("clip ends %q", got[max(0, len(got)-40):])
	}
}

func TestLocate(t *testing.T) {
	line := []byte(`{"ID":1, "result" : {"a":[1,"}"]} ,"x":{"result":0},"Method":null,"error":null,"jsonrpc":"1","jsonrpc":"2.0"}`)
	env := locate(line)
	for name, got := range map[string][]byte{`{"a":[1,"}"]}`: env.result, "1": env.id, "null": env.method, "null ": append(env.rpcErr, ' '), `"2.0"`: env.jsonrpc} {
		if string(got) != name {
			t.Errorf("%s: got %s", name, got)
		}
	}
	if cap(env.result) != len(env.result) {
		t.Errorf("result capacity %d, length %d: an append would write into the line", cap(env.result), len(env.result))
	}
	if env.hasMethod() {
		t.Error("a null method counts")
	}
}
