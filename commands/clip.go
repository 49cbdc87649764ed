package commands

// A server's strings and the user's values, shortened, quoted and counted
// for messages. A server's string has its secrets masked before it is
// cut, so that a cut never shows the start of a secret in clear (see
// SECRETS in mcpx(1)).

import (
	"unicode/utf8"

	"github.com/mcpx-cli/mcpx/internal/secret"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// argClip keeps at most n characters of s, the last one "…" when cut. It
// is not text.Clip, whose "..." comes after the n characters: the mark is
// one character of the n here, as the argument lines are sized to it.
func argClip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// clipLine folds whitespace runs (newlines included) to one space (see
// text.Squash) and clips.
func clipLine(s string, n int) string {
	return argClip(text.Squash(s), n)
}

// maskedClip and maskedLine are argClip and clipLine of a server's string
// with sec's secrets masked before it is cut, so that a cut never shows
// the start of a secret in clear (see secret.Set.Head).
func maskedClip(sec *secret.Set, s string, n int) string {
	head, more := sec.Head(s, n)
	if more {
		head += "…"
	}
	return argClip(head, n)
}

func maskedLine(sec *secret.Set, s string, n int) string {
	head, more := sec.Head(s, n)
	if more {
		head += "…"
	}
	return clipLine(head, n)
}

// line makes a server's string one line of at most n characters, secrets
// masked before it is cut (a secret cut short would not be masked). Only a
// window at its start is looked at: a 10 MiB log message is not copied
// whole to show 500 characters of it (see secret.Set.Head).
func (a *app) line(s string, n int) string {
	head, more := a.s.Secrets().Head(s, n)
	return text.EscapeClipHead(text.Squash(head), more, n)
}

// clip and quote are text.EscapeClip and text.QuoteClip for a server's
// string in a message, its secrets masked before it is cut, so that a cut
// never shows the start of a secret in clear (see SECRETS in mcpx(1)).
func (a *app) clip(s string, n int) string  { return a.s.Secrets().Clip(s, n) }
func (a *app) quote(s string, n int) string { return a.s.Secrets().Quote(s, n) }
