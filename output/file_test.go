package output

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	parts := [][]byte{[]byte("hello "), []byte("world")}
	check := func(path, want string) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil || string(b) != want {
			t.Fatalf("%s: %q, %v; want %q", path, b, err, want)
		}
	}
	// new file, then replaced keeping its mode
	p := filepath.Join(dir, "out.txt")
	if err := WriteFileAtomic(p, parts); err != nil {
		t.Fatal(err)
	}
	check(p, "hello world")
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(p, [][]byte{[]byte("again")}); err != nil {
		t.Fatal(err)
	}
	check(p, "again")
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, want 0640", fi.Mode().Perm())
	}
	// a symlink is followed: its target is replaced, the link stays
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink("out.txt", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(link, [][]byte{[]byte("via link")}); err != nil {
		t.Fatal(err)
	}
	check(p, "via link")
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	// a dangling link writes the file it names
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink("made.txt", dangling); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(dangling, parts); err != nil {
		t.Fatal(err)
	}
	check(filepath.Join(dir, "made.txt"), "hello world")
	// a FIFO is written, not replaced
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := WriteFileAtomic(fifo, parts); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "hello world" {
		t.Fatalf("fifo read %q", s)
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the fifo was replaced: %v", fi.Mode())
	}
	// /dev/null stays a device
	if err := WriteFileAtomic(os.DevNull, parts); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(os.DevNull); fi.Mode()&os.ModeDevice == 0 {
		t.Fatalf("%s is no longer a device", os.DevNull)
	}
	// a long name still fits (the temporary name does not grow with it)
	long := filepath.Join(dir, strings.Repeat("a", 250))
	if err := WriteFileAtomic(long, parts); err != nil {
		t.Fatal(err)
	}
	check(long, "hello world")
	// a directory is refused; nothing is left behind
	if err := WriteFileAtomic(dir, parts); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("a directory: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".mcpx-") {
			t.Fatalf("temporary file left: %s", e.Name())
		}
	}
}
