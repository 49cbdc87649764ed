package daemon

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// A hello line is read without consuming what follows it (the JSON-RPC
// stream on the same connection).
func TestReadLineStopsAtNewline(t *testing.T) {
	var buf bytes.Buffer
	if err := writeLine(&buf, Hello{Proto: Proto, Op: OpStatus}); err != nil {
		t.Fatal(err)
	}
	buf.WriteString(`{"jsonrpc":"2.0"}` + "\n")
	line, err := readLine(&buf)
	if err != nil || !strings.Contains(string(line), `"op":"status"`) {
		t.Fatalf("line %q, err %v", line, err)
	}
	if rest, _ := io.ReadAll(&buf); string(rest) != `{"jsonrpc":"2.0"}`+"\n" {
		t.Fatalf("the rest was consumed: %q", rest)
	}
	if _, err := readLine(strings.NewReader("no newline")); err != io.ErrUnexpectedEOF {
		t.Fatalf("a cut line: %v", err)
	}
}
