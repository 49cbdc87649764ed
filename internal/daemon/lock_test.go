package daemon

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// The start lock: a second taker waits until its context ends, and gets
// the lock once the first releases it.
func TestLockFile(t *testing.T) {
	dir := filepath.Join(tempDir(t), "daemon-x.lock")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	unlock, err := lockFile(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel2 := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel2()
	if _, err := lockFile(short, dir); err != context.DeadlineExceeded {
		t.Fatalf("a second lock: %v", err)
	}
	unlock()
	again, err := lockFile(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	again()
}
