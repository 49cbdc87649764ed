package daemon

// The daemon: it listens, accepts and checks its peers, answers status,
// stop and exit, binds an attach to its target, reaps idle targets, and
// exits once it holds nothing.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpx-cli/mcpx/internal/limits"
)

// defaultCeiling is the message ceiling of a target that names none.
const defaultCeiling = limits.MessageCeiling

// defaultExitGrace is how long the daemon stays with nothing to hold.
const defaultExitGrace = time.Second

// stopReplyWait bounds the wait of a stop for its targets' stop sequences
// before it answers (`daemon stop` answers within a second whatever the
// targets do): a server slower to stop finishes its sequence after the
// answer, and a daemon that exits waits for it first.
const stopReplyWait = 750 * time.Millisecond

// presenceWait is how long the daemon looks for the end of a stop's
// connection before it acts on it (see callerWaits).
const presenceWait = 20 * time.Millisecond

// ServeOptions configure the daemon.
type ServeOptions struct {
	Getenv  func(string) string
	Version string
	// Dir is the socket directory: the one the caller that started the
	// daemon chose ("": chosen here, see choose).
	Dir string
	// Exe is the executable whose file the daemon watches ("": its own):
	// once the file there is another (an upgrade, a rebuild, a touch) or
	// gone, the daemon drains: it takes no new attach, and exits once no
	// caller is attached.
	Exe string
	// ExitGrace is how long the daemon stays with nothing to hold (no
	// target, no connection): 0 is 1 s; a negative one keeps it until it
	// is told to stop or its context ends (a daemon served by a test,
	// which decides when it is done).
	ExitGrace time.Duration
	// Listening, if set, is called once the daemon accepts connections
	// (a test waits for it).
	Listening func()

	// Tests: the bytes a caller's queue holds (0: queueLimit), how long a
	// caller whose queue is full may read nothing (0: stallWait), and a
	// hook told the bytes queued for a caller each time they grow.
	queueLimit int64
	stall      time.Duration
	queuePeak  func(n int64)
	// reaped, if set, is called after each round of reap (tests).
	reaped func()
}

type daemon struct {
	o     ServeOptions
	build string
	ln    *net.UnixListener
	log   *logger

	// sock is the socket, as created (sockInfo: only that file is removed).
	sock     string
	sockInfo os.FileInfo
	unlisten func()

	// exe is the executable watched (exeInfo its file at start: nil when
	// it could not be read), draining set once it changed.
	exe      string
	exeInfo  os.FileInfo
	draining atomic.Bool

	// bg counts the targets' stop sequences under way: the daemon exits
	// once they are done.
	bg sync.WaitGroup

	mu       sync.Mutex
	sessions map[string]*session   // by Spec.Key(), those starting included
	lost     map[string]lostTarget // targets whose server died (the next caller is told)
	conns    int
	idleFrom time.Time
	maxWarm  int // the latest attach's bound on the targets held (0: DefaultMaxWarm)

	quit     chan struct{}
	quitOnce sync.Once
}

// Serve runs the daemon until it holds nothing, is told to stop, or ctx
// ends. It returns at once when another daemon of its build already
// listens.
func Serve(ctx context.Context, o ServeOptions) error {
	if err := platformRefusal(); err != nil {
		return err
	}
	dir := o.Dir
	if dir == "" {
		var err error
		if dir, err = choose(o.Getenv, true); err != nil {
			return err
		}
	} else if err := checkSocketPath(dir); err != nil {
		return err
	} else if err := CheckDir(dir); err != nil {
		return err
	}
	build := BuildID(o.Version)
	sock := socketPath(dir, build)
	if c, _, err := dial(ctx, sock); err == nil {
		c.Close()
		return nil // another daemon serves
	}
	_ = os.Remove(sock)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		return fmt.Errorf("the mcpx daemon cannot listen on %s: %w", sock, err)
	}
	ln.SetUnlinkOnClose(false)
	secureSocket(sock)
	d := &daemon{o: o, build: build, ln: ln, log: openLog(LogPath(o.Getenv)), sock: sock,
		sessions: map[string]*session{}, lost: map[string]lostTarget{}, idleFrom: time.Now(), quit: make(chan struct{})}
	d.sockInfo, _ = os.Lstat(sock)
	d.unlisten = sync.OnceFunc(d.closeListener)
	d.watch(o.Exe)
	d.log.printf("daemon %d started (build %s, %s)", os.Getpid(), d.build, sock)
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
	d.unlisten()
	d.stopAll()
	d.bg.Wait()
	d.log.printf("daemon %d exited", os.Getpid())
	d.log.close()
	removeLock(lockPath(dir, build))
	return nil
}

// closeListener stops accepting: the socket is removed first (if it is
// still this daemon's), so that nobody connects to a daemon that will
// not answer, then closed.
func (d *daemon) closeListener() {
	ours := func() bool {
		now, err := os.Lstat(d.sock)
		return err == nil && d.sockInfo != nil && os.SameFile(d.sockInfo, now)
	}
	if ours() {
		_ = os.Remove(d.sock)
	}
	d.ln.Close()
	if ours() { // a system that does not remove a socket in use (Windows)
		_ = os.Remove(d.sock)
	}
}

// watch records the executable the daemon watches (see ServeOptions.Exe).
func (d *daemon) watch(exe string) {
	if exe == "" {
		d.exe, d.exeInfo, _ = image()
		return
	}
	d.exe = exe
	d.exeInfo, _ = os.Stat(exe)
}

// checkExe reports whether the daemon drains: its executable is no longer
// the file it was started from (checked now, a stat).
func (d *daemon) checkExe() bool {
	if d.draining.Load() {
		return true
	}
	if d.exeInfo == nil {
		return false
	}
	if now, err := os.Stat(d.exe); err == nil && sameImage(d.exeInfo, now) {
		return false
	}
	if d.draining.CompareAndSwap(false, true) {
		d.log.printf("draining: %s changed on disk; no new attach, exiting once no caller is attached", d.exe)
	}
	return true
}

func (d *daemon) exit() { d.quitOnce.Do(func() { close(d.quit) }) }

// reap closes the targets idle past their keep-alive, and ends the daemon
// when it has held nothing for its exit grace (ServeOptions.ExitGrace),
// or drains and no caller is attached.
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
		draining := d.checkExe()
		now := time.Now()
		var idle []*session
		d.mu.Lock()
		for k, s := range d.sessions {
			if s.isReady() && s.idleFor(now) >= s.keepAlive() {
				idle = append(idle, s)
				delete(d.sessions, k)
			}
		}
		for k, l := range d.lost {
			if !now.Before(l.until) {
				delete(d.lost, k)
			}
		}
		// A loss not reported yet keeps the daemon (for the target's
		// keep-alive): the next call of the target is told of it.
		empty := len(d.sessions) == 0 && d.conns == 0 && len(d.lost) == 0
		if !empty {
			d.idleFrom = now
		}
		quit := empty && grace >= 0 && now.Sub(d.idleFrom) >= grace || draining && d.conns == 0
		d.mu.Unlock()
		for _, s := range idle {
			d.log.printf("closing %s: idle for %s", s.spec.Name, s.keepAlive())
		}
		d.stopInBackground(idle)
		if quit {
			if draining {
				d.log.printf("drained: exiting")
			}
			d.exit()
			return
		}
		if d.o.reaped != nil {
			d.o.reaped()
		}
	}
}

// stopInBackground starts the stop sequence of each of ss, and returns a
// channel closed once they are all done.
func (d *daemon) stopInBackground(ss []*session) <-chan struct{} {
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Add(1)
		d.bg.Add(1)
		go func() {
			defer d.bg.Done()
			defer wg.Done()
			s.stop()
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	return done
}

// stopAll closes every target and waits until they are stopped.
func (d *daemon) stopAll() {
	all, _ := d.take(nil)
	<-d.stopInBackground(all)
}

// take removes from the daemon the targets of the named servers (all when
// none is named) and returns them, with the names that had none.
func (d *daemon) take(names []string) (hit []*session, missed []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	found := map[string]bool{}
	for k, s := range d.sessions {
		if len(names) == 0 || slices.Contains(names, s.spec.Name) {
			hit = append(hit, s)
			found[s.spec.Name] = true
			delete(d.sessions, k)
		}
	}
	for _, n := range names {
		if !found[n] && !slices.Contains(missed, n) {
			missed = append(missed, n)
		}
	}
	return hit, missed
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
	switch {
	case h.Op == OpExit: // whatever the build
		d.shutdown(c, r, rep, pid, h.Op)
		return
	case h.Op == OpStatus: // whatever the build: it changes nothing
		rep.Status, rep.Exe, rep.Draining = d.status(), d.exe, d.checkExe()
		_ = writeLine(c, rep)
		c.Close()
		return
	case h.Proto != Proto || h.Build != d.build:
		rep.OK, rep.Err = false, "another build"
		_ = writeLine(c, rep)
		c.Close()
		return
	}
	switch h.Op {
	case OpStop:
		if len(h.Names) == 0 {
			d.shutdown(c, r, rep, pid, h.Op)
			return
		}
		if !d.callerWaits(c, r, h.Op, pid) {
			return
		}
		hit, missed := d.take(h.Names)
		d.waitStops(hit)
		rep.Stopped, rep.Missed = len(hit), missed
		_ = writeLine(c, rep)
		c.Close()
	case OpAttach:
		// A draining daemon takes no new target; an existing one it
		// still serves.
		if !h.Existing && d.checkExe() {
			rep.OK, rep.Err = false, drainPrefix+"its executable changed on disk"
			_ = writeLine(c, rep)
			c.Close()
			return
		}
		d.attach(c, r, &h, rep)
	default:
		rep.OK, rep.Err = false, fmt.Sprintf("unknown operation %q", h.Op)
		_ = writeLine(c, rep)
		c.Close()
	}
}

// shutdown closes every target and ends the daemon (a stop of all, or
// exit): it stops listening first, so that the answer, sent then, is the
// last word of a daemon nobody can reach any more.
func (d *daemon) shutdown(c *net.UnixConn, r *bufio.Reader, rep Reply, pid int, op string) {
	if !d.callerWaits(c, r, op, pid) {
		return
	}
	d.log.printf("%s asked by pid %d", op, pid)
	d.unlisten()
	all, _ := d.take(nil)
	d.waitStops(all)
	rep.Stopped, rep.Exe = len(all), d.exe
	_ = writeLine(c, rep)
	c.Close()
	d.exit()
}

// waitStops stops ss, waiting for their stop sequences at most
// stopReplyWait (the rest go on in the background).
func (d *daemon) waitStops(ss []*session) {
	select {
	case <-d.stopInBackground(ss):
	case <-time.After(stopReplyWait):
	}
}

// callerWaits reports whether the caller of a stop or exit still waits
// for its answer: its end of the socket is open. One that went away (an
// interrupted `daemon stop`, or one that gave up on a daemon that did not
// answer, as a stopped one does not: the hello waited in the socket) is
// not acted on, and the connection is closed. The caller keeps its end
// open until it has read the answer.
func (d *daemon) callerWaits(c *net.UnixConn, r *bufio.Reader, op string, pid int) bool {
	if r.Buffered() > 0 {
		return true
	}
	_ = c.SetReadDeadline(time.Now().Add(presenceWait))
	_, err := r.Peek(1)
	_ = c.SetReadDeadline(time.Time{})
	if err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	d.log.printf("ignored %s asked by pid %d: it went away before it could be answered", op, pid)
	c.Close()
	return false
}

// status is a snapshot of the targets, each read under its own short
// lock: the daemon's lock is held only to list them.
func (d *daemon) status() []Target {
	d.mu.Lock()
	all := make([]*session, 0, len(d.sessions))
	for _, s := range d.sessions {
		if s.isReady() && s.startErr == nil {
			all = append(all, s)
		}
	}
	d.mu.Unlock()
	now := time.Now()
	out := make([]Target, 0, len(all))
	for _, s := range all {
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
	s, note, err := d.target(h)
	if errors.Is(err, ErrNoTarget) {
		rep.OK, rep.Err = false, noTargetPrefix+err.Error()
		_ = writeLine(c, rep)
		c.Close()
		return
	}
	if err != nil {
		d.log.printf("cannot start %s: %s", h.Spec.Name, h.Spec.mask(err.Error()))
		rep.OK, rep.Err = false, startPrefix+err.Error()
		_ = writeLine(c, rep)
		c.Close()
		return
	}
	rep.Note = note
	if !h.Existing { // a task command finding the target leaves its idle time be
		s.askKeepAlive(h.KeepAlive)
	}
	s.lastUse.Store(time.Now().UnixNano())
	cl := s.newCaller(c, r, h)
	rep.Ahead = s.ahead(h)
	if err := writeLine(c, rep); err != nil {
		c.Close()
		return
	}
	cl.serve()
}

// DefaultMaxWarm is how many targets the daemon holds at most when the
// attach names no "maxWarm".
const DefaultMaxWarm = 32

// lostTarget is a target whose server died, remembered until its next
// caller is told (or its keep-alive has passed).
type lostTarget struct {
	why   string
	until time.Time
}

// lose remembers that s's server died: the next caller of its target is
// told that its state was lost. The daemon stays while it remembers (see
// reap).
func (d *daemon) lose(s *session, why string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.loseLocked(s, why)
}

// loseLocked is lose, d.mu held; once per session, whoever comes first:
// the session's end, or an attach that found it dead (see claim).
func (d *daemon) loseLocked(s *session, why string) {
	if s.lossTaken {
		return
	}
	s.lossTaken = true
	if d.sessions[s.key] == s {
		delete(d.sessions, s.key)
	}
	if s.initialized() {
		d.lost[s.key] = lostTarget{why: why, until: time.Now().Add(s.keepAlive())}
	}
}

// lostNote is the note of a target whose server died (why).
func lostNote(name, why string) string {
	return fmt.Sprintf("the warm connection to server %q was lost (%s); its state was lost, starting it again", name, why)
}

// errFull refuses a new target when the daemon holds as many as it may,
// all in use: the caller connects one-shot.
var errFull = errors.New("the mcpx daemon holds as many targets as it may (\"maxWarm\"), all in use")

// target is the session of the attach's target, started: the one held
// (an idle HTTP session asked first whether the server still knows it),
// else a new one, started once however many attach at once, with no lock
// held meanwhile. note is for the caller: its target's server died since
// its last call.
func (d *daemon) target(h *Hello) (*session, string, error) {
	key := h.Spec.Key()
	if h.Existing {
		return d.existing(key, h.Bearer)
	}
	for {
		s, created, note, err := d.claim(key, h.Spec, h.Bearer, h.MaxWarm)
		if err != nil {
			return nil, "", err
		}
		if created {
			err = s.start()
		} else {
			err = s.started()
		}
		if err != nil {
			if created {
				d.forget(s)
			}
			return nil, "", err
		}
		if s.proc == nil && h.Bearer != "" {
			s.mu.Lock()
			s.bearer = h.Bearer
			s.mu.Unlock()
		}
		if !created && s.proc == nil {
			// An HTTP session may have ended on the server's side since
			// its last use (the server restarted, or expired it): ask
			// first (a ping).
			s.probe()
		}
		if !created && s.isDead() && !s.oneShot() {
			continue // found dead: a new one, with the note
		}
		return s, note, nil
	}
}

// existing is the session of key, held and alive, for an attach that
// must not start one (Hello.Existing): else ErrNoTarget.
func (d *daemon) existing(key, bearer string) (*session, string, error) {
	d.mu.Lock()
	s := d.sessions[key]
	d.mu.Unlock()
	if s == nil || s.isDead() || s.started() != nil {
		return nil, "", ErrNoTarget
	}
	if s.proc == nil {
		if bearer != "" {
			s.mu.Lock()
			s.bearer = bearer
			s.mu.Unlock()
		}
		s.probe()
	}
	if s.isDead() {
		return nil, "", ErrNoTarget
	}
	return s, "", nil
}

// claim returns the session of key, to start (created) or started by
// another. A new target past the daemon's bound (maxWarm, 0: the default)
// closes the longest-idle one, as its keep-alive would; when every target
// is in use, it is refused (errFull).
func (d *daemon) claim(key string, spec *Spec, bearer string, maxWarm int) (s *session, created bool, note string, err error) {
	var evict []*session
	d.mu.Lock()
	if maxWarm > 0 {
		d.maxWarm = maxWarm // the latest attach's: the user's file
	}
	if maxWarm = d.maxWarm; maxWarm <= 0 {
		maxWarm = DefaultMaxWarm
	}
	if s = d.sessions[key]; s != nil && !s.isDead() {
		d.mu.Unlock()
		return s, false, "", nil
	}
	if s != nil {
		// Dead, and its end may not have recorded the loss yet: it is
		// recorded now, so that this attach gets the note (and no later
		// one gets it again).
		s.mu.Lock()
		stopping := s.stopping
		s.mu.Unlock()
		if !stopping {
			d.loseLocked(s, s.deadWhyNow())
		}
	}
	now := time.Now()
	for len(d.sessions) >= maxWarm {
		var victim *session
		for _, o := range d.sessions {
			if o.isReady() && o.idleFor(now) > 0 && (victim == nil || o.idleFor(now) > victim.idleFor(now)) {
				victim = o
			}
		}
		if victim == nil {
			d.mu.Unlock()
			return nil, false, "", errFull
		}
		delete(d.sessions, victim.key)
		evict = append(evict, victim)
	}
	if l, ok := d.lost[key]; ok {
		delete(d.lost, key)
		note = lostNote(spec.Name, l.why)
	}
	s = d.newSession(spec, key, bearer)
	d.sessions[key] = s
	d.mu.Unlock()
	for _, o := range evict {
		d.log.printf("closing %s: the daemon holds %d targets at most", o.spec.Name, maxWarm)
	}
	d.stopInBackground(evict)
	return s, true, note, nil
}

// forget drops a session that failed to start.
func (d *daemon) forget(s *session) {
	d.mu.Lock()
	if d.sessions[s.key] == s {
		delete(d.sessions, s.key)
	}
	d.mu.Unlock()
}

// successor is the session that replaces dead, whose server died, for a
// caller of dead: the one an attach has started since, or a new one. The
// daemon makes the handshake dead recorded on it itself (once, whoever
// asks), so that the caller, initialized on dead, goes on unaware.
func (d *daemon) successor(dead *session) (*session, error) {
	dead.mu.Lock()
	bearer := dead.bearer
	dead.mu.Unlock()
	s, created, _, err := d.claim(dead.key, dead.spec, bearer, 0)
	if err != nil {
		return nil, err
	}
	if created {
		s.askKeepAlive(dead.keepAlive())
		err = s.start()
	} else {
		err = s.started()
	}
	if err == nil {
		err = s.replayHandshake(dead)
	}
	if err != nil {
		if created {
			d.forget(s)
		}
		return nil, err
	}
	return s, nil
}

// stallWait is how long a caller whose queue is full may read nothing.
func (d *daemon) stallWait() time.Duration {
	if d.o.stall > 0 {
		return d.o.stall
	}
	return stallWait
}

// queueLimit is the bytes a caller's queue holds.
func (d *daemon) queueLimit() int64 {
	if d.o.queueLimit > 0 {
		return d.o.queueLimit
	}
	return queueLimit
}

// notePeak records the bytes queued for a caller (tests).
func (d *daemon) notePeak(n int64) {
	if d.o.queuePeak != nil {
		d.o.queuePeak(n)
	}
}
