package client

import (
	"reflect"
	"testing"

	"github.com/mcpx-cli/mcpx/internal/daemon"
)

// TestWarmStderrAfterAdopt: a connection that adopts another (renegotiate)
// quotes the stderr lines the daemon sends after, which go to the
// adopted connection's events, not a copy of its tail taken at adoption.
func TestWarmStderrAfterAdopt(t *testing.T) {
	n := &Conn{warm: true, warmStderr: &stderrTail{}, lost: newLost()}
	ev := &warmEvents{conn: n, lost: n.lost}
	ev.Stderr("before")
	c := &Conn{}
	c.adopt(n)
	ev.Stderr("after")
	if got, want := c.Stderr(10), []string{"before", "after"}; !reflect.DeepEqual(got, want) {
		t.Errorf("stderr tail %q, want %q", got, want)
	}
	ev.Lost(daemon.Lost{Why: "gone", Stderr: []string{"last words"}})
	if got, want := c.Stderr(10), []string{"last words"}; !reflect.DeepEqual(got, want) {
		t.Errorf("stderr tail after the loss %q, want %q", got, want)
	}
}
