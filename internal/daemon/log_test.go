package daemon

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestLogWritesInOrder: the log's lines, written by a goroutine of its
// own, are all in the file, in order, once it is closed; a line after
// close is dropped, not a panic.
func TestLogWritesInOrder(t *testing.T) {
	p := filepath.Join(tempDir(t), "state", "daemon.log")
	l := openLog(p)
	for _, w := range []string{"one", "two", "three"} {
		l.printf("line %s", w)
	}
	l.close()
	l.printf("after close")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`^\S+ line one\n\S+ line two\n\S+ line three\n$`)
	if !want.Match(b) {
		t.Fatalf("log %q", b)
	}
}
