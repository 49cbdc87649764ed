package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// Kinds of catalog items, in catalog order.
const (
	KindTool     = "tool"
	KindResource = "resource"
	KindTemplate = "resource_template"
	KindPrompt   = "prompt"
)

// Kinds lists the kinds in catalog order.
var Kinds = []string{KindTool, KindResource, KindTemplate, KindPrompt}

// maxPages ends a listing that never ends (a server handing out fresh cursors forever).
const maxPages = 10000

// defaultListCeiling bounds the items one listing of one kind gathers when
// the connection's message ceiling is not known.
const defaultListCeiling = limits.MessageCeiling

// itemSlot is what each listed item costs beyond its bytes (its place in
// the list): the listing bound counts it, so that a server sending millions
// of `{}` cannot make the list of items far bigger than the bound.
const itemSlot = int64(text.SliceHeader)

// checkEvery is how many items are scanned or parsed between two looks at
// the context.
const checkEvery = 4096

type listSpec struct {
	method string
	key    string // the array in the result
}

// params are the params of the request for the page at cursor.
func (l listSpec) params(cursor string) any {
	var p mcp.PaginatedParams
	p.Cursor = mcp.Cursor(cursor)
	return p
}

var listSpecs = map[string]listSpec{
	KindTool:     {"tools/list", "tools"},
	KindResource: {"resources/list", "resources"},
	KindTemplate: {"resources/templates/list", "resourceTemplates"},
	KindPrompt:   {"prompts/list", "prompts"},
}

// Advertised reports whether the server advertised the capability a kind needs.
func (c *Conn) Advertised(kind string) bool {
	switch kind {
	case KindTool:
		return c.Caps.Tools
	case KindResource, KindTemplate:
		return c.Caps.Resources
	case KindPrompt:
		return c.Caps.Prompts
	}
	return false
}

// Problem is something wrong with a listing that does not stop the rest:
// a kind whose listing failed, an item that could not be parsed, a cursor
// that repeated.
type Problem struct {
	Kind    string
	Item    string // the item's id, or "#N" (its index) when it has none
	Code    string // list_failed, bad_item, repeated_cursor, too_large, ...
	Message string
	Err     error // for list_failed: why the listing failed
	// Excluded: the item was left out on purpose (a 2026-era tool with
	// invalid x-mcp-header annotations); the listing is complete without it.
	Excluded bool
}

// listError is a listing that failed for one kind: the server answered with
// an error or sent a page that is not a list. It degrades to a warning.
type listError struct {
	Kind string
	Err  error
}

func (e *listError) Error() string { return e.Err.Error() }
func (e *listError) Unwrap() error { return e.Err }

// listingFailure reports whether err, a request's failure, is the
// server's error reply or its "method not found": a failure of that
// listing alone.
func listingFailure(err error) bool {
	e, ok := err.(*fail.Error)
	return ok && (e.Code == fail.ServerError && e.What == "method" || e.Code == fail.Unsupported)
}

// listAll lists every item of one kind, following nextCursor to the end.
// It returns each item's raw JSON, a sub-slice of the page it came in. A
// cursor that repeats, a server that is still paging after maxPages pages,
// and items that together take more than the connection's message ceiling
// end the listing with a Problem. A failure that concerns only this listing
// is a *listError (returned with the items of the pages before it); a
// timeout, a dead connection or a limit is returned as is, with no items.
func (c *Conn) listAll(ctx context.Context, kind string) ([]json.RawMessage, []Problem, error) {
	return c.listRaw(ctx, kind, c.messageCeiling())
}

// listRaw is listAll under the given bound of the items' bytes.
func (c *Conn) listRaw(ctx context.Context, kind string, ceiling int64) ([]json.RawMessage, []Problem, error) {
	spec := listSpecs[kind]
	l := &listing{c: c, kind: kind, method: spec.method, ceiling: ceiling, seen: map[[sha256.Size]byte]bool{}}
	cursor := ""
	for page := 1; ; page++ {
		if err := ctx.Err(); err != nil {
			return nil, l.problems, c.classify(ctx, spec.method, err)
		}
		raw, err := c.callRaw(ctx, spec.method, func(ctx context.Context) (json.RawMessage, error) {
			return c.request(ctx, spec.method, spec.params(cursor))
		})
		if err != nil {
			if listingFailure(err) {
				return l.items, l.problems, &listError{Kind: kind, Err: err}
			}
			return nil, l.problems, err
		}
		if kind == KindTool && mcp.IsModernProtocol(c.Protocol) {
			c.rememberHeaderTools(ctx, raw)
		}
		arr, next, err := c.pageArray(raw, spec.method, spec.key)
		if err != nil {
			return l.items, l.problems, &listError{Kind: kind, Err: err}
		}
		full := l.gather(ctx, raw, arr)
		if err := ctx.Err(); err != nil {
			return nil, l.problems, c.classify(ctx, spec.method, err)
		}
		if full {
			l.problems = append(l.problems, Problem{Kind: kind, Code: "too_large",
				Message: fmt.Sprintf("server %q: %s listed more %s than the message ceiling of %s holds; the listing stops at page %d, after %d %s",
					c.T.Name, spec.method, pluralKind(kind), text.HumanBytes(ceiling), page, len(l.items), pluralKind(kind))})
			return l.items, l.problems, nil
		}
		var more bool
		if cursor, more = l.cursorAfter(next, page); !more {
			return l.items, l.problems, nil
		}
	}
}

// listing is the state of one listing of one kind: the items gathered so
// far and their size (counting itemSlot for each), the problems met, and
// the cursors seen, by hash (a cursor can be big).
type listing struct {
	c            *Conn
	kind, method string
	ceiling      int64
	items        []json.RawMessage
	problems     []Problem
	size         int64
	seen         map[[sha256.Size]byte]bool
}

// pageArray is the array of items of one page of a listing (key names it)
// and its nextCursor, or why the page is malformed (a *BadReplyError).
func (c *Conn) pageArray(raw json.RawMessage, method, key string) (arr, next []byte, err error) {
	arr, next, ok := pageMembers(raw, key)
	if inputRequired(raw) {
		// Only calls take part in input_required rounds: such a page
		// counts as an empty last one, as it did when mcp-go decoded it.
		arr, next, ok = []byte("[]"), nil, true
	}
	bad := func(msg string) ([]byte, []byte, error) {
		return nil, nil, badReply(c.T.Name, method, msg)
	}
	// The array is required: a result without it (or with null) is
	// malformed, as the TypeScript SDK holds it, not an empty page.
	switch {
	case !ok:
		return bad("returned a result that is not a JSON object")
	case arr == nil:
		return bad(fmt.Sprintf("returned a result with no %q array", key))
	case string(arr) == "null":
		return bad(fmt.Sprintf("returned %q: null, not an array", key))
	case arr[0] != '[':
		return bad(fmt.Sprintf("returned %q that is not an array", key))
	}
	return arr, next, nil
}

// gather adds the items of arr, the array of the page raw, to the listing,
// and reports whether they reached the bound (the items after are left
// out). A streamable HTTP client of the 2026-07-28 era leaves out a tool
// whose x-mcp-header annotations break SEP-2243. The end of ctx stops it.
func (l *listing) gather(ctx context.Context, raw json.RawMessage, arr []byte) (full bool) {
	c := l.c
	headers := l.kind == KindTool && c.kind == config.HTTP && mcp.IsModernProtocol(c.Protocol)
	n := 0
	first, kept := len(l.items), 0
	elements(arr, func(el []byte) bool {
		if n++; n%checkEvery == 0 && ctx.Err() != nil {
			return false
		}
		if l.size += int64(len(el)) + itemSlot; l.size > l.ceiling {
			full = true
			return false
		}
		if len(l.items) == cap(l.items) {
			// Doubled, not grown by a quarter as append does past a
			// few hundred: less to copy and collect, and the
			// capacity not yet used is never touched.
			grown := make([]json.RawMessage, len(l.items), max(2*cap(l.items), 256))
			copy(grown, l.items)
			l.items = grown
		}
		if headers && bytes.Contains(el, []byte("x-mcp-header")) {
			if p, bad := c.badHeaderTool(el); bad {
				l.problems = append(l.problems, p)
				return true
			}
		}
		l.items = append(l.items, el)
		kept += len(el)
		return true
	})
	if ctx.Err() == nil {
		compactPage(raw, l.items[first:], kept)
	}
	return full
}

// cursorAfter reads the nextCursor of page: the cursor of the page after
// it, and whether there is one. A cursor that is not a string, that
// repeats, or that comes after maxPages pages ends the listing with a
// Problem.
func (l *listing) cursorAfter(next []byte, page int) (string, bool) {
	c := l.c
	if next == nil || string(next) == "null" {
		return "", false
	}
	var cur string
	if err := json.Unmarshal(next, &cur); err != nil {
		l.problems = append(l.problems, Problem{Kind: l.kind, Code: "bad_cursor",
			Message: fmt.Sprintf("server %q: %s returned a nextCursor that is not a string (%s); the listing stops at page %d", c.T.Name, l.method, text.Escape(c.clip(string(next), 40)), page)})
		return "", false
	}
	if cur == "" {
		return "", false
	}
	sum := sha256.Sum256([]byte(cur))
	if l.seen[sum] {
		l.problems = append(l.problems, Problem{Kind: l.kind, Code: "repeated_cursor",
			Message: fmt.Sprintf("server %q: %s repeated the cursor %q; the listing stops after %d pages", c.T.Name, l.method, c.clip(cur, 40), page)})
		return "", false
	}
	if page >= maxPages {
		l.problems = append(l.problems, Problem{Kind: l.kind, Code: "too_many_pages",
			Message: fmt.Sprintf("server %q: %s is still paging after %d pages; the listing stops there", c.T.Name, l.method, page)})
		return "", false
	}
	l.seen[sum] = true
	return cur, true
}

// compactPage copies the items kept from a page out of it when they are
// less than half of it, so that the page can be collected: the listing
// bound counts the items, and pages full of something else (up to the
// message ceiling each) must not stay in memory for a few small items.
func compactPage(page []byte, items []json.RawMessage, kept int) {
	if len(page) < 2*kept+64<<10 {
		return
	}
	buf := make([]byte, 0, kept)
	for i, el := range items {
		start := len(buf)
		buf = append(buf, el...)
		items[i] = buf[start:len(buf):len(buf)]
	}
}

// messageCeiling is the largest message the connection accepts (Options.
// MessageCeiling), as its HTTP transport or its stdio framer holds it; it
// also bounds what one listing of one kind gathers.
func (c *Conn) messageCeiling() int64 {
	if c.rt != nil && c.rt.MessageCeiling() > 0 {
		return c.rt.MessageCeiling()
	}
	if c.tap != nil {
		if st, ok := c.tap.inner.(*transport.Stdio); ok && st.MessageCeiling() > 0 {
			return st.MessageCeiling()
		}
	}
	return defaultListCeiling
}

// badHeaderTool reports a tool whose x-mcp-header annotations are invalid.
func (c *Conn) badHeaderTool(el []byte) (Problem, bool) {
	var t mcp.Tool
	if json.Unmarshal(el, &t) != nil {
		return Problem{}, false // not readable here: the listing reports what it can
	}
	err := mcp.ValidateParamHeaderAnnotations(&t)
	if err == nil {
		return Problem{}, false
	}
	name := text.OneLine(c.clip(t.Name, 200))
	return Problem{Kind: KindTool, Item: t.Name, Code: "bad_item", Excluded: true,
		Message: fmt.Sprintf("server %q: tool %q has invalid x-mcp-header annotations (%s); left out, as the 2026-07-28 protocol requires over HTTP", c.T.Name, name, text.OneLine(c.clip(err.Error(), 200)))}, true
}

// headerTools is a tools/list page (raw) with only the tools that mention
// x-mcp-header: the ones whose parameters tools/call mirrors into
// Mcp-Param-* headers (SEP-2243; a server checks them). Decoding no other
// tool saves the memory.
func headerTools(raw json.RawMessage) json.RawMessage {
	const mark = "x-mcp-header"
	empty := json.RawMessage(`{"tools":[]}`)
	if !bytes.Contains(raw, []byte(mark)) {
		return empty
	}
	arr, _, ok := pageMembers(raw, "tools")
	if !ok || len(arr) == 0 || arr[0] != '[' {
		return empty
	}
	var b bytes.Buffer
	b.WriteString(`{"tools":[`)
	n := 0
	elements(arr, func(el []byte) bool {
		if bytes.Contains(el, []byte(mark)) {
			if n++; n > 1 {
				b.WriteByte(',')
			}
			b.Write(el)
		}
		return true
	})
	b.WriteString("]}")
	return b.Bytes()
}

// pageMembers finds the item array (member key) and nextCursor of a list
// result, as sub-slices of raw (nil when absent). ok is false when raw is
// not a JSON object. As when decoding into a map, names match exactly and
// a repeated name counts with its last value.
func pageMembers(raw []byte, key string) (arr, next []byte, ok bool) {
	ok = members(raw, func(k string, v []byte) bool {
		switch k {
		case key:
			arr = v
		case "nextCursor":
			next = v
		}
		return true
	})
	return arr, next, ok
}

// The scanners below read JSON that is valid (the transport checked the
// message it came in) through a string view, without a copy, as the
// stdio framer does (see client/transport): raw is never modified, and every value gjson
// returns is a substring of it, turned back into a sub-slice of raw
// (capacity clipped, so an append never writes into it).

// members calls f with each member of the JSON object raw, in order, until
// f returns false. key may point into raw: f must not keep it. It returns
// false when raw is not an object.
func members(raw []byte, f func(key string, value []byte) bool) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	gjson.Parse(text.StringView(raw)).ForEach(func(k, v gjson.Result) bool {
		return f(k.Str, text.SubSlice(raw, v.Raw))
	})
	return true
}

// elements calls f with each element of the JSON array raw, in order,
// until f returns false.
func elements(raw []byte, f func(el []byte) bool) {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 || raw[0] != '[' {
		return
	}
	gjson.Parse(text.StringView(raw)).ForEach(func(_, v gjson.Result) bool {
		return f(text.SubSlice(raw, v.Raw))
	})
}

// jsonString decodes the JSON string v (with its quotes). A string with no
// escape and valid UTF-8 is its bytes, as encoding/json would decode it,
// without the work of a decoder.
func jsonString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if in := v[1 : len(v)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return string(in), true
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false
	}
	return s, true
}

// jsonStringView is jsonString, except that in the common case the string
// shares v's memory instead of copying it: v must never be modified (a
// listing's page is not), and the string keeps all of v's array alive.
func jsonStringView(v []byte) (string, bool) {
	if len(v) >= 2 && v[0] == '"' {
		if in := v[1 : len(v)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
			return text.StringView(in), true
		}
	}
	return jsonString(v)
}

// jsonStringIs reports whether the JSON value v is the string s, without
// allocating in the common case (no escape, valid UTF-8).
func jsonStringIs(v []byte, s string) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	if in := v[1 : len(v)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return string(in) == s
	}
	d, ok := jsonString(v)
	return ok && d == s
}
