package transport

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/internal/text"
)

// peer is the server end of a Stdio over two io.Pipes.
type peer struct {
	t     *testing.T
	tr    *Stdio
	limit *Limit
	out   *io.PipeWriter // the server's stdout
	in    *bufio.Reader  // the server's stdin
}

func newPeer(t *testing.T, max int64) *peer {
	t.Helper()
	stdoutR, stdoutW := io.Pipe()
	stdinR, stdinW := io.Pipe()
	lf := &Limit{}
	tr := NewStdio(stdoutR, stdinW, StdioOptions{MessageCeiling: max, Limit: lf})
	p := &peer{t: t, tr: tr, limit: lf, out: stdoutW, in: bufio.NewReader(stdinR)}
	t.Cleanup(func() {
		_ = tr.Close()
		_ = stdoutW.Close()
		_ = stdinR.Close()
	})
	return p
}

func (p *peer) start() *peer {
	p.t.Helper()
	if err := p.tr.Start(context.Background()); err != nil {
		p.t.Fatal(err)
	}
	return p
}

// send writes lines on the server's stdout.
func (p *peer) send(lines ...string) {
	p.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(p.out, l+"\n"); err != nil {
			p.t.Fatalf("send: %v", err)
		}
	}
}

// recv reads one line the client wrote on the server's stdin.
func (p *peer) recv() map[string]any {
	p.t.Helper()
	line, err := p.in.ReadString('\n')
	if err != nil {
		p.t.Fatalf("recv: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil || strings.Count(line, "\n") != 1 {
		p.t.Fatalf("recv %q: %v", line, err)
	}
	return m
}

type reply struct {
	resp *mcptransport.JSONRPCResponse
	err  error
}

// request sends a request in the background.
func (p *peer) request(ctx context.Context, id int64, method string) <-chan reply {
	ch := make(chan reply, 1)
	go func() {
		resp, err := p.tr.SendRequest(ctx, mcptransport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(id), Method: method})
		ch <- reply{resp, err}
	}()
	return ch
}

func wait(t *testing.T, ch <-chan reply) reply {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("no reply")
		return reply{}
	}
}

func TestStdioInterfaces(t *testing.T) {
	p := newPeer(t, 1<<20)
	var tr mcptransport.Interface = p.tr
	if _, ok := tr.(mcptransport.BidirectionalInterface); !ok {
		t.Error("not bidirectional: the server's requests would go unanswered")
	}
	if _, ok := tr.(mcptransport.HTTPConnection); ok {
		t.Error("claims HTTPConnection")
	}
	if _, ok := tr.(interface{ SetConnectionLostHandler(func(error)) }); ok {
		t.Error("claims SetConnectionLostHandler")
	}
	if tr.GetSessionId() != "" {
		t.Error("a session id")
	}
}

func TestStdioRequests(t *testing.T) {
	p := newPeer(t, 1<<20).start()
	ctx := context.Background()
	one := p.request(ctx, 1, "tools/list")
	if m := p.recv(); m["method"] != "tools/list" || m["id"] != 1.0 || m["jsonrpc"] != "2.0" {
		t.Fatalf("sent %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)
	if r := wait(t, one); r.err != nil || string(r.resp.Result) != `{"tools":[]}` || r.resp.ID.String() != "int64:1" {
		t.Fatalf("reply %+v", r)
	}

	// Out of order, and an error reply.
	chans := map[int64]<-chan reply{}
	for id := int64(2); id <= 4; id++ {
		chans[id] = p.request(ctx, id, "m"+strconv.FormatInt(id, 10))
	}
	for range 3 {
		p.recv()
	}
	p.send(`{"jsonrpc":"2.0","id":4,"result":{"n":4}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"nope"}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"n":2}}`)
	if r := wait(t, chans[2]); r.err != nil || string(r.resp.Result) != `{"n":2}` {
		t.Errorf("2: %+v", r)
	}
	if r := wait(t, chans[3]); r.err != nil || r.resp.Error == nil || r.resp.Error.Code != -32601 || r.resp.Result != nil {
		t.Errorf("3: %+v", r)
	}
	if r := wait(t, chans[4]); r.err != nil || string(r.resp.Result) != `{"n":4}` {
		t.Errorf("4: %+v", r)
	}

	// A notification to the server is one line.
	sent := make(chan error, 1)
	go func() {
		sent <- p.tr.SendNotification(ctx, mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{Method: "notifications/initialized"}})
	}()
	if m := p.recv(); m["method"] != "notifications/initialized" || m["id"] != nil {
		t.Errorf("notification %v", m)
	}
	if err := <-sent; err != nil {
		t.Error(err)
	}
}

func TestStdioConcurrentWrites(t *testing.T) {
	p := newPeer(t, 1<<20).start()
	big := strings.Repeat("p", 256<<10) // longer than a pipe write at once
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = p.tr.SendRequest(context.Background(), mcptransport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(i + 1)), Method: "m", Params: map[string]string{"p": big}})
		}()
	}
	for range 8 {
		m := p.recv() // fails on an interleaved line
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{}}`, m["id"]))
	}
	wg.Wait()
}

func TestStdioServerRequests(t *testing.T) {
	p := newPeer(t, 1<<20).start()
	// No handler yet: method not found, as mcp-go's transport answers.
	p.send(`{"jsonrpc":"2.0","id":"s1","method":"ping"}`)
	if m := p.recv(); m["id"] != "s1" || m["error"].(map[string]any)["code"] != float64(mcp.METHOD_NOT_FOUND) {
		t.Errorf("without a handler: %v", m)
	}
	p.tr.SetRequestHandler(func(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
		if req.Method == "fail" {
			return nil, errors.New("it failed")
		}
		return mcptransport.NewJSONRPCResultResponse(req.ID, json.RawMessage(`{"pong":true}`)), nil
	})
	p.send(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	if m := p.recv(); m["id"] != 7.0 || m["result"].(map[string]any)["pong"] != true {
		t.Errorf("answer %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":8,"method":"fail"}`)
	if m := p.recv(); m["id"] != 8.0 || m["error"].(map[string]any)["message"] != "it failed" {
		t.Errorf("failure %v", m)
	}
}

// TestStdioEchoOfRefusal: an mcp-go server answers an error answer to a
// request it no longer waits for as if it were a request of mcpx's (an
// error response with that id). The echo of each error answer is dropped
// once, silently; anything else answering an id mcpx never sent still
// breaks the framing.
func TestStdioEchoOfRefusal(t *testing.T) {
	const echo = `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`
	setup := func(t *testing.T) (*peer, *[]string) {
		p := newPeer(t, 1<<20)
		skipped := new([]string)
		p.tr.fr.onSkip = func(s string) { *skipped = append(*skipped, s) }
		p.start()
		p.tr.SetRequestHandler(func(ctx context.Context, req mcptransport.JSONRPCRequest) (*mcptransport.JSONRPCResponse, error) {
			if req.Method == "ping" {
				return mcptransport.NewJSONRPCResultResponse(req.ID, json.RawMessage(`{}`)), nil
			}
			return nil, errors.New("the mcpx process went away")
		})
		return p, skipped
	}
	answered := func(t *testing.T, p *peer, line string) {
		t.Helper()
		p.send(line)
		if m := p.recv(); m["id"] != 2.0 {
			t.Fatalf("answer %v", m)
		}
	}
	broken := func(t *testing.T, p *peer, line string) {
		t.Helper()
		a := p.request(context.Background(), 1, "tools/call")
		p.recv()
		go func() { _, _ = io.WriteString(p.out, line+"\n") }()
		if r := wait(t, a); !errors.Is(r.err, mcptransport.ErrTransportClosed) {
			t.Fatalf("err %v", r.err)
		}
		if v := p.limit.Violation(); v != "the server answered request id 2, which mcpx never sent (or which was already answered)" {
			t.Errorf("violation %q", v)
		}
	}

	t.Run("dropped", func(t *testing.T) {
		p, skipped := setup(t)
		answered(t, p, `{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{}}`)
		a := p.request(context.Background(), 1, "tools/call")
		p.recv()
		// (not read to the end when the echo breaks the framing)
		go func() { _, _ = io.WriteString(p.out, echo+"\n"+`{"jsonrpc":"2.0","id":1,"result":{"ok":1}}`+"\n") }()
		if r := wait(t, a); r.err != nil || string(r.resp.Result) != `{"ok":1}` {
			t.Fatalf("after the echo: %+v", r)
		}
		if v := p.limit.Violation(); v != "" || len(*skipped) != 0 {
			t.Errorf("violation %q, skipped %q", v, *skipped)
		}
	})
	t.Run("twice", func(t *testing.T) {
		p, _ := setup(t)
		answered(t, p, `{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{}}`)
		p.send(echo)
		broken(t, p, echo)
	})
	t.Run("answered with a result", func(t *testing.T) {
		p, _ := setup(t)
		answered(t, p, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		broken(t, p, echo)
	})
	t.Run("a result", func(t *testing.T) {
		p, _ := setup(t)
		answered(t, p, `{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{}}`)
		broken(t, p, `{"jsonrpc":"2.0","id":2,"result":{}}`)
	})
}

func TestStdioNotifications(t *testing.T) {
	p := newPeer(t, 1<<20)
	got := make(chan mcp.JSONRPCNotification, 2)
	p.tr.SetNotificationHandler(func(n mcp.JSONRPCNotification) { got <- n })
	p.start()
	p.send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`,
		`{"jsonrpc":"2.0","id":null,"method":"notifications/progress"}`) // a null id is none
	for _, want := range []string{"notifications/message", "notifications/progress"} {
		select {
		case n := <-got:
			if n.Method != want {
				t.Errorf("got %s, want %s", n.Method, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no %s", want)
		}
	}
}

func TestStdioEOF(t *testing.T) {
	p := newPeer(t, 1<<20).start()
	ctx := context.Background()
	a, b := p.request(ctx, 1, "a"), p.request(ctx, 2, "b")
	p.recv()
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":1,"result":{}}`) // answered just before the end
	p.out.Close()
	if r := wait(t, a); r.err != nil {
		t.Errorf("an answer before EOF: %v", r.err)
	}
	r := wait(t, b)
	if !errors.Is(r.err, mcptransport.ErrTransportClosed) {
		t.Errorf("in flight at EOF: %v", r.err)
	}
	if _, err := p.tr.SendRequest(ctx, mcptransport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(3)), Method: "c"}); !errors.Is(err, mcptransport.ErrTransportClosed) {
		t.Errorf("after EOF: %v", err)
	}
	if err := p.tr.SendNotification(ctx, mcp.JSONRPCNotification{}); !errors.Is(err, mcptransport.ErrTransportClosed) {
		t.Errorf("notification after EOF: %v", err)
	}
}

func TestStdioClose(t *testing.T) {
	p := newPeer(t, 1<<20).start()
	a := p.request(context.Background(), 1, "a")
	p.recv()
	if err := p.tr.Close(); err != nil {
		t.Fatal(err)
	}
	if r := wait(t, a); !errors.Is(r.err, mcptransport.ErrTransportClosed) {
		t.Errorf("in flight at Close: %v", r.err)
	}
	if _, err := p.in.ReadByte(); err != io.EOF {
		t.Errorf("stdin not closed: %v", err)
	}
	if err := p.tr.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

func TestStdioCancel(t *testing.T) {
	p := newPeer(t, 1<<20).start()
	ctx, cancel := context.WithCancel(context.Background())
	a := p.request(ctx, 1, "slow")
	p.recv()
	cancel()
	if r := wait(t, a); !errors.Is(r.err, context.Canceled) {
		t.Fatalf("cancelled: %v", r.err)
	}
	// The late answer is dropped, not a violation; the connection goes on.
	b := p.request(context.Background(), 2, "next")
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":1,"result":{"late":true}}`, `{"jsonrpc":"2.0","id":2,"result":{"n":2}}`)
	if r := wait(t, b); r.err != nil || string(r.resp.Result) != `{"n":2}` {
		t.Fatalf("after a cancel: %+v", r)
	}
	if v := p.limit.Violation(); v != "" {
		t.Errorf("violation %q", v)
	}
	// A context ended already sends nothing.
	if _, err := p.tr.SendRequest(ctx, mcptransport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(3)), Method: "x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("ended ctx: %v", err)
	}
}

// TestStdioFraming: what the server writes that is not a message is
// skipped; what breaks the framing or the ceiling fails what is in flight
// at once, and is recorded in the connection's Limit.
func TestStdioFraming(t *testing.T) {
	p := newPeer(t, 1<<20)
	var skipped []string
	p.tr.fr.onSkip = func(s string) { skipped = append(skipped, s) }
	p.start()
	a := p.request(context.Background(), 1, "a")
	p.recv()
	p.send("starting up", "", `{"level":"info","msg":"ready"}`, "{INFO} ok", "[1,2", `{"jsonrpc":"2.0","id":1,"result":{"ok":1}}`)
	if r := wait(t, a); r.err != nil || string(r.resp.Result) != `{"ok":1}` {
		t.Fatalf("through the noise: %+v", r)
	}
	if strings.Join(skipped, "|") != `starting up|{"level":"info","msg":"ready"}|{INFO} ok|[1,2` {
		t.Errorf("skipped %q", skipped)
	}

	for _, tc := range []struct{ name, line, want string }{
		{"batch", `[{"jsonrpc":"2.0","id":1,"result":{}}]`,
			`the server sent a JSON-RPC batch, which MCP does not allow since 2025-06-18: [{"jsonrpc":"2.0","id":1,"result":{}}]`},
		{"bad json", `{"jsonrpc":"2.0","id":1,"result":{"x"`,
			`the server sent a line that is not valid JSON-RPC (unexpected end of JSON input): {"jsonrpc":"2.0","id":1,"result":{"x"`},
		{"wrong id", `{"jsonrpc":"2.0","id":987654,"result":{}}`,
			`the server answered request id 987654, which mcpx never sent (or which was already answered)`},
		{"string id", `{"jsonrpc":"2.0","id":"1","result":{}}`,
			`the server answered request id "1", which mcpx never sent (or which was already answered)`},
		{"no id", `{"jsonrpc":"2.0","result":{}}`,
			`the server sent a message with neither method nor id: {"jsonrpc":"2.0","result":{}}`},
		{"ceiling", `{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("x", 2<<20) + `"}`,
			`the server sent a JSON-RPC message too large to accept: over the message ceiling of 1 MiB (1048576 bytes)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPeer(t, 1<<20).start()
			a := p.request(context.Background(), 1, "tools/list")
			p.recv()
			go func() { _, _ = io.WriteString(p.out, tc.line+"\n") }() // the ceiling is not read to the end
			r := wait(t, a)
			if !errors.Is(r.err, mcptransport.ErrTransportClosed) {
				t.Fatalf("err %v", r.err)
			}
			got := p.limit.Violation()
			if le := p.limit.Get(); le != nil {
				got = le.Error()
			}
			if got != tc.want {
				t.Errorf("recorded %q", got)
			}
		})
	}
}

// TestStdioResultInLine: a 20 MiB response is held once; its result is a
// sub-slice of the line, not a copy.
func TestStdioResultInLine(t *testing.T) {
	p := newPeer(t, 64<<20) // not started: the test runs the reader's steps itself
	ctx := context.Background()
	a := p.request(ctx, 1, "resources/read")
	p.recv()
	payload := strings.Repeat("A", 20<<20)
	go func() {
		_, _ = io.WriteString(p.out, `{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"x://b","blob":"`+payload+`"}]}}`+"\n")
	}()
	line, env, err := p.tr.fr.next()
	if err != nil {
		t.Fatal(err)
	}
	p.tr.dispatch(line, env)
	r := wait(t, a)
	if r.err != nil {
		t.Fatal(r.err)
	}
	res := r.resp.Result
	at, ok := text.Within(line, text.StringView(res))
	if !ok {
		t.Fatalf("the result (%d bytes) is not inside the line (%d bytes)", len(res), len(line))
	}
	if at != len(`{"jsonrpc":"2.0","id":1,"result":`) || len(res) != len(line)-len(`{"jsonrpc":"2.0","id":1,"result":`)-1 {
		t.Errorf("result at offset %d, %d bytes", at, len(res))
	}
	if cap(line) > len(line)+len(line)/8 {
		t.Errorf("line capacity %d for %d bytes", cap(line), len(line))
	}

	// Through the reader goroutine, the same line costs about its size.
	p2 := newPeer(t, 64<<20).start()
	b := p2.request(ctx, 1, "resources/read")
	p2.recv()
	msg := []byte(`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"x://b","blob":"` + payload + `"}]}}` + "\n")
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	go func() { _, _ = p2.out.Write(msg) }()
	r = wait(t, b)
	runtime.ReadMemStats(&after)
	if r.err != nil || len(r.resp.Result) != len(msg)-len(`{"jsonrpc":"2.0","id":1,"result":`)-2 {
		t.Fatalf("reply %v", r.err)
	}
	// Its chunks, then the line they are joined into; nothing more.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*uint64(len(msg))+1<<20 {
		t.Errorf("%d MiB allocated to receive a %d MiB line", alloc>>20, len(msg)>>20)
	}
}

// TestStdioPeakMemory measures, in a process of its own, the peak memory of
// receiving a 67 MiB line that carries a 50 MiB blob in base64 and decoding
// that blob, as `mcpx read` does. Set MCPX_PEAK=1 to run it (it reports the
// figures with -v).
func TestStdioPeakMemory(t *testing.T) {
	if os.Getenv("MCPX_PEAK") == "" && os.Getenv("MCPX_PEAK_CHILD") == "" {
		t.Skip("set MCPX_PEAK=1 to measure")
	}
	if os.Getenv("MCPX_PEAK_CHILD") != "" {
		peakChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStdioPeakMemory$", "-test.v")
	cmd.Env = append(os.Environ(), "MCPX_PEAK_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if i := strings.Index(l, "peak:"); i >= 0 {
			t.Log(l[i:])
		}
	}
}

func peakChild(t *testing.T) {
	const blob = 50 << 20
	p := newPeer(t, 128<<20).start()
	var peakHeap atomic.Uint64
	stop := make(chan struct{})
	go func() { // sample the heap (live and garbage not yet swept)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64() + s[1].Value.Uint64(); v > peakHeap.Load() {
				peakHeap.Store(v)
			}
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	}()
	a := p.request(context.Background(), 1, "resources/read")
	p.recv()
	go func() { // the server streams the line, holding little of it
		w := bufio.NewWriterSize(p.out, 64<<10)
		w.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"x://b","mimeType":"application/octet-stream","blob":"`)
		chunk := make([]byte, 3<<10)
		for i := range chunk {
			chunk[i] = byte(i)
		}
		enc := base64.NewEncoder(base64.StdEncoding, w)
		for left := blob; left > 0; left -= len(chunk) {
			enc.Write(chunk[:min(left, len(chunk))])
		}
		enc.Close()
		w.WriteString("\"}]}}\n")
		w.Flush()
	}()
	r := wait(t, a)
	if r.err != nil {
		t.Fatal(r.err)
	}
	lineHWM := vmHWM()
	// What mcpx read does next: find the blob in the result and decode it.
	raw := r.resp.Result
	i := strings.Index(string(raw[:200]), `"blob":"`) + len(`"blob":"`)
	j := len(raw) - len(`"}]}`)
	dec := make([]byte, base64.StdEncoding.DecodedLen(j-i))
	n, err := base64.StdEncoding.Decode(dec, raw[i:j])
	if err != nil || n != blob {
		t.Fatalf("decoded %d: %v", n, err)
	}
	close(stop)
	runtime.KeepAlive(raw)
	runtime.KeepAlive(dec)
	t.Logf("peak: line %d MiB, blob %d MiB; VmHWM after the line %d MiB, after decoding %d MiB; heap peak %d MiB",
		len(raw)>>20, blob>>20, lineHWM>>10, vmHWM()>>10, peakHeap.Load()>>20)
}

// vmHWM is the process's peak RSS in KiB.
func vmHWM() uint64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.ParseUint(f[1], 10, 64)
			return n
		}
	}
	return 0
}
