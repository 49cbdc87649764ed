//go:build unix

package render

import (
	"io/fs"
	"syscall"
)

// oNoFollow makes the spill writer's exclusive create refuse a symlink.
const oNoFollow = syscall.O_NOFOLLOW

// fileOwner is the uid that owns fi.
func fileOwner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
