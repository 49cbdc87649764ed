//go:build windows

package config

import (
	"fmt"
	"os"
	"syscall"
)

// fileID identifies a version of a file: its size, modification time
// and, on Windows, creation time.
func fileID(fi os.FileInfo) string {
	created := int64(0)
	if d, ok := fi.Sys().(*syscall.Win32FileAttributeData); ok {
		created = d.CreationTime.Nanoseconds()
	}
	return fmt.Sprintf("%d:%d:%d", created, fi.Size(), fi.ModTime().UnixNano())
}
