//go:build windows

package auth

import (
	"os"
	"syscall"
)

// tryLock: no flock here; concurrent refreshes are not coordinated.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlock(*os.File) {}

// isReparse reports whether fi (from Lstat) is a reparse point: a
// symbolic link, a junction or another redirection, which the token store
// refuses as O_NOFOLLOW does elsewhere.
func isReparse(fi os.FileInfo) bool {
	d, ok := fi.Sys().(*syscall.Win32FileAttributeData)
	return fi.Mode()&os.ModeSymlink != 0 || ok && d.FileAttributes&syscall.FILE_ATTRIBUTE_REPARSE_POINT != 0
}

func openTokenFile(p string) (*os.File, error) {
	if fi, err := os.Lstat(p); err == nil && isReparse(fi) {
		return nil, &os.PathError{Op: "open", Path: p, Err: syscall.ELOOP}
	}
	return os.Open(p)
}

func openLockFile(p string) (*os.File, error) {
	if fi, err := os.Lstat(p); err == nil && isReparse(fi) {
		return nil, &os.PathError{Op: "open", Path: p, Err: syscall.ELOOP}
	}
	return os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
}

// private: Windows has no mode bits to check (the directories are under
// %LOCALAPPDATA%, which only the user can write by default); a reparse
// point is refused.
func private(fi os.FileInfo, _ os.FileMode) string {
	if isReparse(fi) {
		return "is a reparse point (a link or junction)"
	}
	return ""
}
