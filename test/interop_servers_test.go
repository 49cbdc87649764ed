//go:build unix

package test

// Interop, part three: mcpx against more real servers than server-everything,
// the ones users run most and the two SDKs most servers are written with.
// The scripts are in testdata/interop_servers; the servers:
//
//	filesystem  @modelcontextprotocol/server-filesystem, the reference
//	            filesystem server (stdio)
//	memory      @modelcontextprotocol/server-memory, the reference
//	            knowledge-graph server (stdio)
//	ts          interop/ts-server.mjs, a server written with the TypeScript
//	            SDK (stdio): a prompt whose arguments are all optional, tools
//	            with FastMCP/pydantic-style $defs schemas, an image result
//	            with a structured mirror, a resource
//	ts2         interop/ts2-server.mjs, the same surface written with v2 of
//	            the TypeScript SDK (@modelcontextprotocol/server), the SDK
//	            line that serves 2026-07-28: over stdio, and over its HTTP
//	            handler (one process all scripts share)
//	gosdk       gosdk/, a server written with the Go SDK (v1.8.0, from the
//	            module proxy), built by this test with `go build`: over stdio,
//	            over the SDK's default (stateful) streamable HTTP handler, over
//	            a stateless one (which serves 2026-07-28) and over its SSE
//	            handler
//
// The npm packages are installed by `make interop-deps`. What mcpx prints is
// compared with what the server answers an independent client (mcp-go's,
// declaring no client capabilities, initializing at interopProtocol) asked
// the same thing on a session of its own, and the behaviours real servers
// showed to be wrong are asserted exactly, one script per behaviour (so that
// each fails on its own when the behaviour regresses). Commands:
//
//	serve [-tap] [-env K=V]... NAME KIND [ARGS...]
//	                     configure server NAME in $MCPX_CONFIG; KIND is
//	                     filesystem DIR..., memory (its graph in $WORK/memory.jsonl),
//	                     ts SDK (SDK: the npm package of the TypeScript SDK, sdk-1.31
//	                     or @modelcontextprotocol/sdk), ts2 (stdio), ts2-http (the
//	                     one TS-SDK v2 HTTP server all scripts share, its /mcp URL),
//	                     gosdk (stdio), or gosdk-http, gosdk-stateless, gosdk-sse,
//	                     gosdk-sse-notype: the one Go-SDK HTTP server all scripts
//	                     share ($GOSDK_URL is its base URL), its /mcp URL, its
//	                     /stateless URL, its /sse URL with type sse, its /sse URL
//	                     with no type. -tap
//	                     (stdio) runs the server through sh, which writes its pid to
//	                     $WORK/server.pid and copies what mcpx writes to
//	                     $WORK/server.in (for sent, declares, group-gone); -env adds
//	                     an env entry
//	same-catalog NAME FILE
//	                     FILE (mcpx --json catalog) lists exactly what NAME lists
//	same-schema NAME TOOL FILE
//	                     FILE (mcpx --json describe) has TOOL's schemas as sent
//	same-invoke NAME TOOL ARGS-JSON FILE
//	                     FILE (mcpx --json invoke) renders exactly what a raw
//	                     tools/call with arguments ARGS-JSON returns
//	same-prompt NAME PROMPT [ARG=VALUE...] FILE
//	                     FILE (mcpx --json prompt) renders exactly what a raw
//	                     prompts/get with those arguments (an object, {} for
//	                     none) returns
//	same-read NAME URI FILE
//	                     FILE (mcpx --json read URI) renders what resources/read sends
//	[!] declares CAPABILITY
//	                     the last initialize mcpx wrote to the tapped server
//	                     declared (or did not declare) that client capability
//	decode64 SRC DST     DST gets the base64-decoded content of SRC (its
//	                     directory is made)
//
// and sent and group-gone of interop_prompt_test.go.

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rogpeppe/go-internal/testscript"
)

// realServerScripts are the entry points of the npm-installed servers, by KIND.
var realServerScripts = map[string]string{
	"filesystem": "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
	"memory":     "node_modules/@modelcontextprotocol/server-memory/dist/index.js",
	"ts":         "ts-server.mjs",
	"ts2":        "ts2-server.mjs",
}

// tsSDKs are the TypeScript SDK packages ts-server.mjs can serve with.
var tsSDKs = []string{"@modelcontextprotocol/sdk", "sdk-1.31"}

func TestInteropServers(t *testing.T) {
	t.Parallel() // see TestScript
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("interop: node is not on PATH (%v): install Node.js 20 or newer, then run make interop-deps", err)
	}
	rs := &realServers{node: node, scripts: map[string]string{}, states: map[*testscript.TestScript]*scriptState{},
		goHTTP: &fixtureHTTP{name: "gosdk-fixture"}, ts2HTTP: &fixtureHTTP{name: "ts2-fixture"}}
	for kind, rel := range realServerScripts {
		p, err := filepath.Abs(filepath.Join("interop", rel))
		if err != nil {
			t.Fatal(err)
		}
		if !fileExists(p) {
			t.Fatalf("interop: %s is missing: run make interop-deps (installs test/interop/node_modules from npm)", p)
		}
		rs.scripts[kind] = p
	}
	for _, sdk := range append([]string{"@modelcontextprotocol/server"}, tsSDKs...) {
		if p := filepath.Join("interop", "node_modules", sdk, "package.json"); !fileExists(p) {
			t.Fatalf("interop: %s is missing: run make interop-deps", p)
		}
	}
	// The Go-SDK server is built while the first scripts start.
	dir := t.TempDir()
	rs.gosdkBuilt = make(chan struct{})
	go func() {
		defer close(rs.gosdkBuilt)
		rs.gosdkBin, rs.gosdkErr = buildGoSDKFixture(dir)
	}()
	t.Cleanup(func() {
		<-rs.gosdkBuilt
		rs.goHTTP.stop()
		rs.ts2HTTP.stop()
	})

	p := params("testdata/interop_servers")
	p.Cmds["serve"] = rs.cmdServe
	p.Cmds["same-catalog"] = rs.cmdSameCatalog
	p.Cmds["same-schema"] = rs.cmdSameSchema
	p.Cmds["same-invoke"] = rs.cmdSameInvoke
	p.Cmds["same-prompt"] = rs.cmdSamePrompt
	p.Cmds["same-read"] = rs.cmdSameRead
	p.Cmds["declares"] = cmdDeclares
	p.Cmds["decode64"] = cmdDecode64
	p.Cmds["sent"] = cmdSent
	p.Cmds["group-gone"] = cmdGroupGone
	testscript.Run(t, p)
}

// buildGoSDKFixture builds test/gosdk (a module of its own) into DIR.
func buildGoSDKFixture(dir string) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		if root := os.Getenv("GOROOT"); root != "" {
			goBin, err = filepath.Join(root, "bin", "go"), nil
		}
	}
	if err != nil {
		return "", fmt.Errorf("building the Go-SDK fixture needs the go command: %v", err)
	}
	bin := filepath.Join(dir, "gosdk-fixture")
	cmd := exec.Command(goBin, "build", "-o", bin, ".")
	cmd.Dir = "gosdk"
	cmd.Env = append(os.Environ(), "GOWORK=off", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build in test/gosdk (the Go SDK comes from the module proxy): %v\n%s", err, out)
	}
	return bin, nil
}

// realServers holds what the script commands share.
type realServers struct {
	node    string
	scripts map[string]string // KIND → absolute path of its script

	gosdkBuilt chan struct{} // closed when the build is done
	gosdkBin   string
	gosdkErr   error

	goHTTP  *fixtureHTTP // the Go-SDK HTTP server
	ts2HTTP *fixtureHTTP // the TS-SDK v2 HTTP server

	mu     sync.Mutex
	states map[*testscript.TestScript]*scriptState
}

// scriptState is what one script configured, and its independent sessions.
type scriptState struct {
	specs    map[string]*serverSpec
	sessions map[string]*independent
}

// serverSpec is how to reach a configured server directly (not through the tap).
type serverSpec struct {
	command string
	args    []string
	env     map[string]string
	url     string
	sse     bool
}

// independent is the independent client's session with one server.
type independent struct {
	name string
	c    *client.Client
	raw  transport.Interface
	init *mcp.InitializeResult
}

func (s *independent) String() string {
	return fmt.Sprintf("server %s (%s %s)", s.name, s.init.ServerInfo.Name, s.init.ServerInfo.Version)
}

func (rs *realServers) state(ts *testscript.TestScript) *scriptState {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	st := rs.states[ts]
	if st == nil {
		st = &scriptState{specs: map[string]*serverSpec{}, sessions: map[string]*independent{}}
		rs.states[ts] = st
		ts.Defer(func() {
			rs.mu.Lock()
			delete(rs.states, ts)
			rs.mu.Unlock()
		})
	}
	return st
}

func (rs *realServers) goSDK(ts *testscript.TestScript) string {
	<-rs.gosdkBuilt
	if rs.gosdkErr != nil {
		ts.Fatalf("%v", rs.gosdkErr)
	}
	return rs.gosdkBin
}

// fixtureHTTP is an HTTP fixture server all scripts share: started on first use,
// it runs until the test ends.
type fixtureHTTP struct {
	name string // it prints "NAME listening on port N" when ready

	once sync.Once
	url  string // its base URL
	err  error
	cmd  *exec.Cmd
	done chan struct{}
}

// start starts the server (command name, args) once and returns its base URL.
func (h *fixtureHTTP) start(ts *testscript.TestScript, name string, args ...string) string {
	h.once.Do(func() { h.url, h.err = h.run(name, args) })
	if h.err != nil {
		ts.Fatalf("the %s HTTP server: %v", h.name, h.err)
	}
	return h.url
}

func (h *fixtureHTTP) run(name string, args []string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = "interop"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return "", err
	}
	h.cmd, h.done = cmd, make(chan struct{})
	port := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if p, ok := strings.CutPrefix(sc.Text(), h.name+" listening on port "); ok {
				port <- p
			}
		}
		close(port)
		_ = cmd.Wait()
		close(h.done)
	}()
	select {
	case p, ok := <-port:
		if !ok {
			return "", fmt.Errorf("%s exited before listening: %s", h.name, stderr.String())
		}
		return "http://127.0.0.1:" + p, nil
	case <-time.After(30 * time.Second):
		return "", fmt.Errorf("%s did not listen within 30s", h.name)
	}
}

func (h *fixtureHTTP) stop() {
	if h.cmd != nil && h.cmd.Process != nil {
		_ = syscall.Kill(-h.cmd.Process.Pid, syscall.SIGKILL)
		<-h.done
	}
}

func (rs *realServers) cmdServe(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "serve [-tap] [-env K=V]... NAME filesystem DIR...|memory|ts SDK|ts2|ts2-http|gosdk|gosdk-http|gosdk-stateless|gosdk-sse|gosdk-sse-notype"
	if neg {
		ts.Fatalf("usage: %s", usage)
	}
	tap := false
	env := map[string]string{}
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "-tap":
			tap = true
			args = args[1:]
		case args[0] == "-env" && len(args) > 1 && strings.Contains(args[1], "="):
			k, v, _ := strings.Cut(args[1], "=")
			env[k] = v
			args = args[2:]
		default:
			ts.Fatalf("usage: %s", usage)
		}
	}
	if len(args) < 2 {
		ts.Fatalf("usage: %s", usage)
	}
	name, kind, rest := args[0], args[1], args[2:]
	spec := &serverSpec{env: env}
	if len(rest) > 0 && kind != "filesystem" && kind != "ts" {
		ts.Fatalf("usage: %s", usage)
	}
	switch kind {
	case "filesystem":
		if len(rest) == 0 {
			ts.Fatalf("usage: %s", usage)
		}
		spec.command, spec.args = rs.node, []string{rs.scripts[kind]}
		for _, d := range rest {
			spec.args = append(spec.args, ts.MkAbs(d))
		}
	case "memory":
		spec.command, spec.args = rs.node, []string{rs.scripts[kind]}
		env["MEMORY_FILE_PATH"] = ts.MkAbs("memory.jsonl")
	case "ts":
		if len(rest) != 1 {
			ts.Fatalf("usage: %s", usage)
		}
		spec.command, spec.args = rs.node, []string{rs.scripts[kind], rest[0]}
	case "ts2":
		spec.command, spec.args = rs.node, []string{rs.scripts[kind], "stdio"}
	case "ts2-http":
		spec.url = rs.ts2HTTP.start(ts, rs.node, rs.scripts["ts2"], "http") + "/mcp"
	case "gosdk":
		spec.command, spec.args = rs.goSDK(ts), []string{"stdio"}
	case "gosdk-http", "gosdk-stateless", "gosdk-sse", "gosdk-sse-notype":
		base := rs.goHTTP.start(ts, rs.goSDK(ts), "http")
		ts.Setenv("GOSDK_URL", base)
		spec.url, spec.sse = base+"/mcp", strings.HasPrefix(kind, "gosdk-sse")
		switch {
		case spec.sse:
			spec.url = base + "/sse"
		case kind == "gosdk-stateless":
			spec.url = base + "/stateless"
		}
	default:
		ts.Fatalf("unknown KIND %q; usage: %s", kind, usage)
	}

	entry := map[string]any{}
	switch {
	case spec.url != "":
		if tap || len(env) > 0 {
			ts.Fatalf("-tap and -env are for stdio servers")
		}
		entry["url"] = spec.url
		if kind == "gosdk-sse" {
			entry["type"] = "sse"
		}
	case tap:
		entry["command"] = "sh"
		entry["args"] = append([]string{"-c", `echo $$ >"$0"; log=$1; shift; tee -a "$log" | "$@"`,
			filepath.Join(ts.Getenv("WORK"), "server.pid"), filepath.Join(ts.Getenv("WORK"), "server.in"), spec.command}, spec.args...)
	default:
		entry["command"], entry["args"] = spec.command, spec.args
	}
	if len(env) > 0 {
		entry["env"] = env
	}
	addConfigEntry(ts, name, entry)
	rs.state(ts).specs[name] = spec
}

// addConfigEntry adds server NAME to the config file $MCPX_CONFIG names.
func addConfigEntry(ts *testscript.TestScript, name string, entry map[string]any) {
	cfg := ts.Getenv("MCPX_CONFIG")
	if cfg == "" {
		ts.Fatalf("set MCPX_CONFIG first")
	}
	path := ts.MkAbs(cfg)
	doc := map[string]map[string]any{"mcpServers": {}}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &doc); err != nil {
			ts.Fatalf("%s: %v", cfg, err)
		}
		if doc["mcpServers"] == nil {
			doc["mcpServers"] = map[string]any{}
		}
	}
	doc["mcpServers"][name] = entry
	b, err := json.MarshalIndent(doc, "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(path, append(b, '\n'), 0o644))
}

// session returns the independent client's session with server NAME,
// opening it on first use; it is closed when the script ends.
func (rs *realServers) session(ts *testscript.TestScript, name string) *independent {
	st := rs.state(ts)
	if s := st.sessions[name]; s != nil {
		return s
	}
	spec := st.specs[name]
	if spec == nil {
		ts.Fatalf("no server %s: configure it with serve first", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var c *client.Client
	var cmd *exec.Cmd // a stdio server
	var err error
	switch {
	case spec.url != "" && spec.sse:
		c, err = client.NewSSEMCPClient(spec.url)
	case spec.url != "":
		c, err = client.NewStreamableHttpClient(spec.url)
	default:
		env := os.Environ()
		for k, v := range spec.env {
			env = append(env, k+"="+v)
		}
		c, err = client.NewStdioMCPClientWithOptions(spec.command, nil, spec.args,
			transport.WithCommandFunc(func(_ context.Context, command string, _, args []string) (*exec.Cmd, error) {
				cmd = exec.Command(command, args...)
				cmd.Env = env
				cmd.Dir = ts.MkAbs(".")
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				return cmd, nil
			}))
	}
	if err != nil {
		ts.Fatalf("independent client for %s: %v", name, err)
	}
	ts.Defer(func() {
		// A stdio server gets SIGTERM first: a node server does not exit
		// when its stdin closes, and mcp-go would wait 2 s.
		if cmd != nil && cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		}
		_ = c.Close()
	})
	client.WithProtocolVersion(interopProtocol)(c)
	// The context of Start owns the SSE stream: it lives as long as the session.
	life, end := context.WithCancel(context.Background())
	ts.Defer(end)
	if err := c.Start(life); err != nil {
		ts.Fatalf("independent client for %s: start: %v", name, err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = interopProtocol
	req.Params.ClientInfo = mcp.Implementation{Name: "mcpx-interop-test", Version: "1"}
	init, err := c.Initialize(ctx, req)
	if err != nil {
		ts.Fatalf("independent client for %s: initialize: %v", name, err)
	}
	s := &independent{name: name, c: c, raw: c.GetTransport(), init: init}
	st.sessions[name] = s
	return s
}

// list returns the catalog keys the server lists, kind by kind in its
// order, and its tools as sent; mcp-go's typed listings and raw JSON-RPC
// listings (following cursors) on the same session must agree.
func (s *independent) list(ts *testscript.TestScript) ([]string, map[string]json.RawMessage) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	caps := s.init.Capabilities
	tools := map[string]json.RawMessage{}
	var typed, rawKeys []string
	check := func(err error) {
		if err != nil {
			ts.Fatalf("independent client, %s: %v", s, err)
		}
	}
	if caps.Tools != nil {
		res, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
		check(err)
		for _, x := range res.Tools {
			typed = append(typed, "tool:"+x.Name)
		}
		items, _, err := rawList(ctx, s.raw, "tools/list", "tools")
		check(err)
		for i, item := range items {
			var v struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(item, &v); err != nil || v.Name == "" {
				ts.Fatalf("raw tools/list: tool #%d has no name: %s", i, item)
			}
			rawKeys = append(rawKeys, "tool:"+v.Name)
			tools[v.Name] = item
		}
	}
	if caps.Resources != nil {
		res, err := s.c.ListResources(ctx, mcp.ListResourcesRequest{})
		check(err)
		for _, x := range res.Resources {
			typed = append(typed, "resource:"+x.URI)
		}
		keys, _, err := rawKeyList(ctx, s.raw, "resources/list", "resources", "uri", "resource")
		check(err)
		rawKeys = append(rawKeys, keys...)
		tres, err := s.c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
		check(err)
		for _, x := range tres.ResourceTemplates {
			tpl := ""
			if x.URITemplate != nil && x.URITemplate.Template != nil {
				tpl = x.URITemplate.Raw()
			}
			typed = append(typed, "resource_template:"+tpl)
		}
		keys, _, err = rawKeyList(ctx, s.raw, "resources/templates/list", "resourceTemplates", "uriTemplate", "resource_template")
		check(err)
		rawKeys = append(rawKeys, keys...)
	}
	if caps.Prompts != nil {
		res, err := s.c.ListPrompts(ctx, mcp.ListPromptsRequest{})
		check(err)
		for _, x := range res.Prompts {
			typed = append(typed, "prompt:"+x.Name)
		}
		keys, _, err := rawKeyList(ctx, s.raw, "prompts/list", "prompts", "name", "prompt")
		check(err)
		rawKeys = append(rawKeys, keys...)
	}
	if strings.Join(typed, "\n") != strings.Join(rawKeys, "\n") {
		ts.Fatalf("%s: mcp-go's listings and the raw exchange disagree:\n%s", s, diffKeys(rawKeys, typed))
	}
	if len(typed) == 0 {
		ts.Fatalf("%s listed nothing at all", s)
	}
	return typed, tools
}

// spillDir is where mcpx spills for the server a document names: a URL
// server's host, else the configured name (which must be NAME or its URL).
func (rs *realServers) spillDir(ts *testscript.TestScript, name string) func(string) string {
	return func(server string) string {
		spec := rs.state(ts).specs[name]
		if server != name && server != spec.url {
			ts.Fatalf("document names server %q; the script used %q", server, name)
		}
		dir := server
		if u, err := url.Parse(server); err == nil && u.Scheme != "" && u.Host != "" {
			dir = u.Hostname()
		}
		return filepath.Join(ts.Getenv("MCPX_CACHE_DIR"), "mcp-resources", dir)
	}
}

func (rs *realServers) cmdSameCatalog(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: same-catalog NAME FILE")
	}
	s := rs.session(ts, args[0])
	keys, _ := s.list(ts)
	compareCatalog(ts, s.String(), keys, args[1])
}

func (rs *realServers) cmdSameSchema(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: same-schema NAME TOOL FILE")
	}
	s := rs.session(ts, args[0])
	_, tools := s.list(ts)
	raw, ok := tools[args[1]]
	if !ok {
		ts.Fatalf("%s has no tool %q", s, args[1])
	}
	compareSchema(ts, s.String(), args[1], raw, args[2])
}

func (rs *realServers) cmdSameInvoke(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: same-invoke NAME TOOL ARGS-JSON FILE")
	}
	name, tool, argsJSON, file := args[0], args[1], args[2], args[3]
	if !json.Valid([]byte(argsJSON)) {
		ts.Fatalf("ARGS-JSON %q is not JSON", argsJSON)
	}
	s := rs.session(ts, name)
	res, err := rawCallTool(s.raw, tool, json.RawMessage(argsJSON))
	ts.Check(err)
	compareInvoke(ts, s.String(), tool, argsJSON, res, file, rs.spillDir(ts, name))
}

func (rs *realServers) cmdSamePrompt(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "same-prompt NAME PROMPT [ARG=VALUE...] FILE"
	if neg || len(args) < 3 {
		ts.Fatalf("usage: %s", usage)
	}
	name, prompt, file := args[0], args[1], args[len(args)-1]
	pargs := map[string]string{}
	for _, a := range args[2 : len(args)-1] {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			ts.Fatalf("usage: %s (got %q)", usage, a)
		}
		pargs[k] = v
	}
	s := rs.session(ts, name)
	res, err := rawGetPrompt(s.raw, prompt, pargs)
	ts.Check(err)
	comparePrompt(ts, s.String(), prompt, res, file, rs.spillDir(ts, name))
}

func (rs *realServers) cmdSameRead(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: same-read NAME URI FILE")
	}
	s := rs.session(ts, args[0])
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	items, err := rawRead(ctx, s.raw, args[1])
	ts.Check(err)
	compareRead(ts, s.String(), args[1], items, args[2])
}

// declares [!] CAPABILITY: the last initialize mcpx wrote to the tapped
// server ($WORK/server.in) has (or has not) CAPABILITY among its client
// capabilities.
func cmdDeclares(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: [!] declares CAPABILITY")
	}
	b, err := os.ReadFile(filepath.Join(ts.Getenv("WORK"), "server.in"))
	if err != nil {
		ts.Fatalf("no tap log (configure the server with serve -tap): %v", err)
	}
	var caps map[string]json.RawMessage
	found := false
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Capabilities map[string]json.RawMessage `json:"capabilities"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) == nil && msg.Method == "initialize" {
			caps, found = msg.Params.Capabilities, true
		}
	}
	if !found {
		ts.Fatalf("mcpx sent no initialize:\n%s", b)
	}
	declared, _ := json.Marshal(caps)
	if _, ok := caps[args[0]]; ok == neg {
		ts.Fatalf("mcpx declared the client capabilities %s", declared)
	}
	ts.Logf("mcpx declared the client capabilities %s", declared)
}

// decode64 SRC DST: DST gets the base64-decoded content of SRC.
func cmdDecode64(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: decode64 SRC DST")
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(ts.ReadFile(args[0])))
	ts.Check(err)
	dst := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
	ts.Check(os.WriteFile(dst, b, 0o644))
}
