//go:build unix && !linux && !freebsd

package transport

import "syscall"

// dieWithParent: no parent-death signal here; the daemon stops its
// servers itself, and a server whose stdin closes is expected to exit.
func dieWithParent(*syscall.SysProcAttr) {}
