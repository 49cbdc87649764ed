package output

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// WriteFileAtomic writes parts, concatenated, to path through a temporary
// file in the same directory and a rename, so path is either left as it was
// or holds all of it — never half. A new file gets mode 0666 less the umask;
// a replaced file keeps its mode.
func WriteFileAtomic(path string, parts [][]byte) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" {
		return fmt.Errorf("cannot write to %q: it names a directory", path)
	}
	if fi, statErr := os.Stat(path); statErr == nil && fi.IsDir() {
		return fmt.Errorf("cannot write to %q: it is a directory", path)
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, "."+base+".mcpx-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o666)
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
	if fi, statErr := os.Stat(path); statErr == nil && fi.Mode().IsRegular() {
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

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
