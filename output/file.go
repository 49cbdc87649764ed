package output

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes parts, concatenated, to path the way a careful
// `> path` would, but never leaving half a file:
//   - a regular file (new or existing) is written through a temporary file
//     in the same directory and a rename, so path holds all of it or is left
//     as it was; a new file gets mode 0666 less the umask, a replaced file
//     keeps its mode;
//   - a symbolic link is followed: the file it points to is replaced so;
//   - anything else that exists (a device such as /dev/null, a FIFO, a
//     terminal) is opened and written directly, never replaced.
func WriteFileAtomic(path string, parts [][]byte) (err error) {
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		path = resolved
	} else if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
		// a dangling link: write the file it names
		target, rerr := os.Readlink(path)
		if rerr != nil {
			return fmt.Errorf("cannot write %s: %w", path, unwrapPath(rerr))
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	fi, statErr := os.Stat(path)
	switch {
	case statErr == nil && fi.IsDir():
		return fmt.Errorf("cannot write to %q: it is a directory", path)
	case statErr == nil && !fi.Mode().IsRegular():
		return writeDirect(path, parts)
	}
	dir := filepath.Dir(path)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	// A short name: a long FILE must still fit NAME_MAX with it.
	tmp := filepath.Join(dir, ".mcpx-"+hex.EncodeToString(rnd[:])+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o666)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	for _, p := range parts {
		if _, err = f.Write(p); err != nil {
			return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
		}
	}
	if statErr == nil {
		_ = f.Chmod(fi.Mode().Perm())
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	return nil
}

// writeDirect writes to an existing file that is not a regular file.
func writeDirect(path string, parts [][]byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	for _, p := range parts {
		if _, err := f.Write(p); err != nil {
			_ = f.Close()
			return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	return nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
