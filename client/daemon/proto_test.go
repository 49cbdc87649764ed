package daemon

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"strings"
	"testing"
)

// A reply line is read ahead, in whole reads; what follows it (the
// JSON-RPC stream on the same connection) is not lost: the connection
// hello returns reads it first.
func TestReadLineKeepsWhatFollows(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	go func() {
		var buf bytes.Buffer
		_ = writeLine(&buf, Hello{Proto: Proto, Op: OpStatus})
		buf.WriteString(`{"jsonrpc":"2.0"}` + "\n")
		_, _ = b.Write(buf.Bytes()) // one write: the reader gets both lines at once
		b.Close()
	}()
	br := bufio.NewReader(a)
	line, err := readLine(br)
	if err != nil || !strings.Contains(string(line), `"op":"status"`) || strings.Contains(string(line), "\n") {
		t.Fatalf("line %q, err %v", line, err)
	}
	if rest, _ := io.ReadAll(&bufferedConn{Conn: a, r: br}); string(rest) != `{"jsonrpc":"2.0"}`+"\n" {
		t.Fatalf("the rest was lost: %q", rest)
	}
}

func TestReadLineBounds(t *testing.T) {
	long := strings.Repeat("x", 10000) // longer than the reader's buffer
	line, err := readLine(bufio.NewReader(strings.NewReader(long + "\nnext\n")))
	if err != nil || string(line) != long {
		t.Fatalf("a long line: %d bytes, err %v", len(line), err)
	}
	if _, err := readLine(bufio.NewReader(strings.NewReader("no newline"))); err != io.ErrUnexpectedEOF {
		t.Fatalf("a cut line: %v", err)
	}
	if _, err := readLine(bufio.NewReader(strings.NewReader(""))); err != io.EOF {
		t.Fatalf("nothing: %v", err)
	}
	if _, err := readLine(bufio.NewReader(strings.NewReader(strings.Repeat("x", maxLine) + "\n"))); err != nil {
		t.Fatalf("a line of maxLine bytes: %v", err)
	}
	_, err = readLine(bufio.NewReader(strings.NewReader(strings.Repeat("x", maxLine+1) + "\n")))
	if err == nil || err.Error() != "line too long" {
		t.Fatalf("a line over maxLine: %v", err)
	}
}
