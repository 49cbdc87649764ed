package client

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER (linux/prctl.h).
const prSetChildSubreaper = 36

// BecomeSubreaper makes mcpx the reaper of its servers' orphaned
// descendants (a wrapper's grandchildren), so that they can be reaped as
// soon as they exit: a zombie still counts as a member of its process
// group, and waiting for init to reap it would keep mcpx idling on a
// server that is already gone.
func BecomeSubreaper() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
}

// reapGroup reaps the exited members of process group pgid that are (now)
// mcpx's children. It never blocks.
func reapGroup(pgid int) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}

// StopOrphans ends what is left of the servers' descendants when mcpx is
// done: a process that left its server's group (setsid) but, mcpx being its
// subreaper, was adopted by mcpx. SIGTERM, at most 100 ms, then SIGKILL.
// Call it after every connection is closed.
func StopOrphans() {
	if !hasChildren() {
		return
	}
	orphans := childrenOf(os.Getpid())
	for _, pid := range orphans {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(stopGrace)
	for hasChildren() && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	for _, pid := range childrenOf(os.Getpid()) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	for i := 0; i < 50 && hasChildren(); i++ {
		time.Sleep(2 * time.Millisecond)
	}
}

// hasChildren reaps exited children and reports whether any remain.
func hasChildren() bool {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err == syscall.ECHILD {
			return false
		}
		if pid <= 0 {
			return true
		}
	}
}

// childrenOf lists the pids whose parent is ppid, from /proc.
func childrenOf(ppid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:]) // state ppid ...
		if len(f) > 1 && f[1] == strconv.Itoa(ppid) {
			pids = append(pids, pid)
		}
	}
	return pids
}
