package commands

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// clkEnded waits for ctx to end and returns its cause; nil when it has
// not ended within d.
func clkEnded(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-time.After(d):
		return nil
	}
}

// clkOpen checks that ctx has not ended.
func clkOpen(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	select {
	case <-ctx.Done():
		t.Fatalf("%s: ended with %v", what, context.Cause(ctx))
	default:
	}
	if err := ctx.Err(); err != nil {
		t.Fatalf("%s: Err %v while Done is open", what, err)
	}
}

// clkNoDeadline checks that ctx has no deadline.
func clkNoDeadline(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	if d, ok := ctx.Deadline(); ok {
		t.Errorf("%s: Deadline %v, want none", what, d)
	}
}

type clkKey struct{}

// TestClockContext: the operation's context has no deadline of its own,
// before, during and after a pause and once it has ended, so that code
// that reads it once is never wrong; a parent's deadline is the parent's,
// unmoved by the pauses. Values are the parent's.
func TestClockContext(t *testing.T) {
	parent := context.WithValue(context.Background(), clkKey{}, "v")
	clk, stop := newClock(parent, 30*time.Millisecond)
	defer stop()
	if clk.ctx.Value(clkKey{}) != "v" {
		t.Errorf("Value not the parent's: %v", clk.ctx.Value(clkKey{}))
	}
	clkNoDeadline(t, clk.ctx, "running")
	clk.pause()
	clkNoDeadline(t, clk.ctx, "paused")
	time.Sleep(40 * time.Millisecond)
	clkNoDeadline(t, clk.ctx, "still paused")
	clk.resume()
	clkNoDeadline(t, clk.ctx, "resumed")
	if err := clkEnded(clk.ctx, 2*time.Second); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cause %v", err)
	}
	clkNoDeadline(t, clk.ctx, "ended")

	// Under a parent with a deadline: the parent's, whatever the pauses.
	want := time.Now().Add(time.Hour)
	dp, dc := context.WithDeadline(context.Background(), want)
	defer dc()
	clk, stop = newClock(dp, time.Minute)
	defer stop()
	for i := range 3 {
		if d, ok := clk.ctx.Deadline(); !ok || !d.Equal(want) {
			t.Errorf("call %d: Deadline %v %v, want the parent's %v", i, d, ok, want)
		}
		clk.pause()
		time.Sleep(5 * time.Millisecond)
	}
	for range 3 {
		clk.resume()
	}
	if d, ok := clk.ctx.Deadline(); !ok || !d.Equal(want) {
		t.Errorf("resumed: Deadline %v %v, want the parent's %v", d, ok, want)
	}
}

// TestClockEnds: how a clock ends, its Err and its cause (the first reason
// wins), and whether timedOut calls it a timeout.
func TestClockEnds(t *testing.T) {
	why := errors.New("a reason of the parent's")
	for _, tc := range []struct {
		name      string
		d         time.Duration
		end       func(stop context.CancelFunc, parent context.CancelCauseFunc)
		err       error
		cause     error
		outOfTime bool
	}{
		{"runs out", 20 * time.Millisecond, func(context.CancelFunc, context.CancelCauseFunc) {}, context.Canceled, context.DeadlineExceeded, true},
		{"stop func", time.Minute, func(stop context.CancelFunc, _ context.CancelCauseFunc) { stop() }, context.Canceled, context.Canceled, false},
		{"parent cancelled", time.Minute, func(_ context.CancelFunc, parent context.CancelCauseFunc) { parent(nil) }, context.Canceled, context.Canceled, false},
		{"parent cancelled with a cause", time.Minute, func(_ context.CancelFunc, parent context.CancelCauseFunc) { parent(why) }, context.Canceled, why, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent, parentCancel := context.WithCancelCause(context.Background())
			defer parentCancel(nil)
			clk, stop := newClock(parent, tc.d)
			defer stop()
			tc.end(stop, parentCancel)
			if err := clkEnded(clk.ctx, 2*time.Second); err != tc.cause {
				t.Fatalf("cause %v, want %v", err, tc.cause)
			}
			check := func(when string) {
				t.Helper()
				if err := clk.ctx.Err(); err != tc.err {
					t.Errorf("%s: Err %v, want %v", when, err, tc.err)
				}
				if err := context.Cause(clk.ctx); err != tc.cause {
					t.Errorf("%s: cause %v, want %v", when, err, tc.cause)
				}
				if got := timedOut(clk.ctx, clk.ctx.Err()); got != tc.outOfTime {
					t.Errorf("%s: timedOut %v", when, got)
				}
			}
			check("ended")
			// Whatever happens next, the first reason stays.
			stop()
			parentCancel(errors.New("later"))
			clk.pause()
			clk.resume()
			clk.resume()
			check("afterwards")
		})
	}

	// A parent that runs out first: out of time too (its deadline's).
	parent, pc := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer pc()
	clk, stop := newClock(parent, time.Minute)
	defer stop()
	if err := clkEnded(clk.ctx, 2*time.Second); err != context.DeadlineExceeded || !timedOut(clk.ctx, clk.ctx.Err()) {
		t.Errorf("parent out of time: cause %v, timedOut %v", err, timedOut(clk.ctx, clk.ctx.Err()))
	}
	// A parent ended already.
	done, dc := context.WithCancel(context.Background())
	dc()
	clk, stop = newClock(done, time.Minute)
	defer stop()
	if err := clkEnded(clk.ctx, 2*time.Second); err != context.Canceled {
		t.Errorf("parent ended already: %v", err)
	}
}

// TestClockTinyDuration: a clock of no time at all (or 1ns, which
// --timeout accepts) is out of time at once, its timer firing before
// newClock returns or not.
func TestClockTinyDuration(t *testing.T) {
	for i := range 300 {
		d := []time.Duration{time.Nanosecond, 0, -time.Second}[i%3]
		clk, stop := newClock(context.Background(), d)
		if err := clkEnded(clk.ctx, 2*time.Second); err != context.DeadlineExceeded {
			t.Fatalf("newClock(%s): cause %v", d, err)
		}
		stop()
	}
}

// TestClockPause: while paused the clock never runs out; resume starts it
// again with the time that was left; pauses nest.
func TestClockPause(t *testing.T) {
	start := time.Now()
	clk, stop := newClock(context.Background(), 60*time.Millisecond)
	defer stop()
	time.Sleep(20 * time.Millisecond)
	clk.pause()
	paused := time.Now()
	clk.pause() // nested
	time.Sleep(100 * time.Millisecond)
	clkOpen(t, clk.ctx, "paused")
	clk.resume()
	time.Sleep(100 * time.Millisecond)
	clkOpen(t, clk.ctx, "still paused (one pause left)")
	// What is left is what had not run at the pause: at most the 40ms
	// the 20ms slept leave, at least what start and the pause's return
	// leave (however long a loaded machine took to get there); not the
	// whole 60ms again, nor the pauses' 200ms counted.
	clk.mu.Lock()
	left := clk.left
	clk.mu.Unlock()
	if least := 60*time.Millisecond - paused.Sub(start); left > 40*time.Millisecond || left < least {
		t.Fatalf("%s left at the pause, want between %s and 40ms", left, least)
	}
	resumed := time.Now()
	clk.resume()
	if err := clkEnded(clk.ctx, 2*time.Second); err != context.DeadlineExceeded {
		t.Fatalf("after resume: %v", err)
	}
	// It runs out no sooner than what was left.
	if took := time.Since(resumed); took < left {
		t.Errorf("ran out %s after resume, with %s left", took, left)
	}

	// A resume without a pause changes nothing.
	clk, stop = newClock(context.Background(), 40*time.Millisecond)
	defer stop()
	clk.resume()
	clk.pause()
	time.Sleep(80 * time.Millisecond)
	clkOpen(t, clk.ctx, "paused after a stray resume")
	clk.resume()
	if err := clkEnded(clk.ctx, 2*time.Second); err != context.DeadlineExceeded {
		t.Errorf("after resume: %v", err)
	}

	// Paused when the time was already up: it runs out at the resume.
	clk, stop = newClock(context.Background(), time.Millisecond)
	defer stop()
	clk.pause()
	time.Sleep(20 * time.Millisecond)
	if clk.ctx.Err() == nil {
		clk.resume()
		if err := clkEnded(clk.ctx, 2*time.Second); err != context.DeadlineExceeded {
			t.Errorf("resumed with no time left: %v", err)
		}
	}

	// Stopped while paused: it ends at once, and stays stopped.
	clk, stop = newClock(context.Background(), time.Minute)
	clk.pause()
	stop()
	if err := clkEnded(clk.ctx, time.Second); err != context.Canceled {
		t.Errorf("stopped while paused: %v", err)
	}
	clk.resume()
	if err := context.Cause(clk.ctx); err != context.Canceled {
		t.Errorf("resumed after stop: %v", err)
	}

	// The parent ending while paused ends it too.
	parent, pc := context.WithCancel(context.Background())
	clk, stop = newClock(parent, time.Minute)
	defer stop()
	clk.pause()
	pc()
	if err := clkEnded(clk.ctx, time.Second); err != context.Canceled {
		t.Errorf("parent cancelled while paused: %v", err)
	}
}

// TestClockLateTimer: a timer that fired just before a pause, its function
// late to the lock, does not end the clock: not while it is paused, nor
// after the resume that started a period of its own.
func TestClockLateTimer(t *testing.T) {
	clk, stop := newClock(context.Background(), time.Minute)
	defer stop()
	clk.mu.Lock()
	late := clk.period
	clk.mu.Unlock()
	clk.pause()
	clk.ring(late)
	clkOpen(t, clk.ctx, "paused, a late timer rang")
	clk.resume()
	clk.ring(late)
	clkOpen(t, clk.ctx, "resumed, a late timer rang")

	// The timer of the period that runs does end it.
	clk.mu.Lock()
	now := clk.period
	clk.mu.Unlock()
	clk.ring(now)
	if err := context.Cause(clk.ctx); err != context.DeadlineExceeded {
		t.Errorf("the running period's timer rang: cause %v", err)
	}
}

// TestClockExpires: expires is fixed while the clock runs, and moves on
// by the length of a pause.
func TestClockExpires(t *testing.T) {
	before := time.Now()
	clk, stop := newClock(context.Background(), time.Second)
	defer stop()
	e0 := clk.expires()
	if e0.Before(before.Add(time.Second)) || e0.After(time.Now().Add(time.Second)) {
		t.Fatalf("expires %v, want about now+1s", e0)
	}
	if e := clk.expires(); !e.Equal(e0) {
		t.Errorf("running: expires moved from %v to %v", e0, e)
	}
	clk.pause()
	time.Sleep(50 * time.Millisecond)
	clk.resume()
	e1 := clk.expires()
	if !e1.After(e0.Add(40*time.Millisecond)) || e1.After(time.Now().Add(time.Second)) {
		t.Errorf("after a pause of 50ms: expires %v, want after %v", e1, e0.Add(40*time.Millisecond))
	}
}

// TestClockDerived: contexts derived from the clock's end with it and
// carry its cause; a deadline set under it is their own, and never moves.
func TestClockDerived(t *testing.T) {
	clk, stop := newClock(context.Background(), 50*time.Millisecond)
	defer stop()
	child, cc := context.WithCancel(clk.ctx)
	defer cc()
	timed, tc := context.WithTimeout(clk.ctx, time.Minute)
	defer tc()
	d0, ok := timed.Deadline()
	if !ok || d0.After(time.Now().Add(time.Minute)) {
		t.Errorf("WithTimeout(clk, 1m): Deadline %v %v", d0, ok)
	}
	clk.pause()
	clk.resume()
	if d, _ := timed.Deadline(); !d.Equal(d0) {
		t.Errorf("WithTimeout(clk, 1m): Deadline moved from %v to %v", d0, d)
	}
	cause, ccause := context.WithCancelCause(clk.ctx)
	defer ccause(nil)
	for name, c := range map[string]context.Context{"WithCancel": child, "WithTimeout": timed, "WithCancelCause": cause} {
		if err := clkEnded(c, 2*time.Second); err != context.DeadlineExceeded {
			t.Errorf("%s: cause %v", name, err)
		}
		if !timedOut(c, c.Err()) {
			t.Errorf("%s: not timed out", name)
		}
	}

	// Paused: the derived contexts wait too.
	clk, stop = newClock(context.Background(), 30*time.Millisecond)
	child, cc = context.WithCancel(clk.ctx)
	defer cc()
	clk.pause()
	time.Sleep(80 * time.Millisecond)
	clkOpen(t, child, "derived, clock paused")
	stop()
	if err := clkEnded(child, time.Second); err != context.Canceled || timedOut(child, child.Err()) {
		t.Errorf("derived, clock stopped: cause %v", err)
	}
}

// TestTimedOut: timedOut is true only for the error a context ended out
// of time gives, as it is or wrapped.
func TestTimedOut(t *testing.T) {
	out, stop := newClock(context.Background(), 0)
	defer stop()
	<-out.ctx.Done()
	late, lc := context.WithTimeout(context.Background(), 0)
	defer lc()
	<-late.Done()
	gone, gc := context.WithCancel(context.Background())
	gc()
	running, rc := context.WithCancel(context.Background())
	defer rc()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"out of time", out.ctx, out.ctx.Err(), true},
		{"out of time, wrapped", out.ctx, fmt.Errorf("reading: %w", out.ctx.Err()), true},
		{"deadline passed", late, late.Err(), true},
		{"out of time, no error", out.ctx, nil, false},
		{"out of time, another error", out.ctx, errors.New("boom"), false},
		{"interrupted", gone, gone.Err(), false},
		{"running", running, context.Canceled, false},
	} {
		if got := timedOut(tc.ctx, tc.err); got != tc.want {
			t.Errorf("%s: timedOut %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestClockConcurrent: pause, resume and expires from many goroutines,
// nested, racing the clock's own expiry (run with -race): the clock ends
// out of time once everything resumed, and never while a pause holds.
func TestClockConcurrent(t *testing.T) {
	for round := range 100 {
		clk, stop := newClock(context.Background(), time.Duration(round%5)*time.Millisecond)
		racePauses(clk)
		if err := clkEnded(clk.ctx, 2*time.Second); err != context.DeadlineExceeded {
			t.Fatalf("round %d: cause %v", round, err)
		}
		stop()
	}

	// Paused just as its time runs out: while the pause holds, it never ends.
	for round := range 50 {
		clk, stop := newClock(context.Background(), time.Millisecond)
		time.Sleep(time.Duration(round%3) * 500 * time.Microsecond)
		clk.pause()
		if clk.ctx.Err() == nil {
			time.Sleep(5 * time.Millisecond)
			clkOpen(t, clk.ctx, fmt.Sprintf("round %d, paused", round))
		}
		clk.resume()
		if err := clkEnded(clk.ctx, 2*time.Second); err != context.DeadlineExceeded {
			t.Fatalf("round %d: after the resume: %v", round, err)
		}
		stop()
	}
}
