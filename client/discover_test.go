package client

import (
	"context"
	"testing"
	"time"
)

// The server/discover wait is discoverWait unless the deadline leaves less
// than twice that: then half of what is left, so that initialize still has
// the other half.
func TestDiscoverWaitWithin(t *testing.T) {
	if got := discoverWaitWithin(context.Background()); got != discoverWait {
		t.Errorf("no deadline: %v, want %v", got, discoverWait)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if got := discoverWaitWithin(ctx); got != discoverWait {
		t.Errorf("an hour left: %v, want %v", got, discoverWait)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel2()
	if got := discoverWaitWithin(ctx2); got > time.Second || got <= 0 {
		t.Errorf("2 s left: %v, want at most 1 s", got)
	}
	ctx3, cancel3 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel3()
	if got := discoverWaitWithin(ctx3); got > 0 {
		t.Errorf("past the deadline: %v, want none", got)
	}
}
