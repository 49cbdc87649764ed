package secret

import (
	"strings"
	"testing"

	"github.com/mcpx-cli/mcpx/internal/text"
)

// TestClip: a server's string cut for a message is masked before
// the cut, so that the cut never shows the start of a secret; also when a
// huge string's window cuts one.
func TestClip(t *testing.T) {
	sec := &Set{}
	sec.Add("hunter2-hunter2")
	s := strings.Repeat("x", 95) + "hunter2-hunter2 tail"
	if got := sec.Clip(s, 100); got != strings.Repeat("x", 95)+"*** t..." {
		t.Errorf("Clip = %q", got)
	}
	if got := text.EscapeClip(s, 100); got != strings.Repeat("x", 95)+"hunte..." {
		t.Errorf("EscapeClip = %q (the cut a message must never show)", got)
	}
	if got := sec.Quote(s, 97); got != `"`+strings.Repeat("x", 95)+`**..."` {
		t.Errorf("Quote = %q", got)
	}
	if got := (*Set)(nil).Quote("a\nb", 10); got != `"a\nb"` {
		t.Errorf("Quote without secrets = %q", got)
	}
	// only a window at the start of a huge string is read (4*10+4096
	// bytes: 275 whole secrets and the start of one): masking shrinks it
	// below n characters, and the secret the window cuts is *** too
	huge := strings.Repeat("hunter2-hunter2", 1000) + " and more"
	head, more := sec.Head(huge, 10)
	if want := strings.Repeat("***", 276); !more || head != want {
		t.Errorf("Head: more %v, head %q", more, head)
	}
	if got := sec.Clip(huge, 2000); got != strings.Repeat("*", 2000)+"..." {
		t.Errorf("Clip of a huge string = %q", got)
	}
}

// TestWindow: a window of a server's string is cut back to a character
// boundary and masked against the bytes after it, so that a secret the
// window cuts shows as *** too.
func TestWindow(t *testing.T) {
	sec := &Set{}
	sec.Add("secret")
	for _, tc := range []struct {
		s, want string
		w       int
	}{
		{"a secret here", "a *** here", 100},
		{"a secret here", "a ***", 6},
		{"aé", "a", 2}, // cut back to a character boundary
		{"plain", "plain", 100},
	} {
		if got := sec.Window(tc.s, tc.w); got != tc.want {
			t.Errorf("Window(%q, %d) = %q, want %q", tc.s, tc.w, got, tc.want)
		}
	}
	if got := (*Set)(nil).Window("abc", 2); got != "ab" {
		t.Errorf("Window without secrets = %q", got)
	}
}
