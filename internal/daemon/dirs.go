package daemon

// Where the daemon's socket is: the first of the candidate directories
// (socketDirs) that is private, the same for every process of the user
// that has the same environment; and the socket's name, which carries the
// build (each build has a daemon of its own).

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// noDir: none of the directories the daemon's socket may be in is
// private here (why says why, one reason each). The caller connects
// one-shot, unless it asked for keep-alive on the command line.
func noDir(why []string) error {
	if len(why) == 0 {
		return errors.New("no directory for the mcpx daemon's socket is known here")
	}
	return errors.New("no private directory for the mcpx daemon's socket: " + strings.Join(why, "; "))
}

// choose is the socket directory of this user here: the first candidate
// that is private. With create, it is created where absent (and its
// parents, as the candidate allows); without, a candidate that does not
// exist but could be made is chosen all the same (no daemon listens
// there), as a later call with create would choose it.
//
// Every candidate but the last is inside a directory that only the user
// may write, so no one else can make it first; one that another user
// made, or that is not private (a mode open to others, a symbolic link,
// a directory root left behind), is passed over for the next.
func choose(getenv func(string) string, create bool) (string, error) {
	dir, why := pick(getenv, create)
	if dir == "" {
		return "", noDir(why)
	}
	return dir, nil
}

// pick is choose's candidate, or "" and why each was passed over.
func pick(getenv func(string) string, create bool) (string, []string) {
	var why []string
	for _, c := range socketDirs(getenv, myUID(), hostTag()) {
		if err := c.usable(); err != nil {
			why = append(why, err.Error())
			continue
		}
		if err := checkSocketPath(c.dir); err != nil {
			why = append(why, err.Error())
			continue
		}
		var err error
		if create {
			err = c.prepare()
		} else {
			_, err = c.probe()
		}
		if err == nil {
			return c.dir, nil
		}
		why = append(why, err.Error())
	}
	return "", why
}

// Dirs are the candidate socket directories that exist and are private,
// in order: where daemons of this user may listen (`daemon status` looks
// at each).
func Dirs(getenv func(string) string) []string {
	var out []string
	for _, c := range socketDirs(getenv, myUID(), hostTag()) {
		if absent, err := c.probe(); err == nil && !absent {
			out = append(out, c.dir)
		}
	}
	return out
}

// sockets are the daemon sockets in dir, sorted: every build's (and the
// single daemon.sock of an mcpx from before builds had their own).
func sockets(dir string) []string {
	names, _ := filepath.Glob(filepath.Join(dir, "daemon*.sock"))
	sort.Strings(names)
	return names
}

// socketStem names the socket and start lock of a build: "daemon-" and a
// short hash of its build identity.
func socketStem(build string) string { return "daemon-" + shortHash(build, 12) }

// socketPath is the socket of the daemon of build in dir.
func socketPath(dir, build string) string { return filepath.Join(dir, socketStem(build)+".sock") }

// lockPath is the start lock of the daemons of build in dir.
func lockPath(dir, build string) string { return filepath.Join(dir, socketStem(build)+".lock") }

// SocketPath is the socket of this build's daemon in dir.
func SocketPath(dir, version string) string { return socketPath(dir, BuildID(version)) }

// shortHash is the first n hex digits of the SHA-256 of s.
func shortHash(s string, n int) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])[:n]
}

// checkSocketPath refuses a directory in which a socket's path would be
// longer than the kernel takes, with what to do about it instead of its
// "invalid argument".
func checkSocketPath(dir string) error {
	p := filepath.Join(dir, socketStem("")+".sock")
	if len(p) <= maxSocketPath {
		return nil
	}
	return fmt.Errorf("a socket path in %s is %d bytes, more than the %d a Unix socket path may have here", dir, len(p), maxSocketPath)
}
