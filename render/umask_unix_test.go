//go:build unix

package render

import "syscall"

func umask(m int) { syscall.Umask(m) }
