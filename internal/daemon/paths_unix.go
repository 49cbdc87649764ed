//go:build unix

package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Supported reports whether warm connections work on this platform.
const Supported = true

// socketDirs are the directories the daemon's socket may be in, in the
// order they are tried (see choose). Each is a directory that no other
// user can create first, but the last:
//
//  1. $XDG_RUNTIME_DIR/mcpx, when $XDG_RUNTIME_DIR is the user's own and
//     closed to others (a shared directory such as /tmp is not);
//  2. $XDG_STATE_HOME/mcpx/run-HOST (else ~/.local/state/mcpx/run-HOST):
//     under the user's own state directory, per host (a home shared over
//     NFS, or by containers, is not a socket shared by several kernels);
//  3. $TMPDIR/mcpx-UID (TMPDIR default /tmp): the last resort, a name in a
//     shared directory, used only when it is the user's own.
//
// host names this host (see hostTag).
func socketDirs(getenv func(string) string, uid int, host string) []candidate {
	var out []candidate
	if d := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		out = append(out, candidate{dir: filepath.Join(d, "mcpx"), base: filepath.Clean(d)})
	}
	run := "run-" + host
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		out = append(out, candidate{dir: filepath.Join(d, "mcpx", run), base: filepath.Clean(d), makeBase: true,
			between: []string{filepath.Join(d, "mcpx")}})
	} else if h := getenv("HOME"); filepath.IsAbs(h) && filepath.Clean(h) != "/" {
		st := filepath.Join(h, ".local", "state")
		out = append(out, candidate{dir: filepath.Join(st, "mcpx", run), base: filepath.Clean(h),
			between: []string{filepath.Join(h, ".local"), st, filepath.Join(st, "mcpx")}})
	}
	tmp := getenv("TMPDIR")
	if !filepath.IsAbs(tmp) {
		tmp = "/tmp"
	}
	out = append(out, candidate{dir: filepath.Join(tmp, fmt.Sprintf("mcpx-%d", uid)), shared: true})
	return out
}

// candidate is a directory the daemon's socket may be in (socketDirs).
type candidate struct {
	dir string
	// base must be the user's own and closed to others (see ownPrivate):
	// it exists, unless makeBase, when the nearest directory above it
	// that exists must be (and base is created).
	base     string
	makeBase bool
	// between are the directories between base and dir, outermost first:
	// created when absent, else they must be the user's own and closed to
	// others.
	between []string
	// shared: dir is a name in a shared directory (created with its
	// parent when absent, and refused unless the user's own).
	shared bool
}

// prepare makes c's directory ready for use: created (mode 0700) where it
// is absent, and checked.
func (c candidate) prepare() error {
	if c.shared {
		return PrepareDir(c.dir)
	}
	if err := c.checkBase(true); err != nil {
		return err
	}
	for _, p := range c.between {
		if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("cannot create %s: %w", p, err)
		}
		if err := ownPrivate(p); err != nil {
			return err
		}
	}
	if err := os.Mkdir(c.dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("cannot create the daemon directory %s: %w", c.dir, err)
	}
	return CheckDir(c.dir)
}

// probe says whether c's directory would be used, without creating
// anything: nil when it exists and is private, or could be created
// (absent reports that it does not exist: no daemon listens there).
func (c candidate) probe() (absent bool, err error) {
	if !c.shared {
		if err := c.checkBase(false); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return true, nil // makeBase: it would be created
			}
			return false, err
		}
		for _, p := range c.between {
			if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
				return true, nil
			}
			if err := ownPrivate(p); err != nil {
				return false, err
			}
		}
	}
	if _, err := os.Lstat(c.dir); errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	return false, CheckDir(c.dir)
}

// usable says why c cannot be used at all ("": it may be), without
// creating anything: its base is missing (and may not be created), or is
// not the user's own.
func (c candidate) usable() error {
	if c.shared {
		return nil
	}
	if err := c.checkBase(false); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// checkBase checks c.base (creating it when c.makeBase and create are
// set). Without create, a base that may be created and is absent is
// os.ErrNotExist.
func (c candidate) checkBase(create bool) error {
	err := ownPrivate(c.base)
	if errors.Is(err, os.ErrNotExist) && !c.makeBase {
		return fmt.Errorf("%s does not exist", c.base)
	}
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		return err
	}
	// The nearest directory above base that exists must be the user's own:
	// then no one else can have made what is below it.
	for a := filepath.Dir(c.base); ; a = filepath.Dir(a) {
		err := ownPrivate(a)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrNotExist) || a == filepath.Dir(a) {
			return err
		}
	}
	if !create {
		return os.ErrNotExist
	}
	if err := os.MkdirAll(c.base, 0o700); err != nil {
		return fmt.Errorf("cannot create %s: %w", c.base, err)
	}
	return ownPrivate(c.base)
}

// ownPrivate checks that dir is a directory of the user's own that
// nobody else may write in (or a symbolic link to one: the links on the
// way to the daemon's directory are in directories that only the user
// may write, or are the user's environment's). A dir that does not exist
// is os.ErrNotExist.
func ownPrivate(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	why := ""
	switch st, ok := fi.Sys().(*syscall.Stat_t); {
	case !fi.IsDir():
		why = "is not a directory"
	case ok && int(st.Uid) != os.Geteuid():
		why = fmt.Sprintf("belongs to uid %d, not to you", st.Uid)
	case fi.Mode().Perm()&0o022 != 0:
		why = "is open to other users"
		if fi.Mode()&os.ModeSticky != 0 {
			why = "is a shared directory"
		}
	}
	if why != "" {
		return fmt.Errorf("%s %s", dir, why)
	}
	return nil
}

// hostTag names this host in a directory name: its name up to the first
// dot when it is short and plain (at most 8 bytes: a socket's path is
// short), else a hash of it.
func hostTag() string {
	h, _ := os.Hostname()
	return tagOf(h)
}

// tagOf is hostTag's rule, for host name h.
func tagOf(h string) string {
	short, _, _ := strings.Cut(h, ".")
	if len(short) > 0 && len(short) <= 8 && strings.Trim(short, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") == "" {
		return short
	}
	return shortHash(h, 8)
}

// myUID is the uid the daemon's directory names (the last candidate).
func myUID() int { return os.Geteuid() }

// LogPath is the daemon's log: $XDG_STATE_HOME/mcpx/daemon.log, else
// ~/.local/state/mcpx/daemon.log when the home directory exists ("" when
// neither is known).
func LogPath(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "mcpx", "daemon.log")
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		if fi, err := os.Stat(h); err == nil && fi.IsDir() {
			return filepath.Join(h, ".local", "state", "mcpx", "daemon.log")
		}
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

// lockFile takes the start lock at path (an flock), waiting for it until
// ctx ends. The returned func releases it. A lock file removed while it
// was waited for (see removeLock) is opened again: the lock is the file
// that the path names.
func lockFile(ctx context.Context, path string) (func(), error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
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
		held, herr := f.Stat()
		now, nerr := os.Lstat(path)
		if herr == nil && nerr == nil && os.SameFile(held, now) {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		f.Close() // removed meanwhile: lock what the path names now
	}
}

// removeLock removes the lock file at path if nobody holds or waits for
// it (a daemon exiting tidies up after itself): it is taken without
// waiting, and removed while held, so that a waiter that gets the
// removed file opens the path again (see lockFile).
func removeLock(path string) {
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return
	}
	if now, err := os.Lstat(path); err == nil {
		if held, err := f.Stat(); err == nil && os.SameFile(held, now) {
			_ = os.Remove(path)
		}
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
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
