package commands

// Attacks on what a server may ask of mcpx (REQUESTS FROM SERVERS in mcpx(1)),
// the way a hostile server or a careless user would make them: secrets at the
// edge of a clip, notes racing a question, an interrupt that meets a queue of
// questions, schemas built to cost, and schemas that are simply wrong. A test
// that fails here shows a bug (see the report that came with these tests).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/output"
)

// hxSecret is a secret of the config (an API_TOKEN env value), which the server knows
// and quotes.
const hxSecret = "s3cr3t-VALUE-123456"

// hxApp is elApp with hxSecret registered.
func hxApp(in io.Reader, tty bool) (*app, *bytes.Buffer) {
	a, stderr := elApp(in, tty)
	a.s.Secrets().Add(hxSecret)
	return a, stderr
}

// hxNoPrefix fails when stderr shows any prefix of the secret of 4
// characters or more (a secret cut by a clip before it was masked).
func hxNoPrefix(t *testing.T, what, stderr string) {
	t.Helper()
	for n := len(hxSecret); n >= 4; n-- {
		if i := strings.Index(stderr, hxSecret[:n]); i >= 0 {
			t.Errorf("%s: stderr shows %q, the first %d characters of a secret: ...%q", what, hxSecret[:n], n, stderr[max(0, i-20):min(len(stderr), i+n+10)])
			return
		}
	}
}

// hxTail is the end of a long text, for a message.
func hxTail(s string) string { return s[max(0, len(s)-160):] }

// TestHostileSecretAtTheClip: a server that knows a secret of the config
// places it where a note is clipped (the 500 characters of a log message or an
// elicitation's message, the 80 of a field name or a logger, the 2000 of a
// URL). The secret must be masked before the clip, as Conn.shown and the
// framer do, never cut into a printable prefix (SECRETS in mcpx(1): secrets
// are *** everywhere).
func TestHostileSecretAtTheClip(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(a *app)
		want string // the whole stderr (pipe)
	}{
		{"log data at 500", func(a *app) {
			a.onLog(client.LogMessage{Server: "s", Level: "warning", Data: json.RawMessage(`"` + strings.Repeat("a", 495) + hxSecret + `"`)})
		}, "mcpx: note: server \"s\" logged warning: " + strings.Repeat("a", 495) + "***\n"},
		{"logger at 80", func(a *app) {
			a.onLog(client.LogMessage{Server: "s", Level: "error", Logger: strings.Repeat("l", 75) + hxSecret, Data: json.RawMessage(`"x"`)})
		}, "mcpx: note: server \"s\" logged error: " + strings.Repeat("l", 75) + "***: x\n"},
		{"elicitation message at 500", func(a *app) {
			elAsk(t, a, client.Elicitation{Mode: "form", Message: strings.Repeat("m", 495) + hxSecret, Schema: raw(`{"properties":{}}`)})
		}, "mcpx: note: server \"s\" asked: " + strings.Repeat("m", 495) + "***; accepted with no values (no field has a default) " + elWhy + "\n"},
		{"field name at 80", func(a *app) {
			elAsk(t, a, client.Elicitation{Mode: "form", Message: "M", Schema: raw(`{"properties":{"` + strings.Repeat("n", 75) + hxSecret + `":{"type":"string","default":"x"}}}`)})
		}, "mcpx: note: server \"s\" asked: M; accepted with the defaults " + strings.Repeat("n", 75) + "***=\"x\" " + elWhy + "\n"},
		{"url at 2000", func(a *app) {
			elAsk(t, a, client.Elicitation{Mode: "url", Message: "Go", URL: "https://x.example/" + strings.Repeat("u", 1977) + hxSecret, ID: "i"})
		}, "mcpx: server \"s\" asks you to open a URL: Go:\nhttps://x.example/" + strings.Repeat("u", 1977) + "***\n" +
			"mcpx: note: server \"s\": declined the URL request " + elWhy + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, stderr := hxApp(nil, false)
			tc.run(a)
			hxNoPrefix(t, tc.name, stderr.String())
			if got := stderr.String(); got != tc.want {
				t.Errorf("stderr\n got ...%q\nwant ...%q", hxTail(got), hxTail(tc.want))
			}
		})
	}
}

// TestHostileNotesDuringAQuestion: while a person answers a question on the
// terminal, the server keeps logging warnings (notes, written by the
// connection's reader) and drawing progress. Everything mcpx writes on
// stderr must be serialized: the question's own writes (askForm, askLine,
// askField) go to the same escaping writer as the notes without the Log's
// lock. Run with -race.
func TestHostileNotesDuringAQuestion(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	// stderr itself is safe for concurrent writes (as os.Stderr is): a race
	// reported here is in mcpx's own writers.
	stderr := &hxLockedBuffer{}
	s := output.New(inR, io.Discard, stderr, true, true, true)
	a := &app{s: s, log: output.NewLog(s, false, false), getenv: func(string) string { return "" }}
	clk, stop := newClock(context.Background(), time.Minute)
	defer stop()
	var wg sync.WaitGroup
	quit := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-quit:
				return
			default:
			}
			a.onLog(client.LogMessage{Server: "s", Level: "warning", Data: json.RawMessage(fmt.Sprintf(`"é%d \u001b[2J"`, i))})
			a.onProgress(client.Progress{Server: "s", Progress: float64(i), Total: 1e6})
			time.Sleep(100 * time.Microsecond)
		}
	}()
	go func() {
		time.Sleep(50 * time.Millisecond)
		_, _ = io.WriteString(inW, "y\n")
		time.Sleep(50 * time.Millisecond)
		_, _ = io.WriteString(inW, "Ann\n")
	}()
	ans := a.elicitor(context.Background(), clk, false, "")(context.Background(), client.Elicitation{Server: "s", Mode: "form", Message: "Name?",
		Schema: raw(`{"properties":{"name":{"type":"string","description":"your name"}},"required":["name"]}`)})
	close(quit)
	wg.Wait()
	if ans.Action != "accept" || string(ans.Content) != `{"name":"Ann"}` {
		t.Errorf("answer %s %s", ans.Action, ans.Content)
	}
	if strings.Contains(stderr.String(), "\x1b[2J") {
		t.Errorf("a server's escape reached the terminal unescaped")
	}
}

// hxLockedBuffer is a bytes.Buffer safe for concurrent writes.
type hxLockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *hxLockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *hxLockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestHostileInterruptedQueue: a server queued many questions; the user
// answers one and presses Ctrl-C. The interrupt cancels the question being
// asked; the questions still queued must not be put on the terminal one
// after the other (each shown, then cancelled) before mcpx exits: once
// interrupted, mcpx asks nothing more (each is cancelled, at most with a
// note).
func TestHostileInterruptedQueue(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	a, stderr := hxApp(inR, true)
	clk, stop := newClock(context.Background(), time.Minute)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Ctrl-C, while questions were queued
	elicit := a.elicitor(ctx, clk, false, "")
	for i := range 3 {
		ans := elicit(context.Background(), client.Elicitation{Server: "s", Mode: "form", Message: fmt.Sprintf("queued %d", i), Schema: raw(`{"properties":{}}`)})
		if ans.Action != "cancel" {
			t.Errorf("queued %d: answer %+v, want cancel", i, ans)
		}
		ans = elicit(context.Background(), client.Elicitation{Server: "s", Mode: "url", Message: fmt.Sprintf("url %d", i), URL: "https://x.example/", ID: "i"})
		if ans.Action != "cancel" {
			t.Errorf("url %d: answer %+v, want cancel", i, ans)
		}
	}
	for _, q := range []string{"asks: queued", "answer? [y]es", "open it yourself"} {
		if strings.Contains(stderr.String(), q) {
			t.Errorf("after the interrupt, mcpx still asked (%q):\n%s", q, stderr)
			break
		}
	}
}

// TestHostileManyChoicesDefault: a multi-choice field of n choices whose
// default lists every one costs n*n/2 comparisons to check (isChoice in a
// loop): a 1 MB schema costs seconds of CPU. In the 2026-07-28 era this
// runs inside mcp-go's input loop, which waits for it past --timeout (see
// the client's TestHostileMRTRQuadraticDefault and the e2e script).
func TestHostileManyChoicesDefault(t *testing.T) {
	const n = 20000
	enum := make([]string, n)
	def := make([]string, n)
	for i := range n {
		enum[i] = fmt.Sprintf("v%d", i)
		def[n-1-i] = enum[i]
	}
	e, _ := json.Marshal(enum)
	d, _ := json.Marshal(def)
	schema := raw(`{"properties":{"many":{"type":"array","items":{"type":"string","enum":` + string(e) + `},"default":` + string(d) + `}},"required":["many"]}`)
	a, _ := hxApp(nil, false)
	start := time.Now()
	ans := elAsk(t, a, client.Elicitation{Mode: "form", Message: "pick", Schema: schema})
	took := time.Since(start)
	if ans.Action != "accept" || !bytes.Equal(ans.Content, []byte(`{"many":`+string(d)+`}`)) {
		t.Errorf("answer %s (%d bytes)", ans.Action, len(ans.Content))
	}
	if took > 2*time.Second {
		t.Errorf("answering a %d KB schema by itself took %s (quadratic in the number of choices)", len(schema)>>10, took.Round(time.Millisecond))
	}
}

// TestHostileSchemas: schemas that are wrong in every way; mcpx answers
// each by itself without a panic, and the answer is exact.
func TestHostileSchemas(t *testing.T) {
	many := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"properties":{`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"p%d":{"type":"integer","default":%d}`, i, i)
		}
		b.WriteString(`}}`)
		return b.String()
	}
	deep := strings.Repeat(`{"a":`, 5000) + `1` + strings.Repeat(`}`, 5000)
	for _, tc := range []struct {
		name, schema    string
		action, content string
	}{
		{"required is a string", `{"properties":{"a":{"type":"string"}},"required":"a"}`, "decline", ``},
		{"required names no property", `{"properties":{},"required":["x",{"y":1},null]}`, "accept", `{}`},
		{"properties is a number", `{"properties":5}`, "accept", `{}`},
		{"properties is null", `{"properties":null,"required":["a"]}`, "accept", `{}`},
		{"no properties", `{}`, "accept", `{}`},
		{"default 1e309", `{"properties":{"n":{"type":"number","default":1e309}},"required":["n"]}`, "decline", ``},
		{"default -0", `{"properties":{"n":{"type":"number","default":-0}},"required":["n"]}`, "accept", `{"n":-0}`},
		{"default NaN string", `{"properties":{"n":{"type":"number","default":"NaN"}},"required":["n"]}`, "decline", ``},
		{"integer default 2^63", `{"properties":{"n":{"type":"integer","default":9223372036854775808}},"required":["n"]}`, "accept", `{"n":9223372036854775808}`},
		{"default of the wrong type everywhere", `{"properties":{"s":{"type":"string","default":1},"b":{"type":"boolean","default":"true"},"e":{"type":"string","enum":["a"],"default":["a"]}}}`, "accept", `{}`},
		{"minimum not a number", `{"properties":{"n":{"type":"integer","default":5,"minimum":"9","maximum":null}},"required":["n"]}`, "accept", `{"n":5}`},
		{"maxLength negative", `{"properties":{"s":{"type":"string","default":"abc","maxLength":-1}},"required":["s"]}`, "accept", `{"s":"abc"}`},
		{"deeply nested property", `{"properties":{"d":` + deep + `}}`, "accept", `{}`},
		{"enum not an array", `{"properties":{"e":{"type":"string","enum":"a","default":"a"}},"required":["e"]}`, "accept", `{"e":"a"}`},
		{"10000 properties, every one defaulted", many(10000), "accept", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, stderr := hxApp(nil, false)
			ans := elAsk(t, a, client.Elicitation{Mode: "form", Message: "M", Schema: raw(tc.schema)})
			if ans.Action != tc.action || (tc.content != "" && string(ans.Content) != tc.content) || (tc.content == "" && tc.action == "decline" && ans.Content != nil) {
				t.Errorf("answer %s %.200s, want %s %s", ans.Action, ans.Content, tc.action, tc.content)
			}
			if tc.content == "" && tc.action == "accept" && !json.Valid(ans.Content) {
				t.Errorf("content is not JSON: %.200s", ans.Content)
			}
			if n := strings.Count(stderr.String(), "\n"); n != 1 {
				t.Errorf("%d lines on stderr, want one note", n)
			}
		})
	}
}

// TestHostileTerminalText: on a terminal every server string of an
// elicitation (message, field name, title, description, choices, default,
// URL) is shown escaped and on one line; nothing the server sent starts a
// line of mcpx's.
func TestHostileTerminalText(t *testing.T) {
	const evil = "\x1b]0;pwned\x07\r\nmcpx: error: forged\u2028x\u202ey\u200f\u0085\x7f"
	j := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	schema := `{"properties":{` + j("f"+evil) + `:{"type":"string","title":` + j("T"+evil) + `,"description":` + j("D"+evil) +
		`,"enum":[` + j("c"+evil) + `],"enumNames":[` + j("N"+evil) + `]}},"required":[` + j("f"+evil) + `]}`
	for _, tc := range []struct {
		name string
		in   string
		e    client.Elicitation
	}{
		{"form asked", "y\n1\n", client.Elicitation{Mode: "form", Message: "M" + evil, Schema: raw(schema)}},
		{"url asked", "y\n", client.Elicitation{Mode: "url", Message: "M" + evil, URL: "javascript:alert(1)" + evil, ID: "i"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, stderr := hxApp(strings.NewReader(tc.in), true)
			ans := elAsk(t, a, tc.e)
			if ans.Action != "accept" {
				t.Errorf("answer %+v", ans)
			}
			out := stderr.String()
			for _, bad := range []string{"\x1b", "\r", "\u2028", "\u202e", "\u200f", "\u0085", "\x7f", "\x07"} {
				if strings.Contains(out, bad) {
					t.Errorf("stderr holds %q:\n%q", bad, out)
				}
			}
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), "mcpx: error") {
					t.Errorf("a line of the server's: %q", l)
				}
			}
		})
	}
}

// TestHostileURLRequiredHintSecret: a -32042 error (URL elicitation
// required) puts each URL of its data in a hint, cut at 2000 characters
// before the secrets are masked: the same clip-before-mask as the notes
// had, in exit.go's urlElicitations.
func TestHostileURLRequiredHintSecret(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		a, stderr := hxApp(nil, false)
		a.log = output.NewLog(a.s, asJSON, false)
		data := `{"elicitations":[{"mode":"url","elicitationId":"e","url":"https://x.example/` + strings.Repeat("u", 1977) + hxSecret +
			`","message":"` + strings.Repeat("m", 195) + hxSecret + `"}]}`
		err := urlRequired(data)
		if code := a.finish(err, nil); code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		hxNoPrefix(t, fmt.Sprintf("--json=%v", asJSON), stderr.String())
		// A URL over 2000 characters is no hint at all (one cut short is
		// of no use); a shorter one is shown whole, its secrets masked.
		if strings.Contains(stderr.String(), "open this URL") {
			t.Errorf("--json=%v: a hint for a URL too long to show: %.300q", asJSON, stderr)
		}
		a, stderr = hxApp(nil, false)
		a.log = output.NewLog(a.s, asJSON, false)
		data = `{"elicitations":[{"mode":"url","elicitationId":"e","url":"https://x.example/?k=` + hxSecret + `"}]}`
		err = urlRequired(data)
		a.finish(err, nil)
		hxNoPrefix(t, fmt.Sprintf("--json=%v short", asJSON), stderr.String())
		if !strings.Contains(stderr.String(), "open this URL, then run the command again: https://x.example/?k=***") {
			t.Errorf("--json=%v: no masked hint: %.300q", asJSON, stderr)
		}
	}
}

// TestHostileEmptyRoot: a careless `--root "$DIR"` with DIR unset gives
// --root ”. It names no directory, yet it is taken as the current
// directory (filepath.Join(cwd, "")), which is then offered to the server
// without a word. Expected: a usage error, as for a --root that does not
// exist.
func TestHostileEmptyRoot(t *testing.T) {
	a, _ := hxApp(nil, false)
	a.cwd, a.g.roots = t.TempDir(), []string{""}
	roots, err := a.roots(&config.Target{Name: "s"})
	if !fail.Is(err, fail.Usage) {
		t.Errorf("--root '': roots %+v, error %v; want a usage error", roots, err)
	}
}

// TestHostileRootPaths: odd directory names become exact file:// URIs
// (a symlink as named, bytes that are not UTF-8 percent-encoded, % # ? ;).
func TestHostileRootPaths(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"sub", "bad\xff", "p%#?;x", "a b\nc"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("sub", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	a, _ := hxApp(nil, false)
	a.cwd, a.g.roots = dir, []string{"link", "bad\xff", "p%#?;x", "sub///", "./sub/../sub", "a b\nc"}
	roots, err := a.roots(&config.Target{Name: "s"})
	if err != nil {
		t.Fatal(err)
	}
	base := "file://" + dir
	want := []client.Root{{URI: base + "/link", Name: "link"}, {URI: base + "/bad%FF", Name: "bad\xff"}, {URI: base + "/p%25%23%3F;x", Name: "p%#?;x"},
		{URI: base + "/sub", Name: "sub"}, {URI: base + "/sub", Name: "sub"}, {URI: base + "/a%20b%0Ac", Name: "a b\nc"}}
	if !reflect.DeepEqual(roots, want) {
		t.Errorf("roots\n %+v\nwant\n %+v", roots, want)
	}
}

// TestHostileClockRaces: pauses and resumes from many goroutines (nested,
// as several questions would), racing the expiry: no race, the clock ends
// out of time once everything resumed, never while paused.
func TestHostileClockRaces(t *testing.T) {
	for round := range 200 {
		clk, stop := newClock(context.Background(), time.Duration(round%5)*time.Millisecond)
		racePauses(clk)
		select {
		case <-clk.ctx.Done():
			if !timedOut(clk.ctx, clk.ctx.Err()) {
				t.Fatalf("round %d: ended with %v", round, context.Cause(clk.ctx))
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("round %d: the clock never ran out", round)
		}
		stop()
	}
	// Paused before it runs out, it does not run out.
	clk, stop := newClock(context.Background(), 20*time.Millisecond)
	defer stop()
	clk.pause()
	time.Sleep(60 * time.Millisecond)
	if clk.ctx.Err() != nil {
		t.Fatalf("ran out while paused: %v", context.Cause(clk.ctx))
	}
	clk.resume()
	select {
	case <-clk.ctx.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("never ran out after the resume")
	}
}

// urlRequired is a server's -32042 error reply to tools/call.
func urlRequired(data string) error {
	return &fail.Error{Code: fail.ServerError, Server: "s", What: "method", Name: "tools/call", Said: "open a URL first",
		RPC:     &fail.RPCError{Code: -32042, Message: "open a URL first", Data: json.RawMessage(data)},
		Message: `server "s": tools/call failed: open a URL first (code -32042)`}
}
