//go:build unix

package daemon

import (
	"io"
	"syscall"

	"golang.org/x/sys/unix"
)

// unread is how many bytes written to a server's stdin pipe w its server
// has not read (FIONREAD, which a pipe answers at either end); -1 when it
// cannot be told.
func unread(w io.Writer) int64 {
	if fionread == 0 {
		return -1
	}
	sc, ok := w.(interface {
		SyscallConn() (syscall.RawConn, error)
	})
	if !ok {
		return -1
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	n := -1
	if err := rc.Control(func(fd uintptr) {
		if v, err := unix.IoctlGetInt(int(fd), fionread); err == nil {
			n = v
		}
	}); err != nil {
		return -1
	}
	return int64(n)
}
