//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package userfile

import "os"

// TryLock: no file locks here; concurrent writers are not coordinated.
func TryLock(*os.File) (bool, error) { return true, nil }

// Unlock: see TryLock.
func Unlock(*os.File) {}

// OpenNoFollow opens a file for reading.
func OpenNoFollow(p string) (*os.File, error) { return os.Open(p) }

// OpenLock opens (creating, 0600) a lock file.
func OpenLock(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
}

// Private: no owner to check here.
func Private(os.FileInfo, os.FileMode) string { return "" }
