package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"

	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
)

// fakeServer answers the requests of a Conn over two io.Pipes, through the
// stdio transport, the framer (with its message ceiling) and the tap, as a
// stdio server's connection is made. answer gives the raw result of each
// request; it may write the response itself (then it returns "").
type fakeServer struct {
	out    io.Writer // the server's stdout
	answer func(fs *fakeServer, id, method, cursor string) string
	calls  atomic.Int64 // requests answered
}

func (fs *fakeServer) reply(id, result string) {
	fmt.Fprintf(fs.out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
}

// fakeConn is a Conn, initialized, to a fakeServer; the server advertises
// tools, resources and prompts.
func fakeConn(t *testing.T, ceiling int64, answer func(fs *fakeServer, id, method, cursor string) string) (*Conn, *fakeServer) {
	t.Helper()
	stdoutR, stdoutW := io.Pipe()
	stdinR, stdinW := io.Pipe()
	lf := &transport.Limit{}
	tr := transport.NewStdio(stdoutR, stdinW, transport.StdioOptions{MessageCeiling: ceiling, Limit: lf})
	wrap, base := wrapTap(tr, nil)
	mc := mcpclient.NewClient(wrap, mcpclient.WithSession())
	if err := mc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	fs := &fakeServer{out: stdoutW, answer: answer}
	go func() {
		in := bufio.NewReader(stdinR)
		for {
			line, err := in.ReadBytes('\n')
			if err != nil {
				return
			}
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Cursor string `json:"cursor"`
				} `json:"params"`
			}
			if json.Unmarshal(line, &req) != nil || req.ID == nil {
				continue // a notification
			}
			fs.calls.Add(1)
			if res := fs.answer(fs, string(req.ID), req.Method, req.Params.Cursor); res != "" {
				fs.reply(string(req.ID), res)
			}
		}
	}()
	c := &Conn{T: &config.Target{Name: "s", Timeout: 5 * time.Second}, mc: mc, tap: base, limit: lf, phase: "start",
		lost: newLost(), Caps: Capabilities{Tools: true, Resources: true, Prompts: true}}
	t.Cleanup(func() {
		_ = tr.Close()
		_ = stdoutW.Close()
		_ = stdinR.Close()
	})
	return c, fs
}

// tools is a tools/list page of the tools named prefix+from .. prefix+(to-1).
func tools(prefix string, from, to int, next string) string {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := from; i < to; i++ {
		if i > from {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"%s%d"}`, prefix, i)
	}
	b.WriteString("]")
	if next != "" {
		fmt.Fprintf(&b, `,"nextCursor":%q`, next)
	}
	b.WriteString("}")
	return b.String()
}

// expiring is a context whose deadline passes when expire is called: Err
// says so from then on, but Done never closes, so a request in flight
// still gets its answer and only the checks made while parsing can notice.
type expiring struct {
	context.Context
	gone atomic.Bool
}

func newExpiring() *expiring { return &expiring{Context: context.Background()} }
func (e *expiring) expire()  { e.gone.Store(true) }
func (e *expiring) Err() error {
	if e.gone.Load() {
		return context.DeadlineExceeded
	}
	return nil
}

func TestListPages(t *testing.T) {
	c, fs := fakeConn(t, 1<<20, func(fs *fakeServer, id, method, cursor string) string {
		switch cursor {
		case "":
			return tools("a", 0, 3, "p2")
		case "p2":
			return `{"tools":[{"name":"b"},{"nombre":"c"},{"name":"a1"}],"nextCursor":null}`
		}
		return `{"tools":[]}`
	})
	items, problems, err := c.List(context.Background(), KindTool)
	if err != nil || len(items) != 4 || items[3].ID != "b" || fs.calls.Load() != 2 {
		t.Fatalf("items %v, problems %v, err %v, %d calls", items, problems, err, fs.calls.Load())
	}
	if len(problems) != 2 || problems[0].Code != "bad_item" || problems[0].Item != "#4" || problems[1].Code != "duplicate_item" {
		t.Errorf("problems %+v", problems)
	}
	if string(items[0].Raw) != `{"name":"a0"}` || cap(items[0].Raw) != len(items[0].Raw) {
		t.Errorf("raw item %q (cap %d): want a sub-slice of the page, capacity clipped", items[0].Raw, cap(items[0].Raw))
	}
	if got := c.messageCeiling(); got != 1<<20 {
		t.Errorf("messageCeiling %d, want the framer's", got)
	}
}

func TestListNotAList(t *testing.T) {
	for _, tc := range []struct{ page, want string }{
		{`[1]`, "not a JSON object"},
		{`{"tools":{"name":"a"}}`, `"tools" that is not an array`},
	} {
		c, _ := fakeConn(t, 1<<20, func(fs *fakeServer, id, method, cursor string) string { return tc.page })
		items, problems, err := c.List(context.Background(), KindTool)
		if err != nil || len(items) != 0 || len(problems) != 1 || problems[0].Code != "list_failed" || !strings.Contains(problems[0].Message, tc.want) {
			t.Errorf("%s: items %v, problems %+v, err %v", tc.page, items, problems, err)
		}
	}
}

// TestListBound: the items one listing gathers are bounded by the message
// ceiling: past it, the listing ends with a too_large Problem (it is
// incomplete), keeping what fits.
func TestListBound(t *testing.T) {
	const ceiling = 64 << 10
	c, fs := fakeConn(t, ceiling, func(fs *fakeServer, id, method, cursor string) string {
		n := 0
		fmt.Sscan(cursor, &n)
		return tools("x", n*1000, n*1000+1000, fmt.Sprint(n+1)) // fresh cursors forever, ~16 KiB a page
	})
	raws, problems, err := c.listAll(context.Background(), KindTool)
	if err != nil || len(problems) != 1 {
		t.Fatalf("%d items, problems %+v, err %v", len(raws), problems, err)
	}
	p := problems[0]
	if p.Code != "too_large" || p.Kind != KindTool || !strings.Contains(p.Message, "message ceiling of 64 KiB (65536 bytes)") {
		t.Errorf("problem %+v", p)
	}
	size := int64(0)
	for _, r := range raws {
		size += int64(len(r)) + itemSlot
	}
	if size > ceiling || size < ceiling-100 || fs.calls.Load() > 5 {
		t.Errorf("kept %d items (%d bytes counted) after %d pages", len(raws), size, fs.calls.Load())
	}
	if !strings.Contains(p.Message, fmt.Sprintf("after %d tools", len(raws))) {
		t.Errorf("message %q does not count the %d tools kept", p.Message, len(raws))
	}

	// Tiny items count their place in the list too.
	c, _ = fakeConn(t, 1<<20, func(fs *fakeServer, id, method, cursor string) string {
		return `{"tools":[` + strings.Repeat(`{},`, 9999) + `{}]}`
	})
	raws, problems, err = c.listRaw(context.Background(), KindTool, 10000*(2+itemSlot)-1)
	if err != nil || len(raws) != 9999 || len(problems) != 1 || problems[0].Code != "too_large" {
		t.Errorf("tiny items: %d kept, problems %+v, err %v", len(raws), problems, err)
	}

	// List and Find pass the problem on: the listing is incomplete.
	c, _ = fakeConn(t, ceiling, func(fs *fakeServer, id, method, cursor string) string {
		n := 0
		fmt.Sscan(cursor, &n)
		return tools("x", n*1000, n*1000+1000, fmt.Sprint(n+1))
	})
	items, problems, err := c.List(context.Background(), KindTool)
	if err != nil || len(items) == 0 || len(problems) != 1 || problems[0].Code != "too_large" {
		t.Errorf("List: %d items, problems %+v, err %v", len(items), problems, err)
	}
	found, complete, problems, err := c.Find(context.Background(), KindTool, "nope", nil)
	if err != nil || found != nil || complete || len(problems) != 1 || problems[0].Code != "too_large" {
		t.Errorf("Find: %v %v %+v %v", found, complete, problems, err)
	}
}

// TestListTimeoutWhileScanning: a deadline that passes while a page is
// being read is a TimeoutError at once, with nothing parsed.
func TestListTimeoutWhileScanning(t *testing.T) {
	ctx := newExpiring()
	c, _ := fakeConn(t, 64<<20, func(fs *fakeServer, id, method, cursor string) string {
		page := tools("x", 0, 5*checkEvery, "next")
		// The deadline passes before the line ends, so after the answer
		// is in, and before any of it is read.
		fmt.Fprintf(fs.out, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, page)
		ctx.expire()
		io.WriteString(fs.out, "\n")
		return ""
	})
	for name, list := range map[string]func() (int, error){
		"listAll": func() (int, error) { r, _, err := c.listAll(ctx, KindTool); return len(r), err },
		"List":    func() (int, error) { r, _, err := c.List(ctx, KindTool); return len(r), err },
		"Find": func() (int, error) {
			it, _, _, err := c.Find(ctx, KindTool, "x1", nil)
			if it != nil {
				return 1, err
			}
			return 0, err
		},
	} {
		ctx.gone.Store(false)
		n, err := list()
		var te *fail.TimeoutError
		if !errors.As(err, &te) || te.Phase != "tools/list" || n != 0 {
			t.Errorf("%s: %d items, err %v, want a TimeoutError during tools/list and nothing", name, n, err)
		}
	}
}

// TestListTimeoutBetweenPages: a deadline that passes between pages ends
// the listing, and List parses nothing of what was gathered.
func TestListTimeoutBetweenPages(t *testing.T) {
	ctx := newExpiring()
	c, fs := fakeConn(t, 1<<20, func(fs *fakeServer, id, method, cursor string) string {
		ctx.expire()
		return `{"tools":[{"name":"a"},{"nameless":1}],"nextCursor":"2"}`
	})
	items, problems, err := c.List(ctx, KindTool)
	var te *fail.TimeoutError
	if !errors.As(err, &te) || items != nil || len(problems) != 0 || fs.calls.Load() != 1 {
		t.Errorf("items %v, problems %+v, err %v, %d calls", items, problems, err, fs.calls.Load())
	}
}

// TestListTimeoutWhileParsing: List's parsing looks at the context.
func TestListTimeoutWhileParsing(t *testing.T) {
	c, _ := fakeConn(t, 1<<20, nil)
	ctx := newExpiring()
	ctx.expire()
	raws := make([]json.RawMessage, 3*checkEvery)
	for i := range raws {
		raws[i] = json.RawMessage(fmt.Sprintf(`{"name":"x%d"}`, i))
	}
	items, _, err := c.parseItems(ctx, KindTool, raws, nil)
	var te *fail.TimeoutError
	if !errors.As(err, &te) || te.Phase != "tools/list" || items != nil {
		t.Errorf("%d items, err %v", len(items), err)
	}
	items, _, err = c.parseItems(context.Background(), KindTool, raws, nil)
	if err != nil || len(items) != len(raws) {
		t.Errorf("%d items, err %v", len(items), err)
	}
}

// TestFindBigListing: Find scans a listing of many tools reading their ids
// only, parses the one it finds, keeps the first of duplicate ids, and
// names every listed id for a hint when it finds nothing.
func TestFindBigListing(t *testing.T) {
	const n = 200000
	page := tools("x", 0, n, "")
	page = page[:len(page)-2] + `,{"name":"x7","description":"second"}]}`
	page = strings.Replace(page, `{"name":"x7"}`, `{"name":"x7","description":"first","inputSchema":{"type":"object"}}`, 1)
	c, _ := fakeConn(t, 64<<20, func(fs *fakeServer, id, method, cursor string) string { return page })
	ctx := context.Background()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	it, complete, problems, err := c.Find(ctx, KindTool, "x199999", nil)
	runtime.ReadMemStats(&after)
	if err != nil || it == nil || it.ID != "x199999" || !complete || len(problems) != 0 {
		t.Fatalf("found %+v, complete %v, problems %v, err %v", it, complete, problems, err)
	}
	// The page (as the server writes it, as the framer reads it: its
	// chunks, then its line) and the list of items (a slice header an
	// item, grown by append): no parsing of the others.
	if alloc, limit := after.Mallocs-before.Mallocs, uint64(10000); alloc > limit {
		t.Errorf("%d allocations to find a tool among %d, want at most %d", alloc, n, limit)
	}
	if alloc, limit := after.TotalAlloc-before.TotalAlloc, uint64(4*len(page)+160*n); alloc > limit {
		t.Errorf("%d bytes allocated for a %d-byte page, want at most %d", alloc, len(page), limit)
	}

	it, _, _, err = c.Find(ctx, KindTool, "x7", nil)
	if err != nil || it == nil || it.Description == nil || *it.Description != "first" || string(it.InputSchema) != `{"type":"object"}` {
		t.Errorf("duplicate ids keep the first: %+v, %v", it, err)
	}

	var names []string
	it, complete, _, err = c.Find(ctx, KindTool, "zz", func(id string) { names = append(names, id) })
	if err != nil || it != nil || !complete || len(names) != n+1 || names[0] != "x0" || names[n] != "x7" {
		t.Errorf("not found: %v, complete %v, %d names, err %v", it, complete, len(names), err)
	}
	names = nil
	if _, _, _, err = c.Find(ctx, KindTool, "x5", func(id string) { names = append(names, id) }); err != nil || names != nil {
		t.Errorf("near is called only when nothing is found: %d names, %v", len(names), err)
	}
}

// TestFindBadIDs: an item whose id cannot be read makes the listing
// incomplete (the tool may be that item); other items' lesser problems do
// not, and items after the one found are not looked at.
func TestFindBadIDs(t *testing.T) {
	c, _ := fakeConn(t, 1<<20, func(fs *fakeServer, id, method, cursor string) string {
		var b strings.Builder
		b.WriteString(`{"tools":[{"name":"a","title":7},{"name":"b\u00e9"}`)
		for i := 0; i < 25; i++ {
			b.WriteString(`,{"name":` + fmt.Sprint(i) + `}`)
		}
		b.WriteString(`,{"name":""},"x",null,{"name":"z"}]}`)
		return b.String()
	})
	ctx := context.Background()
	it, complete, problems, err := c.Find(ctx, KindTool, "a", nil)
	if err != nil || it == nil || !complete || len(problems) != 1 || !strings.Contains(problems[0].Message, `"title" is not a string`) {
		t.Errorf("a: %+v %v %+v %v", it, complete, problems, err)
	}
	if it, _, _, err := c.Find(ctx, KindTool, "bé", nil); err != nil || it == nil || it.ID != "bé" {
		t.Errorf("an escaped id: %+v %v", it, err)
	}
	called := false
	it, complete, problems, err = c.Find(ctx, KindTool, "zz", func(string) { called = true })
	if err != nil || it != nil || complete || called {
		t.Fatalf("zz: %+v %v %v %v", it, complete, called, err)
	}
	if len(problems) != maxFindProblems+1 || problems[0].Item != "#2" || !strings.Contains(problems[0].Message, `invalid "name"`) ||
		!strings.Contains(problems[maxFindProblems].Message, `8 more tools have no usable "name"`) {
		t.Errorf("%d problems: first %+v, last %+v", len(problems), problems[0], problems[len(problems)-1])
	}
}

func TestItemID(t *testing.T) {
	for _, tc := range []struct {
		kind, raw, id string
		ok            bool
	}{
		{KindTool, `{"name":"t"}`, `"t"`, true},
		{KindTool, ` {"x":{"name":"no"},"name":"t"}`, `"t"`, true},
		{KindTool, `{"name":"a","name":"b"}`, `"b"`, true}, // as a map decodes it: the last
		{KindTool, `{"name":""}`, "", false},
		{KindTool, `{"name":null}`, "", false},
		{KindTool, `{"name":7}`, "", false},
		{KindTool, `{"Name":"t"}`, "", false},
		{KindTool, `[{"name":"t"}]`, "", false},
		{KindResource, `{"name":"n","uri":"x://a"}`, `"x://a"`, true},
		{KindTemplate, `{"uriTemplate":"x://{a}"}`, `"x://{a}"`, true},
	} {
		id, ok := itemID(tc.kind, json.RawMessage(tc.raw))
		if ok != tc.ok || (ok && string(id) != tc.id) {
			t.Errorf("%s %s: %q %v", tc.kind, tc.raw, id, ok)
		}
		_, _, parsed := parseItem("s", tc.kind, 0, json.RawMessage(tc.raw), false)
		if parsed != ok {
			t.Errorf("%s %s: itemID ok=%v, parseItem ok=%v", tc.kind, tc.raw, ok, parsed)
		}
	}
	for _, tc := range []struct {
		raw, s string
		is     bool
	}{
		{`"abc"`, "abc", true},
		{`"abc"`, "abd", false},
		{`"a\u0062c"`, "abc", true},
		{`"\ud800"`, "\ufffd", true},
		{"\"a\xffc\"", "a\ufffdc", true},
		{`7`, "7", false},
	} {
		if got := jsonStringIs([]byte(tc.raw), tc.s); got != tc.is {
			t.Errorf("jsonStringIs(%s, %q) = %v", tc.raw, tc.s, got)
		}
	}
}

// TestHeaderTools: of a tools/list page of the modern era, the tools
// that mention x-mcp-header are kept for the Mcp-Param-* headers of
// tools/call; nothing in the legacy era.
func TestHeaderTools(t *testing.T) {
	if got := string(headerTools(json.RawMessage(tools("x", 0, 100, "")))); got != `{"tools":[]}` {
		t.Errorf("no header tools: %s", got)
	}
	page := `{"tools":[{"name":"a"},{"name":"h","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}},{"name":"b"}]}`
	if got, want := string(headerTools(json.RawMessage(page))), `{"tools":[{"name":"h","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}}]}`; got != want {
		t.Errorf("header tools: %s, want %s", got, want)
	}

	c, _ := fakeConn(t, 1<<20, func(fs *fakeServer, id, method, cursor string) string { return page })
	for _, tc := range []struct{ era, want string }{
		{"2025-11-25", ``},
		{"2026-07-28", `h`},
	} {
		c.Protocol = tc.era
		c.headerTools = nil
		raws, _, err := c.listAll(context.Background(), KindTool)
		if err != nil || len(raws) != 3 {
			t.Fatalf("%s: %d items, %v", tc.era, len(raws), err)
		}
		var kept []string
		for name := range c.headerTools {
			kept = append(kept, name)
		}
		if got := strings.Join(kept, ","); got != tc.want {
			t.Errorf("%s: kept %q, want %q", tc.era, got, tc.want)
		}
	}
}

func TestListCursors(t *testing.T) {
	big := strings.Repeat("c", 100<<10)
	c, fs := fakeConn(t, 1<<20, func(fs *fakeServer, id, method, cursor string) string {
		switch cursor {
		case "":
			return tools("a", 0, 1, big+"1")
		case big + "1":
			return tools("b", 0, 1, big+"2")
		}
		return tools("c", 0, 1, big+"1") // back to page 2
	})
	raws, problems, err := c.listAll(context.Background(), KindTool)
	if err != nil || len(raws) != 3 || len(problems) != 1 || problems[0].Code != "repeated_cursor" || fs.calls.Load() != 3 {
		t.Errorf("%d items, problems %+v, err %v, %d calls", len(raws), problems, err, fs.calls.Load())
	}
}

// TestListPagesNotKept: the items of pages that are mostly something else
// are copied out of them, so that what a listing holds is its items, not
// its pages (the listing bound counts the items alone).
func TestListPagesNotKept(t *testing.T) {
	const pages, pad = 40, 1 << 20
	junk := strings.Repeat("x", pad)
	c, _ := fakeConn(t, 64<<20, func(fs *fakeServer, id, method, cursor string) string {
		n := 0
		fmt.Sscan(cursor, &n)
		next := ""
		if n+1 < pages {
			next = fmt.Sprint(n + 1)
		}
		page := tools("t", n*10, n*10+10, next)
		return page[:len(page)-1] + `,"pad":"` + junk + `"}`
	})
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	raws, problems, err := c.listAll(context.Background(), KindTool)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if err != nil || len(problems) != 0 || len(raws) != 10*pages || string(raws[10*pages-1]) != fmt.Sprintf(`{"name":"t%d"}`, 10*pages-1) {
		t.Fatalf("%d items, problems %v, err %v", len(raws), problems, err)
	}
	if held := int64(after.HeapInuse) - int64(before.HeapInuse); held > pages*pad/4 {
		t.Errorf("the listing holds %d bytes after %d pages of %d bytes", held, pages, pad)
	}
	runtime.KeepAlive(raws)
}

// TestListInputRequired: a listing page that is an input_required result
// (only tools/call, prompts/get and resources/read take part in those
// rounds) counts as an empty page, as it did when mcp-go decoded it.
func TestListInputRequired(t *testing.T) {
	c, fs := fakeConn(t, 1<<20, func(fs *fakeServer, id, method, cursor string) string {
		return `{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}},"tools":[{"name":"a"}]}`
	})
	raws, problems, err := c.listAll(context.Background(), KindTool)
	if err != nil || len(raws) != 0 || len(problems) != 0 || fs.calls.Load() != 1 {
		t.Errorf("%d items, %v, %v, %d calls", len(raws), problems, err, fs.calls.Load())
	}
}

// TestListMalformed: a page without its array, or with null there, is a
// listing that failed (a *listError), as the TypeScript SDK holds it, not
// an empty page; the items of the pages before it are kept.
func TestListMalformed(t *testing.T) {
	for page, want := range map[string]string{
		`{"templates":[{"name":"a"}]}`: `returned a result with no "tools" array`,
		`{"tools":null}`:               `returned "tools": null, not an array`,
		`{"tools":{}}`:                 `returned "tools" that is not an array`,
	} {
		c, _ := fakeConn(t, 1<<20, func(fs *fakeServer, id, method, cursor string) string {
			if cursor == "" {
				return `{"tools":[{"name":"first"}],"nextCursor":"2"}`
			}
			return page
		})
		raws, _, err := c.listAll(context.Background(), KindTool)
		var le *listError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), want) || len(raws) != 1 {
			t.Errorf("page %s: %d items, err %v; want a listError %q after 1 item", page, len(raws), err, want)
		}
	}
}
