package commands

import (
	"context"
	"sync"
	"time"
)

// clock is the --timeout of one connection as a context that can be
// paused: the deadline bounds the server, not a person answering a
// server's question on the terminal (an elicitation). Its Err is
// context.DeadlineExceeded when the time runs out, as a context.WithTimeout's
// is, so that a timeout is told from an interrupt the same way.
type clock struct {
	parent context.Context
	done   chan struct{}

	mu       sync.Mutex
	err      error
	deadline time.Time
	left     time.Duration // while paused: the time that was left
	paused   int
	timer    *time.Timer
}

func newClock(parent context.Context, d time.Duration) (*clock, context.CancelFunc) {
	c := &clock{parent: parent, done: make(chan struct{}), deadline: time.Now().Add(d)}
	c.mu.Lock() // the timer may fire before it is stored
	c.timer = time.AfterFunc(d, func() { c.end(context.DeadlineExceeded) })
	c.mu.Unlock()
	stop := context.AfterFunc(parent, func() { c.end(parent.Err()) })
	return c, func() {
		stop()
		c.end(context.Canceled)
	}
}

func (c *clock) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	c.timer.Stop()
	close(c.done)
}

// pause stops the clock until resume; pauses nest.
func (c *clock) pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused++; c.paused > 1 || c.err != nil {
		return
	}
	if c.timer.Stop() {
		c.left = time.Until(c.deadline)
	}
}

// resume starts the clock again with the time that was left.
func (c *clock) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused == 0 {
		return
	}
	if c.paused--; c.paused > 0 || c.err != nil {
		return
	}
	c.deadline = time.Now().Add(c.left)
	c.timer.Reset(c.left)
}

func (c *clock) Deadline() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused > 0 { // no deadline while a person answers
		return time.Now().Add(c.left), true
	}
	return c.deadline, true
}

func (c *clock) Done() <-chan struct{} { return c.done }

func (c *clock) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *clock) Value(key any) any { return c.parent.Value(key) }
