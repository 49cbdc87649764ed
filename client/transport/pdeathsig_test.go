//go:build linux || freebsd

package transport

import (
	"os/exec"
	"syscall"
	"testing"
)

// A server the daemon holds gets SIGKILL when the daemon dies, however it
// dies; a one-shot server is stopped by mcpx itself.
func TestDieWithParent(t *testing.T) {
	for _, die := range []bool{true, false} {
		cmd := &exec.Cmd{}
		if err := prepare(cmd, &Command{Path: "/bin/sh", DieWithParent: die}); err != nil {
			t.Fatal(err)
		}
		want := syscall.Signal(0)
		if die {
			want = syscall.SIGKILL
		}
		if cmd.SysProcAttr.Pdeathsig != want || !cmd.SysProcAttr.Setsid {
			t.Fatalf("DieWithParent %v: %+v", die, cmd.SysProcAttr)
		}
	}
}
