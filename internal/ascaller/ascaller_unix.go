//go:build unix

package ascaller

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// Supported: Unix processes have a umask and resource limits.
const Supported = true

// nofile is the limit on open files, which Go's runtime raises.
const nofile = "nofile"

// Capture reads this process's umask and resource limits.
func Capture() *Attrs {
	a := &Attrs{Umask: umask()}
	for _, r := range resources {
		var l syscall.Rlimit
		if syscall.Getrlimit(r.res, &l) != nil {
			continue
		}
		lim := Limit{Name: r.name, Cur: uint64(l.Cur), Max: uint64(l.Max)}
		// Go's runtime raised a soft limit on open files below the hard
		// one to the hard one less one (see the syscall package).
		if r.name == nofile && lim.Max > 1 && lim.Cur == lim.Max-1 {
			lim.Raised, lim.Cur = true, 0
		}
		a.Limits = append(a.Limits, lim)
	}
	return a
}

// umask is the process's umask: read from /proc where the system shows it
// (setting it to read it races with files created meanwhile), else set
// and set back at once.
func umask() int {
	if m, ok := procUmask(); ok {
		return m
	}
	m := syscall.Umask(0o077)
	syscall.Umask(m)
	return m
}

// procUmask reads the Umask line of /proc/self/status, the second (after
// Name, at most 64 bytes escaped): one read of a small buffer, no more,
// through no os.File (a warm call reads it each time).
func procUmask() (int, bool) {
	fd, err := syscall.Open("/proc/self/status", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	var buf [256]byte
	n, err := syscall.Read(fd, buf[:])
	syscall.Close(fd)
	if err != nil || n <= 0 {
		return 0, false
	}
	_, rest, ok := strings.Cut(string(buf[:n]), "\nUmask:")
	if !ok {
		return 0, false
	}
	v, _, ok := strings.Cut(rest, "\n")
	if !ok {
		return 0, false // the line cut off by the buffer
	}
	m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32)
	if err != nil {
		return 0, false
	}
	return int(m), true
}

// Wrap makes cmd, whose Path is the server's program found and whose Env
// is its environment, start mcpx instead, which sets a and then executes
// the server (Trampoline) with the same arguments. A program that cannot
// be executed is an error here, as exec's own would be.
func Wrap(cmd *exec.Cmd, a *Attrs) error {
	path := cmd.Path
	if !filepath.IsAbs(path) && cmd.Dir != "" {
		path = filepath.Join(cmd.Dir, path) // as exec runs it: from Dir
	}
	st, err := os.Stat(path)
	if err == nil && (st.IsDir() || st.Mode()&0o111 == 0) {
		err = syscall.EACCES
	}
	if err != nil {
		if pe, ok := err.(*fs.PathError); ok {
			err = pe.Err
		}
		return &fs.PathError{Op: "fork/exec", Path: cmd.Path, Err: err}
	}
	self, err := selfExe()
	if err != nil {
		return err
	}
	mark, err := json.Marshal(trampoline{Path: path, Attrs: *a})
	if err != nil {
		return err
	}
	cmd.Env = append(withoutMark(cmd.Env), envVar+"="+string(mark))
	cmd.Path = self
	return nil
}

// selfExe is the running mcpx binary: on Linux the file this process
// runs, even once its path names another (an upgrade in place).
func selfExe() (string, error) {
	if runtime.GOOS == "linux" {
		if _, err := os.Stat("/proc/self/exe"); err == nil {
			return "/proc/self/exe", nil
		}
	}
	return os.Executable()
}

// Trampoline, when this process was started by Wrap, sets the caller's
// attributes and executes the server in its place; it returns only when
// this process is not a trampoline. It must run first in main.
func Trampoline() {
	v, ok := os.LookupEnv(envVar)
	if !ok {
		return
	}
	var t trampoline
	if err := json.Unmarshal([]byte(v), &t); err != nil || t.Path == "" {
		fmt.Fprintf(os.Stderr, "mcpx: %s is not what mcpx sets: %q\n", envVar, v)
		os.Exit(127)
	}
	apply(&t.Attrs)
	err := syscall.Exec(t.Path, os.Args, withoutMark(os.Environ()))
	fmt.Fprintf(os.Stderr, "mcpx: cannot start %s: %v\n", t.Path, err)
	os.Exit(127)
}

// apply sets a's umask and limits on this process. A hard limit above
// this process's own cannot be set (but by root): the server gets its
// starter's.
func apply(a *Attrs) {
	if a.Umask >= 0 {
		syscall.Umask(a.Umask)
	}
	for _, l := range a.Limits {
		r, ok := resourceNamed(l.Name)
		if !ok {
			continue
		}
		var have syscall.Rlimit
		if syscall.Getrlimit(r, &have) != nil {
			continue
		}
		if l.Raised {
			if uint64(have.Max) <= l.Max {
				// Left as it is: exec gives the server the soft limit
				// this process was started with.
				continue
			}
			l.Cur = l.Max - 1
		}
		if l.Max > uint64(have.Max) && os.Geteuid() != 0 {
			l.Max = uint64(have.Max)
		}
		l.Cur = min(l.Cur, l.Max)
		var want syscall.Rlimit
		set(&want.Cur, l.Cur)
		set(&want.Max, l.Max)
		// syscall's Setrlimit, not another package's: on open files it
		// also keeps Exec from restoring the limit Go's runtime found.
		if err := syscall.Setrlimit(r, &want); err != nil {
			fmt.Fprintf(os.Stderr, "mcpx: cannot set the caller's limit %s (%d, %d): %v\n", l.Name, l.Cur, l.Max, err)
		}
	}
}

// set stores v in a field of syscall.Rlimit (uint64 on most systems,
// int64 on FreeBSD).
func set[T int64 | uint64](p *T, v uint64) { *p = T(v) }

func resourceNamed(name string) (int, bool) {
	for _, r := range resources {
		if r.name == name {
			return r.res, true
		}
	}
	return 0, false
}
