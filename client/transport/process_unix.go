//go:build unix

package transport

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mcpx-cli/mcpx/internal/ascaller"
)

// prepare starts the server in a session of its own (so a process group
// of its own, as SERVER PROCESSES in mcpx(1) asks): with no controlling
// terminal the server cannot open /dev/tty and write to the user's
// terminal around mcpx's escaping (nor read it).
func prepare(cmd *exec.Cmd, c *Command) error {
	path, err := lookPathUnix(c.Path, c.Env)
	if err != nil {
		return withAbs(err)
	}
	cmd.Path = path
	if c.AsCaller != nil {
		if err := ascaller.Wrap(cmd, c.AsCaller); err != nil {
			return err
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if c.DieWithParent {
		dieWithParent(cmd.SysProcAttr)
	}
	return nil
}

func start(cmd *exec.Cmd) (*sysProcess, error) { return &sysProcess{}, cmd.Start() }

// sysProcess: on Unix the process group is named by the leader's pid.
type sysProcess struct{}

// alive reports whether any process of the group pgid still exists
// (exited members that mcpx parents are reaped first).
func (*sysProcess) alive(pgid int) bool {
	reapGroup(pgid)
	return syscall.Kill(-pgid, 0) == nil
}

func (*sysProcess) terminate(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGTERM) }
func (*sysProcess) kill(pgid int)      { _ = syscall.Kill(-pgid, syscall.SIGKILL) }
func (*sysProcess) release()           {}

// signalStatus describes a leader killed by a signal, or "".
func signalStatus(ee *exec.ExitError) string {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		msg := "was killed by " + signalName(ws.Signal())
		if ws.CoreDump() {
			msg += " (core dumped)"
		}
		return msg
	}
	return ""
}

// signalNames are the conventional names of the signals a server is likely
// to die of; syscall.Signal's String gives a description ("killed").
var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT", syscall.SIGILL: "SIGILL",
	syscall.SIGTRAP: "SIGTRAP", syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE",
	syscall.SIGKILL: "SIGKILL", syscall.SIGUSR1: "SIGUSR1", syscall.SIGSEGV: "SIGSEGV", syscall.SIGUSR2: "SIGUSR2",
	syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM", syscall.SIGXCPU: "SIGXCPU",
	syscall.SIGXFSZ: "SIGXFSZ", syscall.SIGSYS: "SIGSYS",
}

// signalName is "SIGKILL" for syscall.SIGKILL, or "signal N".
func signalName(sig syscall.Signal) string {
	if name, ok := signalNames[sig]; ok {
		return name
	}
	return fmt.Sprintf("signal %d", int(sig))
}

// lookPathUnix finds a command without a slash in the PATH the server
// itself gets (its "env" may set one), as other MCP hosts do, and as
// os/exec.LookPath does: an empty or relative element of PATH never finds
// it in the current directory (a directory the user merely cd'd into must
// not supply the server's program). A program found only so is named in
// the error (see RelativeOnlyError).
func lookPathUnix(command string, env []string) (string, error) {
	if strings.Contains(command, "/") {
		return command, nil
	}
	var rel *RelativeOnlyError
	for _, dir := range filepath.SplitList(envLookup(env, "PATH", false)) {
		p := filepath.Join(dir, command)
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
			continue
		}
		if !filepath.IsAbs(dir) {
			if rel == nil {
				rel = &RelativeOnlyError{Found: relFound(dir, command, "/"), Elem: dir}
			}
			continue
		}
		return p, nil
	}
	if st, err := os.Stat(command); rel == nil && err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
		rel = &RelativeOnlyError{Found: "./" + command} // where a user may have expected it
	}
	if rel != nil {
		return "", &exec.Error{Name: command, Err: rel}
	}
	return "", &exec.Error{Name: command, Err: exec.ErrNotFound}
}
