package daemon

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// The connection hello returns to an attach delivers what the daemon sent
// right after its reply, even when both came in one read: the JSON-RPC
// stream starts there.
func TestHelloKeepsWhatFollowsTheReply(t *testing.T) {
	run, err := os.MkdirTemp("", "mcpxd")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(run)
	dir := filepath.Join(run, "mcpx")
	if err := PrepareDir(dir); err != nil {
		t.Skipf("no daemon directory here: %v", err)
	}
	sock := SocketPath(dir, "test")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no Unix sockets here: %v", err)
	}
	defer ln.Close()
	const next = `{"jsonrpc":"2.0","method":"notifications/message"}` + "\n"
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		var h Hello
		if readJSONLine(bufio.NewReader(c), &h) != nil {
			return
		}
		var buf bytes.Buffer
		_ = writeLine(&buf, Reply{OK: true, Build: h.Build})
		buf.WriteString(next)
		_, _ = c.Write(buf.Bytes()) // the reply and what follows, in one write
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, rep, err := attachOnce(ctx, Env{Version: "test"}, sock, Hello{Op: OpAttach})
	if err != nil || !rep.OK {
		t.Fatalf("hello: %+v, %v", rep, err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if got, err := bufio.NewReader(c).ReadString('\n'); got != next {
		t.Fatalf("after the reply: %q, %v; want %q", got, err, next)
	}
}
