//go:build unix

package test

// Interop tests: mcpx against @modelcontextprotocol/server-everything, the
// reference server of the MCP project, in two published versions (npm
// aliases installed by `make interop-deps` into test/interop/node_modules):
//
//	server-everything-2025     @2025.12.18, pages its resources with cursors
//	server-everything-current  @2026.8.31
//
// What mcpx prints is compared with what the server itself reports to an
// independent client: mcp-go's client (names, URIs, templates, initialize
// result) cross-checked against a raw JSON-RPC exchange on the same session
// (the raw tool definitions, page counts). mcpx is driven through its real
// entry point by the scripts in testdata/interop, with these extra commands:
//
//	everything VERSION MODE   start/configure the server (MODE stdio, stdio-tap,
//	                          streamableHttp or sse); see cmdEverything
//	paginated KIND            the server's own listing of KIND took more than one page
//	declared                  the last initialize mcpx sent (stdio-tap) declared exactly the
//	                          client capabilities the truth session it is compared with did
//	catalog-matches FILE      FILE (mcpx --json catalog) lists exactly the server's items
//	schema-matches TOOL FILE  FILE (mcpx --json describe) has the schemas as sent
//	probe-matches NAME FILE   FILE (mcpx --json servers --probe) agrees with initialize
//	read-matches URI FILE     FILE (mcpx --json read URI) renders what resources/read sends
//	raw-matches URI FILE      FILE (mcpx read URI -o FILE) holds the decoded bytes
//
// and those of interop_prompt_test.go for prompt and invoke (prompt-matches,
// invoke-matches, text-matches, sent, group-gone, exitwithin).
//
// interop_servers_test.go does the same against the reference filesystem and
// memory servers, a TypeScript-SDK server and a Go-SDK server.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rogpeppe/go-internal/testscript"
)

// interopVersions maps the VERSION a script names to the npm alias directory.
var interopVersions = map[string]string{
	"2025":    "server-everything-2025",
	"current": "server-everything-current",
}

// interopProtocol is the version both mcpx (its default) and the independent
// client negotiate.
const interopProtocol = "2025-11-25"

// capSet names the client capabilities a truth session declares. What a
// server lists can depend on them (server-everything registers its roots,
// elicitation and sampling tools only for a client that declares those), so
// each mcpx run is compared with a session that declares exactly what mcpx
// declares for it (see REQUESTS FROM SERVERS in mcpx(1)):
//
//	elicit  elicitation {form, url}: mcpx over stdio and streamable HTTP,
//	        the default (no roots unless the user names them)
//	roots   elicitation {form, url} and roots: the same with --root or a
//	        server's "roots" (a script sets EVERYTHING_CAPS=roots before
//	        comparing such a run)
//	none    nothing: mcpx over the legacy SSE transport
type capSet string

const (
	capsElicit capSet = "elicit"
	capsRoots  capSet = "roots"
	capsNone   capSet = "none"
)

var capSets = []capSet{capsElicit, capsRoots, capsNone}

// capabilities are the client capabilities the set declares at initialize.
func (c capSet) capabilities() mcp.ClientCapabilities {
	var caps mcp.ClientCapabilities
	if c == capsElicit || c == capsRoots {
		caps.Elicitation = &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}
	}
	if c == capsRoots {
		caps.Roots = &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{}
	}
	return caps
}

// modeCaps is the capability set mcpx declares by default over each
// `everything` MODE.
var modeCaps = map[string]capSet{"stdio": capsElicit, "stdio-tap": capsElicit, "stdio-toggle": capsElicit, "streamableHttp": capsElicit, "sse": capsNone}

// truthKey names one truth: a server version asked by a session declaring a capability set.
func truthKey(version string, caps capSet) string { return version + "/" + string(caps) }

// truthAnswers answers what server-everything asks a truth session that
// declared elicitation (and roots): every elicitation is declined (what mcpx
// answers when nobody can be asked and a required field has no default, so
// that a raw call of an elicitation tool returns what mcpx's does), and the
// roots are none.
type truthAnswers struct{}

func (truthAnswers) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}, nil
}

func (truthAnswers) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{}}, nil
}

func TestInterop(t *testing.T) {
	t.Parallel() // see TestScript
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("interop: node is not on PATH (%v): install Node.js 20 or newer, then run make interop-deps", err)
	}
	scripts := map[string]string{}
	for v, dir := range interopVersions {
		p, err := filepath.Abs(filepath.Join("interop", "node_modules", dir, "dist", "index.js"))
		if err != nil {
			t.Fatal(err)
		}
		if !fileExists(p) {
			t.Fatalf("interop: %s is missing: run make interop-deps (installs test/interop/node_modules from npm)", p)
		}
		scripts[v] = p
	}

	// What each server reports, asked once per version and capability set,
	// all at once.
	truths := map[string]*everythingTruth{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, len(scripts)*len(capSets))
	for v, script := range scripts {
		for _, cs := range capSets {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tr, err := collectTruth(t, node, script, v, cs)
				if err != nil {
					errs <- fmt.Errorf("interop: asking server-everything %s (node %s) through the independent client declaring %s capabilities: %w", v, script, cs, err)
					return
				}
				tr.version, tr.caps = v, cs
				mu.Lock()
				truths[truthKey(v, cs)] = tr
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	for _, v := range []string{"2025", "current"} {
		for _, cs := range capSets {
			tr := truths[truthKey(v, cs)]
			declared, _ := json.Marshal(cs.capabilities())
			t.Logf("server-everything %s, to a client declaring %s: %s %s, protocol %s, %d catalog items, pages %v",
				v, declared, tr.init.ServerInfo.Name, tr.init.ServerInfo.Version, tr.init.ProtocolVersion, len(tr.keys), tr.pages)
		}
	}

	it := &interop{node: node, scripts: scripts, truths: truths, logDir: t.TempDir(), http: map[string]*sharedHTTP{}}
	t.Cleanup(it.stopHTTP)
	p := params("testdata/interop")
	p.Cmds["everything"] = it.cmdEverything
	p.Cmds["paginated"] = it.cmdPaginated
	p.Cmds["declared"] = it.cmdDeclared
	p.Cmds["catalog-matches"] = it.cmdCatalogMatches
	p.Cmds["schema-matches"] = it.cmdSchemaMatches
	p.Cmds["probe-matches"] = it.cmdProbeMatches
	p.Cmds["read-matches"] = it.cmdReadMatches
	p.Cmds["raw-matches"] = it.cmdRawMatches
	p.Cmds["prompt-matches"] = it.cmdPromptMatches
	p.Cmds["invoke-matches"] = it.cmdInvokeMatches
	p.Cmds["task-matches"] = it.cmdTaskMatches // interop_tasks_test.go
	p.Cmds["text-matches"] = cmdTextMatches
	p.Cmds["sent"] = cmdSent
	p.Cmds["group-gone"] = cmdGroupGone
	p.Cmds["exitwithin"] = cmdExitWithin
	testscript.Run(t, p)
}

// everythingTruth is what one server version reports to the independent
// client declaring one capability set.
type everythingTruth struct {
	version string
	caps    capSet
	init    *mcp.InitializeResult
	keys    []string                   // catalog keys (KIND:ID), kind by kind, in the server's order
	pages   map[string]int             // kind → pages the raw listing took
	tools   map[string]json.RawMessage // tool name → the tool object exactly as sent
	reads   map[string][]readItem      // URI → the items resources/read sent (interopReads)
	raw     transport.Interface        // the session, open until the test ends
}

// String names the server the truth is of, for messages.
func (tr *everythingTruth) String() string { return "server-everything " + tr.version }

// readItem is one item of a raw resources/read result, decoded by the test.
type readItem struct {
	URI, MimeType string
	Blob          bool
	Bytes         []byte // the text, or the decoded blob
}

// interopReads are the URIs each version's truth reads: a text resource, a
// blob resource, and a template expansion (the scripts read the same ones).
var interopReads = map[string][]string{
	"2025":    {"test://static/resource/1", "test://static/resource/2", "test://static/resource/7"},
	"current": {"demo://resource/static/document/features.md", "demo://resource/dynamic/blob/3", "demo://resource/dynamic/text/3"},
}

// clockTime is the time of day server-everything's dynamic resources carry
// ("created at 4:21:44 AM"): it differs between the truth's read and mcpx's.
var clockTime = regexp.MustCompile(`\d{1,2}:\d{2}:\d{2}\s?[AP]M`)

// collectTruth starts the server over stdio with mcp-go's client, initializes
// at interopProtocol declaring the capability set CS (and answering what the
// server then asks: see truthAnswers) and lists every kind the server
// advertises (following cursors), both through the client's typed calls and
// through raw JSON-RPC requests on the same session; the two must agree.
func collectTruth(t *testing.T, node, script, version string, cs capSet) (*everythingTruth, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The session stays open for the whole test: prompt-matches and
	// invoke-matches ask it live. At the end the server gets SIGTERM first
	// (it does not exit when its stdin closes, and mcp-go would wait 2 s).
	var cmd *exec.Cmd
	c, err := client.NewStdioMCPClientWithOptions(node, nil, []string{script},
		transport.WithCommandFunc(func(_ context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd = exec.Command(command, args...)
			cmd.Env = append(os.Environ(), env...)
			return cmd, nil
		}))
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() {
		if cmd != nil && cmd.Process != nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
		_ = c.Close()
	})
	client.WithProtocolVersion(interopProtocol)(c)
	declared := cs.capabilities()
	// The handlers answer the server's requests; the capabilities declared
	// are exactly DECLARED (mcp-go adds its own only where DECLARED has none).
	client.WithClientCapabilities(declared)(c)
	if declared.Elicitation != nil {
		client.WithElicitationHandler(truthAnswers{})(c)
	}
	if declared.Roots != nil {
		client.WithRootsHandler(truthAnswers{})(c)
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = interopProtocol
	req.Params.ClientInfo = mcp.Implementation{Name: "mcpx-interop-test", Version: "1"}
	req.Params.Capabilities = declared
	init, err := c.Initialize(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	raw := c.GetTransport()
	tr := &everythingTruth{init: init, pages: map[string]int{}, tools: map[string]json.RawMessage{}, raw: raw}
	caps := init.Capabilities

	// typed: the mcp-go client's own listings; rawKeys: the raw exchange.
	var typed, rawKeys []string
	if caps.Tools != nil {
		res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		for _, x := range res.Tools {
			typed = append(typed, "tool:"+x.Name)
		}
		items, pages, err := rawList(ctx, raw, "tools/list", "tools")
		if err != nil {
			return nil, err
		}
		tr.pages["tool"] = pages
		for i, item := range items {
			var v struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(item, &v); err != nil || v.Name == "" {
				return nil, fmt.Errorf("raw tools/list: tool #%d has no name: %s", i, item)
			}
			rawKeys = append(rawKeys, "tool:"+v.Name)
			tr.tools[v.Name] = item
		}
	}
	if caps.Resources != nil {
		res, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
		if err != nil {
			return nil, fmt.Errorf("resources/list: %w", err)
		}
		for _, x := range res.Resources {
			typed = append(typed, "resource:"+x.URI)
		}
		keys, pages, err := rawKeyList(ctx, raw, "resources/list", "resources", "uri", "resource")
		if err != nil {
			return nil, err
		}
		tr.pages["resource"] = pages
		rawKeys = append(rawKeys, keys...)

		tres, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
		if err != nil {
			return nil, fmt.Errorf("resources/templates/list: %w", err)
		}
		for _, x := range tres.ResourceTemplates {
			s := ""
			if x.URITemplate != nil && x.URITemplate.Template != nil {
				s = x.URITemplate.Raw()
			}
			typed = append(typed, "resource_template:"+s)
		}
		keys, pages, err = rawKeyList(ctx, raw, "resources/templates/list", "resourceTemplates", "uriTemplate", "resource_template")
		if err != nil {
			return nil, err
		}
		tr.pages["resource_template"] = pages
		rawKeys = append(rawKeys, keys...)
	}
	if caps.Prompts != nil {
		res, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
		if err != nil {
			return nil, fmt.Errorf("prompts/list: %w", err)
		}
		for _, x := range res.Prompts {
			typed = append(typed, "prompt:"+x.Name)
		}
		keys, pages, err := rawKeyList(ctx, raw, "prompts/list", "prompts", "name", "prompt")
		if err != nil {
			return nil, err
		}
		tr.pages["prompt"] = pages
		rawKeys = append(rawKeys, keys...)
	}
	if !reflect.DeepEqual(typed, rawKeys) {
		return nil, fmt.Errorf("mcp-go's listings and the raw exchange disagree:\n%s", diffKeys(rawKeys, typed))
	}
	if len(typed) == 0 {
		return nil, errors.New("the server listed nothing at all")
	}
	tr.keys = typed
	tr.reads = map[string][]readItem{}
	for _, uri := range interopReads[version] {
		items, err := rawRead(ctx, raw, uri)
		if err != nil {
			return nil, err
		}
		tr.reads[uri] = items
	}
	return tr, nil
}

// rawRead sends resources/read as raw JSON-RPC and decodes its items.
func rawRead(ctx context.Context, tr transport.Interface, uri string) ([]readItem, error) {
	resp, err := tr.SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      mcp.NewRequestId("interop-raw-read-" + uri),
		Method:  "resources/read",
		Params:  map[string]any{"uri": uri},
	})
	if err != nil {
		return nil, fmt.Errorf("raw resources/read %s: %w", uri, err)
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("raw resources/read %s: error %d %s", uri, resp.Error.Code, resp.Error.Message)
	}
	var res struct {
		Contents []struct {
			URI      string  `json:"uri"`
			MimeType string  `json:"mimeType"`
			Text     *string `json:"text"`
			Blob     *string `json:"blob"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		return nil, fmt.Errorf("raw resources/read %s: %w", uri, err)
	}
	var items []readItem
	for i, c := range res.Contents {
		it := readItem{URI: c.URI, MimeType: c.MimeType}
		switch {
		case c.Text != nil && c.Blob == nil:
			it.Bytes = []byte(*c.Text)
		case c.Blob != nil && c.Text == nil:
			b, err := base64.StdEncoding.DecodeString(*c.Blob)
			if err != nil {
				return nil, fmt.Errorf("raw resources/read %s: item #%d: %w", uri, i, err)
			}
			it.Blob, it.Bytes = true, b
		default:
			return nil, fmt.Errorf("raw resources/read %s: item #%d has not exactly one of text and blob", uri, i)
		}
		items = append(items, it)
	}
	return items, nil
}

// rawList sends METHOD as raw JSON-RPC on the client's transport, following
// nextCursor, and returns the FIELD arrays of every page, concatenated.
func rawList(ctx context.Context, tr transport.Interface, method, field string) ([]json.RawMessage, int, error) {
	var all []json.RawMessage
	seen := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		resp, err := tr.SendRequest(ctx, transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION,
			ID:      mcp.NewRequestId(fmt.Sprintf("interop-raw-%s-%d", method, page)),
			Method:  method,
			Params:  params,
		})
		if err != nil {
			return nil, 0, fmt.Errorf("raw %s page %d: %w", method, page, err)
		}
		if resp.Error != nil {
			return nil, 0, fmt.Errorf("raw %s page %d: error %d %s", method, page, resp.Error.Code, resp.Error.Message)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(resp.Result, &fields); err != nil {
			return nil, 0, fmt.Errorf("raw %s page %d: %w", method, page, err)
		}
		var items []json.RawMessage
		if err := json.Unmarshal(fields[field], &items); err != nil {
			return nil, 0, fmt.Errorf("raw %s page %d: %q: %w", method, page, field, err)
		}
		all = append(all, items...)
		var next *string
		if raw, ok := fields["nextCursor"]; ok {
			if err := json.Unmarshal(raw, &next); err != nil {
				return nil, 0, fmt.Errorf("raw %s page %d: nextCursor: %w", method, page, err)
			}
		}
		if next == nil || *next == "" {
			return all, page, nil
		}
		if seen[*next] {
			return nil, 0, fmt.Errorf("raw %s: cursor %q repeated", method, *next)
		}
		seen[*next] = true
		cursor = *next
	}
}

// rawKeyList lists METHOD raw and returns KIND:ID keys, ID being each item's IDFIELD.
func rawKeyList(ctx context.Context, tr transport.Interface, method, field, idField, kind string) ([]string, int, error) {
	items, pages, err := rawList(ctx, tr, method, field)
	if err != nil {
		return nil, 0, err
	}
	keys := make([]string, 0, len(items))
	for i, item := range items {
		var obj map[string]json.RawMessage
		var id string
		if err := json.Unmarshal(item, &obj); err != nil || json.Unmarshal(obj[idField], &id) != nil || id == "" {
			return nil, 0, fmt.Errorf("raw %s: item #%d has no %s: %s", method, i, idField, item)
		}
		keys = append(keys, kind+":"+id)
	}
	return keys, pages, nil
}

// interop holds what the script commands need.
type interop struct {
	node    string
	scripts map[string]string // VERSION → dist/index.js
	truths  map[string]*everythingTruth

	logDir string // the shared HTTP servers' output
	mu     sync.Mutex
	http   map[string]*sharedHTTP // "VERSION MODE" → its server
}

// sharedHTTP is a server-everything HTTP server that all scripts naming its
// version and mode use: the first one starts it, and it runs until the test
// ends. Sharing is sound because the server keeps no state across
// sessions (each session gets a server of its own) and every mcpx run is a
// session of its own; it saves a node start per script.
type sharedHTTP struct {
	once sync.Once
	port int
	err  error
	stop func()
}

// truth returns the truth of the version the script chose with `everything`,
// asked by a session declaring what mcpx declares over the script's MODE.
func (it *interop) truth(ts *testscript.TestScript) *everythingTruth {
	v, cs := ts.Getenv("EVERYTHING"), ts.Getenv("EVERYTHING_CAPS")
	tr := it.truths[truthKey(v, capSet(cs))]
	if tr == nil {
		ts.Fatalf("no server chosen: run 'everything VERSION MODE' first")
	}
	return tr
}

// everything VERSION MODE: make server-everything VERSION (2025 or current)
// the script's server, and remember VERSION, and the capability set mcpx
// declares by default over MODE (modeCaps; $EVERYTHING_CAPS, which a script
// sets to roots to compare a run given --root), for the *-matches commands.
//
//	stdio           $MCPX_CONFIG gets {"everything": {"command": "node", "args": [.../dist/index.js]}}
//	stdio-tap       likewise through sh, which writes its pid (the server's process group)
//	                to $WORK/server.pid and copies mcpx's requests to $WORK/server.in
//	streamableHttp  the server runs on a free loopback port; $URL is http://127.0.0.1:PORT/mcp
//	sse             likewise, $URL is http://127.0.0.1:PORT/sse, and $MCPX_CONFIG gets
//	                {"everything": {"url": $URL, "type": "sse"}}
//
// The HTTP servers are shared by the scripts (see sharedHTTP) and killed
// (their whole process group) when the test ends; a stdio server is mcpx's
// own child, started by each mcpx run.
func (it *interop) cmdEverything(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: everything VERSION stdio|stdio-tap|stdio-toggle|streamableHttp|sse")
	}
	version, mode := args[0], args[1]
	script, ok := it.scripts[version]
	if !ok {
		ts.Fatalf("unknown version %q", version)
	}
	ts.Setenv("EVERYTHING", version)
	ts.Setenv("EVERYTHING_CAPS", string(modeCaps[mode]))
	var entry map[string]any
	switch mode {
	case "stdio":
		entry = map[string]any{"command": "node", "args": []string{script}}
	case "stdio-tap":
		entry = stdioTapEntry(it.node, script, ts.MkAbs("server.pid"), ts.MkAbs("server.in"))
	case "stdio-toggle":
		// server-everything's toggle-subscriber-updates, called on the
		// client's own session once it has subscribed (watch_script_test.go)
		entry = map[string]any{"command": "mcpx-inject", "args": []string{`"resources/subscribe"`,
			`{"jsonrpc":"2.0","id":"mcpx-inject","method":"tools/call","params":{"name":"toggle-subscriber-updates","arguments":{}}}`,
			"--", "node", script}}
	case "streamableHttp", "sse":
		port := it.sharedHTTP(ts, version, script, mode)
		u := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
		if mode == "sse" {
			u = fmt.Sprintf("http://127.0.0.1:%d/sse", port)
			entry = map[string]any{"url": u, "type": "sse"}
		}
		ts.Setenv("URL", u)
	default:
		ts.Fatalf("unknown mode %q", mode)
	}
	if entry == nil {
		return
	}
	cfg := ts.Getenv("MCPX_CONFIG")
	if cfg == "" {
		ts.Fatalf("set MCPX_CONFIG first")
	}
	b, err := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"everything": entry}}, "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(cfg), append(b, '\n'), 0o644))
}

// sharedHTTP returns the port of the shared server of VERSION in MODE,
// starting it if no script has yet.
func (it *interop) sharedHTTP(ts *testscript.TestScript, version, script, mode string) int {
	it.mu.Lock()
	sh := it.http[version+" "+mode]
	if sh == nil {
		sh = &sharedHTTP{}
		it.http[version+" "+mode] = sh
	}
	it.mu.Unlock()
	sh.once.Do(func() {
		logPath := filepath.Join(it.logDir, "everything-"+version+"-"+mode+".log")
		sh.port, sh.stop, sh.err = startHTTP(it.node, script, mode, logPath)
	})
	if sh.err != nil {
		ts.Fatalf("%v", sh.err)
	}
	ts.Logf("server-everything %s %s listening on 127.0.0.1:%d (shared)", version, mode, sh.port)
	return sh.port
}

// stopHTTP kills the shared servers.
func (it *interop) stopHTTP() {
	it.mu.Lock()
	defer it.mu.Unlock()
	for _, sh := range it.http {
		if sh.stop != nil {
			sh.stop()
		}
	}
}

// startHTTP runs `node SCRIPT MODE` with PORT set to a free loopback port and
// waits until it accepts connections; it returns the port and a function
// that kills the server's process group. The server's output goes to LOGPATH.
func startHTTP(node, script, mode, logPath string) (int, func(), error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return 0, nil, err
		}
		logf, err := os.Create(logPath)
		if err != nil {
			return 0, nil, err
		}
		cmd := exec.Command(node, script, mode)
		cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
		cmd.Stdout, cmd.Stderr = logf, logf
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			logf.Close()
			return 0, nil, fmt.Errorf("starting %s %s: %v", script, mode, err)
		}
		exited := make(chan struct{})
		go func() {
			_ = cmd.Wait()
			logf.Close()
			close(exited)
		}()
		stop := func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		deadline := time.Now().Add(15 * time.Second)
		for {
			select {
			case <-exited:
				out, _ := os.ReadFile(logPath)
				lastErr = fmt.Errorf("node %s %s (PORT=%d) exited before listening:\n%s", script, mode, port, out)
			default:
				// Listening is what the server says ("... on port N") and a
				// dial that succeeds: a dial alone can reach another test's
				// server that the kernel gave the same port meanwhile.
				said, _ := os.ReadFile(logPath)
				conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
				if err == nil {
					conn.Close()
				}
				if err == nil && bytes.Contains(said, []byte("port "+strconv.Itoa(port))) {
					return port, stop, nil
				}
				if time.Now().After(deadline) {
					stop()
					out, _ := os.ReadFile(logPath)
					return 0, nil, fmt.Errorf("node %s %s (PORT=%d) did not listen within 15s:\n%s", script, mode, port, out)
				}
				time.Sleep(20 * time.Millisecond)
				continue
			}
			break
		}
	}
	return 0, nil, lastErr
}

// freePort returns a loopback TCP port nothing listens on (at the moment).
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// paginated KIND: the server's own listing of KIND took more than one page
// (so a catalog that matches really followed nextCursor).
func (it *interop) cmdPaginated(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: paginated KIND")
	}
	tr := it.truth(ts)
	pages, ok := tr.pages[args[0]]
	if !ok {
		ts.Fatalf("server-everything %s did not list %s at all", tr.version, args[0])
	}
	if (pages > 1) == neg {
		ts.Fatalf("server-everything %s listed %s in %d page(s)", tr.version, args[0], pages)
	}
	ts.Logf("server-everything %s listed %s in %d pages", tr.version, args[0], pages)
}

// declared: the last initialize request mcpx wrote to a stdio-tap server
// ($WORK/server.in) declared exactly (as JSON values) the client
// capabilities the script's truth session declared, so that the truth is
// the one mcpx must be compared with.
func (it *interop) cmdDeclared(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: declared")
	}
	tr := it.truth(ts)
	want, err := json.Marshal(tr.caps.capabilities())
	ts.Check(err)
	b, err := os.ReadFile(ts.MkAbs("server.in"))
	if err != nil {
		ts.Fatalf("no tap log (did mcpx start the server with 'everything VERSION stdio-tap'?): %v", err)
	}
	var got json.RawMessage
	for _, line := range bytes.Split(b, []byte("\n")) {
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Capabilities json.RawMessage `json:"capabilities"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &msg) == nil && msg.Method == "initialize" {
			got = msg.Params.Capabilities
		}
	}
	if got == nil {
		ts.Fatalf("mcpx sent no initialize with capabilities:\n%s", b)
	}
	// Asked for the 2026-07-28 era, mcpx declares its extensions (the
	// skills it reads) in the initialize it falls back to as well: a
	// member the independent client has no use for, and nothing else.
	var caps map[string]json.RawMessage
	if json.Unmarshal(got, &caps) == nil && caps["extensions"] != nil {
		if !jsonEqual(caps["extensions"], json.RawMessage(`{"io.modelcontextprotocol/skills":{}}`)) {
			ts.Fatalf("mcpx declared the extensions %s", compact(caps["extensions"]))
		}
		delete(caps, "extensions")
		got, err = json.Marshal(caps)
		ts.Check(err)
	}
	if !jsonEqual(got, want) {
		ts.Fatalf("mcpx declared the client capabilities %s; the truth it is compared with declared %s", compact(got), want)
	}
	ts.Logf("mcpx declared %s, as the truth did", compact(got))
}

// catalog-matches FILE: FILE is `mcpx --json catalog` output whose items are
// exactly the server's items, as keys, kind by kind in the server's order,
// and whose warnings are an empty array.
func (it *interop) cmdCatalogMatches(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: catalog-matches FILE")
	}
	tr := it.truth(ts)
	compareCatalog(ts, tr.String(), tr.keys, args[0])
}

// compareCatalog: FILE is `mcpx --json catalog` output whose items are
// exactly the keys WANT (what the server WHO lists), in order, and whose
// warnings are an empty array.
func compareCatalog(ts *testscript.TestScript, who string, want []string, file string) {
	data := ts.ReadFile(file)
	var doc struct {
		Items []struct {
			Kind string `json:"kind"`
			ID   string `json:"id"`
			Key  string `json:"key"`
		} `json:"items"`
		Warnings json.RawMessage `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(data), &doc); err != nil {
		ts.Fatalf("%s is not a catalog document: %v\n%s", file, err, data)
	}
	var warnings []json.RawMessage
	if err := json.Unmarshal(doc.Warnings, &warnings); err != nil || warnings == nil {
		ts.Fatalf("catalog warnings: want [], got %s", doc.Warnings)
	}
	if len(warnings) > 0 {
		ts.Fatalf("catalog has %d warning(s) against %s:\n%s", len(warnings), who, doc.Warnings)
	}
	got := make([]string, len(doc.Items))
	for i, item := range doc.Items {
		got[i] = item.Key
		if item.Key != item.Kind+":"+item.ID {
			ts.Fatalf("item #%d: key %q is not kind %q + \":\" + id %q", i, item.Key, item.Kind, item.ID)
		}
	}
	if !reflect.DeepEqual(got, want) {
		ts.Fatalf("mcpx's catalog differs from what %s lists:\n%s", who, diffKeys(want, got))
	}
	ts.Logf("catalog: the %d items %s lists, in its order", len(got), who)
}

// schema-matches TOOL FILE: FILE is `mcpx --json describe` output for TOOL
// whose input_schema and output_schema equal, as JSON values, the tool's
// inputSchema and outputSchema (null when absent) exactly as the server sent them.
func (it *interop) cmdSchemaMatches(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: schema-matches TOOL FILE")
	}
	tr := it.truth(ts)
	rawTool, ok := tr.tools[args[0]]
	if !ok {
		ts.Fatalf("%s has no tool %q", tr, args[0])
	}
	compareSchema(ts, tr.String(), args[0], rawTool, args[1])
}

// compareSchema: FILE is `mcpx --json describe` output for TOOL whose
// input_schema and output_schema equal, as JSON values, those of RAWTOOL
// (the tool object exactly as the server WHO sent it; null when absent).
func compareSchema(ts *testscript.TestScript, who, tool string, rawTool json.RawMessage, file string) {
	var sent map[string]json.RawMessage
	ts.Check(json.Unmarshal(rawTool, &sent))
	data := ts.ReadFile(file)
	var got map[string]json.RawMessage
	if err := json.Unmarshal([]byte(data), &got); err != nil {
		ts.Fatalf("%s is not a describe document: %v\n%s", file, err, data)
	}
	if k := string(got["key"]); k != strconv.Quote("tool:"+tool) {
		ts.Fatalf("describe key: want %q, got %s", "tool:"+tool, k)
	}
	for _, f := range [][2]string{{"input_schema", "inputSchema"}, {"output_schema", "outputSchema"}} {
		mine, ok := got[f[0]]
		if !ok {
			ts.Fatalf("describe has no %s field", f[0])
		}
		want := sent[f[1]]
		if want == nil {
			want = json.RawMessage("null")
		}
		if !jsonEqual(mine, want) {
			ts.Fatalf("%s of tool %s differs from the %s %s sent:\nmcpx:   %s\nserver: %s",
				f[0], tool, f[1], who, compact(mine), compact(want))
		}
	}
}

// probe-matches NAME FILE: FILE is `mcpx --json servers --probe` output whose
// server NAME was probed without error and shows the server name, version,
// protocol version and capabilities the independent client got at initialize.
func (it *interop) cmdProbeMatches(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: probe-matches NAME FILE")
	}
	tr := it.truth(ts)
	data := ts.ReadFile(args[1])
	type probe struct {
		ServerName      *string         `json:"server_name"`
		ServerVersion   *string         `json:"server_version"`
		ProtocolVersion *string         `json:"protocol_version"`
		Capabilities    map[string]bool `json:"capabilities"`
		Error           json.RawMessage `json:"error"`
	}
	var doc struct {
		Servers []struct {
			Name  string `json:"name"`
			Probe *probe `json:"probe"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(data), &doc); err != nil {
		ts.Fatalf("%s is not a servers document: %v\n%s", args[1], err, data)
	}
	var p *probe
	for _, s := range doc.Servers {
		if s.Name == args[0] {
			if s.Probe == nil {
				ts.Fatalf("server %s was not probed: %s", args[0], data)
			}
			p = s.Probe
		}
	}
	if p == nil {
		ts.Fatalf("no server %s in %s", args[0], data)
	}
	if e := strings.TrimSpace(string(p.Error)); e != "" && e != "null" {
		ts.Fatalf("probing %s failed: %s", args[0], e)
	}
	str := func(s *string) string {
		if s == nil {
			return "<null>"
		}
		return *s
	}
	init := tr.init
	caps := init.Capabilities
	want := map[string]bool{
		"tools":       caps.Tools != nil,
		"resources":   caps.Resources != nil,
		"prompts":     caps.Prompts != nil,
		"completions": caps.Completions != nil,
		"logging":     caps.Logging != nil,
	}
	var bad []string
	check := func(field, got, want string) {
		if got != want {
			bad = append(bad, fmt.Sprintf("%s: mcpx %q, server %q", field, got, want))
		}
	}
	check("server_name", str(p.ServerName), init.ServerInfo.Name)
	check("server_version", str(p.ServerVersion), init.ServerInfo.Version)
	check("protocol_version", str(p.ProtocolVersion), init.ProtocolVersion)
	if !reflect.DeepEqual(p.Capabilities, want) {
		bad = append(bad, fmt.Sprintf("capabilities: mcpx %v, server %v", p.Capabilities, want))
	}
	if len(bad) > 0 {
		ts.Fatalf("servers --probe disagrees with server-everything %s's initialize result:\n%s", tr.version, strings.Join(bad, "\n"))
	}
}

// jsonEqual compares two JSON texts as values (numbers by their literal digits).
func jsonEqual(a, b []byte) bool {
	va, errA := decodeJSON(a)
	vb, errB := decodeJSON(b)
	return errA == nil && errB == nil && reflect.DeepEqual(va, vb)
}

func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func compact(b []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	return buf.String()
}

// diffKeys explains how GOT differs from WANT: missing and unexpected keys
// (the first 20 of each), or else the first place the order differs.
func diffKeys(want, got []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "want %d keys, got %d\n", len(want), len(got))
	count := func(list []string) map[string]int {
		m := map[string]int{}
		for _, k := range list {
			m[k]++
		}
		return m
	}
	w, g := count(want), count(got)
	extra := func(label string, list []string, have, other map[string]int) int {
		var out []string
		seen := map[string]bool{}
		for _, k := range list {
			if !seen[k] && have[k] > other[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
		for i, k := range out {
			if i == 20 {
				fmt.Fprintf(&b, "  ... and %d more %s\n", len(out)-20, strings.TrimSuffix(strings.TrimSpace(label), ":"))
				break
			}
			fmt.Fprintf(&b, "  %s %s\n", label, k)
		}
		return len(out)
	}
	n := extra("missing:   ", want, w, g) + extra("unexpected:", got, g, w)
	if n == 0 {
		for i := range want {
			if want[i] != got[i] {
				fmt.Fprintf(&b, "  order differs at #%d: want %s, got %s\n", i, want[i], got[i])
				break
			}
		}
	}
	return b.String()
}

// readTruth returns the items the truth read for URI.
func (it *interop) readTruth(ts *testscript.TestScript, uri string) []readItem {
	tr := it.truth(ts)
	items, ok := tr.reads[uri]
	if !ok {
		ts.Fatalf("the truth of server-everything %s did not read %s (see interopReads)", tr.version, uri)
	}
	return items
}

// read-matches URI FILE: FILE is `mcpx --json read URI` and renders exactly
// what server-everything sent: one rendered item per item, in order, with
// its uri and mime type; a text (or a blob whose bytes are UTF-8 without NUL)
// as the whole text; any other blob spilled to a file holding exactly its
// bytes, named by their SHA-256. Clock times in the texts are not compared.
func (it *interop) cmdReadMatches(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: read-matches URI FILE")
	}
	compareRead(ts, it.truth(ts).String(), args[0], it.readTruth(ts, args[0]), args[1])
}

// compareRead: FILE is `mcpx --json read URI` and renders exactly the items
// WANT that the server WHO sent (see read-matches).
func compareRead(ts *testscript.TestScript, who, uri string, want []readItem, file string) {
	var doc struct {
		URI      string `json:"uri"`
		Omitted  *int   `json:"omitted"`
		Contents []struct {
			Type       string  `json:"type"`
			URI        *string `json:"uri"`
			MimeType   *string `json:"mime_type"`
			Text       string  `json:"text"`
			Truncated  bool    `json:"truncated"`
			TotalBytes int     `json:"total_bytes"`
			Path       string  `json:"path"`
			SHA256     string  `json:"sha256"`
			SizeBytes  int     `json:"size_bytes"`
		} `json:"contents"`
	}
	data := ts.ReadFile(file)
	if err := json.Unmarshal([]byte(data), &doc); err != nil {
		ts.Fatalf("%s is not a read document: %v\n%s", file, err, data)
	}
	if doc.URI != uri || doc.Omitted == nil || *doc.Omitted != 0 {
		ts.Fatalf("read document: uri %q omitted %v, want %q and 0", doc.URI, doc.Omitted, uri)
	}
	if len(doc.Contents) != len(want) {
		ts.Fatalf("%d rendered items, %s sent %d", len(doc.Contents), who, len(want))
	}
	for i, w := range want {
		got := doc.Contents[i]
		if got.URI == nil || *got.URI != w.URI || got.MimeType == nil || *got.MimeType != w.MimeType {
			ts.Fatalf("item #%d: uri %v mime %v, want %q %q", i, got.URI, got.MimeType, w.URI, w.MimeType)
		}
		sum := sha256.Sum256(w.Bytes)
		text := utf8.Valid(w.Bytes) && !bytes.Contains(w.Bytes, []byte{0})
		switch {
		case text:
			norm := func(s string) string { return clockTime.ReplaceAllString(s, "H:MM:SS") }
			if got.Type != "text" || got.Truncated || norm(got.Text) != norm(string(w.Bytes)) {
				ts.Fatalf("item #%d: got %s %q (truncated %v), want the text %q", i, got.Type, got.Text, got.Truncated, w.Bytes)
			}
			kind := "text"
			if w.Blob {
				kind = "blob of UTF-8 text, printed as text"
			}
			ts.Logf("item #%d: %s, %d bytes, as sent", i, kind, len(w.Bytes))
		default:
			if got.Type != "blob" || got.SHA256 != hex.EncodeToString(sum[:]) || got.SizeBytes != len(w.Bytes) {
				ts.Fatalf("item #%d: got %s sha256 %s size %d, want a spilled blob sha256 %x size %d", i, got.Type, got.SHA256, got.SizeBytes, sum, len(w.Bytes))
			}
			b, err := os.ReadFile(got.Path)
			ts.Check(err)
			if !bytes.Equal(b, w.Bytes) || filepath.Base(got.Path) != got.SHA256+"."+strings.TrimPrefix(filepath.Ext(got.Path), ".") {
				ts.Fatalf("item #%d: the spilled file %s does not hold the blob's bytes", i, got.Path)
			}
			ts.Logf("item #%d: blob of %d bytes, spilled, sha256 checked", i, len(w.Bytes))
		}
	}
}

// raw-matches URI FILE: FILE (mcpx read URI -o FILE) holds exactly the
// decoded items server-everything sent, concatenated (same SHA-256).
func (it *interop) cmdRawMatches(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: raw-matches URI FILE")
	}
	var want []byte
	for _, w := range it.readTruth(ts, args[0]) {
		want = append(want, w.Bytes...)
	}
	got, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	norm := func(b []byte) []byte { return clockTime.ReplaceAll(b, []byte("H:MM:SS")) }
	if !bytes.Equal(norm(got), norm(want)) {
		ts.Fatalf("%s: got %q, want %q", args[1], got, want)
	}
	ws, gs := sha256.Sum256(norm(want)), sha256.Sum256(norm(got))
	ts.Logf("%s: %d bytes, sha256 %x = %x", args[1], len(got), gs, ws)
}
