//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package auth

import "os"

// tryLock: no flock here; concurrent refreshes are not coordinated.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlock(*os.File) {}

func openTokenFile(p string) (*os.File, error) { return os.Open(p) }

func openLockFile(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
}

func private(os.FileInfo, os.FileMode) string { return "" }
