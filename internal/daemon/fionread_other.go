//go:build unix && !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package daemon

// fionread: none known here (unread says it cannot tell).
const fionread = 0
