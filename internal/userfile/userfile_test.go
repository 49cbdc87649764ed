package userfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Two opens of one lock file exclude each other, as two processes do.
func TestLockExcludes(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		t.Skip("no file locks here")
	}
	p := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Lock(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := OpenLock(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if ok, err := TryLock(f); ok || err != nil {
		t.Fatalf("TryLock while held = %v, %v", ok, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Lock(ctx, p); !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock while held, cancelled = %v", err)
	}
	unlock()
	if ok, err := TryLock(f); !ok || err != nil {
		t.Fatalf("TryLock once let go = %v, %v", ok, err)
	}
	Unlock(f)
}

func TestUntrusted(t *testing.T) {
	dir := t.TempDir()
	if why := Untrusted(filepath.Join(dir, "none"), 0o022); why != "" {
		t.Errorf("a missing directory: %q", why)
	}
	if runtime.GOOS == "windows" {
		return
	}
	if err := os.Symlink(dir, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if why := Untrusted(filepath.Join(dir, "link"), 0o022); why != "is a symbolic link" {
		t.Errorf("a link: %q", why)
	}
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if why := Untrusted(open, 0o022); why != "is mode 0777, open to other users" {
		t.Errorf("mode 0777: %q", why)
	}
	if why := Untrusted(open, 0); why != "" {
		t.Errorf("mode 0777, nothing denied: %q", why)
	}
}
