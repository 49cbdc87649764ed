package daemon

import (
	"context"
	"testing"
	"time"
)

// The start lock: a second taker waits until its context ends, and gets
// the lock once the first releases it.
func TestLockDir(t *testing.T) {
	dir := tempDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	unlock, err := lockDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel2 := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel2()
	if _, err := lockDir(short, dir); err != context.DeadlineExceeded {
		t.Fatalf("a second lock: %v", err)
	}
	unlock()
	again, err := lockDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	again()
}
