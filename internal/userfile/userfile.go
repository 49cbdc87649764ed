package userfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// Lock takes an exclusive lock on the lock file at path (created 0600,
// never through a symbolic link), waiting for it until ctx ends. The
// returned func releases it. A lock file is never removed: removing it
// would let two processes hold "the" lock on two different files.
func Lock(ctx context.Context, path string) (func(), error) {
	f, err := OpenLock(path)
	if err != nil {
		return nil, err
	}
	wait := time.Millisecond
	for {
		ok, err := TryLock(f)
		if err != nil {
			f.Close()
			return nil, err
		}
		if ok {
			return func() { Unlock(f); f.Close() }, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 20*time.Millisecond)
	}
}

// Untrusted says why the file or directory at path is not the user's own
// to trust ("" when it is, or does not exist): a symbolic link, another
// owner, or one of the permission bits in deny.
func Untrusted(path string, deny os.FileMode) string {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return ""
	case err != nil:
		return fmt.Sprintf("cannot be read (%v)", err)
	case fi.Mode()&os.ModeSymlink != 0:
		return "is a symbolic link"
	}
	return Private(fi, deny)
}
