package daemon

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/client/transport"
)

// serveBuild serves a daemon of the build of version in run (its runtime
// directory) in-process, watching exe (see ServeOptions.Exe), until the
// test ends; it returns once the daemon listens.
func serveBuild(t *testing.T, run, version, exe string) *inProcess {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	getenv := runGetenv(run)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	env := Env{Getenv: getenv, Version: version, Self: filepath.Join(run, "no-daemon-here")}
	d := &inProcess{ctx: ctx, env: env, self: self, done: make(chan struct{})}
	listening := make(chan struct{})
	go func() {
		d.err = Serve(ctx, ServeOptions{Getenv: getenv, Version: version, Exe: exe, ExitGrace: -1,
			Listening: func() { close(listening) }})
		close(d.done)
	}()
	t.Cleanup(func() {
		cancel()
		<-d.done
		if t.Failed() {
			b, _ := os.ReadFile(LogPath(getenv))
			t.Logf("daemon log:\n%s", b)
		}
	})
	select {
	case <-listening:
	case <-d.done:
		t.Fatalf("the daemon exited at start: %v", d.err)
	}
	return d
}

// attached is a caller attached to an echo server.
type attached struct {
	tr *transport.Stdio
	n  int64
}

func attachEcho(t *testing.T, d *inProcess) *attached {
	t.Helper()
	spec := &Spec{Name: "echo", Transport: "stdio", Command: d.self, Env: append(os.Environ(), echoEnv+"=1")}
	nc, _, err := Attach(d.ctx, d.env, Hello{Spec: spec, KeepAlive: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	tr := transport.NewStdio(nc, nc, transport.StdioOptions{MessageCeiling: 1 << 20})
	t.Cleanup(func() { _ = tr.Close() })
	if err := tr.Start(d.ctx); err != nil {
		t.Fatal(err)
	}
	return &attached{tr: tr}
}

// call sends a request and checks that it is answered.
func (a *attached) call(ctx context.Context) error {
	a.n++
	_, err := a.tr.SendRequest(ctx, mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(a.n), Method: "tools/call"})
	return err
}

// Two builds side by side: each has a daemon of its own in the same
// directory; stopping one leaves the other's callers alone; status names
// the other; stop --all ends both.
func TestBuildsSideBySide(t *testing.T) {
	run := runDir(t)
	a := serveBuild(t, run, "a", "")
	b := serveBuild(t, run, "b", "")
	if SocketPath(filepath.Join(run, "mcpx"), "a") == SocketPath(filepath.Join(run, "mcpx"), "b") {
		t.Fatal("two builds share a socket")
	}
	onB := attachEcho(t, b)
	if err := onB.call(b.ctx); err != nil {
		t.Fatal(err)
	}
	onA := attachEcho(t, a)
	if err := onA.call(a.ctx); err != nil {
		t.Fatal(err)
	}
	cs, err := Status(a.ctx, a.env)
	if err != nil || cs.Own == nil || len(cs.Own.Reply.Status) != 1 || len(cs.Others) != 1 {
		t.Fatalf("status of a: %+v, %v", cs, err)
	}
	if o := cs.Others[0]; !o.Known() || o.Reply.Build != BuildID("b") || len(o.Reply.Status) != 1 || o.Pid != os.Getpid() {
		t.Fatalf("a's status names b as %+v", o)
	}
	if rep, err := Stop(a.ctx, a.env, nil); err != nil || rep == nil || rep.Stopped != 1 {
		t.Fatalf("stop a: %+v, %v", rep, err)
	}
	<-a.done
	if err := onB.call(b.ctx); err != nil {
		t.Fatalf("b's caller after a stopped: %v", err)
	}
	own, others := StopAll(a.ctx, a.env)
	if own != nil || len(others) != 1 || others[0].Err != nil || others[0].Reply.Stopped != 1 {
		t.Fatalf("stop --all: %+v, %+v", own, others)
	}
	select {
	case <-b.done:
	case <-b.ctx.Done():
		t.Fatal("b did not exit on exit")
	}
}

// A daemon whose executable changed on disk drains: a new attach is
// refused (ErrDraining), its caller attached goes on, and it exits once
// that caller is gone.
func TestServeDrains(t *testing.T) {
	run := runDir(t)
	exe := filepath.Join(run, "exe")
	if err := os.WriteFile(exe, []byte("build 1"), 0o700); err != nil {
		t.Fatal(err)
	}
	d := serveBuild(t, run, "test", exe)
	on := attachEcho(t, d)
	if err := os.Remove(exe); err != nil {
		t.Fatal(err)
	}
	spec := &Spec{Name: "other", Transport: "stdio", Command: d.self, Env: append(os.Environ(), echoEnv+"=1")}
	if nc, _, err := Attach(d.ctx, d.env, Hello{Spec: spec, KeepAlive: time.Minute}); !errors.Is(err, ErrDraining) {
		if nc != nil {
			nc.Close()
		}
		t.Fatalf("an attach to a draining daemon: %v, want ErrDraining", err)
	}
	if rep, ok, err := Ask(d.ctx, d.env, Hello{Op: OpStatus}); err != nil || !ok || !rep.Draining || rep.Exe != exe {
		t.Fatalf("status: %+v %v %v", rep, ok, err)
	}
	if err := on.call(d.ctx); err != nil {
		t.Fatalf("the caller attached before: %v", err)
	}
	select {
	case <-d.done:
		t.Fatal("the daemon exited with a caller attached")
	default:
	}
	_ = on.tr.Close()
	select {
	case <-d.done:
	case <-d.ctx.Done():
		t.Fatal("the draining daemon did not exit once its caller was gone")
	}
}

// The answer to a stop comes once the daemon no longer listens: a status
// right after it finds no daemon.
func TestStopAnswersOnceUnlistened(t *testing.T) {
	d := startDaemon(t)
	attachEcho(t, d)
	rep, ok, err := Ask(d.ctx, d.env, Hello{Op: OpStop})
	if err != nil || !ok || rep.Stopped != 1 {
		t.Fatalf("stop: %+v %v %v", rep, ok, err)
	}
	if _, ok, err := Ask(d.ctx, d.env, Hello{Op: OpStatus}); ok || err != nil {
		t.Fatalf("a status right after the stop reached a daemon (%v)", err)
	}
	<-d.done
}

// A stop whose caller went away before the daemon read it (an interrupted
// `daemon stop`, or one that gave up on a stopped daemon: the hello
// waited in the socket) is not acted on; one whose caller waits is.
func TestStopNeedsItsCaller(t *testing.T) {
	dir := filepath.Join(runDir(t), "sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: dir, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, gone := range []bool{true, false} {
		d := &daemon{build: BuildID("test"), log: &logger{}, sessions: map[string]*session{}, lost: map[string]lostTarget{},
			quit: make(chan struct{}), unlisten: func() {}}
		c, err := net.Dial("unix", dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := writeLine(c, Hello{Proto: Proto, Build: d.build, Op: OpStop}); err != nil {
			t.Fatal(err)
		}
		if gone {
			c.Close()
		}
		sc, err := ln.AcceptUnix()
		if err != nil {
			t.Fatal(err)
		}
		d.handle(sc)
		select {
		case <-d.quit:
			if gone {
				t.Fatal("a stop whose caller went away was acted on")
			}
		default:
			if !gone {
				t.Fatal("a stop whose caller waits was not acted on")
			}
		}
		if !gone {
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
			var rep Reply
			if err := readJSONLine(bufio.NewReader(c), &rep); err != nil || !rep.OK {
				t.Fatalf("the answer: %+v, %v", rep, err)
			}
			c.Close()
		}
	}
}
