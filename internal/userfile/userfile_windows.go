//go:build windows

package userfile

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// TryLock takes an exclusive lock (LockFileEx) on f without waiting;
// false when another holds it.
func TryLock(f *os.File) (bool, error) {
	var ol windows.Overlapped
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return false, nil
	}
	return err == nil, err
}

// Unlock lets go of f's lock.
func Unlock(f *os.File) {
	var ol windows.Overlapped
	_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}

// isReparse reports whether fi (from Lstat) is a reparse point: a
// symbolic link, a junction or another redirection, which is refused as
// O_NOFOLLOW does elsewhere.
func isReparse(fi os.FileInfo) bool {
	d, ok := fi.Sys().(*syscall.Win32FileAttributeData)
	return fi.Mode()&os.ModeSymlink != 0 || ok && d.FileAttributes&syscall.FILE_ATTRIBUTE_REPARSE_POINT != 0
}

// OpenNoFollow opens a file for reading; a reparse point is refused
// (syscall.ELOOP).
func OpenNoFollow(p string) (*os.File, error) {
	if fi, err := os.Lstat(p); err == nil && isReparse(fi) {
		return nil, &os.PathError{Op: "open", Path: p, Err: syscall.ELOOP}
	}
	return os.Open(p)
}

// OpenLock opens (creating) a lock file; a reparse point is refused.
func OpenLock(p string) (*os.File, error) {
	if fi, err := os.Lstat(p); err == nil && isReparse(fi) {
		return nil, &os.PathError{Op: "open", Path: p, Err: syscall.ELOOP}
	}
	return os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
}

// Private: Windows has no mode bits to check (the directories are under
// %LOCALAPPDATA%, which only the user can write by default); a reparse
// point is refused.
func Private(fi os.FileInfo, _ os.FileMode) string {
	if isReparse(fi) {
		return "is a reparse point (a link or junction)"
	}
	return ""
}
