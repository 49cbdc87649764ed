//go:build unix && !linux

package transport

import "syscall"

// reapGroup: no subreaper here, nothing of the group is mcpx's to reap.
func reapGroup(int) {}

// dieWithParent: no parent-death signal here; the daemon stops its
// servers itself, and a server whose stdin closes is expected to exit.
func dieWithParent(*syscall.SysProcAttr) {}
