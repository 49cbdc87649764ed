package commands

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// watchEvent is one event of mcpx watch (see WATCHING in mcpx(1)).
type watchEvent struct {
	Time   time.Time `json:"-"`
	Stamp  string    `json:"time"`
	Server string    `json:"server"`
	Event  string    `json:"event"`
	URI    string    `json:"uri"`
	Kind   string    `json:"kind"`
	// Gen counts the reconnections before the event: events of one
	// target coalesce only within a connection, never across the
	// reconnected event between them.
	Gen int `json:"-"`
}

// The events.
const (
	eventUpdated     = "resource_updated"
	eventListChanged = "list_changed"
	eventReconnected = "reconnected"
)

// target is what an event is about: a URI, a list, the connection.
func (e watchEvent) target() string {
	switch {
	case e.URI != "":
		return e.URI
	case e.Kind != "":
		return e.Kind
	}
	return e.Server
}

// key identifies the events that coalesce.
func (e watchEvent) key() string {
	return strconv.Itoa(e.Gen) + "\x00" + e.Event + "\x00" + e.URI + "\x00" + e.Kind
}

// maxPending bounds the distinct targets waiting (the targets are the URIs
// given, three lists and the connection, so it is never reached unless
// a command line names that many URIs; past it an event is dropped).
const maxPending = 4096

// eventQueue holds the events not yet printed or run: at most one per
// target, in the order their targets first arrived. An event whose target
// is already waiting replaces it (the later time), so that a flood of
// notifications costs no memory: what waits is bounded by the targets.
type eventQueue struct {
	mu      sync.Mutex
	order   []string
	pending map[string]watchEvent
	// coalesced counts the events merged into one already waiting,
	// dropped those refused past maxPending.
	coalesced, dropped int
	wake               chan struct{}
}

func newEventQueue() *eventQueue {
	return &eventQueue{pending: map[string]watchEvent{}, wake: make(chan struct{}, 1)}
}

// push adds e, or merges it into the event of its target that waits.
func (q *eventQueue) push(e watchEvent) {
	q.mu.Lock()
	k := e.key()
	switch _, ok := q.pending[k]; {
	case ok:
		q.coalesced++
	case len(q.order) >= maxPending:
		q.dropped++
		q.mu.Unlock()
		return
	default:
		q.order = append(q.order, k)
	}
	q.pending[k] = e
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// pop waits for the next event; false when ctx ends first.
func (q *eventQueue) pop(ctx context.Context) (watchEvent, bool) {
	for {
		q.mu.Lock()
		if len(q.order) > 0 {
			k := q.order[0]
			q.order = q.order[1:]
			if len(q.order) == 0 {
				q.order = nil // let the array go
			}
			e := q.pending[k]
			delete(q.pending, k)
			q.mu.Unlock()
			return e, true
		}
		q.mu.Unlock()
		select {
		case <-q.wake:
		case <-ctx.Done():
			return watchEvent{}, false
		}
	}
}

// size is the number of events waiting.
func (q *eventQueue) size() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.order)
}
