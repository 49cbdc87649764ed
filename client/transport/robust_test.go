//go:build unix

package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The orphan-chain helper roles (see TestStopOrphansChain).
const orphanRoleEnv = "MCPX_TEST_ORPHAN_ROLE"

func init() {
	switch os.Getenv(orphanRoleEnv) {
	case "":
		return
	case "reaper":
		os.Exit(orphanReaper())
	case "o":
		// O ignores SIGTERM and starts C in a session of its own.
		signal.Ignore(syscall.SIGTERM)
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), orphanRoleEnv+"=c")
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if c.Start() != nil {
			os.Exit(1)
		}
		writeAtomic(os.Getenv("MCPX_TEST_ORPHAN_PIDFILE"), strconv.Itoa(c.Process.Pid))
		time.Sleep(60 * time.Second)
		os.Exit(0)
	case "c":
		signal.Ignore(syscall.SIGTERM)
		time.Sleep(60 * time.Second) // a leak cleans itself up
		os.Exit(0)
	}
}

func writeAtomic(path, data string) {
	_ = os.WriteFile(path+".tmp", []byte(data), 0o644)
	_ = os.Rename(path+".tmp", path)
}

// orphanReaper is mcpx in miniature: a subreaper whose child O has left
// its group, ignores SIGTERM and has a child C of its own (in another
// session, ignoring SIGTERM too). StopOrphans must end both: C becomes
// the reaper's child only once O is killed.
func orphanReaper() int {
	BecomeSubreaper()
	pidfile := os.Getenv("MCPX_TEST_ORPHAN_PIDFILE")
	o := exec.Command(os.Args[0])
	o.Env = append(os.Environ(), orphanRoleEnv+"=o")
	o.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := o.Start(); err != nil {
		fmt.Println("start O:", err)
		return 1
	}
	var cpid int
	for deadline := time.Now().Add(10 * time.Second); cpid == 0; {
		if b, err := os.ReadFile(pidfile); err == nil {
			cpid, _ = strconv.Atoi(string(b))
		}
		if time.Now().After(deadline) {
			fmt.Println("O never started C")
			_ = o.Process.Kill()
			return 1
		}
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	StopOrphans()
	took := time.Since(start)
	fmt.Printf("took %s\n", took)
	if syscall.Kill(cpid, 0) == nil {
		fmt.Printf("C (%d) outlived StopOrphans\n", cpid)
		_ = syscall.Kill(cpid, syscall.SIGKILL)
		return 1
	}
	if syscall.Kill(o.Process.Pid, 0) == nil {
		fmt.Printf("O (%d) outlived StopOrphans\n", o.Process.Pid)
		return 1
	}
	if took > 900*time.Millisecond {
		fmt.Printf("StopOrphans took %s\n", took)
		return 1
	}
	return 0
}

func TestStopOrphansChain(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a child subreaper is Linux only")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), orphanRoleEnv+"=reaper", "MCPX_TEST_ORPHAN_PIDFILE="+t.TempDir()+"/c.pid")
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("reaper: %v", err)
	}
}

// TestStdioServerRequestFlood: a server that sends request after request
// and never reads the answers costs a bounded number of goroutines, and
// the client's own requests still end by their deadline.
func TestStdioServerRequestFlood(t *testing.T) {
	stdoutR, stdoutW := io.Pipe()
	stdinR, stdinW, err := os.Pipe() // a real pipe: it fills, as a server's stdin does
	if err != nil {
		t.Fatal(err)
	}
	tr := NewStdio(stdoutR, stdinW, StdioOptions{MessageCeiling: 1 << 20})
	tr.SetRequestHandler(func(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
		return mcptransport.NewJSONRPCResultResponse(req.ID, json.RawMessage(`{"roots":[{"uri":"file:///a/root/long/enough/to/fill/the/pipe/soon"}]}`)), nil
	})
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = tr.Close()
		_ = stdoutW.Close()
		_ = stdinR.Close()
	})
	base := runtime.NumGoroutine()

	const flood = 20000
	go func() {
		for i := 0; i < flood; i++ {
			if _, err := fmt.Fprintf(stdoutW, `{"jsonrpc":"2.0","id":"r%d","method":"roots/list"}`+"\n", i); err != nil {
				return
			}
		}
	}()
	time.Sleep(300 * time.Millisecond)
	if n := runtime.NumGoroutine() - base; n > maxServerRequests+10 {
		t.Errorf("%d goroutines more while the server floods mcpx with requests, want at most %d", n, maxServerRequests+10)
	}

	// A request sent now cannot even be written (the pipe is full): its
	// deadline still ends it.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		req := mcptransport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(1)), Method: "tools/call"}
		_, err := tr.SendRequest(ctx, req)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("request: %v, want the deadline", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the request outlived its deadline by seconds")
	}
}

// TestStdioServerRequestsAnswered: a burst of server requests (more than
// are handled at once) is answered in full when the server reads.
func TestStdioServerRequestsAnswered(t *testing.T) {
	p := newPeer(t, 1<<20).start()
	p.tr.SetRequestHandler(func(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
		time.Sleep(time.Millisecond)
		return mcptransport.NewJSONRPCResultResponse(req.ID, json.RawMessage(`{}`)), nil
	})
	const n = 5 * maxServerRequests
	go func() {
		for i := 0; i < n; i++ {
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i))
		}
	}()
	seen := map[float64]bool{}
	for i := 0; i < n; i++ {
		m := p.recv()
		if _, ok := m["result"]; !ok {
			t.Fatalf("answer %v", m)
		}
		seen[m["id"].(float64)] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct answers, want %d", len(seen), n)
	}
}

// TestHTTPErrorBodyBounded: of an HTTP error answer only a prefix is read.
func TestHTTPErrorBodyBounded(t *testing.T) {
	const size = 50 << 20
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusInternalServerError)
		chunk := []byte(strings.Repeat("E", 64<<10))
		for left := size; left > 0; left -= len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	rt := NewHTTP(HTTPOptions{MessageCeiling: 128 << 20})
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || len(body) != errorBodyLimit {
		t.Errorf("read %d bytes of a %d-byte error body (%v), want %d", len(body), size, err, errorBodyLimit)
	}
}

// TestFramerNoResultNoError: a response must carry a result or an error;
// "error": null is none.
func TestFramerNoResultNoError(t *testing.T) {
	for line, ok := range map[string]bool{
		`{"jsonrpc":"2.0","id":1}`:                                                false,
		`{"jsonrpc":"2.0","id":1,"error":null}`:                                   false,
		`{"jsonrpc":"2.0","id":1,"result":null}`:                                  true,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":null}`:                       true,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}`:               true,
		`{"jsonrpc":"2.0","id":1,"result":null,"error":{"code":1,"message":"m"}}`: true,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`:   false,
	} {
		ids := &inflight{}
		ids.add("1")
		lim := &Limit{}
		f := newFramer(strings.NewReader(line+"\n"), 1<<20, lim, nil)
		f.inflight = ids
		_, _, err := f.next()
		violated := err != nil && err.Error() == lim.Violation()
		if violated == ok {
			t.Errorf("%s: error %v", line, err)
		} else if !ok && !strings.Contains(err.Error(), "answered request id 1 with neither a result nor an error") && !strings.Contains(err.Error(), "answered request id 1 with both a result and an error") {
			t.Errorf("%s: %s", line, err)
		}
	}
}

func TestExitStatusSignal(t *testing.T) {
	p, err := StartProcess(Command{Path: "/bin/sh", Args: []string{"-c", "kill -9 $$"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	<-p.exited
	if got := p.ExitStatus(); got != "was killed by SIGKILL" {
		t.Errorf("exit status %q", got)
	}
}

// TestWatchDeath: a leader that exits while a descendant in a session of
// its own holds its stdout is reported dead shortly after, with its status;
// one whose stdout ends is left to the transport.
func TestWatchDeath(t *testing.T) {
	p, err := StartProcess(Command{Path: "/bin/sh", Args: []string{"-c",
		`printf '{"partial":' ; setsid sleep 30 </dev/null 2>/dev/null & echo $! >&2; exit 4`}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		p.Stop()
		if lines := p.tail.Lines(1); len(lines) == 1 {
			if pid, err := strconv.Atoi(lines[0]); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}()
	go func() { _, _ = io.Copy(io.Discard, p.stdout) }() // the transport's reader
	dead := make(chan string, 1)
	start := time.Now()
	go p.WatchDeath(func(status string) { dead <- status })
	select {
	case status := <-dead:
		if status != "exited with status 4" {
			t.Errorf("status %q", status)
		}
		if took := time.Since(start); took > deathMax+200*time.Millisecond {
			t.Errorf("reported after %s", took)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the exit was never reported")
	}

	// Not reported: a leader whose stdout ends (the transport sees it), and
	// one that left a member of its group running (it may be the server).
	for _, script := range []string{"exit 0", "sleep 3 & exit 0"} {
		q, err := StartProcess(Command{Path: "/bin/sh", Args: []string{"-c", script}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer q.Stop()
		go func() { _, _ = io.Copy(io.Discard, q.stdout) }()
		go q.WatchDeath(func(status string) { dead <- script + ": " + status })
	}
	select {
	case status := <-dead:
		t.Errorf("reported %q", status)
	case <-time.After(deathMax + 300*time.Millisecond):
	}
}
