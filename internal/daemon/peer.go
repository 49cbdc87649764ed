package daemon

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"
)

// ErrUnsupported is keep-alive asked for where there is no daemon.
var ErrUnsupported = errors.New("warm connections are not supported on this platform")

// maxSocketPath is the longest path a Unix socket may have here (the
// kernel's sun_path, less its terminating NUL): 107 bytes on Linux and
// Windows, 103 on macOS and the BSDs.
var maxSocketPath = len(syscall.RawSockaddrUnix{}.Path) - 1

// peerRefusal decides on the process at the other end of a socket
// connection, whose user the kernel named (who, as peerUser gives it; err
// when it could not): only the user's own processes are served, and only
// a daemon of the user's own is trusted. It is nil for those.
func peerRefusal(me, who string, err error) error {
	switch {
	case err != nil:
		return err
	case who == "" || me == "":
		return errors.New("the user of the process is not known")
	case who != me:
		return fmt.Errorf("the process is of %s, not of %s", who, me)
	}
	return nil
}

// pollLock takes a lock by calling try every 5 ms until it succeeds (nil),
// fails for another reason than the lock being held (busy false), or ctx
// ends.
func pollLock(ctx context.Context, try func() (busy bool, err error)) error {
	for {
		busy, err := try()
		if err == nil {
			return nil
		}
		if !busy {
			return fmt.Errorf("cannot lock the daemon directory: %w", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}
