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
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/hermetic"
)

// echoEnv makes the test binary the echo server, forwardEnv the server of
// the forwarding test (see TestMain).
const (
	echoEnv    = "MCPX_DAEMON_TEST_ECHO"
	forwardEnv = "MCPX_DAEMON_TEST_FORWARD"
)

func TestMain(m *testing.M) {
	if os.Getenv(echoEnv) == "1" {
		echo(os.Stdin, os.Stdout)
		return
	}
	if os.Getenv(forwardEnv) == "1" {
		forwardServer(os.Stdin, os.Stdout)
		return
	}
	os.Exit(hermetic.M(m).Run()) // never the machine's own daemon

}

// echoID finds a message's id.
var echoID = regexp.MustCompile(`"id":([0-9]*)`)

// echo answers every request with {"n": ID} (the id copied), so that the
// daemon's id mapping shows in each answer; a line without an id is
// written back as is. A request of method "rogue" is answered, then
// followed by an answer to an id never sent (a framing violation).
func echo(r io.Reader, w io.Writer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := echoID.FindStringSubmatch(line); m != nil {
			line = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"n":%s}}`, m[1], m[1])
		}
		if strings.Contains(sc.Text(), `"method":"rogue"`) {
			line += "\n" + `{"jsonrpc":"2.0","id":987654,"error":{"code":-32601,"message":"no such method"}}`
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return
		}
	}
}

// TestServeMultiplexes runs the daemon in-process (under -race, its
// forwarding is checked too) with many callers on one target at once:
// each gets its own answers under its own ids, the handshake reaches the
// server once, and stop closes everything.
func TestServeMultiplexes(t *testing.T) {
	d := startDaemon(t)
	ctx, env := d.ctx, d.env
	spec := &Spec{Name: "echo", Transport: "stdio", Command: d.self, Env: append(os.Environ(), echoEnv+"=1")}
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- oneCaller(ctx, env, spec)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	rep, ok, err := Ask(ctx, env, Hello{Op: OpStatus})
	if err != nil || !ok || len(rep.Status) != 1 || rep.Status[0].Calls != 20 {
		t.Fatalf("status: %+v %v %v", rep, ok, err)
	}
	d.stop(t)
}

// inProcess is a daemon served by the test itself, in a run directory of
// its own.
type inProcess struct {
	ctx  context.Context // the test's: every wait is bounded by it
	env  Env
	self string        // the test binary, which a fixture server runs
	done chan struct{} // closed when Serve returns
	err  error         // what Serve returned
}

// startDaemon starts the daemon in-process and waits until it listens.
// It exits when the test stops it (stop) or ends: the test's context
// ends, the daemon with it (waited for), and its log is shown if the test
// failed.
func startDaemon(t *testing.T) *inProcess {
	t.Helper()
	return startDaemonWith(t, ServeOptions{})
}

// startDaemonGrace is startDaemon with the daemon's exit grace (see
// ServeOptions.ExitGrace).
func startDaemonGrace(t *testing.T, grace time.Duration) *inProcess {
	t.Helper()
	return startDaemonWith(t, ServeOptions{ExitGrace: grace})
}

// startDaemonWith is startDaemon with options (those of the test's
// environment are set here; an ExitGrace of 0 is -1). onListen, if given,
// is called with the socket's path once the daemon listens, before it
// accepts.
func startDaemonWith(t *testing.T, o ServeOptions, onListen ...func(sock string)) *inProcess {
	t.Helper()
	if o.ExitGrace == 0 {
		o.ExitGrace = -1
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run := runDir(t)
	getenv := runGetenv(run)
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(LogPath(getenv))
			t.Logf("daemon log:\n%s", b)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	// The test's daemon is the only one: no Attach of the test starts
	// another (the test binary is no daemon: Self names nothing). With a
	// negative grace it stays until the test stops it (or ends), however
	// long it holds nothing meanwhile (a loaded machine).
	env := Env{Getenv: getenv, Version: "test", Self: filepath.Join(run, "no-daemon-here")}
	d := &inProcess{ctx: ctx, env: env, self: self, done: make(chan struct{})}
	listening := make(chan struct{})
	go func() {
		o.Getenv, o.Version, o.Listening = getenv, "test", func() {
			if len(onListen) > 0 {
				dir, _ := choose(getenv, false)
				for _, f := range onListen {
					f(SocketPath(dir, "test"))
				}
			}
			close(listening)
		}
		d.err = Serve(ctx, o)
		close(d.done)
	}()
	t.Cleanup(func() {
		cancel()
		<-d.done
	})
	select {
	case <-listening:
	case <-d.done:
		select {
		case <-listening: // it listened, held nothing, and exited
		default:
			t.Fatalf("the daemon exited at start: %v", d.err)
		}
	}
	return d
}

// stop tells the daemon to stop and waits until it has.
func (d *inProcess) stop(t *testing.T) {
	t.Helper()
	if _, _, err := Ask(d.ctx, d.env, Hello{Op: OpStop}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-d.done:
		if d.err != nil {
			t.Fatal(d.err)
		}
	case <-d.ctx.Done():
		t.Fatal("the daemon did not exit after stop")
	}
}

func oneCaller(ctx context.Context, env Env, spec *Spec) error {
	nc, _, err := Attach(ctx, env, Hello{Spec: spec, KeepAlive: time.Minute})
	if err != nil {
		return err
	}
	tr := transport.NewStdio(nc, nc, transport.StdioOptions{MessageCeiling: 1 << 20})
	defer tr.Close()
	_ = tr.Start(ctx)
	for i, method := range []string{"initialize", "tools/list", "tools/call", "tools/call", "tools/list"} {
		id := int64(100 + i)
		resp, err := tr.SendRequest(ctx, mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Method: method,
			Params: map[string]any{"_meta": map[string]any{"progressToken": fmt.Sprint(id)}}})
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if resp.ID.String() != mcp.NewRequestId(id).String() {
			return fmt.Errorf("%s: answered under id %s, not %d", method, resp.ID.String(), id)
		}
		var r struct{ N int64 }
		if err := json.Unmarshal(resp.Result, &r); err != nil || r.N == 0 {
			return fmt.Errorf("%s: result %s", method, resp.Result)
		}
		if method == "initialize" && r.N != 1 {
			return fmt.Errorf("initialize reached the server again (daemon id %d)", r.N)
		}
	}
	return nil
}

// TestServeLongHello: a target whose hello is longer than the daemon's
// read buffer (64 KiB: a long environment variable here, as a config may
// give) is attached like any other.
func TestServeLongHello(t *testing.T) {
	d := startDaemon(t)
	env := append(os.Environ(), echoEnv+"=1", "MCPX_DAEMON_TEST_LONG="+strings.Repeat("x", 100<<10))
	spec := &Spec{Name: "echo", Transport: "stdio", Command: d.self, Env: env}
	if err := oneCaller(d.ctx, d.env, spec); err != nil {
		t.Fatal(err)
	}
	d.stop(t)
}

// TestServeExitsWhenIdle: the daemon exits once it has held nothing (no
// target, no connection) for its exit grace.
func TestServeExitsWhenIdle(t *testing.T) {
	d := startDaemonGrace(t, time.Millisecond)
	select {
	case <-d.done:
		if d.err != nil {
			t.Fatal(d.err)
		}
	case <-d.ctx.Done():
		t.Fatal("the daemon did not exit once it held nothing")
	}
}

// TestServeStartFails: an attach whose server cannot be started is
// refused with ErrStart (the caller then connects one-shot, for the error
// that connection gives), and the daemon holds nothing of it.
func TestServeStartFails(t *testing.T) {
	d := startDaemon(t)
	spec := &Spec{Name: "absent", Transport: "stdio", Command: filepath.Join(t.TempDir(), "no-such-server")}
	nc, _, err := Attach(d.ctx, d.env, Hello{Spec: spec, KeepAlive: time.Minute})
	if err == nil {
		nc.Close()
		t.Fatal("an attach to a server that cannot start was accepted")
	}
	if !errors.Is(err, ErrStart) || !strings.Contains(err.Error(), "no-such-server") {
		t.Fatalf("the attach failed with %q, want ErrStart with the daemon's message", err)
	}
	if rep, ok, err := Ask(d.ctx, d.env, Hello{Op: OpStatus}); err != nil || !ok || len(rep.Status) != 0 {
		t.Fatalf("status after the failed start: %+v %v %v", rep, ok, err)
	}
	d.stop(t)
}

// TestServeMaxWarm: past its bound of targets (the attach's maxWarm) the
// daemon closes the longest-idle one for a new one; when every target is
// in use, the new one is refused (the caller connects one-shot).
func TestServeMaxWarm(t *testing.T) {
	d := startDaemon(t)
	target := func(n int) *Spec {
		return &Spec{Name: fmt.Sprintf("echo%d", n), Transport: "stdio", Command: d.self,
			Env: append(os.Environ(), echoEnv+"=1")}
	}
	attach := func(n int) net.Conn {
		t.Helper()
		nc, _, err := Attach(d.ctx, d.env, Hello{Spec: target(n), KeepAlive: time.Minute, MaxWarm: 2})
		if err != nil {
			t.Fatal(err)
		}
		return nc
	}
	held := func() []string {
		t.Helper()
		rep, ok, err := Ask(d.ctx, d.env, Hello{Op: OpStatus})
		if err != nil || !ok {
			t.Fatalf("status: %v %v", ok, err)
		}
		var names []string
		for _, tg := range rep.Status {
			names = append(names, fmt.Sprintf("%s/%d", tg.Server, tg.Callers))
		}
		return names
	}
	// await waits until the targets held, with their callers, are want.
	await := func(want string) {
		t.Helper()
		for {
			h := strings.Join(held(), " ")
			if h == want {
				return
			}
			select {
			case <-d.ctx.Done():
				t.Fatalf("held: %s, want %s", h, want)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	attach(1).Close()
	await("echo1/0")
	attach(2).Close()
	await("echo1/0 echo2/0")
	three := attach(3) // echo1 was idle longest
	await("echo2/0 echo3/1")
	two := attach(2)
	await("echo2/1 echo3/1")
	nc, _, err := Attach(d.ctx, d.env, Hello{Spec: target(4), KeepAlive: time.Minute, MaxWarm: 2})
	if err == nil {
		nc.Close()
		t.Fatal("a target past the bound, every one in use, was taken")
	}
	if !errors.Is(err, ErrStart) || !strings.Contains(err.Error(), `"maxWarm"`) {
		t.Errorf("a target past the bound, every one in use: %v, want ErrStart saying why", err)
	}
	three.Close()
	two.Close()
	d.stop(t)
}

// TestServeExisting: an attach of an existing target (a task command)
// binds to the target held, and never starts one: none is ErrNoTarget,
// and the daemon holds nothing of it.
func TestServeExisting(t *testing.T) {
	d := startDaemon(t)
	spec := &Spec{Name: "echo", Transport: "stdio", Command: d.self, Env: append(os.Environ(), echoEnv+"=1")}
	held := func() int {
		t.Helper()
		rep, ok, err := Ask(d.ctx, d.env, Hello{Op: OpStatus})
		if err != nil || !ok {
			t.Fatalf("status: %v %v", ok, err)
		}
		return len(rep.Status)
	}
	if nc, _, err := Attach(d.ctx, d.env, Hello{Spec: spec, Existing: true}); !errors.Is(err, ErrNoTarget) {
		if nc != nil {
			nc.Close()
		}
		t.Fatalf("an existing attach with no target: %v, want ErrNoTarget", err)
	}
	if n := held(); n != 0 {
		t.Fatalf("the existing attach started %d targets", n)
	}
	nc, _, err := Attach(d.ctx, d.env, Hello{Spec: spec, KeepAlive: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	nc.Close()
	nc, _, err = Attach(d.ctx, d.env, Hello{Spec: spec, Existing: true})
	if err != nil {
		t.Fatalf("an existing attach of the target held: %v", err)
	}
	nc.Close()
	if n := held(); n != 1 {
		t.Fatalf("%d targets held, want 1", n)
	}
	d.stop(t)
}
