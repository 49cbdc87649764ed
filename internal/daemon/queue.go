package daemon

// What the daemon sends one caller (the server's messages, the answers to
// the caller's requests, the daemon's own notifications) waits in a queue
// of the caller's own, bounded in bytes, which one writer sends in order.

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// queueLimit bounds the bytes queued for one caller. Past it, a message
// waits for room, as a pipe makes a one-shot server wait; one message
// alone is taken whatever its size (it is within the message ceiling).
const queueLimit = 16 << 20

// msgOverhead is what a queued message costs besides its bytes (counted
// against queueLimit, so that a flood of tiny messages is bounded too).
const msgOverhead = 64

// stallWait is how long a caller whose queue is full may read nothing
// before it is cut off.
const stallWait = time.Second

// tailWait bounds the sending of what a caller cut off is still owed: the
// rest of the message being written, then the note that says why.
const tailWait = 30 * time.Second

// writeChunk is the most the writer sends in one write: each one written
// is progress (the caller reads).
const writeChunk = 64 << 10

// errCutOff: the caller's queue takes nothing more (the caller was cut off
// or is gone).
var errCutOff = errors.New("the caller is cut off")

// outQueue is a caller's queue and its writer. It is the io.WriteCloser
// its transport writes to: each Write is one whole line (one message).
type outQueue struct {
	conn  net.Conn
	limit int64
	stall time.Duration
	// stalled is told (once, from a goroutine of its own) that the caller
	// read nothing while its queue was full: n bytes were waiting.
	stalled func(n int64)
	// peak reports the bytes queued at once, each time it grows (tests).
	peak func(n int64)

	mu      sync.Mutex
	msgs    [][]byte // waiting, the one being written first
	writing bool     // the writer has taken msgs[0]
	queued  int64    // bytes waiting (with msgOverhead each), the rest of the one being written included
	last    time.Time
	closed  bool   // takes nothing more
	final   []byte // sent after the message being written, then the connection closes (cut off)
	wake    chan struct{}
	room    chan struct{} // closed, and replaced, at each progress of the writer
	done    chan struct{} // closed when the writer has ended
}

func newOutQueue(conn net.Conn, limit int64, stall time.Duration, stalled, peak func(int64)) *outQueue {
	q := &outQueue{conn: conn, limit: limit, stall: stall, stalled: stalled, peak: peak,
		wake: make(chan struct{}, 1), room: make(chan struct{}), done: make(chan struct{})}
	go q.run()
	return q
}

// Write queues one message (a whole line, which the queue keeps: the
// transport does not reuse it). It waits while the queue is full and the
// caller reads; a caller that read nothing for the stall time while its
// queue was full is cut off, and the message is refused.
func (q *outQueue) Write(line []byte) (int, error) {
	cost := int64(len(line)) + msgOverhead
	q.mu.Lock()
	for {
		if q.closed {
			q.mu.Unlock()
			return 0, errCutOff
		}
		if q.queued == 0 || q.queued+cost <= q.limit {
			if q.queued == 0 {
				q.last = time.Now() // a new backlog: no time spent waiting yet
			}
			q.msgs = append(q.msgs, line)
			q.queued += cost
			n := q.queued
			q.mu.Unlock()
			if q.peak != nil {
				q.peak(n)
			}
			select {
			case q.wake <- struct{}{}:
			default:
			}
			return len(line), nil
		}
		wait := q.stall - time.Since(q.last)
		if wait <= 0 {
			n := q.queued + cost
			q.mu.Unlock()
			go q.stalled(n)
			return 0, errCutOff
		}
		room := q.room
		q.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-room:
		case <-t.C:
		case <-q.done:
		}
		t.Stop()
		q.mu.Lock()
	}
}

// Close takes nothing more, drops what waits (but the message being
// written, and the final one) and lets the writer end.
func (q *outQueue) Close() error {
	q.shut(nil)
	return nil
}

// cutOff takes nothing more and drops what waits; what the caller is
// still owed is the rest of the message being written, then final, within
// tailWait; then the connection closes.
func (q *outQueue) cutOff(final []byte) {
	q.shut(final)
	_ = q.conn.SetWriteDeadline(time.Now().Add(tailWait))
}

func (q *outQueue) shut(final []byte) {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		q.final = final
		keep := 0
		if q.writing {
			keep = 1
		}
		for _, m := range q.msgs[keep:] {
			q.queued -= int64(len(m)) + msgOverhead
		}
		clear(q.msgs[keep:])
		q.msgs = q.msgs[:keep]
		q.progressLocked()
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// progressLocked records progress of the writer (or room made otherwise),
// waking those waiting for room. Called with q.mu held.
func (q *outQueue) progressLocked() {
	q.last = time.Now()
	close(q.room)
	q.room = make(chan struct{})
}

// run is the writer: it sends the messages in order, in chunks, each one
// progress, until the queue is closed and what it still owes is sent, or
// a write fails (the connection closed).
func (q *outQueue) run() {
	defer close(q.done)
	for {
		q.mu.Lock()
		for len(q.msgs) == 0 && !q.closed {
			q.mu.Unlock()
			<-q.wake
			q.mu.Lock()
		}
		if len(q.msgs) == 0 {
			final := q.final
			q.final = nil
			q.mu.Unlock()
			if final != nil {
				_, _ = q.conn.Write(final)
				_ = q.conn.Close()
			}
			return
		}
		m := q.msgs[0]
		q.writing = true
		q.mu.Unlock()
		sent := int64(0)
		var err error
		for len(m) > 0 && err == nil {
			var n int
			n, err = q.conn.Write(m[:min(len(m), writeChunk)])
			m = m[n:]
			sent += int64(n)
			q.mu.Lock()
			q.queued -= int64(n)
			q.progressLocked()
			q.mu.Unlock()
		}
		q.mu.Lock()
		q.queued -= msgOverhead + int64(len(m)) // what was not sent, if the write failed
		q.msgs[0] = nil
		q.msgs = q.msgs[1:]
		q.writing = false
		if err != nil {
			q.closed = true
			for _, rest := range q.msgs {
				q.queued -= int64(len(rest)) + msgOverhead
			}
			q.msgs, q.final = nil, nil
			q.progressLocked()
		}
		q.mu.Unlock()
		if err != nil {
			_ = q.conn.Close()
			return
		}
	}
}

// cutOffWhy is the note of a caller cut off with n bytes waiting for it.
func cutOffWhy(n int64) string {
	return fmt.Sprintf("the mcpx daemon cut this call off: it read nothing while the server sent %d MiB", (n+(1<<20)-1)>>20)
}
