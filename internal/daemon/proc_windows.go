//go:build windows

package daemon

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/windows"
)

// noDaemon reports whether a dial error means nobody listens: no socket
// file, or a stale one.
func noDaemon(err error, sock string) bool {
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, windows.WSAECONNREFUSED) {
		return true
	}
	_, serr := os.Lstat(sock)
	return errors.Is(serr, os.ErrNotExist)
}

// noSockets reports whether a dial error means that the system has no
// AF_UNIX sockets (Windows before 10 version 1803, Wine): warm
// connections are then unsupported, as before.
func noSockets(err error) bool {
	return errors.Is(err, windows.WSAEAFNOSUPPORT) || errors.Is(err, windows.WSAEPROTONOSUPPORT) ||
		errors.Is(err, windows.WSAESOCKTNOSUPPORT)
}

// secureSocket: the socket inherits the daemon directory's owner-only
// entries.
func secureSocket(string) {}

// daemonCommand is the daemon's process, listening in sockDir: a process
// group of its own (the console control events of the caller's console
// do not reach it), a console of its own without a window
// (CREATE_NO_WINDOW: its servers share it, hidden, so that no console
// window opens for them and they can be sent CTRL_BREAK_EVENT at stop),
// in the root of the executable's drive (it holds no caller's
// directory), with stdin, stdout and stderr on NUL.
func daemonCommand(self, sockDir string, env []string) *exec.Cmd {
	dir := filepath.VolumeName(self)
	if dir != "" {
		dir += `\`
	}
	return &exec.Cmd{Path: self, Args: []string{"mcpx", "__daemon", sockDir}, Env: env, Dir: dir,
		SysProcAttr: &syscall.SysProcAttr{HideWindow: true,
			CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW}}
}

// daemonEnvKeys name the variables the daemon is given (see daemonEnv):
// what Windows programs need, and where the daemon's directory is.
var daemonEnvKeys = []string{"LOCALAPPDATA", "APPDATA", "USERPROFILE", "USERNAME", "USERDOMAIN", "HOMEDRIVE", "HOMEPATH",
	"PATH", "PATHEXT", "SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "TEMP", "TMP", "PROGRAMDATA", "LANG", "GOCOVERDIR"}

// envFold: Windows variable names are case-insensitive.
const envFold = true

// selfImage is this process's executable: the path it was started from,
// and the file there.
func selfImage() (string, os.FileInfo, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	fi, err := os.Stat(exe)
	return exe, fi, err
}

// fileID: os.Stat reads no file index on Windows (sameImage compares the
// files with os.SameFile).
func fileID(os.FileInfo) string { return "" }
