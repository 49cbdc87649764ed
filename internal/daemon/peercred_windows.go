//go:build windows

package daemon

import (
	"fmt"
	"net"
	"unsafe"

	"golang.org/x/sys/windows"
)

// sioAFUnixGetPeerPID is SIO_AF_UNIX_GETPEERPID (afunix.h):
// _WSAIOR(IOC_VENDOR, 256).
const sioAFUnixGetPeerPID = 0x58000100

// peerPID returns the pid of the process at the other end of c, as the
// kernel recorded it at connect.
func peerPID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, err
	}
	var pid, n uint32
	var ierr error
	if err := raw.Control(func(fd uintptr) {
		ierr = windows.WSAIoctl(windows.Handle(fd), sioAFUnixGetPeerPID, nil, 0,
			(*byte)(unsafe.Pointer(&pid)), uint32(unsafe.Sizeof(pid)), &n, nil, 0)
	}); err != nil {
		return 0, err
	}
	if ierr != nil {
		return 0, fmt.Errorf("cannot learn the peer's process (SIO_AF_UNIX_GETPEERPID): %w", ierr)
	}
	return int(pid), nil
}

// processUser names the user of process pid (from its token) as winUser
// does.
func processUser(pid int) (string, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return "", fmt.Errorf("cannot open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	var tok windows.Token
	if err := windows.OpenProcessToken(h, windows.TOKEN_QUERY, &tok); err != nil {
		return "", fmt.Errorf("cannot read the user of process %d: %w", pid, err)
	}
	defer tok.Close()
	tu, err := tok.GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("cannot read the user of process %d: %w", pid, err)
	}
	elevated, err := tokenElevated(tok)
	if err != nil {
		return "", fmt.Errorf("cannot read the elevation of process %d: %w", pid, err)
	}
	return winUser(tu.User.Sid.String(), elevated), nil
}

// peerUser names the user of the process at the other end of c (its pid
// from the socket, then the user and elevation of that process's token,
// see winUser), and its pid.
func peerUser(c *net.UnixConn) (who string, pid int, err error) {
	pid, err = peerPID(c)
	if err != nil {
		return "", 0, err
	}
	who, err = processUser(pid)
	if err != nil {
		return "", pid, err
	}
	return who, pid, nil
}

// myUser names this process's user as peerUser does.
func myUser() string {
	sid, err := mySID()
	if err != nil {
		return ""
	}
	elevated, err := myElevation()
	if err != nil {
		return "" // refuses every peer
	}
	return winUser(sid, elevated)
}
