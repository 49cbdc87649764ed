//go:build unix

package daemon

import (
	"os"
	"testing"
)

// TestUnread: what a pipe holds unread is known at its write end, where
// the platform tells it; a server killed before it read the request leaves
// it there (see session.neverRead).
func TestUnread(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if fionread == 0 {
		if n := unread(w); n != -1 {
			t.Fatalf("unread %d where it cannot be told", n)
		}
		return
	}
	cw := &countedWriter{w: w}
	if _, err := cw.Write([]byte("first\n")); err != nil {
		t.Fatal(err)
	}
	mark := cw.bytes.Load()
	if !cw.unreadSince(mark) {
		t.Error("nothing written since the mark, and not unread")
	}
	if _, err := cw.Write([]byte("second\n")); err != nil {
		t.Fatal(err)
	}
	if n := unread(w); n != 13 {
		t.Errorf("unread %d, want 13", n)
	}
	if !cw.unreadSince(mark) {
		t.Error("the second line is unread, and not said so")
	}
	buf := make([]byte, 8)
	if _, err := r.Read(buf); err != nil {
		t.Fatal(err)
	}
	if cw.unreadSince(mark) {
		t.Error("the second line was partly read, and said unread")
	}
	r.Close()
	if cw.unreadSince(mark) {
		t.Error("the reader gone after reading, and said unread")
	}
}
