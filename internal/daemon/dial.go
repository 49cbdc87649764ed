package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/mcpx-cli/mcpx/client/transport"
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

// Attach connects to the daemon (starting it when none runs, replacing one
// of another build) and binds the connection to the target of h. The
// returned connection carries JSON-RPC from now on.
func Attach(ctx context.Context, e Env, h Hello) (net.Conn, *Reply, error) {
	h.Op = OpAttach
	if err := platformRefusal(); err != nil {
		return nil, nil, err
	}
	dir := SocketDir(e.Getenv)
	if err := checkSocketPath(dir); err != nil {
		return nil, nil, err
	}
	if err := PrepareDir(dir); err != nil {
		return nil, nil, err
	}
	for attempt := 0; ; attempt++ {
		c, rep, err := hello(ctx, e, dir, h)
		if err == nil {
			return c, rep, nil
		}
		if attempt >= 2 || ctx.Err() != nil || errors.Is(err, ErrUnsupported) {
			return nil, nil, err
		}
		if errors.Is(err, ErrOtherBuild) {
			replace(ctx, e, dir, rep)
			continue
		}
		if !noDaemon(err, SocketPath(dir)) {
			return nil, nil, err
		}
		if err := start(ctx, e, dir); err != nil {
			return nil, nil, err
		}
	}
}

// Ask sends a status or stop hello to a running daemon. ok is false when
// no daemon runs (nothing is started).
func Ask(ctx context.Context, e Env, h Hello) (rep *Reply, ok bool, err error) {
	if platformRefusal() != nil {
		return nil, false, nil
	}
	dir := SocketDir(e.Getenv)
	if err := checkSocketPath(dir); err != nil {
		return nil, false, err
	}
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err := CheckDir(dir); err != nil {
		return nil, false, err
	}
	c, rep, err := hello(ctx, e, dir, h)
	if err != nil {
		if noDaemon(err, SocketPath(dir)) || errors.Is(err, ErrUnsupported) {
			return nil, false, nil
		}
		if errors.Is(err, ErrOtherBuild) {
			return rep, true, err
		}
		return nil, false, err
	}
	c.Close()
	return rep, true, nil
}

// Status lists the daemon's targets (`mcpx daemon status`); running is
// false when no daemon runs.
func Status(ctx context.Context, e Env) (targets []Target, running bool, err error) {
	rep, ok, err := Ask(ctx, e, Hello{Op: OpStatus})
	if err != nil {
		return nil, ok, fmt.Errorf("the mcpx daemon: %w", err)
	}
	if !ok {
		return nil, false, nil
	}
	return rep.Status, true, nil
}

// Stop closes the daemon's connections to the named servers (all, and the
// daemon exits, when none is named: `mcpx daemon stop`); it returns how
// many were closed, and running false when no daemon runs.
func Stop(ctx context.Context, e Env, names []string) (stopped int, running bool, err error) {
	rep, ok, err := Ask(ctx, e, Hello{Op: OpStop, Names: names})
	if errors.Is(err, ErrOtherBuild) && len(names) == 0 {
		// A daemon of another build: ask it to exit (understood by all).
		rep, ok, err = Ask(ctx, e, Hello{Op: OpExit})
		if errors.Is(err, ErrOtherBuild) {
			err = nil
		}
	}
	if err != nil {
		return 0, ok, fmt.Errorf("the mcpx daemon: %w", err)
	}
	if !ok {
		return 0, false, nil
	}
	return rep.Stopped, true, nil
}

// dial connects to the socket in dir and checks who listens: the daemon
// must be of the caller's own uid.
func dial(ctx context.Context, dir string) (*net.UnixConn, int, error) {
	if err := CheckDir(dir); err != nil {
		return nil, 0, err
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", SocketPath(dir))
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
		return nil, 0, fmt.Errorf("the process listening on %s is of %s, not yours", SocketPath(dir), who)
	}
	return c, pid, nil
}

// hello dials, sends h and reads the reply. A reply of another build is
// ErrOtherBuild (with the reply); a refused attach whose server did not
// start, ErrStart.
func hello(ctx context.Context, e Env, dir string, h Hello) (net.Conn, *Reply, error) {
	c, _, err := dial(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	h.Proto, h.Build = Proto, BuildID(e.Version)
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if err := writeLine(c, h); err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("the mcpx daemon: %w", err)
	}
	// The reply is read ahead, not byte by byte: what the daemon sends
	// after it stays in br, which the returned connection reads first.
	br := bufio.NewReader(c)
	line, err := readLine(br)
	if err != nil {
		c.Close()
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, fmt.Errorf("the mcpx daemon closed the connection: %w", err)
	}
	var rep Reply
	if err := json.Unmarshal(line, &rep); err != nil {
		c.Close()
		return nil, &rep, ErrOtherBuild
	}
	if rep.Build != h.Build {
		c.Close()
		return nil, &rep, ErrOtherBuild
	}
	if !rep.OK {
		c.Close()
		if msg, ok := strings.CutPrefix(rep.Err, startPrefix); ok {
			return nil, &rep, fmt.Errorf("%w: %s", ErrStart, msg)
		}
		return nil, &rep, errors.New(rep.Err)
	}
	return &bufferedConn{Conn: c, r: br}, &rep, nil
}

// replace asks a daemon of another build to exit, and kills it when it
// does not within a second.
func replace(ctx context.Context, e Env, dir string, rep *Reply) {
	pid := 0
	if c, p, err := dial(ctx, dir); err == nil {
		pid = p
		_ = writeLine(c, Hello{Proto: Proto, Build: BuildID(e.Version), Op: OpExit})
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		_, _ = readLine(bufio.NewReader(c))
		c.Close()
	}
	if pid == 0 && rep != nil {
		pid = rep.Pid
	}
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		if pid > 0 && !processAlive(pid) {
			break
		}
		if c, _, err := dial(ctx, dir); err != nil {
			break
		} else {
			c.Close()
		}
		time.Sleep(10 * time.Millisecond)
	}
	if pid > 0 && processAlive(pid) {
		killProcess(pid)
	}
	_ = os.Remove(SocketPath(dir))
}

// start starts a daemon unless another caller did meanwhile (the start
// lock makes starts one at a time), and waits for it to listen.
func start(ctx context.Context, e Env, dir string) error {
	unlock, err := lockDir(ctx, dir)
	if err != nil {
		return err
	}
	defer unlock()
	if c, _, err := dial(ctx, dir); err == nil {
		c.Close()
		return nil
	}
	_ = os.Remove(SocketPath(dir)) // stale: nobody listens
	self := e.Self
	if self == "" {
		if self, err = os.Executable(); err != nil {
			return fmt.Errorf("cannot start the mcpx daemon: %w", err)
		}
	}
	cmd := daemonCommand(self, daemonEnv(e.Environ))
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot start the mcpx daemon: %w", err)
	}
	transport.Spare(cmd.Process.Pid)
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(startWait)
	for {
		c, _, err := dial(ctx, dir)
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
