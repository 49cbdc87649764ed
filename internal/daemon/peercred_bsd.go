//go:build darwin || freebsd

package daemon

import (
	"net"

	"golang.org/x/sys/unix"
)

// peer returns the uid of the process at the other end of c, as the
// kernel recorded it (LOCAL_PEERCRED); the pid is not known (0).
func peer(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, 0, err
	}
	var cred *unix.Xucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil {
		return -1, 0, err
	}
	if cerr != nil {
		return -1, 0, cerr
	}
	return int(cred.Uid), 0, nil
}
