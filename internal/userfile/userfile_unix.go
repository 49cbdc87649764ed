//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package userfile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// TryLock takes an exclusive flock on f without waiting; false when
// another holds it.
func TryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EINTR) {
		return false, nil
	}
	return err == nil, err
}

// Unlock lets go of f's lock.
func Unlock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// OpenNoFollow opens a file for reading without blocking on a FIFO (a
// FIFO put there must not hang every command) and without following a
// symbolic link as the last component (syscall.ELOOP).
func OpenNoFollow(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
}

// OpenLock opens (creating, 0600) a lock file, never through a symbolic link.
func OpenLock(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
}

// Private says why fi is not the current user's to trust ("" when it
// is): another owner, or one of the permission bits in deny (group and
// others' write for a directory, any of their bits for a private file).
func Private(fi os.FileInfo, deny os.FileMode) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Sprintf("belongs to uid %d, not to you", st.Uid)
	}
	if fi.Mode().Perm()&deny != 0 {
		return fmt.Sprintf("is mode %04o, open to other users", fi.Mode().Perm())
	}
	return ""
}
