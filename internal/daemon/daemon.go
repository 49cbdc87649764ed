package daemon

// The daemon: it listens, accepts and checks its peers, answers status,
// stop and exit, binds an attach to its target, reaps idle targets, and
// exits once it holds nothing.

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"sort"
	"sync"
	"time"
)

// defaultCeiling is the message ceiling of a target that names none.
const defaultCeiling = 128 << 20

// defaultExitGrace is how long the daemon stays with nothing to hold.
const defaultExitGrace = time.Second

// ServeOptions configure the daemon.
type ServeOptions struct {
	Getenv  func(string) string
	Version string
	// ExitGrace is how long the daemon stays with nothing to hold (no
	// target, no connection): 0 is 1 s; a negative one keeps it until it
	// is told to stop or its context ends (a daemon served by a test,
	// which decides when it is done).
	ExitGrace time.Duration
	// Listening, if set, is called once the daemon accepts connections
	// (a test waits for it).
	Listening func()
}

type daemon struct {
	o     ServeOptions
	build string
	ln    *net.UnixListener
	log   *logger

	mu       sync.Mutex
	sessions map[string]*session // by Spec.Key
	lost     map[string]string   // targets whose server died, and why (the next attach says so)
	conns    int
	idleFrom time.Time

	quit     chan struct{}
	quitOnce sync.Once
}

// Serve runs the daemon until it holds nothing, is told to stop, or ctx
// ends. It returns at once when another daemon already listens.
func Serve(ctx context.Context, o ServeOptions) error {
	if err := platformRefusal(); err != nil {
		return err
	}
	dir := SocketDir(o.Getenv)
	if err := checkSocketPath(dir); err != nil {
		return err
	}
	if err := PrepareDir(dir); err != nil {
		return err
	}
	if c, _, err := dial(ctx, dir); err == nil {
		c.Close()
		return nil // another daemon serves
	}
	sock := SocketPath(dir)
	_ = os.Remove(sock)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		return fmt.Errorf("the mcpx daemon cannot listen on %s: %w", sock, err)
	}
	ln.SetUnlinkOnClose(false)
	secureSocket(sock)
	d := &daemon{o: o, build: BuildID(o.Version), ln: ln, log: openLog(LogPath(o.Getenv)),
		sessions: map[string]*session{}, lost: map[string]string{}, idleFrom: time.Now(), quit: make(chan struct{})}
	d.log.printf("daemon %d started (build %s)", os.Getpid(), d.build)
	st, _ := os.Lstat(sock)
	if o.Listening != nil {
		o.Listening()
	}
	go d.reap(ctx)
	go func() {
		for {
			c, err := ln.AcceptUnix()
			if err != nil {
				return
			}
			go d.handle(c)
		}
	}()
	select {
	case <-d.quit:
	case <-ctx.Done():
	}
	ln.Close()
	// Remove the socket only if it is still ours (a newer daemon may have
	// replaced it).
	if now, err := os.Lstat(sock); err == nil && st != nil && os.SameFile(st, now) {
		_ = os.Remove(sock)
	}
	d.stopAll()
	d.log.printf("daemon %d exited", os.Getpid())
	d.log.close()
	return nil
}

func (d *daemon) exit() { d.quitOnce.Do(func() { close(d.quit) }) }

// reap closes the targets idle past their keep-alive, and ends the daemon
// when it has held nothing for its exit grace (ServeOptions.ExitGrace).
func (d *daemon) reap(ctx context.Context) {
	grace := d.o.ExitGrace
	if grace == 0 {
		grace = defaultExitGrace
	}
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-d.quit:
			return
		case <-ctx.Done():
			return
		}
		now := time.Now()
		var idle []*session
		d.mu.Lock()
		for k, s := range d.sessions {
			if s.idleFor(now) >= s.keepAlive() {
				idle = append(idle, s)
				delete(d.sessions, k)
			}
		}
		empty := len(d.sessions) == 0 && d.conns == 0
		if !empty {
			d.idleFrom = now
		}
		quit := empty && grace >= 0 && now.Sub(d.idleFrom) >= grace
		d.mu.Unlock()
		for _, s := range idle {
			d.log.printf("closing %s: idle for %s", s.spec.Name, s.keepAlive())
			go s.stop()
		}
		if quit {
			d.exit()
			return
		}
	}
}

func (d *daemon) stopAll() {
	d.mu.Lock()
	all := make([]*session, 0, len(d.sessions))
	for k, s := range d.sessions {
		all = append(all, s)
		delete(d.sessions, k)
	}
	d.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Add(1)
		go func() { defer wg.Done(); s.stop() }()
	}
	wg.Wait()
}

func (d *daemon) handle(c *net.UnixConn) {
	who, pid, err := peerUser(c)
	if err := peerRefusal(myUser(), who, err); err != nil {
		d.log.printf("refused a connection from %s pid %d (%v)", who, pid, err)
		c.Close()
		return
	}
	d.mu.Lock()
	d.conns++
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.conns--
		d.mu.Unlock()
	}()
	r := bufio.NewReaderSize(c, 64<<10)
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var h Hello
	if err := readJSONLine(r, &h); err != nil {
		c.Close()
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	rep := Reply{OK: true, Build: d.build, Pid: os.Getpid()}
	if h.Op == OpExit {
		_ = writeLine(c, rep)
		c.Close()
		d.log.printf("exit asked by pid %d", pid)
		d.exit()
		return
	}
	if h.Proto != Proto || h.Build != d.build {
		rep.OK, rep.Err = false, "another build"
		_ = writeLine(c, rep)
		c.Close()
		return
	}
	switch h.Op {
	case OpStatus:
		rep.Status = d.status()
		_ = writeLine(c, rep)
		c.Close()
	case OpStop:
		rep.Stopped = d.stop(h.Names)
		_ = writeLine(c, rep)
		c.Close()
		if len(h.Names) == 0 {
			d.exit()
		}
	case OpAttach:
		d.attach(c, r, &h, rep)
	default:
		rep.OK, rep.Err = false, fmt.Sprintf("unknown operation %q", h.Op)
		_ = writeLine(c, rep)
		c.Close()
	}
}

func (d *daemon) status() []Target {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := time.Now()
	var out []Target
	for _, s := range d.sessions {
		out = append(out, s.status(now))
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Server != out[j].Server {
			return out[i].Server < out[j].Server
		}
		return out[i].Since.Before(out[j].Since)
	})
	return out
}

// stop closes the targets of the named servers (every target when none is
// named) and returns how many.
func (d *daemon) stop(names []string) int {
	if len(names) == 0 {
		d.mu.Lock()
		n := len(d.sessions)
		d.mu.Unlock()
		d.stopAll()
		return n
	}
	d.mu.Lock()
	var hit []*session
	for k, s := range d.sessions {
		for _, n := range names {
			if s.spec.Name == n {
				hit = append(hit, s)
				delete(d.sessions, k)
				break
			}
		}
	}
	d.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range hit {
		wg.Add(1)
		go func() { defer wg.Done(); s.stop() }()
	}
	wg.Wait()
	return len(hit)
}

func (d *daemon) attach(c *net.UnixConn, r *bufio.Reader, h *Hello, rep Reply) {
	if h.Spec != nil && h.Spec.MessageCeiling <= 0 {
		h.Spec.MessageCeiling = defaultCeiling
	}
	if h.Spec == nil || (h.Spec.Transport != "stdio" && h.Spec.Transport != "http" && h.Spec.Transport != "sse") {
		rep.OK, rep.Err = false, "attach needs a stdio, http or sse target"
		_ = writeLine(c, rep)
		c.Close()
		return
	}
	key := h.Spec.Key()
	d.mu.Lock()
	s := d.sessions[key]
	d.mu.Unlock()
	if s != nil && s.proc == nil && h.Bearer != "" {
		s.mu.Lock()
		s.bearer = h.Bearer
		s.mu.Unlock()
	}
	if s != nil && s.proc == nil {
		// An HTTP session may have ended on the server's side since its
		// last use (the server restarted, or expired it): ask first.
		s.probe()
	}
	d.mu.Lock()
	s = d.sessions[key]
	if s != nil && s.isDead() {
		s = nil
	}
	if s == nil {
		if why, ok := d.lost[key]; ok {
			delete(d.lost, key)
			rep.Note = fmt.Sprintf("the warm connection to server %q was lost (%s); its state was lost, starting it again", h.Spec.Name, why)
		}
		var err error
		s, err = d.newSession(h.Spec, h.Bearer)
		if err != nil {
			d.mu.Unlock()
			d.log.printf("cannot start %s: %s", h.Spec.Name, h.Spec.mask(err.Error()))
			rep.OK, rep.Err = false, startPrefix+err.Error()
			_ = writeLine(c, rep)
			c.Close()
			return
		}
		d.sessions[key] = s
	}
	s.setKeepAlive(h.KeepAlive)
	if h.Bearer != "" {
		s.mu.Lock()
		s.bearer = h.Bearer
		s.mu.Unlock()
	}
	s.lastUse.Store(time.Now().UnixNano())
	cl := s.newCaller(c, r, h)
	d.mu.Unlock()
	if err := writeLine(c, rep); err != nil {
		c.Close()
		return
	}
	cl.serve()
}
