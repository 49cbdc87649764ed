package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The exact catalog, in the order the server lists it (mcp-go sorts by name).
var (
	wantTools     = []string{"add", "echo", "fail", "render_chart", "repeat", "tag_items", "weather"}
	wantResources = []string{
		"demo://logs/app.log", "demo://images/logo.png",
		"demo://data/notes/1", "demo://data/notes/2", "demo://data/notes/3", "demo://data/notes/4",
		"demo://data/notes/5", "demo://data/notes/6", "demo://data/notes/7", "demo://data/notes/8",
		"demo://readme", "demo://data/users.json",
	}
	wantTemplates = []string{"demo://greeting/{name}", "demo://notes/{id}"}
	wantPrompts   = []string{"code_review", "explain_log", "greeting", "summarize"}
)

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// connect starts an in-process client against s, initialized in the given
// protocol era ("" for mcp-go's default negotiation).
func connect(t *testing.T, s *server.MCPServer, protocol string) *client.Client {
	t.Helper()
	var opts []client.ClientOption
	if protocol != "" {
		opts = append(opts, client.WithProtocolVersion(protocol))
	}
	c, err := client.NewInProcessClientWithOptions(s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = protocol
	if protocol == "" {
		req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	}
	req.Params.ClientInfo = mcp.Implementation{Name: "demo-test", Version: "0"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerInfo.Name != ServerName || res.ServerInfo.Version != "1.2.3" {
		t.Fatalf("server info = %+v", res.ServerInfo)
	}
	caps := res.Capabilities
	if caps.Tools == nil || caps.Resources == nil || caps.Prompts == nil || caps.Logging == nil || caps.Completions == nil {
		t.Fatalf("capabilities = %+v", caps)
	}
	return c
}

func legacy(t *testing.T) *client.Client {
	return connect(t, New("1.2.3"), mcp.LATEST_LEGACY_PROTOCOL_VERSION)
}

func TestListsPaginate(t *testing.T) {
	for _, era := range []string{mcp.LATEST_LEGACY_PROTOCOL_VERSION, ""} {
		t.Run("era="+era, func(t *testing.T) {
			c := connect(t, New("1.2.3"), era)
			ctx := ctxT(t)

			var tools []string
			toolPages := pages(t, func(cur mcp.Cursor) (int, mcp.Cursor) {
				r, err := c.ListToolsByPage(ctx, mcp.ListToolsRequest{PaginatedRequest: mcp.PaginatedRequest{Params: mcp.PaginatedParams{Cursor: cur}}})
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range r.Tools {
					tools = append(tools, x.Name)
				}
				return len(r.Tools), r.NextCursor
			})
			var resources []string
			resPages := pages(t, func(cur mcp.Cursor) (int, mcp.Cursor) {
				r, err := c.ListResourcesByPage(ctx, mcp.ListResourcesRequest{PaginatedRequest: mcp.PaginatedRequest{Params: mcp.PaginatedParams{Cursor: cur}}})
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range r.Resources {
					resources = append(resources, x.URI)
				}
				return len(r.Resources), r.NextCursor
			})
			var templates []string
			pages(t, func(cur mcp.Cursor) (int, mcp.Cursor) {
				r, err := c.ListResourceTemplatesByPage(ctx, mcp.ListResourceTemplatesRequest{PaginatedRequest: mcp.PaginatedRequest{Params: mcp.PaginatedParams{Cursor: cur}}})
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range r.ResourceTemplates {
					templates = append(templates, x.URITemplate.Raw())
				}
				return len(r.ResourceTemplates), r.NextCursor
			})
			var prompts []string
			pages(t, func(cur mcp.Cursor) (int, mcp.Cursor) {
				r, err := c.ListPromptsByPage(ctx, mcp.ListPromptsRequest{PaginatedRequest: mcp.PaginatedRequest{Params: mcp.PaginatedParams{Cursor: cur}}})
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range r.Prompts {
					prompts = append(prompts, x.Name)
				}
				return len(r.Prompts), r.NextCursor
			})

			check := func(kind string, got, want []string) {
				if !slices.Equal(got, want) {
					t.Errorf("%s = %q, want %q", kind, got, want)
				}
			}
			check("tools", tools, wantTools)
			check("resources", resources, wantResources)
			check("templates", templates, wantTemplates)
			check("prompts", prompts, wantPrompts)
			if resPages < 3 {
				t.Errorf("resources came in %d pages, want at least 3", resPages)
			}
			if toolPages < 2 {
				t.Errorf("tools came in %d pages, want at least 2", toolPages)
			}

			// The cursor-following helpers agree with the pages.
			all, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if len(all.Resources) != len(wantResources) {
				t.Errorf("ListResources gave %d resources", len(all.Resources))
			}
		})
	}
}

// pages calls page with successive cursors until none is returned, and
// returns how many non-empty pages there were.
func pages(t *testing.T, page func(mcp.Cursor) (int, mcp.Cursor)) int {
	t.Helper()
	var cur mcp.Cursor
	n := 0
	for i := 0; ; i++ {
		if i > 50 {
			t.Fatal("pagination does not end")
		}
		count, next := page(cur)
		if count > PageSize {
			t.Fatalf("page of %d items, limit is %d", count, PageSize)
		}
		if count > 0 {
			n++
		}
		if next == "" {
			return n
		}
		cur = next
	}
}

func readText(t *testing.T, c *client.Client, uri string) mcp.TextResourceContents {
	t.Helper()
	r, err := c.ReadResource(ctxT(t), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(r.Contents) != 1 {
		t.Fatalf("read %s: %d contents", uri, len(r.Contents))
	}
	tc, ok := r.Contents[0].(mcp.TextResourceContents)
	if !ok {
		t.Fatalf("read %s: %T, want text", uri, r.Contents[0])
	}
	if tc.URI != uri {
		t.Errorf("read %s: uri %q", uri, tc.URI)
	}
	return tc
}

func TestResourceMetadata(t *testing.T) {
	c := legacy(t)
	r, err := c.ListResources(ctxT(t), mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	byURI := map[string]mcp.Resource{}
	for _, x := range r.Resources {
		byURI[x.URI] = x
		if x.Name == "" || x.Description == "" || x.MIMEType == "" {
			t.Errorf("resource %s lacks name, description or mime type: %+v", x.URI, x)
		}
	}
	rd := byURI["demo://readme"]
	if rd.Annotations == nil || !slices.Equal(rd.Annotations.Audience, []mcp.Role{mcp.RoleUser}) ||
		rd.Annotations.Priority == nil || *rd.Annotations.Priority != 0.8 {
		t.Errorf("readme annotations = %+v", rd.Annotations)
	}
	log := byURI["demo://logs/app.log"]
	if log.Size == nil || *log.Size != int64(len(getContent().log)) {
		t.Errorf("app.log size = %v", log.Size)
	}
	want := map[string]string{
		"demo://readme": "text/markdown", "demo://logs/app.log": "text/plain", "demo://images/logo.png": "image/png",
		"demo://data/users.json": "application/json", "demo://data/notes/1": "text/plain",
	}
	for uri, mime := range want {
		if byURI[uri].MIMEType != mime {
			t.Errorf("%s mime = %q, want %q", uri, byURI[uri].MIMEType, mime)
		}
	}
	var users struct {
		Users []map[string]any `json:"users"`
	}
	if err := json.Unmarshal([]byte(readText(t, c, "demo://data/users.json").Text), &users); err != nil || len(users.Users) != 5 {
		t.Errorf("users.json: %v, %d users", err, len(users.Users))
	}
	if txt := readText(t, c, "demo://readme").Text; !strings.Contains(txt, "mcpx catalog demo") {
		t.Errorf("readme does not say what to try:\n%s", txt)
	}
	for i := 1; i <= NoteCount; i++ {
		if txt := readText(t, c, fmt.Sprintf("demo://data/notes/%d", i)).Text; !strings.HasPrefix(txt, fmt.Sprintf("# Note %d: ", i)) {
			t.Errorf("note %d = %q", i, txt)
		}
	}
}

func TestLog(t *testing.T) {
	c := legacy(t)
	tc := readText(t, c, "demo://logs/app.log")
	if tc.MIMEType != "text/plain" {
		t.Errorf("mime = %q", tc.MIMEType)
	}
	text := tc.Text
	if len(text) <= 100*1024 {
		t.Fatalf("log is %d bytes, want > 100 KiB", len(text))
	}
	if !strings.HasSuffix(text, "\n") {
		t.Error("log does not end in a newline")
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	lineRE := regexp.MustCompile(`^2025-03-1\dT\d\d:\d\d:\d\d\.\d{3}Z (INFO |DEBUG|WARN |ERROR) \[[a-z]+\] \S`)
	counts := map[string]int{}
	prev := ""
	for i, l := range lines {
		if !lineRE.MatchString(l) {
			t.Fatalf("line %d malformed: %q", i+1, l)
		}
		ts := l[:24]
		if ts < prev {
			t.Fatalf("line %d goes back in time: %s < %s", i+1, ts, prev)
		}
		prev = ts
		counts[strings.TrimSpace(l[25:30])]++
	}
	for _, lvl := range []string{"INFO", "DEBUG", "WARN", "ERROR"} {
		if counts[lvl] == 0 {
			t.Errorf("no %s lines", lvl)
		}
	}
	ratio := float64(len(lines)) / float64(counts["ERROR"])
	if ratio < 20 || ratio > 60 {
		t.Errorf("1 ERROR line in %.1f, want about 1 in 40 (%v)", ratio, counts)
	}
	t.Logf("log: %d bytes, %d lines, levels %v", len(text), len(lines), counts)
}

func TestImages(t *testing.T) {
	c := legacy(t)
	r, err := c.ReadResource(ctxT(t), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "demo://images/logo.png"}})
	if err != nil {
		t.Fatal(err)
	}
	blob, ok := r.Contents[0].(mcp.BlobResourceContents)
	if !ok || blob.MIMEType != "image/png" {
		t.Fatalf("logo = %#v", r.Contents[0])
	}
	checkPNG(t, "logo", blob.Blob, 64, 64)

	res, err := c.CallTool(ctxT(t), callReq("render_chart", nil))
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("render_chart = %+v", res)
	}
	img, ok := res.Content[1].(mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" {
		t.Fatalf("render_chart content[1] = %#v", res.Content[1])
	}
	checkPNG(t, "chart", img.Data, 64, 32)
}

func checkPNG(t *testing.T, what, b64 string, w, h int) {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("%s: base64: %v", what, err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: png: %v", what, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("%s is %dx%d, want %dx%d", what, b.Dx(), b.Dy(), w, h)
	}
}

func TestTemplates(t *testing.T) {
	for _, era := range []string{mcp.LATEST_LEGACY_PROTOCOL_VERSION, ""} {
		t.Run("era="+era, func(t *testing.T) {
			c := connect(t, New("1.2.3"), era)
			for i := 1; i <= NoteCount; i++ {
				uri := fmt.Sprintf("demo://notes/%d", i)
				if got, want := readText(t, c, uri).Text, noteText(i); got != want {
					t.Errorf("%s = %q, want %q", uri, got, want)
				}
			}
			for _, bad := range []string{"demo://notes/9", "demo://notes/0", "demo://notes/01", "demo://notes/abc"} {
				_, err := c.ReadResource(ctxT(t), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: bad}})
				if err == nil || !strings.Contains(err.Error(), "not found") {
					t.Errorf("%s: err = %v, want not found", bad, err)
				}
			}
			if got := readText(t, c, "demo://greeting/Ada%20Lovelace").Text; got != "Hello, Ada Lovelace! Greetings from the mcpx demo server.\n" {
				t.Errorf("greeting = %q", got)
			}
			// A URI that is neither listed nor matches a template is the server's not-found.
			if _, err := c.ReadResource(ctxT(t), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "demo://nope"}}); err == nil {
				t.Error("demo://nope was found")
			}
		})
	}
}

func getPrompt(t *testing.T, c *client.Client, name string, args map[string]string) *mcp.GetPromptResult {
	t.Helper()
	r, err := c.GetPrompt(ctxT(t), mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: name, Arguments: args}})
	if err != nil {
		t.Fatalf("prompt %s: %v", name, err)
	}
	return r
}

func roles(r *mcp.GetPromptResult) []mcp.Role {
	var out []mcp.Role
	for _, m := range r.Messages {
		out = append(out, m.Role)
	}
	return out
}

func TestPrompts(t *testing.T) {
	c := legacy(t)
	ctx := ctxT(t)

	list, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Prompts {
		if p.Name == "summarize" {
			if len(p.Arguments) != 2 || p.Arguments[0].Name != "topic" || !p.Arguments[0].Required || p.Arguments[0].Description == "" ||
				p.Arguments[1].Name != "style" || p.Arguments[1].Required {
				t.Errorf("summarize arguments = %+v", p.Arguments)
			}
		}
	}

	r := getPrompt(t, c, "summarize", map[string]string{"topic": "outage"})
	if !slices.Equal(roles(r), []mcp.Role{mcp.RoleUser}) || !strings.Contains(r.Messages[0].Content.(mcp.TextContent).Text, "outage") {
		t.Errorf("summarize = %+v", r)
	}
	r = getPrompt(t, c, "summarize", map[string]string{"topic": "outage", "style": "prose"})
	if !strings.Contains(r.Messages[0].Content.(mcp.TextContent).Text, "prose") {
		t.Errorf("summarize prose = %+v", r)
	}
	if _, err := c.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "summarize"}}); err == nil || !strings.Contains(err.Error(), "topic") {
		t.Errorf("summarize without topic: err = %v", err)
	}

	r = getPrompt(t, c, "code_review", map[string]string{"code": "func f() {}", "language": "go"})
	if !slices.Equal(roles(r), []mcp.Role{mcp.RoleUser, mcp.RoleAssistant}) {
		t.Errorf("code_review roles = %v", roles(r))
	}
	if txt := r.Messages[0].Content.(mcp.TextContent).Text; !strings.Contains(txt, "func f() {}") || !strings.Contains(txt, "go code") {
		t.Errorf("code_review user message = %q", txt)
	}

	r = getPrompt(t, c, "explain_log", nil)
	if !slices.Equal(roles(r), []mcp.Role{mcp.RoleUser, mcp.RoleUser}) {
		t.Fatalf("explain_log roles = %v", roles(r))
	}
	emb, ok := r.Messages[1].Content.(mcp.EmbeddedResource)
	if !ok {
		t.Fatalf("explain_log message 2 = %#v", r.Messages[1].Content)
	}
	trc, ok := emb.Resource.(mcp.TextResourceContents)
	if !ok || trc.URI != "demo://logs/app.log" || trc.MIMEType != "text/plain" {
		t.Fatalf("explain_log resource = %#v", emb.Resource)
	}
	if !strings.Contains(trc.Text, " ERROR ") || len(trc.Text) > 4096 || !strings.Contains(getContent().log, trc.Text) {
		t.Errorf("explain_log excerpt (%d bytes) = %q", len(trc.Text), trc.Text)
	}

	r = getPrompt(t, c, "greeting", map[string]string{"name": "Grace"})
	if !strings.Contains(r.Messages[0].Content.(mcp.TextContent).Text, "Grace") {
		t.Errorf("greeting = %+v", r)
	}
	r = getPrompt(t, c, "greeting", nil)
	if !strings.Contains(r.Messages[0].Content.(mcp.TextContent).Text, "there") {
		t.Errorf("greeting without a name = %+v", r)
	}
}

func complete(t *testing.T, c *client.Client, ref any, arg, value string) []string {
	t.Helper()
	r, err := c.Complete(ctxT(t), mcp.CompleteRequest{Params: mcp.CompleteParams{
		Ref: ref, Argument: mcp.CompleteArgument{Name: arg, Value: value},
	}})
	if err != nil {
		t.Fatalf("complete %v %s=%s: %v", ref, arg, value, err)
	}
	return r.Completion.Values
}

func TestCompletion(t *testing.T) {
	c := legacy(t)
	summarize := mcp.PromptReference{Type: "ref/prompt", Name: "summarize"}
	review := mcp.PromptReference{Type: "ref/prompt", Name: "code_review"}
	notesRef := mcp.ResourceReference{Type: "ref/resource", URI: NotesTemplate}
	cases := []struct {
		ref        any
		arg, value string
		want       []string
	}{
		{summarize, "style", "", []string{"bullet", "prose"}},
		{summarize, "style", "b", []string{"bullet"}},
		{summarize, "style", "P", []string{"prose"}},
		{summarize, "style", "x", []string{}},
		{summarize, "topic", "", []string{}},
		{review, "language", "j", []string{"java", "javascript"}},
		{review, "language", "go", []string{"go"}},
		{review, "language", "", languageValues},
		{notesRef, "id", "", []string{"1", "2", "3", "4", "5", "6", "7", "8"}},
		{notesRef, "id", "3", []string{"3"}},
		{notesRef, "id", "9", []string{}},
		{mcp.ResourceReference{Type: "ref/resource", URI: GreetingTemplate}, "name", "a", []string{"Ada", "Alan"}},
		{mcp.PromptReference{Type: "ref/prompt", Name: "greeting"}, "name", "G", []string{"Grace"}},
	}
	for _, tc := range cases {
		if got := complete(t, c, tc.ref, tc.arg, tc.value); !slices.Equal(got, tc.want) {
			t.Errorf("complete %v %s=%q = %q, want %q", tc.ref, tc.arg, tc.value, got, tc.want)
		}
	}
}

func callReq(name string, args map[string]any) mcp.CallToolRequest {
	if args == nil {
		args = map[string]any{}
	}
	return mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}}
}

func call(t *testing.T, c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	r, err := c.CallTool(ctxT(t), callReq(name, args))
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var texts []string
	for _, ct := range r.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return r, strings.Join(texts, "\n")
}

func TestTools(t *testing.T) {
	c := legacy(t)

	list, err := c.ListTools(ctxT(t), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if tool.Description == "" || tool.Annotations.ReadOnlyHint == nil || !*tool.Annotations.ReadOnlyHint {
			t.Errorf("tool %s: description %q, annotations %+v", tool.Name, tool.Description, tool.Annotations)
		}
		switch tool.Name {
		case "tag_items":
			items, _ := tool.InputSchema.Properties["items"].(map[string]any)
			meta, _ := tool.InputSchema.Properties["meta"].(map[string]any)
			if items["type"] != "array" || meta["type"] != "object" || !slices.Equal(tool.InputSchema.Required, []string{"items"}) {
				t.Errorf("tag_items schema = %+v", tool.InputSchema)
			}
		case "weather":
			units, _ := tool.InputSchema.Properties["units"].(map[string]any)
			if fmt.Sprint(units["enum"]) != "[metric imperial]" {
				t.Errorf("weather units = %+v", units)
			}
		case "repeat":
			times, _ := tool.InputSchema.Properties["times"].(map[string]any)
			if times["type"] != "integer" || times["minimum"] != 1.0 || times["maximum"] != 100.0 {
				t.Errorf("repeat times = %+v", times)
			}
		}
	}

	if _, txt := call(t, c, "echo", map[string]any{"text": "hello"}); txt != "hello" {
		t.Errorf("echo = %q", txt)
	}
	if _, txt := call(t, c, "echo", map[string]any{"text": "hello", "upper": true}); txt != "HELLO" {
		t.Errorf("echo upper = %q", txt)
	}

	r, txt := call(t, c, "add", map[string]any{"a": 2, "b": 3})
	if txt != "5" || r.IsError {
		t.Errorf("add = %q", txt)
	}
	if sc, _ := json.Marshal(r.StructuredContent); string(sc) != `{"sum":5}` {
		t.Errorf("add structured = %s", sc)
	}
	if _, txt := call(t, c, "add", map[string]any{"a": 0.5, "b": -2}); txt != "-1.5" {
		t.Errorf("add 0.5 -2 = %q", txt)
	}

	if _, txt := call(t, c, "repeat", map[string]any{"text": "ab", "times": 3}); txt != "ab\nab\nab" {
		t.Errorf("repeat = %q", txt)
	}
	for _, times := range []any{0, 101, 2.5, "3"} {
		if r, _ := call(t, c, "repeat", map[string]any{"text": "ab", "times": times}); !r.IsError {
			t.Errorf("repeat times=%v was not an error", times)
		}
	}

	r1, w1 := call(t, c, "weather", map[string]any{"city": "Oslo"})
	_, w2 := call(t, c, "weather", map[string]any{"city": "Oslo"})
	_, wi := call(t, c, "weather", map[string]any{"city": "Oslo", "units": "imperial"})
	if w1 != w2 || !strings.HasPrefix(w1, "Oslo: ") || !strings.Contains(w1, "°C") || !strings.Contains(wi, "°F") || !strings.Contains(wi, "mph") {
		t.Errorf("weather = %q / %q / %q", w1, w2, wi)
	}
	if r1.StructuredContent == nil {
		t.Error("weather has no structured content")
	}
	if r, _ := call(t, c, "weather", map[string]any{"city": "Oslo", "units": "kelvin"}); !r.IsError {
		t.Error("weather units=kelvin was not an error")
	}

	r, txt = call(t, c, "fail", nil)
	if !r.IsError || FailMessage != "the demo tool failed on purpose" || txt != FailMessage {
		t.Errorf("fail = %v %q", r.IsError, txt)
	}

	r, txt = call(t, c, "tag_items", map[string]any{"items": []any{"Red apple", "banana!"}, "meta": map[string]any{"source": "test"}})
	if r.IsError || txt != "tagged 2 items:\nRed apple -> #red-apple\nbanana! -> #banana\nmeta: {\"source\":\"test\"}" {
		t.Errorf("tag_items = %q", txt)
	}
	if sc, _ := json.Marshal(r.StructuredContent); string(sc) != `{"count":2,"meta":{"source":"test"},"tagged":[{"item":"Red apple","tag":"#red-apple"},{"item":"banana!","tag":"#banana"}]}` {
		t.Errorf("tag_items structured = %s", sc)
	}
	if _, txt := call(t, c, "tag_items", map[string]any{"items": []any{"x"}, "meta": map[string]any{"prefix": "@"}}); !strings.Contains(txt, "x -> @x") {
		t.Errorf("tag_items prefix = %q", txt)
	}
	for _, bad := range []map[string]any{{}, {"items": "x"}, {"items": []any{}}, {"items": []any{"x"}, "meta": "y"}} {
		if r, _ := call(t, c, "tag_items", bad); !r.IsError {
			t.Errorf("tag_items %v was not an error", bad)
		}
	}
}

// transcript sends a fixed series of raw JSON-RPC requests straight to s and
// returns the raw responses, one per line.
func transcript(t *testing.T, s *server.MCPServer) []byte {
	t.Helper()
	ctx := ctxT(t)
	var reqs []string
	add := func(method string, params any) {
		p, err := json.Marshal(params)
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, len(reqs)+1, method, p))
	}
	add("initialize", map[string]any{"protocolVersion": mcp.LATEST_LEGACY_PROTOCOL_VERSION, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "0"}})
	for _, m := range []string{"tools/list", "resources/list", "resources/templates/list", "prompts/list"} {
		add(m, map[string]any{})
	}
	add("resources/list", map[string]any{"cursor": base64.StdEncoding.EncodeToString([]byte("note-3"))})
	uris := append(slices.Clone(wantResources), "demo://notes/1", "demo://notes/8", "demo://notes/9", "demo://greeting/World")
	for _, u := range uris {
		add("resources/read", map[string]any{"uri": u})
	}
	add("prompts/get", map[string]any{"name": "summarize", "arguments": map[string]string{"topic": "outage", "style": "bullet"}})
	add("prompts/get", map[string]any{"name": "code_review", "arguments": map[string]string{"code": "x := 1", "language": "go"}})
	add("prompts/get", map[string]any{"name": "explain_log"})
	add("prompts/get", map[string]any{"name": "greeting", "arguments": map[string]string{"name": "Ada"}})
	calls := []struct {
		name string
		args map[string]any
	}{
		{"echo", map[string]any{"text": "hi", "upper": true}},
		{"add", map[string]any{"a": 2, "b": 3}},
		{"repeat", map[string]any{"text": "x", "times": 4}},
		{"weather", map[string]any{"city": "Paris", "units": "metric"}},
		{"fail", map[string]any{}},
		{"render_chart", map[string]any{}},
		{"tag_items", map[string]any{"items": []string{"a b", "c"}, "meta": map[string]any{"z": 1, "a": []int{1, 2}}}},
	}
	for _, cl := range calls {
		add("tools/call", map[string]any{"name": cl.name, "arguments": cl.args})
	}
	add("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "code_review"}, "argument": map[string]any{"name": "language", "value": "c"}})
	add("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": NotesTemplate}, "argument": map[string]any{"name": "id", "value": ""}})

	var out bytes.Buffer
	for _, r := range reqs {
		resp := s.HandleMessage(ctx, json.RawMessage(r))
		b, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

func TestDeterministic(t *testing.T) {
	a := transcript(t, New("1.2.3"))
	b := transcript(t, New("1.2.3"))
	if !bytes.Equal(a, b) {
		al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
		for i := range al {
			if i < len(bl) && al[i] != bl[i] {
				t.Fatalf("response %d differs:\n%.400s\n%.400s", i+1, al[i], bl[i])
			}
		}
		t.Fatal("transcripts differ")
	}
	if bytes.Contains(a, []byte(`"error":{"code":-32601`)) {
		t.Errorf("a request was not understood:\n%s", a)
	}
	// Everything in the transcript must have succeeded, except the unknown note.
	for i, line := range strings.Split(strings.TrimSpace(string(a)), "\n") {
		if strings.Contains(line, `"error"`) && !strings.Contains(line, "not found") {
			t.Errorf("response %d is an error: %.300s", i+1, line)
		}
	}
	// Each run also builds the same content from scratch.
	l1, _, _ := buildLogLines()
	l2, _, _ := buildLogLines()
	if !slices.Equal(l1, l2) || !bytes.Equal(encodePNG(drawLogo()), encodePNG(drawLogo())) || !bytes.Equal(encodePNG(drawChart()), getContent().chartPNG) {
		t.Error("content builders are not deterministic")
	}
}

// TestServe runs Serve on a pipe in place of stdin/stdout and checks that it
// answers and returns once stdin closes.
func TestServe(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	oldIn, oldOut := os.Stdin, os.Stdout
	os.Stdin, os.Stdout = inR, outW
	t.Cleanup(func() { os.Stdin, os.Stdout = oldIn, oldOut })

	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), "9.9.9") }()

	// One request at a time: the server may answer concurrent requests in any order.
	fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`+"\n", mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 1<<20)
	var got []string
	if sc.Scan() {
		got = append(got, sc.Text())
	}
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}`)
	if sc.Scan() {
		got = append(got, sc.Text())
	}
	if len(got) < 2 || !strings.Contains(got[0], `"name":"mcpx-demo"`) || !strings.Contains(got[0], `"version":"9.9.9"`) ||
		!strings.Contains(got[1], `"structuredContent":{"sum":5}`) {
		t.Fatalf("responses = %q", got)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after stdin closed")
	}
	outW.Close()
	outR.Close()
	inR.Close()
}

// Over stdio, a note that does not exist is "resource not found" (-32002),
// not mcp-go's internal error.
func TestNotFoundWriter(t *testing.T) {
	var out strings.Builder
	w := &notFoundWriter{w: &out}
	in := `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"note \"99\" not found (ids are 1 to 8): resource not found"}}` + "\n" +
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"disk on fire"}}` + "\n" +
		`{"jsonrpc":"2.0","id":5,"result":{"contents":[]}}` + "\n"
	for _, part := range []string{in[:10], in[10:150], in[150:]} { // writes split anywhere
		if _, err := w.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	want := `{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"note \"99\" not found (ids are 1 to 8)"}}` + "\n" +
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"disk on fire"}}` + "\n" +
		`{"jsonrpc":"2.0","id":5,"result":{"contents":[]}}` + "\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}
