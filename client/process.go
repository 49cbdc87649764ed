package client

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Stop timings of CONTRACT §2: close stdin, wait, SIGTERM the group, wait, SIGKILL.
const (
	stopGrace = 100 * time.Millisecond
	stopTerm  = 1 * time.Second
)

// process is a stdio server: its own process group, its pipes, and the tail
// of what it wrote on stderr.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr io.Closer
	tail   *tailBuffer

	exited     chan struct{} // closed when the leader has been reaped
	waitErr    error
	stderrDone chan struct{}
	stopOnce   sync.Once
}

// lookPath finds a command without a slash in the PATH the server itself
// gets (its "env" may set one), as other MCP hosts do.
func lookPath(command string, env []string) (string, error) {
	if strings.Contains(command, "/") {
		return command, nil
	}
	path := ""
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			path = kv[len("PATH="):]
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, command)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &exec.Error{Name: command, Err: exec.ErrNotFound}
}

func startProcess(t *Target, onStderr func(string)) (*process, error) {
	path, err := lookPath(t.Command, t.Env)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, t.Args...)
	cmd.Args[0] = t.Command
	if t.Argv0 != "" {
		cmd.Args[0] = t.Argv0
	}
	cmd.Env = t.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Dir = t.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Our own pipes, not cmd.StdoutPipe/StderrPipe: Wait closes those as soon
	// as the child exits, which can drop the last lines a dying server wrote
	// (its final answer, or the stderr that explains its death).
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, stdoutW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stderr, stderrW, err := os.Pipe()
	if err != nil {
		stdout.Close()
		stdoutW.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = stdoutW, stderrW
	err = cmd.Start()
	stdoutW.Close() // the child holds its own copies
	stderrW.Close()
	if err != nil {
		stdout.Close()
		stderr.Close()
		return nil, err
	}
	p := &process{cmd: cmd, stdin: stdin, stdout: stdout, tail: newTailBuffer(64 << 10),
		exited: make(chan struct{}), stderrDone: make(chan struct{})}
	p.stderr = stderr
	go func() {
		defer close(p.stderrDone)
		defer stderr.Close()
		r := bufio.NewReaderSize(stderr, 64<<10)
		for {
			line, err := r.ReadSlice('\n')
			if len(line) > 0 {
				p.tail.Write(line)
				if onStderr != nil && (err == nil || err == io.EOF || errors.Is(err, bufio.ErrBufferFull)) {
					onStderr(strings.TrimRight(string(line), "\r\n"))
				}
			}
			if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
				return
			}
		}
	}()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// groupAlive reports whether any process of the server's group still exists.
// Once the leader is reaped, exited descendants (which mcpx, as their
// subreaper, now parents) are reaped first, so zombies do not count.
func (p *process) groupAlive() bool {
	select {
	case <-p.exited:
	default:
		return true
	}
	reapGroup(p.cmd.Process.Pid)
	return syscall.Kill(-p.cmd.Process.Pid, 0) == nil
}

func (p *process) waitGroup(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if !p.groupAlive() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-p.exited:
			// The leader is gone; poll the rest of its group briefly.
			time.Sleep(2 * time.Millisecond)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// stop ends the server as CONTRACT §2 says: close its stdin, wait at most
// 100 ms, SIGTERM the group, wait at most 1 s, then SIGKILL.
func (p *process) stop() {
	p.stopOnce.Do(func() {
		_ = p.stdin.Close()
		pgid := p.cmd.Process.Pid
		if !p.waitGroup(stopGrace) {
			_ = syscall.Kill(-pgid, syscall.SIGTERM)
			if !p.waitGroup(stopTerm) {
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
				p.waitGroup(stopTerm)
			}
		}
		// The stderr pipe closes when the last writer exits; a process that
		// escaped the group could hold it open, so do not wait long.
		select {
		case <-p.stderrDone:
		case <-time.After(500 * time.Millisecond):
			_ = p.stderr.Close() // release the reader
		}
		// The server is gone: a descendant that escaped the group must not
		// keep mcpx's stdout reader waiting either.
		_ = p.stdout.Close()
	})
}

// exitStatus describes how the leader ended, or "" while it runs.
func (p *process) exitStatus() string {
	select {
	case <-p.exited:
	default:
		return ""
	}
	if p.waitErr == nil {
		return "exited with status 0"
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("killed by %s", ws.Signal())
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode())
	}
	return p.waitErr.Error()
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (t *tailBuffer) Write(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
}

// Lines returns the last n non-empty lines.
func (t *tailBuffer) Lines(n int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, l := range bytes.Split(t.buf, []byte("\n")) {
		if s := strings.TrimRight(string(l), "\r"); strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}
