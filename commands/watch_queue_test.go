package commands

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// A flood of notifications for a few targets, none taken, holds one event
// per target: memory is bounded by the targets, not the notifications.
func TestEventQueueFloodIsBounded(t *testing.T) {
	q := newEventQueue()
	for i := range 200000 {
		q.push(watchEvent{Event: eventUpdated, URI: fmt.Sprintf("file:///%d", i%3), Stamp: fmt.Sprint(i)})
	}
	q.push(watchEvent{Event: eventListChanged, Kind: "tools"})
	if n := q.size(); n != 4 {
		t.Fatalf("%d events wait, want 4", n)
	}
	if q.coalesced != 200000-3 {
		t.Fatalf("coalesced %d, want %d", q.coalesced, 200000-3)
	}
	ctx := context.Background()
	var got []string
	for range 4 {
		e, _ := q.pop(ctx)
		got = append(got, e.target()+"@"+e.Stamp)
	}
	want := "[file:///0@199998 file:///1@199999 file:///2@199997 tools@]"
	if fmt.Sprint(got) != want {
		t.Fatalf("popped %v, want %s (first arrival order, latest of each)", got, want)
	}
}

// Past maxPending distinct targets an event is dropped, and counted.
func TestEventQueueDropsPastBound(t *testing.T) {
	q := newEventQueue()
	for i := range maxPending + 10 {
		q.push(watchEvent{Event: eventUpdated, URI: fmt.Sprint(i)})
	}
	if q.size() != maxPending || q.dropped != 10 {
		t.Fatalf("size %d dropped %d, want %d and 10", q.size(), q.dropped, maxPending)
	}
}

// pop returns false once its context ends with nothing waiting.
func TestEventQueuePopEnds(t *testing.T) {
	q := newEventQueue()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := q.pop(ctx); ok {
		t.Fatal("pop of an empty queue returned an event")
	}
	done := make(chan watchEvent)
	go func() {
		e, _ := q.pop(context.Background())
		done <- e
	}()
	q.push(watchEvent{Event: eventReconnected, Server: "s"})
	select {
	case e := <-done:
		if e.target() != "s" {
			t.Fatalf("popped %+v", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("pop never woke up")
	}
}

// The command line: URIs sorted and once each; the command after --.
func TestWatchParse(t *testing.T) {
	o := &watchOptions{}
	args := []string{"mcpx", "watch", "s", "b", "a", "b", "--exec", "--", "true", "x"}
	if err := o.parse([]string{"s", "b", "a", "b", "true", "x"}, args, true, false); err != nil {
		t.Fatal(err)
	}
	if o.Server != "s" || fmt.Sprint(o.URIs) != "[a b]" || fmt.Sprint(o.Exec) != "[true x]" {
		t.Fatalf("parsed %+v", o)
	}
}

// Events of one target do not coalesce across a reconnection.
func TestEventQueueGenerations(t *testing.T) {
	q := newEventQueue()
	q.push(watchEvent{Event: eventUpdated, URI: "a"})
	q.push(watchEvent{Event: eventReconnected, Server: "s", Gen: 1})
	q.push(watchEvent{Event: eventUpdated, URI: "a", Gen: 1})
	q.push(watchEvent{Event: eventUpdated, URI: "a", Gen: 1})
	if n := q.size(); n != 3 {
		t.Fatalf("%d events wait, want 3", n)
	}
}
