// Package secret holds the secrets of one invocation: one Set, safe for
// concurrent use, that every layer adds to (the values of a resolved
// server, stored OAuth tokens, a typed sensitive answer) and masks with
// (Mask, MaskIn for a piece cut from a larger text, MaskJSON for a
// document, and Head, Clip, Quote and Window for a server's string a
// message quotes). Which names and values are secrets is the config's
// rule (see SECRETS in mcpx(1)); this package only keeps and hides them.
//
// It imports nothing of mcpx's but internal/text.
package secret
