package commands

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/output"
)

// bigListing is how many tools (and prompts) the lookup server lists, in
// one page: x0 .. x(N-1), then x7 again (a duplicate), then with
// MCPX_LOOKUP_SERVER=bad an item without a name.
const bigListing = 300000

// TestLookupServer is not a test: run by TestLookupBigListing as a stdio
// MCP server (the test binary again), it answers initialize and lists
// bigListing tools and prompts in one page.
func TestLookupServer(t *testing.T) {
	mode := os.Getenv("MCPX_LOOKUP_SERVER")
	if mode == "" {
		t.Skip("a stdio server for TestLookupBigListing")
	}
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			os.Exit(0)
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &req) != nil || req.ID == nil {
			continue
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":`, req.ID)
		switch req.Method {
		case "initialize":
			out.WriteString(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"prompts":{}},"serverInfo":{"name":"big","version":"1"}}`)
		case "tools/list", "prompts/list":
			fmt.Fprintf(out, `{"%s":[`, strings.TrimSuffix(req.Method, "/list"))
			for i := range bigListing {
				fmt.Fprintf(out, `{"name":"x%d","description":"d%d","inputSchema":{"type":"object"},"arguments":[{"name":"a","required":true}]},`, i, i)
			}
			out.WriteString(`{"name":"x7","description":"again"}`)
			if mode == "bad" {
				out.WriteString(`,{"title":"nameless"}`)
			}
			out.WriteString(`]}`)
		default:
			out.WriteString(`{}`)
		}
		out.WriteString("}\n")
		out.Flush()
	}
}

// lookupConn connects to the lookup server; each call of the function it
// returns gives one operation its own deadline, as each mcpx command has
// (a listing takes seconds under the race detector).
func lookupConn(t *testing.T, mode string) (*app, *client.Conn, func() context.Context) {
	t.Helper()
	s, _, _ := output.ForTest(false)
	a := &app{s: s, log: output.NewLog(s, false, false)}
	tgt := &config.Target{Name: "big", SpillName: "big", Transport: config.Stdio, Command: os.Args[0],
		Args: []string{"-test.run=^TestLookupServer$"}, Env: append(os.Environ(), "MCPX_LOOKUP_SERVER="+mode), Timeout: 60 * time.Second}
	opCtx := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), tgt.Timeout)
		t.Cleanup(cancel)
		return ctx
	}
	conn, err := client.Connect(opCtx(), tgt, client.Options{MessageCeiling: limits.MessageCeiling})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return a, conn, opCtx
}

// TestLookupBigListing: lookup finds a tool or a prompt in a big listing
// without parsing every item, keeps the first of duplicate ids, names a
// close match when there is none, and goes on without the declaration
// when an item has no name (the listing is incomplete).
func TestLookupBigListing(t *testing.T) {
	a, conn, opCtx := lookupConn(t, "good")
	for _, kind := range []string{client.KindTool, client.KindPrompt} {
		start := time.Now()
		it, incomplete, err := a.lookup(opCtx(), conn, "big", kind, fmt.Sprintf("x%d", bigListing-1))
		if err != nil || it == nil || incomplete != "" || it.Description == nil || *it.Description != fmt.Sprintf("d%d", bigListing-1) {
			t.Fatalf("%s: %+v %q %v", kind, it, incomplete, err)
		}
		if kind == client.KindTool && string(it.InputSchema) != `{"type":"object"}` {
			t.Errorf("schema %s", it.InputSchema)
		}
		if kind == client.KindPrompt && (len(it.Arguments) != 1 || !it.Arguments[0].Required) {
			t.Errorf("arguments %+v", it.Arguments)
		}
		t.Logf("%s found among %d in %v", kind, bigListing, time.Since(start))
	}
	it, _, err := a.lookup(opCtx(), conn, "big", client.KindTool, "x7")
	if err != nil || it == nil || *it.Description != "d7" {
		t.Errorf("duplicate ids keep the first: %+v %v", it, err)
	}
	_, _, err = a.lookup(opCtx(), conn, "big", client.KindTool, "X12")
	nf, _ := fail.As(err, fail.NotFound)
	if nf == nil || len(nf.Hints) != 2 || nf.Hints[0] != `did you mean "x12"?` {
		t.Errorf("a close match: %v %+v", err, nf)
	}
	_, _, err = a.lookup(opCtx(), conn, "big", client.KindPrompt, "nothing-like-it")
	if nf, _ = fail.As(err, fail.NotFound); nf == nil || len(nf.Hints) != 1 || !strings.Contains(nf.Hints[0], "mcpx catalog big --kind prompt") {
		t.Errorf("no close match: %v %+v", err, nf)
	}

	a, conn, opCtx = lookupConn(t, "bad")
	it, incomplete, err := a.lookup(opCtx(), conn, "big", client.KindTool, "x1")
	if err != nil || it == nil || incomplete != "" {
		t.Errorf("found before the bad item: %+v %q %v", it, incomplete, err)
	}
	it, incomplete, err = a.lookup(opCtx(), conn, "big", client.KindTool, "zz")
	if err != nil || it != nil || incomplete != "did not complete" {
		t.Errorf("a nameless item makes the listing incomplete: %+v %q %v", it, incomplete, err)
	}
}

// TestNearestName: nearCandidate and nearestName choose as argNearest does
// over every name.
func TestNearestName(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	word := func() string {
		const letters = "abcAB\u00e9\u212a"
		var b strings.Builder
		for n := r.Intn(7); n > 0; n-- {
			b.WriteRune([]rune(letters)[r.Intn(len([]rune(letters)))])
		}
		return b.String()
	}
	for i := 0; i < 300; i++ {
		name := word()
		var all, kept []string
		for n := r.Intn(5000); n > 0; n-- {
			w := word()
			if r.Intn(50) == 0 {
				w = strings.Repeat(w, 30) // over 64 bytes
			}
			all = append(all, w)
			if nearCandidate(name, w) {
				kept = append(kept, w)
			}
		}
		if got, want := nearestName(context.Background(), name, kept), argNearest(name, all); got != want {
			t.Fatalf("%q among %d: %q, want %q", name, len(all), got, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := nearestName(ctx, "ab", []string{"abc"}); got != "" {
		t.Errorf("after the deadline: %q", got)
	}
}

// TestItemNotesCapped: at most maxItemNotes notes about single items, then
// one that counts the rest, in plain English.
func TestItemNotesCapped(t *testing.T) {
	for _, tc := range []struct {
		n    int
		last string
	}{
		{maxItemNotes, fmt.Sprintf("mcpx: note: item #%d", maxItemNotes-1)},
		{maxItemNotes + 1, "mcpx: note: 1 more note about items not shown; --json has every item's details"},
		{maxItemNotes + 5, "mcpx: note: 5 more notes about items not shown; --json has every item's details"},
	} {
		a, errb := elApp(nil, false)
		n := &itemNotes{a: a}
		for i := range tc.n {
			n.note("item #%d", i)
		}
		n.done()
		lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
		if len(lines) != min(tc.n, maxItemNotes+1) || lines[len(lines)-1] != tc.last {
			t.Errorf("%d notes: %d lines, the last %q", tc.n, len(lines), lines[len(lines)-1])
		}
	}
}

// TestContentWarningsCapped: at most maxWarnings content warnings a
// response, then one that counts the rest.
func TestContentWarningsCapped(t *testing.T) {
	a, errb := elApp(nil, false)
	ws := make([]string, maxWarnings+5)
	for i := range ws {
		ws[i] = fmt.Sprintf("block #%d left out", i)
	}
	a.contentWarnings("s", "tool", "t", ws)
	lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
	if want := `mcpx: warning: server "s": tool "t": 5 more warnings like these not shown`; len(lines) != maxWarnings+1 || lines[maxWarnings] != want {
		t.Errorf("%d lines, the last %q, want %q", len(lines), lines[len(lines)-1], want)
	}
}
