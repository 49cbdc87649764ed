package commands

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"
)

// clkEnded waits for the clock to end and returns its Err; "" when it has
// not ended within d.
func clkEnded(c context.Context, d time.Duration) error {
	select {
	case <-c.Done():
		return c.Err()
	case <-time.After(d):
		return nil
	}
}

// clkOpen checks that the clock has not ended.
func clkOpen(t *testing.T, c context.Context, what string) {
	t.Helper()
	select {
	case <-c.Done():
		t.Fatalf("%s: ended with %v", what, c.Err())
	default:
	}
	if err := c.Err(); err != nil {
		t.Fatalf("%s: Err %v while Done is open", what, err)
	}
}

type clkKey struct{}

// clkNew is newClock whose first timer is replaced at once (pause, resume)
// by one started under the clock's lock: a timer newClock starts itself
// races with the storing of it (see TestClockRunsOut).
func clkNew(parent context.Context, d time.Duration) (*clock, context.CancelFunc) {
	c, cancel := newClock(parent, d)
	c.pause()
	c.resume()
	return c, cancel
}

// TestClockEnds: how a clock ends, and the Err it reports (the first
// reason wins).
func TestClockEnds(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    time.Duration
		end  func(cancel, parentCancel context.CancelFunc)
		want error
	}{
		{"runs out", 20 * time.Millisecond, func(context.CancelFunc, context.CancelFunc) {}, context.DeadlineExceeded},
		{"cancel func", time.Minute, func(cancel, _ context.CancelFunc) { cancel() }, context.Canceled},
		{"parent cancelled", time.Minute, func(_, parent context.CancelFunc) { parent() }, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent, parentCancel := context.WithCancel(context.WithValue(context.Background(), clkKey{}, "v"))
			defer parentCancel()
			clk, cancel := clkNew(parent, tc.d)
			defer cancel()
			if clk.Value(clkKey{}) != "v" {
				t.Errorf("Value not the parent's: %v", clk.Value(clkKey{}))
			}
			tc.end(cancel, parentCancel)
			if err := clkEnded(clk, 2*time.Second); err != tc.want {
				t.Fatalf("Err %v, want %v", err, tc.want)
			}
			// Whatever happens next, the first reason stays.
			cancel()
			parentCancel()
			clk.pause()
			clk.resume()
			clk.resume()
			if err := clk.Err(); err != tc.want {
				t.Errorf("Err then %v", err)
			}
		})
	}

	// A parent that runs out first: the clock says so too.
	parent, pc := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer pc()
	clk, cancel := clkNew(parent, time.Minute)
	defer cancel()
	if err := clkEnded(clk, 2*time.Second); err != context.DeadlineExceeded {
		t.Errorf("parent out of time: %v", err)
	}
	// A parent ended already.
	done, dc := context.WithCancel(context.Background())
	dc()
	clk, cancel = clkNew(done, time.Minute)
	defer cancel()
	if err := clkEnded(clk, 2*time.Second); err != context.Canceled {
		t.Errorf("parent ended already: %v", err)
	}
	// The deadline runs out before the cancel func is called.
	clk, cancel = clkNew(context.Background(), 5*time.Millisecond)
	if err := clkEnded(clk, 2*time.Second); err != context.DeadlineExceeded {
		t.Errorf("out of time: %v", err)
	}
	cancel()
	if err := clk.Err(); err != context.DeadlineExceeded {
		t.Errorf("after cancel: %v", err)
	}
}

// TestClockPause: while paused the clock never fires; resume restarts it
// with the time that was left; pauses nest.
func TestClockPause(t *testing.T) {
	clk, cancel := clkNew(context.Background(), 60*time.Millisecond)
	defer cancel()
	time.Sleep(20 * time.Millisecond)
	clk.pause()
	clk.pause() // nested
	time.Sleep(100 * time.Millisecond)
	clkOpen(t, clk, "paused")
	clk.resume()
	time.Sleep(100 * time.Millisecond)
	clkOpen(t, clk, "still paused (one pause left)")
	start := time.Now()
	clk.resume()
	if err := clkEnded(clk, 2*time.Second); err != context.DeadlineExceeded {
		t.Fatalf("after resume: %v", err)
	}
	// About 40ms were left: not the whole 60ms again, nor nothing.
	if took := time.Since(start); took < 25*time.Millisecond || took > 500*time.Millisecond {
		t.Errorf("ran out %s after resume, want about 40ms", took)
	}

	// A resume without a pause changes nothing.
	clk, cancel = clkNew(context.Background(), 40*time.Millisecond)
	defer cancel()
	clk.resume()
	clk.pause()
	time.Sleep(80 * time.Millisecond)
	clkOpen(t, clk, "paused after a stray resume")
	clk.resume()
	if err := clkEnded(clk, 2*time.Second); err != context.DeadlineExceeded {
		t.Errorf("after resume: %v", err)
	}

	// Cancelling while paused ends it at once.
	clk, cancel = clkNew(context.Background(), time.Minute)
	clk.pause()
	cancel()
	if err := clkEnded(clk, time.Second); err != context.Canceled {
		t.Errorf("cancelled while paused: %v", err)
	}
	clk.resume()
	if err := clk.Err(); err != context.Canceled {
		t.Errorf("resumed after cancel: %v", err)
	}

	// The parent ending while paused ends it too.
	parent, pc := context.WithCancel(context.Background())
	clk, cancel = clkNew(parent, time.Minute)
	defer cancel()
	clk.pause()
	pc()
	if err := clkEnded(clk, time.Second); err != context.Canceled {
		t.Errorf("parent cancelled while paused: %v", err)
	}
}

// TestClockDeadline: Deadline is the time the clock runs out, and moves
// with the pauses.
func TestClockDeadline(t *testing.T) {
	before := time.Now()
	clk, cancel := clkNew(context.Background(), time.Second)
	defer cancel()
	d0, ok := clk.Deadline()
	if !ok || d0.Before(before.Add(time.Second)) || d0.After(time.Now().Add(time.Second)) {
		t.Fatalf("Deadline %v %v, want about now+1s", d0, ok)
	}
	clk.pause()
	time.Sleep(50 * time.Millisecond)
	d1, ok := clk.Deadline()
	if !ok || !d1.After(d0.Add(40*time.Millisecond)) {
		t.Errorf("paused 50ms: Deadline %v, want after %v", d1, d0.Add(40*time.Millisecond))
	}
	time.Sleep(20 * time.Millisecond)
	if d2, _ := clk.Deadline(); !d2.After(d1.Add(10 * time.Millisecond)) {
		t.Errorf("still paused: Deadline %v did not move from %v", d2, d1)
	}
	clk.resume()
	d3, _ := clk.Deadline()
	if !d3.After(d0.Add(60*time.Millisecond)) || d3.After(time.Now().Add(time.Second)) {
		t.Errorf("resumed: Deadline %v, want after %v", d3, d0.Add(60*time.Millisecond))
	}
	if d4, _ := clk.Deadline(); !d4.Equal(d3) {
		t.Errorf("running: Deadline moved from %v to %v", d3, d4)
	}
}

// TestClockDerived: contexts derived from the clock end with it and say
// why; a derived deadline never outlives a pause.
func TestClockDerived(t *testing.T) {
	clk, cancel := clkNew(context.Background(), 50*time.Millisecond)
	defer cancel()
	child, cc := context.WithCancel(clk)
	defer cc()
	timed, tc := context.WithTimeout(clk, time.Minute)
	defer tc()
	if d, ok := timed.Deadline(); !ok || d.After(time.Now().Add(time.Second)) {
		t.Errorf("WithTimeout(clk, 1m) deadline %v: not the clock's", d)
	}
	cause, ccause := context.WithCancelCause(clk)
	defer ccause(nil)
	for name, c := range map[string]context.Context{"WithCancel": child, "WithTimeout": timed, "WithCancelCause": cause} {
		if err := clkEnded(c, 2*time.Second); err != context.DeadlineExceeded {
			t.Errorf("%s: %v", name, err)
		}
		if err := context.Cause(c); err != context.DeadlineExceeded {
			t.Errorf("%s: Cause %v", name, err)
		}
	}

	// Paused: the derived contexts wait too.
	clk, cancel = clkNew(context.Background(), 30*time.Millisecond)
	child, cc = context.WithCancel(clk)
	defer cc()
	clk.pause()
	time.Sleep(80 * time.Millisecond)
	clkOpen(t, child, "derived, clock paused")
	cancel()
	if err := clkEnded(child, time.Second); err != context.Canceled {
		t.Errorf("derived, clock cancelled: %v", err)
	}
	if !errors.Is(context.Cause(child), context.Canceled) {
		t.Errorf("derived, clock cancelled: Cause %v", context.Cause(child))
	}
}

// TestClockCause: context.Cause of the clock itself is its Err, as for
// any context that ended without a cause, whatever its parent.
func TestClockCause(t *testing.T) {
	for _, tc := range []struct {
		name   string
		parent func() (context.Context, context.CancelFunc)
	}{
		{"background parent", func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }},
		{"cancelable parent", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent, pc := tc.parent()
			defer pc()
			clk, cancel := clkNew(parent, 5*time.Millisecond)
			defer cancel()
			if err := clkEnded(clk, 2*time.Second); err != context.DeadlineExceeded {
				t.Fatalf("Err %v", err)
			}
			if err := context.Cause(clk); err != context.DeadlineExceeded {
				t.Errorf("context.Cause(clk) = %v, want %v", err, context.DeadlineExceeded)
			}
		})
	}
}

// TestClockConcurrent: pause, resume, Deadline and Err from many
// goroutines (for -race), the clock ending meanwhile.
func TestClockConcurrent(t *testing.T) {
	clk, cancel := clkNew(context.Background(), 5*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	for range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 200 {
				clk.pause()
				_, _ = clk.Deadline()
				_ = clk.Err()
				clk.resume()
			}
		}()
	}
	for range 8 {
		<-done
	}
	if err := clkEnded(clk, 2*time.Second); err != context.DeadlineExceeded {
		t.Errorf("after the pauses: %v", err)
	}
}

// TestClockTinyDuration: a clock of no time at all (or 1ns, which
// --timeout accepts) is out of time at once. It runs in a process of its
// own: a clock whose timer fires before newClock has stored it would crash
// the whole test binary.
func TestClockTinyDuration(t *testing.T) {
	if os.Getenv("MCPX_CLOCK_CHILD") != "" {
		for i := range 900 {
			d := []time.Duration{time.Nanosecond, 0, -time.Second}[i%3]
			clk, cancel := newClock(context.Background(), d)
			if err := clkEnded(clk, 2*time.Second); err != context.DeadlineExceeded {
				t.Fatalf("newClock(%s): Err %v", d, err)
			}
			cancel()
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestClockTinyDuration$", "-test.count=1")
	cmd.Env = append(os.Environ(), "MCPX_CLOCK_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		if len(out) > 1500 {
			out = out[:1500]
		}
		t.Errorf("newClock with 1ns, 0 and -1s, 900 times: %v\n%s", err, out)
	}
}

// TestClockRunsOut: a fresh clock runs out by itself. (Under -race: the
// timer's function reads c.timer, which newClock stores after starting the
// timer, with nothing ordering the two.)
func TestClockRunsOut(t *testing.T) {
	clk, cancel := newClock(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := clkEnded(clk, 2*time.Second); err != context.DeadlineExceeded {
		t.Errorf("Err %v", err)
	}
}
