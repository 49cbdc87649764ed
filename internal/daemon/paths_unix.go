//go:build unix

package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Supported reports whether warm connections work on this platform.
const Supported = true

// socketDirVars: where SocketDir comes from, for the error of a socket path
// too long.
const socketDirVars = "XDG_RUNTIME_DIR (or TMPDIR)"

// SocketDir is the daemon's private directory: $XDG_RUNTIME_DIR/mcpx, else
// $TMPDIR/mcpx-UID (TMPDIR default /tmp).
func SocketDir(getenv func(string) string) string {
	if d := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		return filepath.Join(d, "mcpx")
	}
	tmp := getenv("TMPDIR")
	if !filepath.IsAbs(tmp) {
		tmp = "/tmp"
	}
	return filepath.Join(tmp, fmt.Sprintf("mcpx-%d", os.Geteuid()))
}

// LogPath is the daemon's log: $XDG_STATE_HOME/mcpx/daemon.log, else
// ~/.local/state/mcpx/daemon.log ("" when neither is known).
func LogPath(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "mcpx", "daemon.log")
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", "mcpx", "daemon.log")
	}
	return ""
}

// PrepareDir creates dir (mode 0700) when it does not exist, and checks it.
func PrepareDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("cannot create the daemon directory %s: %w", dir, err)
		}
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return fmt.Errorf("cannot create the daemon directory %s: %w", dir, err)
		}
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("cannot create the daemon directory %s: %w", dir, err)
		}
	}
	return CheckDir(dir)
}

// CheckDir makes sure dir is the user's own and private: a directory, not
// a symbolic link, owned by the user, with no permission for others.
func CheckDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("the daemon directory %s cannot be read: %w", dir, err)
	}
	why := ""
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		why = "is a symbolic link"
	case !fi.IsDir():
		why = "is not a directory"
	default:
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
			why = fmt.Sprintf("belongs to uid %d, not to you", st.Uid)
		} else if fi.Mode().Perm()&0o077 != 0 {
			why = fmt.Sprintf("is mode %04o, open to other users", fi.Mode().Perm())
		}
	}
	if why != "" {
		return fmt.Errorf("the daemon directory %s %s; mcpx does not use it", dir, why)
	}
	return nil
}

// lockDir takes the start lock of dir (an flock on dir/daemon.lock),
// waiting for it until ctx ends. The returned func releases it.
func lockDir(ctx context.Context, dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, "daemon.lock"), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot lock the daemon directory: %w", err)
	}
	err = pollLock(ctx, func() (bool, error) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		return errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EINTR), err
	})
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// CheckStateDir checks the state directory before the log is written in
// it: not a symbolic link, the user's own, not writable by others.
func CheckStateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s belongs to uid %d", dir, st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is open to other users", dir)
	}
	return nil
}

// openLogFile opens the log for appending, never through a symbolic link.
func openLogFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
}
