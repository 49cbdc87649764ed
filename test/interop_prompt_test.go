//go:build unix

package test

// Interop, part two: `mcpx prompt` and `mcpx invoke` against server-everything.
//
// The independent client's session (collectTruth) stays open for the whole
// test, and these script commands ask it, live, for the same prompt or tool
// call mcpx was asked for, then compare:
//
//	prompt-matches NAME [ARG=VALUE...] FILE
//	                     FILE (mcpx --json prompt SRV NAME ARGS...) renders exactly
//	                     the messages the raw prompts/get sends, and its "text" is
//	                     the contract's flattening of those raw messages
//	                     (ARG=VALUE is literal; ARG<F: the content of file F)
//	invoke-matches TOOL ARGS-JSON FILE
//	                     FILE (mcpx --json invoke SRV TOOL ...) renders exactly what a
//	                     raw tools/call with arguments ARGS-JSON returns
//	text-matches JSONFILE TEXTFILE
//	                     TEXTFILE (text mode) is byte for byte the "text" of JSONFILE
//	sent METHOD [ARGS-JSON]
//	                     the stdio-tap log ($WORK/server.in, what mcpx wrote to the
//	                     server's stdin) holds a METHOD request, the last of which
//	                     carries params.arguments equal to ARGS-JSON (as JSON values,
//	                     numbers by their literal digits; null: no arguments were
//	                     sent); negated: mcpx did talk to the server (initialize)
//	                     but never sent METHOD
//	group-gone PIDFILE   no live process is left in the process group PIDFILE names
//	                     (the stdio-tap wrapper writes $WORK/server.pid, the group leader)
//	exitwithin DUR N PROG ARGS...
//	                     like exitcode N, and PROG must finish within DUR
//
// Clock times ("created at 6:29:10 AM") that server-everything puts into its
// dynamic resources differ between the two sessions; they are the only thing
// not compared byte for byte, and a comparison that needed it says so.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rogpeppe/go-internal/testscript"
)

// rawSeq numbers the live raw requests (scripts run in parallel on one session).
var rawSeq atomic.Int64

// rawCall sends METHOD with PARAMS as raw JSON-RPC on the truth's session and
// returns the result, or the error reply as a Go error.
func rawCall(tr transport.Interface, method string, params any) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	resp, err := tr.SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      mcp.NewRequestId(fmt.Sprintf("interop-raw-%s-%d", method, rawSeq.Add(1))),
		Method:  method,
		Params:  params,
	})
	if err != nil {
		return nil, fmt.Errorf("raw %s: %w", method, err)
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("raw %s: error %d %s", method, resp.Error.Code, resp.Error.Message)
	}
	return resp.Result, nil
}

// rawGetPrompt sends prompts/get for NAME with ARGS (omitted when nil).
func rawGetPrompt(tr transport.Interface, name string, args map[string]string) (json.RawMessage, error) {
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	return rawCall(tr, "prompts/get", params)
}

// rawCallTool sends tools/call for NAME with the argument object ARGS.
func rawCallTool(tr transport.Interface, name string, args json.RawMessage) (json.RawMessage, error) {
	return rawCall(tr, "tools/call", map[string]any{"name": name, "arguments": args})
}

// rawContent is one content block as the server sent it.
type rawContent struct {
	Type        string          `json:"type"`
	Text        *string         `json:"text"`
	Data        *string         `json:"data"`
	MimeType    *string         `json:"mimeType"`
	Annotations json.RawMessage `json:"annotations"`
	Resource    *struct {
		URI      string  `json:"uri"`
		MimeType *string `json:"mimeType"`
		Text     *string `json:"text"`
		Blob     *string `json:"blob"`
	} `json:"resource"`
	// resource_link
	URI         *string         `json:"uri"`
	Name        *string         `json:"name"`
	Title       *string         `json:"title"`
	Description *string         `json:"description"`
	Size        json.RawMessage `json:"size"`
}

// spillExt is the extension mcpx must give a spilled file of these mime types
// (the ones server-everything sends); any other gets [a-z0-9]{1,8}.
var spillExt = map[string]string{"image/png": "png", "application/gzip": "gz"}

var anyExt = regexp.MustCompile(`^[a-z0-9]{1,8}$`)

// renderCheck compares mcpx's rendering of a response with what the server sent.
type renderCheck struct {
	ts       *testscript.TestScript
	who      string // the server, for messages
	spillDir string // $MCPX_CACHE_DIR/mcp-resources/SERVER
	clock    int    // comparisons that needed clock times masked
}

func nullOr(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func rawOrNull(r json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(r)) == 0 {
		return json.RawMessage("null")
	}
	return r
}

// item checks GOT (one rendered item of mcpx's document) against the raw
// block C, and returns how the flattened prompt text shows it. Every field
// of the contract's rendered item is compared (extra fields are allowed):
//
//	text                 type text, uri and mime_type null, the text, offset 0,
//	                     not truncated, total_bytes its length, next_offset null
//	image, audio         spilled to SPILLDIR/SHA256.EXT, the file holding the
//	                     decoded base64; uri null, the mime type, sniffed false,
//	                     size_bytes, sha256; shown as [TYPE: PATH (MIME, N bytes)]
//	resource (text)      a text item with the resource's uri and mime type
//	resource (blob)      likewise when its bytes are UTF-8 without NUL, else
//	                     spilled as type blob with its uri
//	resource_link        uri, name, title, description, mime_type, size (null
//	                     when absent); shown as [resource: URI]
//	anything else        type unknown, content_type, omitted true
//
// and the annotations the block carried (null when none).
func (rc *renderCheck) item(where string, c rawContent, got json.RawMessage) string {
	ts := rc.ts
	var g map[string]json.RawMessage
	if err := json.Unmarshal(got, &g); err != nil {
		ts.Fatalf("%s: rendered item is not an object: %s", where, got)
	}
	gotText := func() string {
		var s string
		if err := json.Unmarshal(g["text"], &s); err != nil {
			ts.Fatalf("%s: rendered item has no string text: %s", where, got)
		}
		return s
	}
	textItem := func(uri, mime any, text string) map[string]any {
		// A clock time inside the text may differ: then the sizes are mcpx's own.
		gt := gotText()
		if gt != text {
			if clockTime.ReplaceAllString(gt, "H:MM:SS") != clockTime.ReplaceAllString(text, "H:MM:SS") {
				ts.Fatalf("%s: text differs from what %s sent\nmcpx:   %q\nserver: %q", where, rc.who, gt, text)
			}
			rc.clock++
			text = gt
		}
		return map[string]any{"type": "text", "uri": uri, "mime_type": mime, "text": text, "offset": 0,
			"truncated": false, "total_bytes": len(text), "next_offset": nil, "annotations": rawOrNull(c.Annotations)}
	}
	spilled := func(typ string, uri, mime any, data []byte) (map[string]any, string) {
		sum := sha256.Sum256(data)
		hexSum := hex.EncodeToString(sum[:])
		m, _ := mime.(string)
		var path string
		if ext, ok := spillExt[strings.ToLower(m)]; ok {
			path = filepath.Join(rc.spillDir, hexSum+"."+ext)
		} else {
			var p string
			_ = json.Unmarshal(g["path"], &p)
			ext := strings.TrimPrefix(filepath.Ext(p), ".")
			if !anyExt.MatchString(ext) {
				ts.Fatalf("%s: spilled path %q has no valid extension", where, p)
			}
			path = filepath.Join(rc.spillDir, hexSum+"."+ext)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			ts.Fatalf("%s: %s content should be spilled to %s: %v\nmcpx rendered: %s", where, typ, path, err, got)
		}
		if !bytes.Equal(b, data) {
			ts.Fatalf("%s: %s holds %d bytes that are not the %d bytes %s sent", where, path, len(b), len(data), rc.who)
		}
		ts.Logf("%s: %s of %d bytes spilled to %s, sha256 checked", where, typ, len(data), filepath.Base(path))
		return map[string]any{"type": typ, "spilled": true, "path": path, "uri": uri, "mime_type": mime,
				"sniffed": false, "size_bytes": len(data), "sha256": hexSum, "annotations": rawOrNull(c.Annotations)},
			fmt.Sprintf("[%s: %s (%s, %d bytes)]", typ, path, m, len(data))
	}
	decode := func(s string) []byte {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			ts.Fatalf("%s: %s sent invalid base64: %v", where, rc.who, err)
		}
		return b
	}

	var want map[string]any
	var flat string
	switch c.Type {
	case "text":
		if c.Text == nil {
			ts.Fatalf("%s: the server's text block has no text", where)
		}
		want = textItem(nil, nil, *c.Text)
		flat = *c.Text
	case "image", "audio":
		if c.Data == nil {
			ts.Fatalf("%s: the server's %s block has no data", where, c.Type)
		}
		want, flat = spilled(c.Type, nil, nullOr(c.MimeType), decode(*c.Data))
	case "resource":
		r := c.Resource
		if r == nil || (r.Text == nil) == (r.Blob == nil) {
			ts.Fatalf("%s: the server's embedded resource has not exactly one of text and blob", where)
		}
		if r.Text != nil {
			want = textItem(r.URI, nullOr(r.MimeType), *r.Text)
			flat = *r.Text
			break
		}
		b := decode(*r.Blob)
		if utf8.Valid(b) && !bytes.Contains(b, []byte{0}) {
			want = textItem(r.URI, nullOr(r.MimeType), string(b))
			flat = string(b)
			ts.Logf("%s: embedded blob of UTF-8 text, rendered as text", where)
			break
		}
		want, flat = spilled("blob", r.URI, nullOr(r.MimeType), decode(*r.Blob))
	case "resource_link":
		if c.URI == nil {
			ts.Fatalf("%s: the server's resource link has no uri", where)
		}
		want = map[string]any{"type": "resource_link", "uri": *c.URI, "name": nullOr(c.Name), "title": nullOr(c.Title),
			"description": nullOr(c.Description), "mime_type": nullOr(c.MimeType), "size": rawOrNull(c.Size),
			"annotations": rawOrNull(c.Annotations)}
		flat = "[resource: " + *c.URI + "]"
	default:
		want = map[string]any{"type": "unknown", "content_type": c.Type, "omitted": true, "annotations": rawOrNull(c.Annotations)}
		flat = "[" + c.Type + " content omitted]"
	}
	for k, v := range want {
		gv, ok := g[k]
		if !ok {
			ts.Fatalf("%s: rendered item has no %q field: %s", where, k, got)
		}
		wb, err := json.Marshal(v)
		ts.Check(err)
		if !jsonEqual(gv, wb) {
			ts.Fatalf("%s: %s is %s, want %s\nmcpx rendered: %s", where, k, compact(gv), wb, got)
		}
	}
	return flat
}

// spillDirFor is where mcpx spills for the server it printed as SERVER: a URL
// server's host, else the configured name.
func (it *interop) spillDirFor(ts *testscript.TestScript, server string) string {
	if server != "everything" && server != ts.Getenv("URL") {
		ts.Fatalf("document names server %q; the script used %q or $URL %q", server, "everything", ts.Getenv("URL"))
	}
	dir := server
	if u, err := url.Parse(server); err == nil && u.Scheme != "" && u.Host != "" {
		dir = u.Hostname()
	}
	return filepath.Join(ts.Getenv("MCPX_CACHE_DIR"), "mcp-resources", dir)
}

// splitFileArg splits a command's arguments into the leading ones and the last (a file).
func splitFileArg(ts *testscript.TestScript, args []string, min int, usage string) ([]string, string) {
	if len(args) < min {
		ts.Fatalf("usage: %s", usage)
	}
	return args[:len(args)-1], args[len(args)-1]
}

func (it *interop) cmdPromptMatches(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "prompt-matches NAME [ARG=VALUE...] FILE"
	if neg {
		ts.Fatalf("usage: %s", usage)
	}
	head, file := splitFileArg(ts, args, 2, usage)
	name := head[0]
	var pargs map[string]string
	for _, a := range head[1:] {
		// ARG=VALUE is literal; ARG<FILE takes FILE's content verbatim.
		i := strings.IndexAny(a, "=<")
		if i <= 0 {
			ts.Fatalf("usage: %s (got %q)", usage, a)
		}
		k, v := a[:i], a[i+1:]
		if a[i] == '<' {
			v = ts.ReadFile(v)
		}
		if pargs == nil {
			pargs = map[string]string{}
		}
		pargs[k] = v
	}
	tr := it.truth(ts)
	res, err := rawGetPrompt(tr.raw, name, pargs)
	ts.Check(err)
	comparePrompt(ts, tr.String(), name, res, file, func(server string) string { return it.spillDirFor(ts, server) })
}

// comparePrompt: FILE (mcpx --json prompt SRV NAME ...) renders exactly the
// messages of RES, the prompts/get result the server WHO sent, and its
// "text" is the contract's flattening of them; SPILLDIR gives where mcpx
// spills for the server FILE names.
func comparePrompt(ts *testscript.TestScript, who, name string, res json.RawMessage, file string, spillDir func(server string) string) {
	var sent struct {
		Description *string `json:"description"`
		Messages    []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	ts.Check(json.Unmarshal(res, &sent))

	data := ts.ReadFile(file)
	var doc struct {
		Server      string          `json:"server"`
		Prompt      string          `json:"prompt"`
		Description json.RawMessage `json:"description"`
		Messages    []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
		Text      *string `json:"text"`
		Truncated *bool   `json:"truncated"`
		Omitted   *int    `json:"omitted"`
	}
	if err := json.Unmarshal([]byte(data), &doc); err != nil {
		ts.Fatalf("%s is not a prompt document: %v\n%s", file, err, data)
	}
	if doc.Prompt != name {
		ts.Fatalf("prompt: %q, want %q", doc.Prompt, name)
	}
	wantDesc, _ := json.Marshal(nullOr(sent.Description))
	if !jsonEqual(rawOrNull(doc.Description), wantDesc) {
		ts.Fatalf("description: %s, %s sent %s", doc.Description, who, wantDesc)
	}
	if doc.Text == nil || doc.Truncated == nil || *doc.Truncated || doc.Omitted == nil || *doc.Omitted != 0 {
		ts.Fatalf("prompt document: text %v, truncated %v, omitted %v: want a text, false and 0\n%s", doc.Text, doc.Truncated, doc.Omitted, data)
	}
	if len(doc.Messages) != len(sent.Messages) {
		ts.Fatalf("%d messages, %s sent %d\n%s\nserver: %s", len(doc.Messages), who, len(sent.Messages), data, res)
	}
	rc := &renderCheck{ts: ts, who: who, spillDir: spillDir(doc.Server)}
	parts := make([]string, len(sent.Messages))
	for i, m := range sent.Messages {
		// A prompt message carries one content block (an array is accepted too).
		var blocks []rawContent
		if c := bytes.TrimSpace(m.Content); len(c) > 0 && c[0] == '[' {
			ts.Check(json.Unmarshal(c, &blocks))
		} else {
			var one rawContent
			ts.Check(json.Unmarshal(c, &one))
			blocks = []rawContent{one}
		}
		got := doc.Messages[i]
		if got.Role != m.Role {
			ts.Fatalf("message #%d: role %q, %s sent %q", i, got.Role, who, m.Role)
		}
		if len(got.Content) != len(blocks) {
			ts.Fatalf("message #%d: %d rendered items, %s sent %d", i, len(got.Content), who, len(blocks))
		}
		if len(blocks) != 1 {
			ts.Fatalf("message #%d: %s sent %d content blocks; the flattening rule is written for one", i, who, len(blocks))
		}
		flat := rc.item(fmt.Sprintf("message #%d (%s)", i, m.Role), blocks[0], got.Content[0])
		parts[i] = "[" + m.Role + "]\n" + flat + "\n"
	}
	want := strings.Join(parts, "\n")
	if *doc.Text != want {
		norm := func(s string) string { return clockTime.ReplaceAllString(s, "H:MM:SS") }
		if norm(*doc.Text) != norm(want) {
			ts.Fatalf("text is not the flattening of the messages %s sent:\nmcpx: %q\nwant: %q", who, *doc.Text, want)
		}
		rc.clock++
	}
	note := ""
	if rc.clock > 0 {
		note = fmt.Sprintf(" (%d comparison(s) with clock times masked)", rc.clock)
	}
	ts.Logf("prompt %s: %d message(s) and the flattened text as %s sent them%s", name, len(sent.Messages), who, note)
}

func (it *interop) cmdInvokeMatches(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "invoke-matches TOOL ARGS-JSON FILE"
	if neg || len(args) != 3 {
		ts.Fatalf("usage: %s", usage)
	}
	tool, argsJSON, file := args[0], args[1], args[2]
	if !json.Valid([]byte(argsJSON)) {
		ts.Fatalf("ARGS-JSON %q is not JSON", argsJSON)
	}
	tr := it.truth(ts)
	res, err := rawCallTool(tr.raw, tool, json.RawMessage(argsJSON))
	ts.Check(err)
	compareInvoke(ts, tr.String(), tool, argsJSON, res, file, func(server string) string { return it.spillDirFor(ts, server) })
}

// compareInvoke: FILE (mcpx --json invoke SRV TOOL ...) renders exactly RES,
// the tools/call result the server WHO sent for arguments ARGSJSON;
// SPILLDIR gives where mcpx spills for the server FILE names.
func compareInvoke(ts *testscript.TestScript, who, tool, argsJSON string, res json.RawMessage, file string, spillDir func(server string) string) {
	var sent struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
	}
	ts.Check(json.Unmarshal(res, &sent))

	data := ts.ReadFile(file)
	var doc struct {
		Server                     string            `json:"server"`
		Tool                       string            `json:"tool"`
		IsError                    *bool             `json:"is_error"`
		Content                    []json.RawMessage `json:"content"`
		StructuredContent          json.RawMessage   `json:"structured_content"`
		StructuredContentTruncated *bool             `json:"structured_content_truncated"`
		StructuredContentPath      json.RawMessage   `json:"structured_content_path"`
		Omitted                    *int              `json:"omitted"`
	}
	if err := json.Unmarshal([]byte(data), &doc); err != nil {
		ts.Fatalf("%s is not an invoke document: %v\n%s", file, err, data)
	}
	if doc.Tool != tool {
		ts.Fatalf("tool: %q, want %q", doc.Tool, tool)
	}
	if doc.IsError == nil || *doc.IsError != sent.IsError {
		ts.Fatalf("is_error: %v, %s sent isError %v", doc.IsError, who, sent.IsError)
	}
	if doc.Omitted == nil || *doc.Omitted != 0 || doc.StructuredContentTruncated == nil || *doc.StructuredContentTruncated ||
		string(rawOrNull(doc.StructuredContentPath)) != "null" {
		ts.Fatalf("invoke document: omitted %v, structured_content_truncated %v, structured_content_path %s: want 0, false, null",
			doc.Omitted, doc.StructuredContentTruncated, rawOrNull(doc.StructuredContentPath))
	}
	if !jsonEqual(rawOrNull(doc.StructuredContent), rawOrNull(sent.StructuredContent)) {
		ts.Fatalf("structured_content: %s, %s sent %s", compact(rawOrNull(doc.StructuredContent)), who, compact(rawOrNull(sent.StructuredContent)))
	}
	if len(doc.Content) != len(sent.Content) {
		ts.Fatalf("%d rendered items, %s sent %d\n%s\nserver: %s", len(doc.Content), who, len(sent.Content), data, res)
	}
	rc := &renderCheck{ts: ts, who: who, spillDir: spillDir(doc.Server)}
	var kinds []string
	for i, raw := range sent.Content {
		var c rawContent
		ts.Check(json.Unmarshal(raw, &c))
		rc.item(fmt.Sprintf("item #%d (%s)", i, c.Type), c, doc.Content[i])
		kinds = append(kinds, c.Type)
	}
	sc := ""
	if string(rawOrNull(sent.StructuredContent)) != "null" {
		sc = ", structured content"
	}
	note := ""
	if rc.clock > 0 {
		note = fmt.Sprintf(" (%d comparison(s) with clock times masked)", rc.clock)
	}
	ts.Logf("tool %s %s: isError %v, content [%s]%s as %s sent them%s",
		tool, argsJSON, sent.IsError, strings.Join(kinds, " "), sc, who, note)
}

func cmdTextMatches(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: text-matches JSONFILE TEXTFILE")
	}
	var doc struct {
		Text *string `json:"text"`
	}
	data := ts.ReadFile(args[0])
	if err := json.Unmarshal([]byte(data), &doc); err != nil || doc.Text == nil {
		ts.Fatalf("%s has no text field: %v\n%s", args[0], err, data)
	}
	got := ts.ReadFile(args[1])
	if got != *doc.Text {
		norm := func(s string) string { return clockTime.ReplaceAllString(s, "H:MM:SS") }
		if norm(got) != norm(*doc.Text) {
			ts.Fatalf("text mode printed\n%q\nbut the JSON text is\n%q", got, *doc.Text)
		}
		ts.Logf("text mode equals the JSON text, clock times masked")
	}
}

// tapRequest is one request mcpx wrote to a stdio-tap server.
type tapRequest struct {
	Method string `json:"method"`
	Params struct {
		Arguments json.RawMessage `json:"arguments"`
	} `json:"params"`
}

func readTap(ts *testscript.TestScript) []tapRequest {
	// $WORK/server.in, wherever the script has cd'ed to.
	b, err := os.ReadFile(filepath.Join(ts.Getenv("WORK"), "server.in"))
	if err != nil {
		ts.Fatalf("no tap log (did mcpx start the server through a tap: 'everything VERSION stdio-tap' or 'serve -tap'?): %v", err)
	}
	var out []tapRequest
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r tapRequest
		if err := json.Unmarshal(line, &r); err != nil {
			ts.Fatalf("tap log: a line mcpx wrote is not JSON: %v\n%s", err, line)
		}
		out = append(out, r)
	}
	ts.Check(sc.Err())
	return out
}

func cmdSent(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 || (neg && len(args) != 1) {
		ts.Fatalf("usage: [!] sent METHOD [ARGS-JSON]")
	}
	reqs := readTap(ts)
	var methods []string
	var last *tapRequest
	initialized := false
	for i, r := range reqs {
		methods = append(methods, r.Method)
		if r.Method == "initialize" || r.Method == "server/discover" { // the 2026-07-28 era has no initialize
			initialized = true
		}
		if r.Method == args[0] {
			last = &reqs[i]
		}
	}
	if neg {
		if !initialized {
			ts.Fatalf("mcpx never initialized the server (it wrote %v), so not sending %s proves nothing", methods, args[0])
		}
		if last != nil {
			ts.Fatalf("mcpx sent %s: %v", args[0], methods)
		}
		ts.Logf("mcpx sent %v, and no %s", methods, args[0])
		return
	}
	if last == nil {
		ts.Fatalf("mcpx did not send %s: %v", args[0], methods)
	}
	if len(args) == 2 && !jsonEqual(rawOrNull(last.Params.Arguments), []byte(args[1])) {
		ts.Fatalf("mcpx sent %s with arguments %s, want %s", args[0], compact(rawOrNull(last.Params.Arguments)), args[1])
	}
}

// groupMembers lists the live (not zombie) processes in process group PGID.
func groupMembers(pgid int) []string {
	var live []string
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range dirs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:]) // state ppid pgrp ...
		if len(f) < 3 || f[0] == "Z" {
			continue
		}
		if g, err := strconv.Atoi(f[2]); err == nil && g == pgid {
			live = append(live, strings.TrimSpace(s[:i+1]))
		}
	}
	return live
}

func cmdGroupGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: group-gone PIDFILE")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	pgid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	ts.Check(err)
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		ts.Fatalf("group-gone needs /proc")
	}
	deadline := time.Now().Add(500 * time.Millisecond)
	for {
		live := groupMembers(pgid)
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("mcpx has exited but the server's process group %d lives on: %v", pgid, live)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func cmdExitWithin(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: exitwithin DUR N PROG [ARGS...]")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	start := time.Now()
	cmdExitCode(ts, false, args[1:])
	if el := time.Since(start); el > d {
		ts.Fatalf("%s took %v, more than %v", args[2], el.Round(time.Millisecond), d)
	} else {
		ts.Logf("%s exited %s after %v", args[2], args[1], el.Round(time.Millisecond))
	}
}

// stdioTapEntry is the config entry of mode stdio-tap: sh writes its pid (the
// process group mcpx made) to PIDFILE and copies what mcpx writes to LOG on
// its way to node.
func stdioTapEntry(node, script, pidFile, logFile string) map[string]any {
	return map[string]any{
		"command": "sh",
		"args":    []string{"-c", `echo $$ >"$0"; tee -a "$1" | "$2" "$3"`, pidFile, logFile, node, script},
	}
}
