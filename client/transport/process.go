package transport

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpx-cli/mcpx/internal/ascaller"
)

// Stop timings (SERVER PROCESSES in mcpx(1)): close stdin, wait, SIGTERM the
// group, wait, SIGKILL.
const (
	stopGrace = 100 * time.Millisecond
	StopTerm  = 1 * time.Second
)

// Process is a stdio server: its own process group, its pipes, and the tail
// of what it wrote on stderr.
type Process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *watchedPipe
	stderr *watchedPipe
	tail   *tailBuffer
	sys    *sysProcess // the platform's handles (Windows: the job object)

	exited     chan struct{} // closed when the leader has been reaped
	waitErr    error
	stderrDone chan struct{}
	stopOnce   sync.Once
	stopped    chan struct{} // closed when stop has run

	skipMu  sync.Mutex
	skipped []string // the first lines on stdout that were not JSON-RPC messages (KeepSkipped)
}

// KeepSkipped is how many of the lines skipped on stdout a Process keeps.
const KeepSkipped = 2

// Skipped records a line on stdout that was not a JSON-RPC message; the
// first KeepSkipped are kept, for the hint of a server that then never
// answers.
func (p *Process) Skipped(line string) {
	p.skipMu.Lock()
	defer p.skipMu.Unlock()
	if len(p.skipped) < KeepSkipped {
		p.skipped = append(p.skipped, line)
	}
}

// SkippedLines are the first lines skipped on stdout (none: nil).
func (p *Process) SkippedLines() []string {
	p.skipMu.Lock()
	defer p.skipMu.Unlock()
	return slices.Clone(p.skipped)
}

// watchedPipe is one of the server's output pipes as mcpx reads it, with
// what is needed to tell a reader waiting for more from a busy one.
type watchedPipe struct {
	f       io.ReadCloser
	n       atomic.Int64 // bytes read so far
	waiting atomic.Bool  // a Read is blocked for data
	ended   atomic.Bool  // a Read failed (EOF, closed)
}

func (w *watchedPipe) Read(p []byte) (int, error) {
	w.waiting.Store(true)
	n, err := w.f.Read(p)
	w.waiting.Store(false)
	w.n.Add(int64(n))
	if err != nil {
		w.ended.Store(true)
	}
	return n, err
}

func (w *watchedPipe) Close() error { return w.f.Close() }

// quiet waits until the reader of w is blocked for data that has not come
// for the whole of d (true), or until max has passed (false), or done.
func (w *watchedPipe) quiet(d, max time.Duration, done <-chan struct{}) bool {
	const tick = 10 * time.Millisecond
	start := time.Now()
	last, since := w.n.Load(), time.Now()
	for time.Since(start) < max {
		select {
		case <-done:
			return false
		case <-time.After(tick):
		}
		if n := w.n.Load(); n != last || !w.waiting.Load() {
			last, since = n, time.Now()
			continue
		}
		if time.Since(since) >= d {
			return true
		}
	}
	return false
}

// Bounds on waiting for a server whose leader exited while something it
// started (in a session of its own) still holds its stdout open, so that
// the end of stdout never comes: what it wrote before exiting is read for
// deathGrace of silence, and never longer than deathMax.
const (
	deathGrace = 150 * time.Millisecond
	deathMax   = time.Second
)

// WatchDeath calls dead with the leader's exit status once the leader has
// exited, nothing is left of its process group, and its stdout, though not
// ended, has nothing more to give: the reader waits for data and none has
// come for deathGrace (what the server wrote before exiting has been
// read), or deathMax has passed since the exit. Something the server
// started in a session of its own holds the pipe, and no answer will come.
// (A group member still running may be the server itself, put in the
// background by a wrapper that exited.) When stdout ends instead, the
// transport sees it and fails what is in flight itself.
func (p *Process) WatchDeath(dead func(status string)) {
	select {
	case <-p.exited:
	case <-p.stopped:
		return
	}
	const tick = 10 * time.Millisecond
	start := time.Now()
	last, since := p.stdout.n.Load(), start
	for {
		select {
		case <-p.stopped:
			return
		case <-time.After(tick):
		}
		if p.stdout.ended.Load() {
			return
		}
		n, waiting := p.stdout.n.Load(), p.stdout.waiting.Load()
		if n != last || !waiting {
			last, since = n, time.Now()
		}
		if waiting && (time.Since(since) >= deathGrace || time.Since(start) >= deathMax) && !p.groupAlive() {
			dead(p.ExitStatus())
			return
		}
	}
}

// Command is a stdio server's command line, as its config entry resolved
// it.
type Command struct {
	Path  string   // the command, looked up in Env's PATH when it has no slash
	Argv0 string   // when set, argv[0] for the child (else Path)
	Args  []string // the arguments after argv[0]
	Env   []string // the child's whole environment
	Dir   string   // its working directory ("": mcpx's)
	// DieWithParent asks the kernel to kill the server when the process
	// that started it dies, even by SIGKILL (Linux: PR_SET_PDEATHSIG;
	// FreeBSD: PROC_PDEATHSIG_CTL; on Windows every server's job object
	// does it; a no-op elsewhere): the mcpx daemon's servers never
	// outlive it.
	DieWithParent bool
	// AsCaller, when set, is the umask and resource limits the server
	// starts with (a warm server's, its caller's): it is started through
	// mcpx itself, which sets them and then executes it (Unix; see
	// ascaller).
	AsCaller *ascaller.Attrs
}

// StartProcess starts a stdio server in a session of its own; onStderr,
// when set, gets each line it writes on stderr.
func StartProcess(c Command, onStderr func(string)) (*Process, error) {
	argv0 := c.Path
	if c.Argv0 != "" {
		argv0 = c.Argv0
	}
	cmd := &exec.Cmd{Args: append([]string{argv0}, c.Args...)}
	cmd.Env = c.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Dir = c.Dir
	// The command found, and a process group of its own (Unix: a session;
	// Windows: a new process group in a job object).
	if err := prepare(cmd, &c); err != nil {
		return nil, err
	}
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
	sys, err := start(cmd)
	stdoutW.Close() // the child holds its own copies
	stderrW.Close()
	if err != nil {
		stdout.Close()
		stderr.Close()
		return nil, err
	}
	p := &Process{cmd: cmd, sys: sys, stdin: stdin, stdout: &watchedPipe{f: stdout}, tail: newTailBuffer(64 << 10),
		exited: make(chan struct{}), stderrDone: make(chan struct{}), stopped: make(chan struct{})}
	p.stderr = &watchedPipe{f: stderr}
	go func() {
		defer close(p.stderrDone)
		defer stderr.Close()
		r := bufio.NewReaderSize(p.stderr, 64<<10)
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

// Stdout is the server's stdout.
func (p *Process) Stdout() io.Reader { return p.stdout }

// Stdin is the server's stdin.
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// Exited is closed when the leader has exited (and been reaped).
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Stderr returns the last n lines the server wrote on stderr, as it wrote
// them.
func (p *Process) Stderr(n int) []string { return p.tail.Lines(n) }

// groupAlive reports whether any process of the server's group still exists.
// Once the leader is reaped, exited descendants (which mcpx, as their
// subreaper, now parents) are reaped first, so zombies do not count.
func (p *Process) groupAlive() bool {
	select {
	case <-p.exited:
	default:
		return true
	}
	return p.sys.alive(p.cmd.Process.Pid)
}

func (p *Process) waitGroup(d time.Duration) bool {
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
			if !p.groupAlive() {
				return true
			}
			time.Sleep(2 * time.Millisecond)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Stop ends the server as SERVER PROCESSES in mcpx(1) says: close its stdin,
// wait at most 100 ms, SIGTERM the group, wait at most 1 s, then SIGKILL.
func (p *Process) Stop() {
	p.stopOnce.Do(func() {
		_ = p.stdin.Close()
		pid := p.cmd.Process.Pid
		if !p.waitGroup(stopGrace) {
			p.sys.terminate(pid)
			if !p.waitGroup(StopTerm) {
				p.sys.kill(pid)
				p.waitGroup(StopTerm)
			}
		}
		p.sys.release()
		// The stderr pipe closes when the last writer exits; a process that
		// escaped the group could hold it open, so wait only until what
		// the group wrote has been read (the pipe is quiet), 500 ms at most.
		quiet := make(chan struct{})
		go func() {
			if p.stderr.quiet(20*time.Millisecond, 500*time.Millisecond, p.stderrDone) {
				close(quiet)
			}
		}()
		select {
		case <-p.stderrDone:
		case <-quiet:
			_ = p.stderr.Close() // release the reader
		case <-time.After(500 * time.Millisecond):
			_ = p.stderr.Close()
		}
		// The server is gone: a descendant that escaped the group must not
		// keep mcpx's stdout reader waiting either.
		_ = p.stdout.Close()
		close(p.stopped)
	})
}

// ExitStatus describes how the leader ended, or "" while it runs.
func (p *Process) ExitStatus() string {
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
		if msg := signalStatus(ee); msg != "" {
			return msg
		}
		return exitStatus(ee.ExitCode())
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

// Pid is the server's process id (its process group's, on Unix).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// StderrQuiet waits until what the server wrote on stderr so far has been
// read and handed on (the pipe quiet for d), at most max.
func (p *Process) StderrQuiet(d, max time.Duration) bool {
	return p.stderr.quiet(d, max, p.stderrDone)
}
