//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package auth

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on f without waiting.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

func unlock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// openTokenFile opens a token file for reading without blocking on a FIFO
// (a FIFO put there must not hang every command) and without following a
// symbolic link as the last component.
func openTokenFile(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
}

// openLockFile opens (creating) a lock file, never through a symbolic link.
func openLockFile(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
}

// private reports why fi is not the current user's to trust ("" when it
// is): another owner, or one of the permission bits in deny (group and
// others' write for a directory, any of their bits for a token file).
func private(fi os.FileInfo, deny os.FileMode) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Sprintf("belongs to uid %d, not to you", st.Uid)
	}
	if fi.Mode().Perm()&deny != 0 {
		return fmt.Sprintf("is mode %04o, open to other users", fi.Mode().Perm())
	}
	return ""
}
