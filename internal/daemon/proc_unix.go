//go:build unix

package daemon

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// noDaemon reports whether a dial error means nobody listens (no socket,
// or a stale one).
func noDaemon(err error, _ string) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED)
}

// platformRefusal: nothing keeps a Unix process from warm connections.
func platformRefusal() error { return nil }

// noSockets reports whether a dial error means that the system has no
// Unix sockets (never on Unix).
func noSockets(error) bool { return false }

// peerUser names the user of the process at the other end of c, as the
// kernel recorded it ("uid N"), and its pid when known (else 0).
func peerUser(c *net.UnixConn) (who string, pid int, err error) {
	uid, pid, err := peer(c)
	return fmt.Sprintf("uid %d", uid), pid, err
}

// myUser names this process's user as peerUser does.
func myUser() string { return fmt.Sprintf("uid %d", os.Geteuid()) }

// secureSocket makes the socket the user's alone (the directory already
// is).
func secureSocket(sock string) { _ = os.Chmod(sock, 0o600) }

// daemonCommand is the daemon's process, listening in dir: in a session
// of its own (no controlling terminal, not in the caller's process
// group), in "/" (it holds no caller's directory: each server runs in its
// own, see Spec.Dir), with stdin, stdout and stderr on /dev/null.
func daemonCommand(self, dir string, env []string) *exec.Cmd {
	return &exec.Cmd{Path: self, Args: []string{"mcpx", "__daemon", dir}, Env: env, Dir: "/",
		SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
}

// daemonEnvKeys name the variables the daemon is given (see daemonEnv).
var daemonEnvKeys = []string{"HOME", "USER", "LOGNAME", "PATH", "TMPDIR", "XDG_RUNTIME_DIR", "XDG_STATE_HOME", "LANG", "GOCOVERDIR"}

// envFold: Unix variable names are case-sensitive.
const envFold = false

// selfImage is this process's executable: the path it was started from,
// and the file it runs (on Linux the file itself, even once that path
// names another).
func selfImage() (string, os.FileInfo, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	if runtime.GOOS == "linux" {
		if fi, err := os.Stat("/proc/self/exe"); err == nil {
			return exe, fi, nil
		}
	}
	fi, err := os.Stat(exe)
	return exe, fi, err
}

// fileID is the identity of the file fi describes: its device and inode.
func fileID(fi os.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d:%d", st.Dev, st.Ino)
	}
	return ""
}
