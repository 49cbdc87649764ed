package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ServerName is the name the demo server reports in its initialize result.
const ServerName = "mcpx-demo"

// PageSize is the pagination limit of every listing, small enough that the
// resource listing needs several pages.
const PageSize = 5

// New returns the demo server. Deterministic: the same content every run, no
// clock, no randomness, no network, no files.
func New(version string) *server.MCPServer {
	s := server.NewMCPServer(ServerName, version,
		server.WithTitle("mcpx demo server"),
		server.WithInstructions("The built-in demo server of mcpx. Everything here is fake and deterministic; start with the resource demo://readme."),
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(false, false),
		server.WithPromptCapabilities(false),
		server.WithLogging(),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(promptCompletions{}),
		server.WithResourceCompletionProvider(resourceCompletions{}),
		server.WithPaginationLimit(PageSize),
		server.WithInputSchemaValidation(),
		server.WithRecovery(),
		server.WithResourceRecovery(),
	)
	addTools(s)
	addResources(s)
	addTemplates(s)
	addPrompts(s)
	return s
}

// Serve serves New(version) over stdin/stdout until stdin closes or ctx ends.
func Serve(ctx context.Context, version string) error {
	err := server.NewStdioServer(New(version)).Listen(ctx, os.Stdin, &notFoundWriter{w: os.Stdout})
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// ---------------------------------------------------------------- tools

// readOnly marks a demo tool honestly: nothing is changed, nothing outside is
// reached, and the same input gives the same output.
var readOnly = mcp.ToolAnnotation{
	ReadOnlyHint:    mcp.ToBoolPtr(true),
	DestructiveHint: mcp.ToBoolPtr(false),
	IdempotentHint:  mcp.ToBoolPtr(true),
	OpenWorldHint:   mcp.ToBoolPtr(false),
}

// newTool is mcp.NewTool with the demo's annotations and a property order
// that follows the order of the options (instead of alphabetical).
func newTool(name, description string, order []string, opts ...mcp.ToolOption) mcp.Tool {
	opts = append([]mcp.ToolOption{mcp.WithDescription(description), mcp.WithToolAnnotation(readOnly)}, opts...)
	t := mcp.NewTool(name, opts...)
	t.InputSchema.PropertyOrder = order
	return t
}

func addTools(s *server.MCPServer) {
	s.AddTool(newTool("echo",
		"Echo the text back, optionally in upper case.",
		[]string{"text", "upper"},
		mcp.WithString("text", mcp.Required(), mcp.Description("The text to echo back.")),
		mcp.WithBoolean("upper", mcp.Description("Upper-case the text first (default false)."), mcp.DefaultBool(false)),
	), echoTool)

	add := newTool("add",
		"Add two numbers.\nReturns the sum as text and as structured content {\"sum\": N}.",
		[]string{"a", "b"},
		mcp.WithNumber("a", mcp.Required(), mcp.Description("The first addend.")),
		mcp.WithNumber("b", mcp.Required(), mcp.Description("The second addend.")),
	)
	add.RawOutputSchema = json.RawMessage(`{"type":"object","properties":{"sum":{"type":"number","description":"a + b"}},"required":["sum"]}`)
	s.AddTool(add, addTool)

	s.AddTool(newTool("repeat",
		"Repeat the text a number of times, one copy per line.",
		[]string{"text", "times"},
		mcp.WithString("text", mcp.Required(), mcp.Description("The text to repeat.")),
		mcp.WithInteger("times", mcp.Required(), mcp.Min(1), mcp.Max(100), mcp.Description("How many copies, 1 to 100.")),
	), repeatTool)

	s.AddTool(newTool("weather",
		"Report the weather for a city (fake, deterministic data).\nThe same city always gets the same report; no network is used.",
		[]string{"city", "units"},
		mcp.WithString("city", mcp.Required(), mcp.Description("The city name, for example Oslo.")),
		mcp.WithString("units", mcp.Enum("metric", "imperial"), mcp.DefaultString("metric"), mcp.Description("metric (°C, km/h) or imperial (°F, mph); default metric.")),
	), weatherTool)

	s.AddTool(newTool("fail",
		"Always fail: returns a tool error result, to show how errors look.",
		nil,
	), failTool)

	s.AddTool(newTool("render_chart",
		"Render a small bar chart of this week's signups as a PNG image.\nThe image is 64x32 pixels and the same bytes on every call.",
		nil,
	), renderChartTool)

	s.AddTool(newTool("tag_items",
		"Turn a list of items into hashtags; shows array and object arguments.",
		[]string{"items", "meta"},
		mcp.WithArray("items", mcp.Required(), mcp.MinItems(1), mcp.WithStringItems(), mcp.Description("The items to tag, as a JSON array of strings.")),
		mcp.WithObject("meta", mcp.Description("Optional JSON object echoed back; a string \"prefix\" replaces the default \"#\"."),
			mcp.Properties(map[string]any{"prefix": map[string]any{"type": "string", "description": "Tag prefix (default \"#\")."}})),
	), tagItemsTool)
}

func echoTool(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	text, err := req.RequireString("text")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	if req.GetBool("upper", false) {
		text = strings.ToUpper(text)
	}
	return mcp.NewToolResultText(text), nil
}

func addTool(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := req.RequireFloat("a")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	b, err := req.RequireFloat("b")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	sum := a + b
	if math.IsInf(sum, 0) || math.IsNaN(sum) {
		return mcp.NewToolResultError("the sum does not fit in a float64"), nil
	}
	return mcp.NewToolResultStructured(map[string]any{"sum": sum}, strconv.FormatFloat(sum, 'f', -1, 64)), nil
}

func repeatTool(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	text, err := req.RequireString("text")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	times, ok := req.GetArguments()["times"].(float64)
	if !ok || times != math.Trunc(times) || times < 1 || times > 100 {
		return mcp.NewToolResultError("times must be an integer from 1 to 100"), nil
	}
	copies := make([]string, int(times))
	for i := range copies {
		copies[i] = text
	}
	return mcp.NewToolResultText(strings.Join(copies, "\n")), nil
}

// weatherReport is the structured content of the weather tool.
type weatherReport struct {
	City            string `json:"city"`
	Units           string `json:"units"`
	Temperature     int    `json:"temperature"`
	TemperatureUnit string `json:"temperature_unit"`
	Condition       string `json:"condition"`
	HumidityPercent int    `json:"humidity_percent"`
	WindSpeed       int    `json:"wind_speed"`
	WindUnit        string `json:"wind_unit"`
}

var weatherConditions = []string{"clear sky", "partly cloudy", "overcast", "light rain", "showers", "fog", "light snow", "windy"}

func weatherTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	city, err := req.RequireString("city")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	city = strings.TrimSpace(city)
	if city == "" {
		return mcp.NewToolResultError("city must not be empty"), nil
	}
	units := req.GetString("units", "metric")
	if units != "metric" && units != "imperial" {
		return mcp.NewToolResultError(`units must be "metric" or "imperial"`), nil
	}
	if srv := server.ServerFromContext(ctx); srv != nil {
		// Shown by clients that asked for info-level logging; errors (no
		// session, logging not enabled) do not matter to the result.
		_ = srv.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(
			mcp.LoggingLevelInfo, "weather", fmt.Sprintf("looking up the (fake) weather for %s", city)))
	}
	h := fnv64(strings.ToLower(city))
	r := weatherReport{
		City:            city,
		Units:           units,
		Temperature:     int(h%41) - 5,
		TemperatureUnit: "°C",
		Condition:       weatherConditions[(h>>8)%uint64(len(weatherConditions))],
		HumidityPercent: 30 + int((h>>16)%61),
		WindSpeed:       2 + int((h>>24)%40),
		WindUnit:        "km/h",
	}
	if units == "imperial" {
		r.Temperature = int(math.Round(float64(r.Temperature)*9/5 + 32))
		r.TemperatureUnit = "°F"
		r.WindSpeed = int(math.Round(float64(r.WindSpeed) * 0.621371))
		r.WindUnit = "mph"
	}
	text := fmt.Sprintf("%s: %d%s, %s, humidity %d%%, wind %d %s (fake data from the mcpx demo server)",
		r.City, r.Temperature, r.TemperatureUnit, r.Condition, r.HumidityPercent, r.WindSpeed, r.WindUnit)
	return mcp.NewToolResultStructured(r, text), nil
}

// FailMessage is the text of the fail tool's error result.
const FailMessage = "the demo tool failed on purpose"

func failTool(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultError(FailMessage), nil
}

func renderChartTool(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	parts := make([]string, len(chartValues))
	for i, v := range chartValues {
		parts[i] = fmt.Sprintf("%s %d", chartDays[i], v)
	}
	text := "Signups this week (64x32 PNG): " + strings.Join(parts, ", ")
	return mcp.NewToolResultImage(text, getContent().chartB64, "image/png"), nil
}

// taggedItem is one entry of the tag_items structured content.
type taggedItem struct {
	Item string `json:"item"`
	Tag  string `json:"tag"`
}

func tagItemsTool(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	items, err := req.RequireStringSlice("items")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	if len(items) == 0 {
		return mcp.NewToolResultError("items must hold at least one string"), nil
	}
	prefix := "#"
	var meta map[string]any
	if raw, ok := req.GetArguments()["meta"]; ok && raw != nil {
		meta, ok = raw.(map[string]any)
		if !ok {
			return mcp.NewToolResultError("meta must be a JSON object"), nil
		}
		if p, ok := meta["prefix"]; ok {
			ps, ok := p.(string)
			if !ok {
				return mcp.NewToolResultError("meta.prefix must be a string"), nil
			}
			prefix = ps
		}
	}
	tagged := make([]taggedItem, len(items))
	var b strings.Builder
	fmt.Fprintf(&b, "tagged %d %s:", len(items), map[bool]string{true: "item", false: "items"}[len(items) == 1])
	for i, it := range items {
		tagged[i] = taggedItem{Item: it, Tag: prefix + slug(it)}
		fmt.Fprintf(&b, "\n%s -> %s", it, tagged[i].Tag)
	}
	structured := map[string]any{"count": len(items), "tagged": tagged}
	if meta != nil {
		structured["meta"] = meta
		mj, _ := json.Marshal(meta) // map keys are sorted: deterministic
		fmt.Fprintf(&b, "\nmeta: %s", mj)
	}
	return mcp.NewToolResultStructured(structured, b.String()), nil
}

// slug lower-cases s and turns every run of non-alphanumeric characters into
// one "-".
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r > 127 {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		} else {
			dash = true
		}
	}
	if b.Len() == 0 {
		return "item"
	}
	return b.String()
}

// ---------------------------------------------------------------- resources

// NoteCount is the number of notes (demo://data/notes/1.. and demo://notes/{id}).
const NoteCount = 8

func textContents(uri, mime, text string) []mcp.ResourceContents {
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: mime, Text: text}}
}

func addResources(s *server.MCPServer) {
	c := getContent()

	s.AddResource(mcp.NewResource("demo://readme", "readme",
		mcp.WithResourceTitle("Read me first"),
		mcp.WithResourceDescription("What mcpx is, and what to try against this demo server."),
		mcp.WithMIMEType("text/markdown"),
		mcp.WithAnnotations([]mcp.Role{mcp.RoleUser}, 0.8, ""),
		mcp.WithResourceSize(int64(len(readme))),
	), func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return textContents(req.Params.URI, "text/markdown", readme), nil
	})

	s.AddResource(mcp.NewResource("demo://logs/app.log", "app.log",
		mcp.WithResourceTitle("Application log"),
		mcp.WithResourceDescription("A 200 KiB application log with INFO, DEBUG, WARN and ERROR lines.\nLarge enough that paging matters: try --pattern ERROR or --offset."),
		mcp.WithMIMEType("text/plain"),
		mcp.WithResourceSize(int64(len(c.log))),
	), func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return textContents(req.Params.URI, "text/plain", c.log), nil
	})

	s.AddResource(mcp.NewResource("demo://images/logo.png", "logo.png",
		mcp.WithResourceTitle("mcpx logo"),
		mcp.WithResourceDescription("The mcpx logo, a 64x64 PNG image (binary content)."),
		mcp.WithMIMEType("image/png"),
		mcp.WithResourceSize(int64(len(c.logoPNG))),
	), func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.BlobResourceContents{URI: req.Params.URI, MIMEType: "image/png", Blob: c.logoB64}}, nil
	})

	s.AddResource(mcp.NewResource("demo://data/users.json", "users.json",
		mcp.WithResourceTitle("Users"),
		mcp.WithResourceDescription("Five fake user accounts as JSON."),
		mcp.WithMIMEType("application/json"),
	), func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return textContents(req.Params.URI, "application/json", usersJSON), nil
	})

	for id := 1; id <= NoteCount; id++ {
		text := noteText(id)
		s.AddResource(mcp.NewResource(fmt.Sprintf("demo://data/notes/%d", id), fmt.Sprintf("note-%d", id),
			mcp.WithResourceTitle(notes[id-1].title),
			mcp.WithResourceDescription(fmt.Sprintf("Note %d of %d: %s.", id, NoteCount, strings.ToLower(notes[id-1].title))),
			mcp.WithMIMEType("text/plain"),
		), func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return textContents(req.Params.URI, "text/plain", text), nil
		})
	}
}

// templateArg returns the value of a template variable as the server passes
// it: a string, or a one-element list of strings.
func templateArg(req mcp.ReadResourceRequest, name string) string {
	switch v := req.Params.Arguments[name].(type) {
	case string:
		return v
	case []string:
		return strings.Join(v, ",")
	case []any:
		parts := make([]string, len(v))
		for i, p := range v {
			parts[i] = fmt.Sprint(p)
		}
		return strings.Join(parts, ",")
	}
	return ""
}

const (
	// NotesTemplate is the URI template of a note by id.
	NotesTemplate = "demo://notes/{id}"
	// GreetingTemplate is the URI template of a greeting by name.
	GreetingTemplate = "demo://greeting/{name}"
)

func addTemplates(s *server.MCPServer) {
	s.AddResourceTemplate(mcp.NewResourceTemplate(NotesTemplate, "note-by-id",
		mcp.WithTemplateTitle("Note by id"),
		mcp.WithTemplateDescription(fmt.Sprintf("A note by its id, 1 to %d; other ids are not found.", NoteCount)),
		mcp.WithTemplateMIMEType("text/plain"),
	), func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		raw := templateArg(req, "id")
		id, err := strconv.Atoi(raw)
		if err != nil || id < 1 || id > NoteCount || strconv.Itoa(id) != raw {
			return nil, fmt.Errorf("note %q not found (ids are 1 to %d): %w", raw, NoteCount, server.ErrResourceNotFound)
		}
		return textContents(req.Params.URI, "text/plain", noteText(id)), nil
	})

	s.AddResourceTemplate(mcp.NewResourceTemplate(GreetingTemplate, "greeting-by-name",
		mcp.WithTemplateTitle("Greeting"),
		mcp.WithTemplateDescription("A friendly greeting for any name."),
		mcp.WithTemplateMIMEType("text/plain"),
	), func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		name := templateArg(req, "name")
		if strings.TrimSpace(name) == "" {
			name = "stranger"
		}
		return textContents(req.Params.URI, "text/plain", fmt.Sprintf("Hello, %s! Greetings from the mcpx demo server.\n", name)), nil
	})
}

// ---------------------------------------------------------------- prompts

// missingArg is the error of a prompt called without a required argument.
func missingArg(prompt, arg string) error {
	return fmt.Errorf("prompt %s: missing required argument %q", prompt, arg)
}

func addPrompts(s *server.MCPServer) {
	s.AddPrompt(mcp.NewPrompt("summarize",
		mcp.WithPromptDescription("Ask for a summary of a topic, as bullets or prose."),
		mcp.WithArgument("topic", mcp.RequiredArgument(), mcp.ArgumentDescription("What to summarize, for example outage or release notes.")),
		mcp.WithArgument("style", mcp.ArgumentDescription(`"bullet" (default) or "prose".`)),
	), summarizePrompt)

	s.AddPrompt(mcp.NewPrompt("code_review",
		mcp.WithPromptDescription("Review a piece of code; returns a user and an assistant message."),
		mcp.WithArgument("code", mcp.RequiredArgument(), mcp.ArgumentDescription("The code to review (code=@FILE reads a file).")),
		mcp.WithArgument("language", mcp.ArgumentDescription("The programming language, for example go or python.")),
	), codeReviewPrompt)

	s.AddPrompt(mcp.NewPrompt("explain_log",
		mcp.WithPromptDescription("Explain an excerpt of demo://logs/app.log, embedded as a resource."),
	), explainLogPrompt)

	s.AddPrompt(mcp.NewPrompt("greeting",
		mcp.WithPromptDescription("A friendly greeting, optionally by name."),
		mcp.WithArgument("name", mcp.ArgumentDescription("Who to greet (default: there).")),
	), greetingPrompt)
}

func summarizePrompt(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	topic := strings.TrimSpace(req.Params.Arguments["topic"])
	if topic == "" {
		return nil, missingArg("summarize", "topic")
	}
	var how string
	switch style := req.Params.Arguments["style"]; style {
	case "", "bullet":
		how = "as a short bulleted list: at most five bullets, one line each"
	case "prose":
		how = "as one or two short paragraphs of plain prose"
	default:
		return nil, fmt.Errorf(`prompt summarize: style must be "bullet" or "prose", not %q`, style)
	}
	text := fmt.Sprintf("Summarize %s %s. Lead with what matters most to the reader, and say so when something is unknown rather than guessing.", topic, how)
	return mcp.NewGetPromptResult("Summarize "+topic, []mcp.PromptMessage{
		mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text)),
	}), nil
}

func codeReviewPrompt(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	code := req.Params.Arguments["code"]
	if strings.TrimSpace(code) == "" {
		return nil, missingArg("code_review", "code")
	}
	lang := strings.TrimSpace(req.Params.Arguments["language"])
	what := "this code"
	if lang != "" {
		what = "this " + lang + " code"
	}
	// No newline is added: mcpx prompt ends every message with one.
	user := fmt.Sprintf("Please review %s:\n\n%s", what, code)
	assistant := fmt.Sprintf("Sure. I will review %s for correctness first, then error handling, edge cases and readability, and I will quote the lines I refer to. Anything I suggest will come with a short reason.", what)
	return mcp.NewGetPromptResult("Code review", []mcp.PromptMessage{
		mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(user)),
		mcp.NewPromptMessage(mcp.RoleAssistant, mcp.NewTextContent(assistant)),
	}), nil
}

func explainLogPrompt(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	c := getContent()
	intro := fmt.Sprintf("Below are lines %d to %d of demo://logs/app.log. Explain what went wrong, in which order, and what to check first.", c.excerptFrom, c.excerptTo)
	return mcp.NewGetPromptResult("Explain a log excerpt", []mcp.PromptMessage{
		mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(intro)),
		mcp.NewPromptMessage(mcp.RoleUser, mcp.NewEmbeddedResource(mcp.TextResourceContents{
			URI: "demo://logs/app.log", MIMEType: "text/plain", Text: c.logExcerpt,
		})),
	}), nil
}

func greetingPrompt(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	name := strings.TrimSpace(req.Params.Arguments["name"])
	if name == "" {
		name = "there"
	}
	return mcp.NewGetPromptResult("A greeting", []mcp.PromptMessage{
		mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(fmt.Sprintf("Say hello to %s in one warm, short sentence.", name))),
	}), nil
}

// ---------------------------------------------------------------- completions

var (
	styleValues    = []string{"bullet", "prose"}
	languageValues = []string{"bash", "c", "cpp", "csharp", "go", "java", "javascript", "kotlin", "php", "python", "ruby", "rust", "sql", "swift", "typescript"}
	nameValues     = []string{"Ada", "Alan", "Grace", "Linus", "Margaret"}
)

// filterPrefix returns the values that start with prefix, case-insensitively,
// in their original order.
func filterPrefix(values []string, prefix string) *mcp.Completion {
	out := []string{}
	p := strings.ToLower(prefix)
	for _, v := range values {
		if strings.HasPrefix(strings.ToLower(v), p) {
			out = append(out, v)
		}
	}
	return &mcp.Completion{Values: out, Total: len(out)}
}

type promptCompletions struct{}

func (promptCompletions) CompletePromptArgument(_ context.Context, prompt string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	switch {
	case prompt == "summarize" && arg.Name == "style":
		return filterPrefix(styleValues, arg.Value), nil
	case prompt == "code_review" && arg.Name == "language":
		return filterPrefix(languageValues, arg.Value), nil
	case prompt == "greeting" && arg.Name == "name":
		return filterPrefix(nameValues, arg.Value), nil
	}
	return &mcp.Completion{Values: []string{}}, nil
}

type resourceCompletions struct{}

func (resourceCompletions) CompleteResourceArgument(_ context.Context, uri string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	switch {
	case uri == NotesTemplate && arg.Name == "id":
		ids := make([]string, NoteCount)
		for i := range ids {
			ids[i] = strconv.Itoa(i + 1)
		}
		return filterPrefix(ids, arg.Value), nil
	case uri == GreetingTemplate && arg.Name == "name":
		return filterPrefix(nameValues, arg.Value), nil
	}
	return &mcp.Completion{Values: []string{}}, nil
}
