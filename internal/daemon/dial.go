package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/fail"
)

// Env says where the caller is: its environment, its build, and the
// binary that serves as the daemon.
type Env struct {
	Getenv  func(string) string
	Environ []string
	Version string // the CLI's version (see BuildID)
	Self    string // the mcpx executable ("": os.Executable)
}

// startWait bounds the wait for a daemon just started to listen.
const startWait = 10 * time.Second

// Attach connects to this build's daemon (starting it when none runs)
// and binds the connection to the target of h. The returned connection
// carries JSON-RPC from now on. A daemon of another build is never asked
// anything: each build has a socket of its own (socketPath).
func Attach(ctx context.Context, e Env, h Hello) (net.Conn, *Reply, error) {
	h.Op = OpAttach
	if err := platformRefusal(); err != nil {
		return nil, nil, err
	}
	dir, err := choose(e.Getenv, true)
	if err != nil {
		return nil, nil, err
	}
	build := BuildID(e.Version)
	sock := socketPath(dir, build)
	for attempt := 0; ; attempt++ {
		c, rep, err := attachOnce(ctx, e, sock, h)
		if err == nil {
			return c, rep, nil
		}
		if attempt >= 2 || ctx.Err() != nil || errors.Is(err, ErrUnsupported) {
			return nil, nil, err
		}
		// A daemon that closed the connection unanswered was exiting (it
		// held nothing, or was stopped, as the hello came): start another.
		if !errors.Is(err, errUnanswered) && !noDaemon(err, sock) {
			return nil, nil, err
		}
		if h.Existing {
			// No daemon, so no target: none is started for it.
			return nil, nil, ErrNoTarget
		}
		if err := start(ctx, e, dir, build); err != nil {
			return nil, nil, err
		}
	}
}

// attachOnce sends the attach hello h to the daemon at sock. A reply of
// another build is ErrOtherBuild; a refused attach whose server did not
// start, ErrStart; one of a draining daemon, ErrDraining.
func attachOnce(ctx context.Context, e Env, sock string, h Hello) (net.Conn, *Reply, error) {
	c, rep, _, err := exchange(ctx, e, sock, h)
	if err != nil {
		return nil, rep, err
	}
	switch {
	case rep.Build != BuildID(e.Version):
		c.Close()
		return nil, rep, ErrOtherBuild
	case !rep.OK:
		c.Close()
		if msg, ok := strings.CutPrefix(rep.Err, startPrefix); ok {
			return nil, rep, fmt.Errorf("%w: %s", ErrStart, msg)
		}
		if strings.HasPrefix(rep.Err, drainPrefix) {
			return nil, rep, ErrDraining
		}
		if strings.HasPrefix(rep.Err, noTargetPrefix) {
			return nil, rep, ErrNoTarget
		}
		return nil, rep, errors.New(rep.Err)
	}
	return c, rep, nil
}

// errUnanswered: the daemon closed the connection before it answered.
var errUnanswered = errors.New("the mcpx daemon closed the connection")

// ErrNoAnswer is the cause of a daemon that took the connection and did
// not answer before the deadline (stopped by SIGSTOP, or wedged): see
// NoAnswer. It is context.DeadlineExceeded (errors.Is).
var ErrNoAnswer = fmt.Errorf("the mcpx daemon does not answer: %w", context.DeadlineExceeded)

// NoAnswer is the timeout (exit 7) of a daemon that did not answer: pid
// is the daemon's, from the socket's peer credentials (0: not known), op
// what was asked (status, stop, exit), timeout the bound of the command
// that had it (0: not known yet).
func NoAnswer(pid int, op string, timeout time.Duration) *fail.TimeoutError {
	who := "the mcpx daemon"
	if pid > 0 {
		who += fmt.Sprintf(" (pid %d)", pid)
	}
	msg := who + " does not answer"
	if timeout > 0 {
		msg += fmt.Sprintf(": timed out after %s during %s", timeout, op)
	}
	return &fail.TimeoutError{Pid: pid, Phase: op, Timeout: timeout, Message: msg, Cause: ErrNoAnswer}
}

// Found is a daemon found listening (see Status and StopAll).
type Found struct {
	Socket string
	Pid    int    // from the peer credentials (0: not known)
	Reply  *Reply // its answer; nil when Err
	// Err: it did not answer (ErrNoAnswer), or cannot be asked.
	Err error
}

// Known reports whether f answered of its own (a daemon of protocol 3 or
// later answers status whatever the build; an older one says only its
// build and pid).
func (f *Found) Known() bool { return f.Reply != nil && f.Reply.OK }

// Census is what `mcpx daemon status` shows: this build's daemon and the
// others found in the user's socket directories.
type Census struct {
	Own    *Found // nil: no daemon of this build runs
	Others []Found
	// NoDir says why there is no socket directory here (nil: there is).
	NoDir error
}

// Status asks this build's daemon for its targets, and every other daemon
// found in the user's socket directories for theirs (never anything
// else: an mcpx from before protocol 3 acts only on exit). A daemon of
// this build that does not answer is a NoAnswer timeout; another that does
// not is reported in its Found.
func Status(ctx context.Context, e Env) (*Census, error) {
	cs := &Census{}
	if platformRefusal() != nil {
		return cs, nil
	}
	own := ""
	if dir, err := choose(e.Getenv, false); err != nil {
		cs.NoDir = err
	} else {
		own = socketPath(dir, BuildID(e.Version))
	}
	others := otherSockets(e.Getenv, own)
	found := make([]Found, len(others)+1)
	var wg sync.WaitGroup
	for i, sock := range append([]string{own}, others...) {
		if sock == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			found[i] = ask(ctx, e, sock, Hello{Op: OpStatus})
		}()
	}
	wg.Wait()
	if f := found[0]; own != "" && (f.Reply != nil || f.Err != nil) {
		if f.Err != nil {
			return nil, f.Err
		}
		cs.Own = &f
	}
	for _, f := range found[1:] {
		if f.Reply != nil || f.Err != nil {
			cs.Others = append(cs.Others, f)
		}
	}
	return cs, nil
}

// Ask sends h (status, stop or exit) to this build's daemon and returns
// its answer. ok is false when no daemon of this build runs (nothing is
// started).
func Ask(ctx context.Context, e Env, h Hello) (rep *Reply, ok bool, err error) {
	if platformRefusal() != nil {
		return nil, false, nil
	}
	dir, err := choose(e.Getenv, false)
	if err != nil {
		return nil, false, nil // no directory: no daemon
	}
	f := ask(ctx, e, socketPath(dir, BuildID(e.Version)), h)
	return f.Reply, f.Reply != nil, f.Err
}

// Stop closes this build's daemon's connections to the named servers (all,
// and the daemon exits, when none is named: `mcpx daemon stop`). rep is
// the daemon's answer (Stopped, Missed); nil when no daemon of this build
// runs.
func Stop(ctx context.Context, e Env, names []string) (*Reply, error) {
	rep, ok, err := Ask(ctx, e, Hello{Op: OpStop, Names: names})
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, nil
	case !rep.OK:
		return nil, fmt.Errorf("the mcpx daemon refused: %s", rep.Err)
	}
	return rep, nil
}

// StopAll asks every daemon found in the user's socket directories, of
// any build, to exit (the operation every version honours), each with
// the usual stop sequence for its servers: `mcpx daemon stop --all`. own
// is this build's (nil when none runs).
func StopAll(ctx context.Context, e Env) (own *Found, others []Found) {
	if platformRefusal() != nil {
		return nil, nil
	}
	mine := ""
	if dir, err := choose(e.Getenv, false); err == nil {
		mine = socketPath(dir, BuildID(e.Version))
	}
	socks := otherSockets(e.Getenv, mine)
	found := make([]Found, len(socks)+1)
	var wg sync.WaitGroup
	for i, sock := range append([]string{mine}, socks...) {
		if sock == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			found[i] = ask(ctx, e, sock, Hello{Op: OpExit})
		}()
	}
	wg.Wait()
	if f := found[0]; f.Reply != nil || f.Err != nil {
		own = &f
	}
	for _, f := range found[1:] {
		if f.Reply != nil || f.Err != nil {
			others = append(others, f)
		}
	}
	return own, others
}

// otherSockets are the daemon sockets in the user's socket directories,
// but own.
func otherSockets(getenv func(string) string, own string) []string {
	var out []string
	for _, dir := range Dirs(getenv) {
		for _, s := range sockets(dir) {
			if s != own {
				out = append(out, s)
			}
		}
	}
	return out
}

// ask sends h to the daemon at sock and reads its answer: a Found with no
// Reply and no Err when nobody listens there.
func ask(ctx context.Context, e Env, sock string, h Hello) Found {
	f := Found{Socket: sock}
	c, rep, pid, err := exchange(ctx, e, sock, h)
	f.Pid = pid
	switch {
	case err == nil:
		c.Close()
		f.Reply = rep
		if rep.Pid > 0 {
			f.Pid = rep.Pid
		}
	case noDaemon(err, sock) || errors.Is(err, ErrUnsupported):
	case errors.Is(err, errUnanswered):
		// Closed unanswered: it was exiting as it was asked.
	default:
		f.Err = err
	}
	return f
}

// dial connects to the socket sock and checks who listens: the daemon
// must be of the caller's own uid. Its directory is checked first.
func dial(ctx context.Context, sock string) (*net.UnixConn, int, error) {
	if err := CheckDir(filepath.Dir(sock)); err != nil {
		return nil, 0, err
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		if noSockets(err) {
			return nil, 0, fmt.Errorf("%w (%v)", ErrUnsupported, err)
		}
		return nil, 0, err
	}
	c := nc.(*net.UnixConn)
	who, pid, err := peerUser(c)
	if err != nil {
		c.Close()
		return nil, 0, err
	}
	if peerRefusal(myUser(), who, nil) != nil {
		c.Close()
		return nil, 0, fmt.Errorf("the process listening on %s is of %s, not yours", sock, who)
	}
	return c, pid, nil
}

// exchange dials sock, sends h and reads the reply (pid: the daemon's,
// from the peer credentials). A deadline that passes once connected is a
// NoAnswer timeout; a connection closed before the reply, errUnanswered.
func exchange(ctx context.Context, e Env, sock string, h Hello) (net.Conn, *Reply, int, error) {
	c, pid, err := dial(ctx, sock)
	if err != nil {
		return nil, nil, 0, err
	}
	h.Proto, h.Build = Proto, BuildID(e.Version)
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	abandon := func(err error) (net.Conn, *Reply, int, error) {
		c.Close()
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return nil, nil, pid, NoAnswer(pid, h.Op, 0)
		case ctx.Err() != nil:
			return nil, nil, pid, ctx.Err()
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE):
			return nil, nil, pid, fmt.Errorf("%w: %v", errUnanswered, err)
		}
		return nil, nil, pid, fmt.Errorf("the mcpx daemon: %w", err)
	}
	if err := writeLine(c, h); err != nil {
		return abandon(err)
	}
	// The reply is read ahead, not byte by byte: what the daemon sends
	// after it stays in br, which the returned connection reads first.
	br := bufio.NewReader(c)
	line, err := readLine(br)
	if err != nil {
		return abandon(err)
	}
	var rep Reply
	if err := json.Unmarshal(line, &rep); err != nil {
		c.Close()
		return nil, nil, pid, fmt.Errorf("the mcpx daemon's answer is not one: %w", err)
	}
	return &bufferedConn{Conn: c, r: br}, &rep, pid, nil
}

// start starts this build's daemon in dir unless another caller did
// meanwhile (the build's start lock makes starts one at a time), and
// waits for it to listen.
func start(ctx context.Context, e Env, dir, build string) error {
	unlock, err := lockFile(ctx, lockPath(dir, build))
	if err != nil {
		return err
	}
	defer unlock()
	sock := socketPath(dir, build)
	if c, _, err := dial(ctx, sock); err == nil {
		c.Close()
		return nil
	}
	_ = os.Remove(sock) // stale: nobody listens
	self := e.Self
	if self == "" {
		exe, was, err := image()
		if err != nil {
			return fmt.Errorf("cannot start the mcpx daemon: %w", err)
		}
		// The file there now must be the one this process runs: else the
		// daemon started would be another build's, listening elsewhere.
		if now, err := os.Stat(exe); err != nil || !sameImage(was, now) {
			return ErrDraining
		}
		self = exe
	}
	cmd := daemonCommand(self, dir, daemonEnv(e.Environ))
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot start the mcpx daemon: %w", err)
	}
	transport.Spare(cmd.Process.Pid)
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(startWait)
	for {
		c, _, err := dial(ctx, sock)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			return errors.New("the mcpx daemon exited at start (see its log)")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(3 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return errors.New("the mcpx daemon did not start listening")
		}
	}
}

// daemonEnv is the daemon's environment: what it needs to find its
// directories, and nothing of the caller's secrets (a server's
// environment travels in its Spec).
func daemonEnv(environ []string) []string { return filterEnv(environ, daemonEnvKeys, envFold) }

// filterEnv keeps the variables of environ named in keys (compared without
// case when fold is set, as Windows names them).
func filterEnv(environ, keys []string, fold bool) []string {
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		for _, want := range keys {
			if k == want || fold && strings.EqualFold(k, want) {
				out = append(out, kv)
				break
			}
		}
	}
	return out
}
