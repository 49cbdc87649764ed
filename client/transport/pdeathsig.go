//go:build linux || freebsd

package transport

import "syscall"

// dieWithParent has the kernel SIGKILL the child when mcpx dies
// (PR_SET_PDEATHSIG on Linux, PROC_PDEATHSIG_CTL on FreeBSD).
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
