package client

import "syscall"

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
