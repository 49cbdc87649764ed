package client

// Attacks on the requests a server may send mcpx during an operation (REQUESTS
// FROM SERVERS in mcpx(1)), made the way a hostile server would make them:
// floods, odd ids, input_required results built to cost, a server that stops
// reading. A test that fails here shows a bug (see the report that came with
// these tests).

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/fail"
)

// hxPeer is the server end of a Conn over OS pipes (as a stdio child's
// are: mcpx's writes can be given a deadline): lines is what mcpx wrote on
// the server's stdin, until deaf is set (then nothing more is read, and
// the pipe fills up).
type hxPeer struct {
	t     *testing.T
	mu    sync.Mutex
	out   *os.File
	lines chan string
	deaf  atomic.Bool
}

func (p *hxPeer) send(lines ...string) {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range lines {
		if _, err := io.WriteString(p.out, l+"\n"); err != nil {
			p.t.Errorf("send: %v", err)
			return
		}
	}
}

// next returns the next line mcpx wrote.
func (p *hxPeer) next() string {
	p.t.Helper()
	select {
	case l := <-p.lines:
		return l
	case <-time.After(5 * time.Second):
		p.t.Fatal("mcpx wrote nothing")
		return ""
	}
}

// hxConn is a Conn (initialized, legacy era) to a scripted stdio server,
// made as connect makes one: the tap with the hooks, mcp-go's client with
// the hooks' options and notification handler.
func hxConn(t *testing.T, o Options) (*Conn, *hxPeer) {
	t.Helper()
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	lf := &transport.Limit{}
	tr := transport.NewStdio(stdoutR, stdinW, transport.StdioOptions{MessageCeiling: 64 << 20, Limit: lf})
	c := scriptedConn(t, o, "2025-11-25", tr, lf)
	p := &hxPeer{t: t, out: stdoutW, lines: make(chan string, 1<<16)}
	go func() {
		in := bufio.NewReader(stdinR)
		for !p.deaf.Load() {
			line, err := in.ReadString('\n')
			if err != nil {
				return
			}
			select {
			case p.lines <- strings.TrimSuffix(line, "\n"):
			default: // nobody looks: drop
			}
		}
	}()
	t.Cleanup(func() {
		_ = tr.Close()
		_ = stdoutW.Close()
		_ = stdinR.Close()
		_ = stdoutR.Close()
	})
	return c, p
}

// hxID is the raw id of a request line of mcpx's.
func hxID(t *testing.T, line string) string {
	t.Helper()
	id := gjson.Get(line, "id")
	if !id.Exists() {
		t.Fatalf("no id in %s", line)
	}
	return id.Raw
}

var hxDecline = func(context.Context, Elicitation) Answer { return Answer{Action: "decline"} }

// TestHostileMRTRSlowAnswer was dropped: the --timeout clock stops while a
// person answers (REQUESTS FROM SERVERS in mcpx(1); commands/deadline.go), so
// an answer is waited for past the deadline on purpose; one asked when time is
// already out is cancelled at once (serverHooks.answerInputElicit).

// TestHostileSinkRetainsInputs was dropped: the input_required results of
// a call are no longer kept beside it; Conn.roundTrips holds the last one.

// TestHostileQuestionsInOrder: a server sends its questions back to back
// (a wizard: step 1, step 2, ...). They are asked one at a time, but each
// is handled in a goroutine of its own that races the others for the
// hooks' mutex: the person is asked them in any order (a flood of 30 was
// asked q0, then q16). Expected: in the order the server sent them.
func TestHostileQuestionsInOrder(t *testing.T) {
	const n = 12
	var mu sync.Mutex
	var order []string
	c, p := hxConn(t, Options{Elicit: func(_ context.Context, e Elicitation) Answer {
		time.Sleep(2 * time.Millisecond) // a fast person
		mu.Lock()
		order = append(order, e.Message)
		mu.Unlock()
		return Answer{Action: "decline"}
	}})
	_ = c
	var want, batch []string
	for i := range n {
		want = append(want, fmt.Sprintf("step %d", i))
		batch = append(batch, fmt.Sprintf(`{"jsonrpc":"2.0","id":"e%d","method":"elicitation/create","params":{"message":"step %d","requestedSchema":{"properties":{}}}}`, i, i))
	}
	p.send(strings.Join(batch, "\n"))
	for range n {
		p.next()
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(order, ",") != strings.Join(want, ",") {
		t.Errorf("asked in the order\n %s\nsent in the order\n %s", strings.Join(order, ", "), strings.Join(want, ", "))
	}
}

// TestHostileRequestIDsEchoed: JSON-RPC answers a request with its id,
// exactly. mcp-go's RequestId decodes a number through float64, so an
// integer id past 2^53 comes back as another number and the server never
// gets its answer (a server that numbers its requests with random 64-bit
// ids).
func TestHostileRequestIDsEchoed(t *testing.T) {
	c, p := hxConn(t, Options{Elicit: hxDecline, Roots: []Root{}})
	_ = c
	for _, id := range []string{`1`, `-1`, `0`, `""`, `"x"`, `1.5`, `9007199254740993`, `9223372036854775807`, `-9007199254740993`} {
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		got := p.next()
		if want := `{"jsonrpc":"2.0","id":` + id + `,"result":{}}`; got != want {
			t.Errorf("ping with id %s answered\n %s\nwant\n %s", id, got, want)
		}
	}
}

// TestHostileProgressAfterTheCall: progress is drawn for "the request in
// flight" (man page, Progress). Once the call has its result, the server's
// progress notifications for it still reach OnProgress (the token is never
// forgotten), and draw the progress line again after mcpx has cleared it,
// while it renders and prints the result.
func TestHostileProgressAfterTheCall(t *testing.T) {
	var mu sync.Mutex
	var got []Progress
	c, p := hxConn(t, Options{OnProgress: func(pr Progress) { mu.Lock(); got = append(got, pr); mu.Unlock() }})
	call := srCallTool(c, context.Background(), "")
	line := p.next()
	tok := gjson.Get(line, "params._meta.progressToken").Raw
	p.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + tok + `,"progress":1,"total":2}}`)
	p.send(`{"jsonrpc":"2.0","id":` + hxID(t, line) + `,"result":{"content":[]}}`)
	if r := <-call; r.err != nil {
		t.Fatal(r.err)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + tok + `,"progress":2,"total":2,"message":"late"}}`)
	// A ping after it: once answered, the notification before it was handled.
	p.send(`{"jsonrpc":"2.0","id":"sync","method":"ping"}`)
	p.next()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].Message != "" {
		t.Errorf("progress reported %+v; want only the one sent while the call was in flight", got)
	}
}

// TestHostileFloodWhileAsking: over stdio, a person answers a question
// while the server floods mcpx with 5000 more: mcpx reads no further than
// it can handle (16 requests), so the flood costs no memory.
func TestHostileFloodWhileAsking(t *testing.T) {
	release := make(chan struct{})
	var asked atomic.Int32
	c, p := hxConn(t, Options{Elicit: func(context.Context, Elicitation) Answer {
		if asked.Add(1) == 1 {
			<-release // the person thinks
		}
		return Answer{Action: "decline"}
	}})
	_ = c
	base := runtime.NumGoroutine()
	go func() {
		var b strings.Builder
		for i := range 5000 {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"elicitation/create","params":{"message":"q%d","requestedSchema":{"properties":{}}}}`+"\n", i, i)
		}
		p.mu.Lock()
		_, _ = io.WriteString(p.out, b.String())
		p.mu.Unlock()
	}()
	most := 0
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		most = max(most, runtime.NumGoroutine()-base)
	}
	if most > 100 {
		t.Errorf("%d more goroutines while one question is asked", most)
	}
	close(release)
	for range 5000 {
		p.next()
	}
	if asked.Load() != 5000 {
		t.Errorf("%d elicitations asked, want 5000", asked.Load())
	}
}

// TestHostileDeafServer: the server stops reading its stdin and floods
// mcpx with questions, whose answers fill the pipe; then the call's time
// runs out. notifications/cancelled cannot be written either: it is given
// up after 250 ms (cancelTimeout) and the call ends.
func TestHostileDeafServer(t *testing.T) {
	c, p := hxConn(t, Options{Elicit: hxDecline})
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	call := srCallTool(c, ctx, "")
	p.next()
	p.deaf.Store(true)
	go func() {
		var b strings.Builder
		for i := range 5000 {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"elicitation/create","params":{"message":"%s","requestedSchema":{"properties":{}}}}`+"\n", i, strings.Repeat("q", 100))
		}
		p.mu.Lock()
		_, _ = io.WriteString(p.out, b.String())
		p.mu.Unlock()
	}()
	select {
	case r := <-call:
		took := time.Since(start)
		var te *fail.TimeoutError
		if !errors.As(r.err, &te) {
			t.Errorf("error %T %v, want a TimeoutError", r.err, r.err)
		}
		if took > 500*time.Millisecond+cancelTimeout+400*time.Millisecond {
			t.Errorf("the call ended after %s (deadline 500ms, cancellation bound %s)", took.Round(time.Millisecond), cancelTimeout)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not end")
	}
}

// TestHostileHTTPFloodWhileAsking was dropped: mcp-go starts a goroutine per HTTP server request; mcpx answers past 16 waiting with an error at once (serverHooks.wrap), so each ends at once, but how many exist at an instant is mcp-go's doing.

// TestHostileBigQuestionsWhileAsking became TestHostileBigQuestionsBudget (at the end): stdio now bounds the requests it holds in bytes as well as in number.

// TestHostileMRTRManyInputRequests: one input_required result asks for n
// elicitations (a 70 KB message): more than maxInputRequests, it is refused
// before any is asked, and the call ends at once, well within its deadline.
func TestHostileMRTRManyInputRequests(t *testing.T) {
	const n = 700
	var asked atomic.Int32
	c, p := hxConn(t, Options{Elicit: func(context.Context, Elicitation) Answer { asked.Add(1); return Answer{Action: "decline"} }})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	call := srCallTool(c, ctx, "")
	id := hxID(t, p.next())
	var reqs []string
	for i := range n {
		reqs = append(reqs, fmt.Sprintf(`"k%d":{"method":"elicitation/create","params":{"message":"q%d","requestedSchema":{"type":"object","properties":{}}}}`, i, i))
	}
	p.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"input_required","requestState":"s","inputRequests":{` + strings.Join(reqs, ",") + `}}}`)
	select {
	case r := <-call:
		took := time.Since(start)
		if be, ok := fail.As(r.err, fail.ServerError); !ok || be.What != "result" || !strings.Contains(be.Message, fmt.Sprintf("with %d input requests; mcpx answers at most %d at once", n, maxInputRequests)) || asked.Load() != 0 {
			t.Errorf("error %T %v (%d asked), want the result refused before any is asked", r.err, r.err, asked.Load())
		}
		if took > 800*time.Millisecond {
			t.Errorf("the call ended %s after it started, its deadline 300ms (%d of %d elicitations answered)", took.Round(time.Millisecond), asked.Load(), n)
		}
	case <-time.After(3 * time.Second):
		t.Errorf("the call has not ended 3s after it started, its deadline 300ms; %d of %d elicitations answered", asked.Load(), n)
	}
}

// TestHostileBigQuestionsBudget: while a person answers one question, the
// questions held over stdio are bounded in bytes (maxServerRequestBytes):
// of eight 4 MiB questions, three fit beside the first and five are refused
// at once with an error, so mcpx does not hold 16 of them.
func TestHostileBigQuestionsBudget(t *testing.T) {
	release := make(chan struct{})
	var asked atomic.Int32
	c, p := hxConn(t, Options{Elicit: func(context.Context, Elicitation) Answer {
		if asked.Add(1) == 1 {
			<-release
		}
		return Answer{Action: "decline"}
	}})
	_ = c
	p.send(`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"first","requestedSchema":{"type":"object","properties":{}}}}`)
	for asked.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	big := strings.Repeat("x", 4<<20)
	for i := 2; i <= 9; i++ {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"elicitation/create","params":{"message":"%s","requestedSchema":{"type":"object","properties":{}}}}`, i, big))
	}
	var refused []string
	for len(refused) < 5 {
		l := p.next()
		if strings.Contains(l, "too many requests at once") {
			refused = append(refused, hxID(t, l))
		} else {
			t.Fatalf("before the first answer, mcpx wrote %.200s", l)
		}
	}
	close(release)
	answered := map[string]bool{}
	for len(answered) < 4 {
		l := p.next()
		if !strings.Contains(l, `"action":"decline"`) {
			t.Fatalf("want the declines of the questions held, got %.200s", l)
		}
		answered[hxID(t, l)] = true
	}
	if strings.Join(refused, ",") != "5,6,7,8,9" || !answered["1"] || !answered["2"] || !answered["3"] || !answered["4"] {
		t.Errorf("refused %v, answered %v; want 5-9 refused, 1-4 answered", refused, answered)
	}
}
