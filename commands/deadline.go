package commands

import (
	"context"
	"errors"
	"sync"
	"time"
)

// clock is the --timeout of one connection. The time bounds the server,
// not a person answering one of its questions on the terminal (an
// elicitation): the clock stops while a person answers, so when it runs
// out is not known in advance, and it cannot be a context deadline. Code
// that reads a deadline once (mcp-go's SSE transport sets a timer by it,
// net/http dials by it) would be wrong after a pause. So the operation's
// context, ctx, carries no deadline of its own: a timer mcpx owns cancels
// it when the time runs out, with the cause context.DeadlineExceeded.
// Err is then context.Canceled, as for an interrupt; context.Cause tells
// the two apart (see timedOut).
type clock struct {
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu     sync.Mutex
	timer  *time.Timer   // the running period's; nil while paused
	period int           // counts the periods: a timer of an earlier one does nothing
	expiry time.Time     // while running: when the time runs out
	left   time.Duration // while paused: the time that was left
	paused int
}

// newClock starts a clock of d under parent. Its ctx ends when d has run
// (the pauses not counted), when parent ends, or when stop is called, the
// first of the three giving its cause.
func newClock(parent context.Context, d time.Duration) (c *clock, stop context.CancelFunc) {
	c = &clock{}
	c.ctx, c.cancel = context.WithCancelCause(parent)
	c.mu.Lock()
	c.run(d)
	c.mu.Unlock()
	// Whatever ends ctx, the timer goes with it.
	context.AfterFunc(c.ctx, c.halt)
	return c, func() { c.cancel(context.Canceled) }
}

// run starts a period of d; c.mu is held.
func (c *clock) run(d time.Duration) {
	c.period++
	period := c.period
	c.expiry = time.Now().Add(d)
	c.timer = time.AfterFunc(d, func() { c.ring(period) })
}

// ring ends ctx, out of time, unless the period it ends is over: the
// clock was paused (or paused and resumed) after the timer fired and
// before ring got the lock.
func (c *clock) ring(period int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if period != c.period || c.paused > 0 {
		return
	}
	c.cancel(context.DeadlineExceeded)
}

// halt stops the timer once ctx has ended.
func (c *clock) halt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.period++
	if c.timer != nil {
		c.timer.Stop()
	}
}

// pause stops the clock until resume; pauses nest.
func (c *clock) pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused++; c.paused > 1 {
		return
	}
	c.period++
	c.timer.Stop()
	c.left = time.Until(c.expiry)
}

// resume starts the clock again, with the time that was left, once every
// pause has been resumed. A resume without a pause does nothing.
func (c *clock) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused == 0 {
		return
	}
	if c.paused--; c.paused > 0 || c.ctx.Err() != nil {
		return
	}
	c.run(max(c.left, 0))
}

// expires is when the clock runs out if it is not paused again.
func (c *clock) expires() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused > 0 {
		return time.Now().Add(c.left)
	}
	return c.expiry
}

// timedOut reports whether err is ctx's own end, and ctx ended because
// its time ran out: a clock's, or a deadline's.
func timedOut(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) && errors.Is(context.Cause(ctx), context.DeadlineExceeded)
}
