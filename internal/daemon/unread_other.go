//go:build !unix

package daemon

import "io"

// unread: not known here (-1); see unread_unix.go.
func unread(io.Writer) int64 { return -1 }
