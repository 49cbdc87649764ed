//go:build unix

package config

import (
	"fmt"
	"os"
	"syscall"
)

// fileID identifies a version of a file: its device and inode, size and
// modification time.
func fileID(fi os.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d:%d:%d:%d", uint64(st.Dev), uint64(st.Ino), fi.Size(), fi.ModTime().UnixNano())
	}
	return fmt.Sprintf("-:%d:%d", fi.Size(), fi.ModTime().UnixNano())
}
