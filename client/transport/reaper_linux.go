package transport

import (
	"os"
	"strconv"
	"strings"
	"sync"
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

// spared are the children StopOrphans leaves alone (the mcpx daemon a
// command started: it outlives the command by design).
var (
	sparedMu sync.Mutex
	spared   = map[int]bool{}
)

// Spare keeps StopOrphans from stopping child pid.
func Spare(pid int) {
	sparedMu.Lock()
	spared[pid] = true
	sparedMu.Unlock()
}

// unspared drops the spared pids from pids.
func unspared(pids []int) []int {
	sparedMu.Lock()
	defer sparedMu.Unlock()
	out := pids[:0]
	for _, p := range pids {
		if !spared[p] {
			out = append(out, p)
		}
	}
	return out
}

// hasOrphans reaps exited children and reports whether any but the spared
// ones remain.
func hasOrphans() bool {
	if !hasChildren() {
		return false
	}
	sparedMu.Lock()
	n := len(spared)
	sparedMu.Unlock()
	return n == 0 || len(unspared(childrenOf(os.Getpid()))) > 0
}

// reapGroup reaps the exited members of Process group pgid that are (now)
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

// Bounds of StopOrphans: the rounds it makes, the grace of the orphans
// found after the first round (the first gets stopGrace), and its whole
// duration.
const (
	orphanRounds    = 5
	orphanLateGrace = 20 * time.Millisecond
	orphanBudget    = 600 * time.Millisecond
)

// StopOrphans ends what is left of the servers' descendants when mcpx is
// done: a Process that left its server's group (setsid) but, mcpx being its
// subreaper, was adopted by mcpx. SIGTERM, at most 100 ms, then SIGKILL.
// Killing an orphan can orphan its own children, which mcpx adopts only
// then: StopOrphans looks again and ends those too, round after round
// until none is left (a few rounds, well under a second in all).
// Call it after every connection is closed.
func StopOrphans() {
	stopOrphans(orphanRounds, orphanBudget)
}

func stopOrphans(rounds int, budget time.Duration) {
	deadline := time.Now().Add(budget)
	self := os.Getpid()
	grace := stopGrace
	for round := 0; round < rounds && hasOrphans(); round++ {
		orphans := unspared(childrenOf(self))
		for _, pid := range orphans {
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
		waitChildren(time.Now().Add(grace), deadline, func() bool { return !hasOrphans() })
		// SIGKILL what is left, and wait until it is reaped: its children
		// are mcpx's only once it is gone.
		left := unspared(childrenOf(self))
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		waitChildren(time.Now().Add(stopGrace), deadline.Add(stopGrace), func() bool {
			hasChildren() // reap
			for _, pid := range left {
				if syscall.Kill(pid, 0) == nil {
					return false
				}
			}
			return true
		})
		grace = orphanLateGrace
	}
}

// waitChildren polls done every 2 ms until it is true or the earlier of
// until and deadline passes.
func waitChildren(until, deadline time.Time, done func() bool) {
	if deadline.Before(until) {
		until = deadline
	}
	for !done() && time.Now().Before(until) {
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
