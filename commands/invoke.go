package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/internal/text"
	"github.com/mcpx-cli/mcpx/output"
	"github.com/mcpx-cli/mcpx/render"
)

// invokeOptions are invoke's arguments and flags, as given; validate
// checks them before anything is started (reading @FILE and stdin), and
// sets the rest.
type invokeOptions struct {
	Args      []string // SRV TOOL [KEY=VALUE | KEY:=JSON ...]
	ArgsFlag  string   // --args: JSON, @FILE or -
	ArgsCount int      // how many times --args is given

	Server, Tool string
	Base         []byte // the JSON text of --args; nil without it
	Pairs        []pair
	StdinUsed    bool // a value was read from stdin
	Detach       bool // --detach: start the call as a task and leave it running
	Strict       bool // --strict: refuse keys the tool's schema does not declare
	DryRun       bool // --dry-run: print the tools/call params instead of sending them
}

func (a *app) newInvokeCmd() *cli.Command {
	o := &invokeOptions{}
	return &cli.Command{
		Name:      "invoke",
		Usage:     "call a tool, with arguments typed by its input schema",
		ArgsUsage: "SRV TOOL [KEY=VALUE | KEY:=JSON ...]",
		Description: "KEY=VALUE is typed by the tool's input schema: a string stays a string; number, integer and boolean " +
			"are parsed (numbers keep their digits); arrays and objects take JSON; a property with no type, or a union " +
			"that includes string, takes the string. A local $ref (#/$defs/Model) types as what it names; a remote one is " +
			"never fetched. A value an enum or const does not allow is refused, naming the allowed ones. KEY:=JSON passes raw JSON (KEY:=@FILE and KEY:=@- read it from FILE " +
			"or stdin). KEY=@FILE and KEY=@- read a string, verbatim, from FILE or stdin (for a property that is not a " +
			"string that is a bad value: use KEY:=@FILE), KEY=@@x is the literal @x. --args gives the whole argument object as JSON (inline, @FILE or -); " +
			"pairs are merged over it. Missing required keys and keys the schema forbids are refused before anything is " +
			"sent, and so is a key the schema does not declare that is a near miss of a declared one (haed for head: " +
			"\"did you mean\"); any other undeclared key is sent, with a warning (--strict refuses it). A tool the " +
			"server's complete listing lacks is refused too. When no schema is known (the listing failed, or " +
			"the tool has none) values are sent as strings, unchecked, with a note. The tool is called even when the server " +
			"did not advertise tools; \"method not found\" then exits 5.\n\n" +
			"The result goes through the content policy: text is printed as it is unless it is over 204800 bytes " +
			"(then cut there, with a note); images, audio and binary blobs are written to CACHE/mcp-resources/SERVER/ " +
			"and their paths printed; a resource link prints its URI; an unknown content type prints [TYPE content " +
			"omitted], with a warning. Structured content, which mirrors the content items, is printed as JSON only " +
			"when the result has no content items at all (--json always carries it), or written to a .json file when it " +
			"is over 204800 bytes. A result with isError prints its " +
			"content and exits 1.\n\n" +
			"A tool whose execution.taskSupport is \"required\" is called as a task and waited for (Ctrl-C and --timeout " +
			"cancel it); --detach starts a task and prints its id instead, for mcpx task wait (see TASKS in mcpx(1)).\n\n" +
			"--dry-run does everything up to the call, then prints the exact tools/call params (secrets masked) and exits 0; " +
			"a server's \"tools\" rules and --read-only are checked before any call (see HEADLESS RUNS in mcpx(1)).\n\n" +
			"EXIT STATUS: 0 (notes allowed), 1 the tool reported an error (isError; it wins over --select matching nothing), " +
			"a server error, a failed or cancelled task, or a malformed result, 2 usage (a bad value, missing or forbidden keys, an unreadable @FILE, " +
			"bad --args), 3 connection, 4 no such server or tool, 5 the server does not know tools/call, 6 authentication, " +
			"7 timeout, 8 a safety limit, 9 --select matched nothing, 10 the server asked for input nobody could give (--on-input fail), " +
			"11 mcpx's policy refused the call (a tool the server's \"tools\" rules hide, --read-only), 129/130/143 SIGHUP/SIGINT/SIGTERM, 141 stdout closed.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "args", Usage: "the whole argument object, `JSON|@FILE|-`: inline JSON, a file, or - for stdin (pairs are merged over it)", Destination: &o.ArgsFlag},
			&cli.BoolFlag{Name: "strict", Usage: "refuse arguments the tool's input schema does not declare (else they are sent, with a warning)", Destination: &o.Strict},
			&cli.BoolFlag{Name: "detach", Usage: "start the call as a task, print its id and leave it running (wait for it with mcpx task wait)", Destination: &o.Detach},
			&cli.BoolFlag{Name: "dry-run", Usage: "connect, list, type and check the arguments, then print the exact tools/call params (secrets masked) instead of calling", Destination: &o.DryRun},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o.Args, o.ArgsCount = cmd.Args().Slice(), cmd.Count("args")
			o.StdinUsed = a.answersStdin // --answers - read it
			if err := o.validate(a.s.In); err != nil {
				return err
			}
			return a.invoke(ctx, o)
		},
	}
}

// validate checks invoke's arguments and flags, reading the values given
// as @FILE and from stdin.
func (o *invokeOptions) validate(stdin io.Reader) error {
	if len(o.Args) < 2 {
		return argCountError("invoke", "SRV and TOOL (and KEY=VALUE pairs)", o.Args, "mcpx catalog SRV --kind tool lists the tools")
	}
	o.Server, o.Tool = o.Args[0], o.Args[1]
	if o.ArgsCount > 1 {
		return usagef("--args is given %d times; give the whole argument object once (KEY=VALUE pairs add to it)", o.ArgsCount)
	}
	if o.ArgsCount == 1 {
		var err error
		if o.Base, err = readArgsFlag(o.ArgsFlag, stdin, &o.StdinUsed); err != nil {
			return err
		}
		if _, err = argsObject(o.Base); err != nil { // a usage error, before any server is started
			return err
		}
	}
	var err error
	o.Pairs, err = parsePairs(o.Args[2:], true, stdin, &o.StdinUsed)
	return err
}

// inputSchemaOf is the input schema that types a tool's arguments: nil,
// with a note, when the listing did not complete (incomplete says how) or
// the tool has none and arguments were given.
func (a *app) inputSchemaOf(server, tool string, it *client.Item, incomplete string, given bool) json.RawMessage {
	switch {
	case it == nil:
		a.log.Note("server %q: the tool listing %s, so %s is called without its schema: values are sent as strings, unchecked", server, incomplete, a.quote(tool, 200))
	case it.InputSchema == nil && given:
		a.log.Note("server %q: tool %s has no input schema: values are sent as strings, unchecked", server, a.quote(tool, 200))
	default:
		return it.InputSchema
	}
	return nil
}

func (a *app) invoke(ctx context.Context, o *invokeOptions) error {
	srv, tool := o.Server, o.Tool
	t, err := a.target(srv)
	if err != nil {
		return err
	}
	if o.Detach && !a.tasksOutlive(t) {
		return detachStdioError(t)
	}
	s, err := a.connect(ctx, t, connectOptions{listen: true, stdinUsed: o.StdinUsed, op: tool, listings: []string{client.KindTool}})
	if err != nil {
		return err
	}
	defer s.close()
	conn, cctx, done := s.conn, s.ctx, s.close
	it, incomplete, err := a.lookup(cctx, conn, srv, client.KindTool, tool)
	if err := a.gate(t, tool, it, err); err != nil {
		return err
	}
	if err != nil {
		return err
	}
	schema := a.inputSchemaOf(conn.T.Name, tool, it, incomplete, o.Base != nil || len(o.Pairs) > 0)
	args, undeclared, err := toolArgs(tool, o.Base, o.Pairs, schema, a.s.Secrets())
	if err != nil {
		return err
	}
	if len(undeclared) > 0 {
		if o.Strict {
			return undeclaredError("tool", tool, "does not declare", "unknown", undeclared, declaredKeys(schema), nil, nil)
		}
		a.log.Warn(output.Warning{Server: conn.T.Name, Kind: ptr(client.KindTool), Item: &tool, Code: "undeclared_argument",
			Message: fmt.Sprintf("server %q: tool %s does not declare %s %s; sent as given (--strict refuses %s)",
				conn.T.Name, a.quote(tool, 200), text.Plural(len(undeclared), "argument", "arguments"), a.clip(quoteList(undeclared), 500),
				text.Plural(len(undeclared), "it", "them"))})
	}
	if o.DryRun {
		return a.dryRun(cctx, s, it, tool, args, o.Detach)
	}
	raw, err := a.callTool(cctx, s, it, tool, args, o.Detach)
	return a.showTaskResult(cctx, conn, tool, raw, err, done)
}

// showToolResult renders a tool's result (raw, as the server sent it) on
// stdout; done (which stops the server) is called once it is printed, not
// before: a person sees the result as soon as the server has answered,
// not a stop's grace period later (see SERVER PROCESSES in mcpx(1)). A
// result with isError is a *ToolError once printed.
func (a *app) showToolResult(cctx context.Context, conn *client.Conn, tool string, raw json.RawMessage, done func()) error {
	defer done()
	p := a.contentPolicy(cctx, conn)
	p.Text = !a.asJSON()
	doc, warnings, err := render.RenderToolResult(raw, p)
	if err != nil {
		return a.contentErrorFor(conn, "tools/call", err)
	}
	doc.Server = conn.T.Name
	if tool != "" { // "": a task's result, whose tool the server does not name
		doc.Tool = &tool
	}
	a.contentWarnings(conn.T.Name, "tool", tool, warnings)
	if a.asJSON() {
		a.invokeNotes(doc)
		if err := a.writeDoc(doc); err != nil && !(doc.IsError && fail.Is(err, fail.NoMatch)) {
			return err // a tool error outranks a --select that matched nothing
		}
	} else {
		if err := a.writeToolText(doc); err != nil {
			return err
		}
		a.invokeNotes(doc)
	}
	if doc.IsError {
		return toolError(conn.T.Name, tool)
	}
	return nil
}

// writeToolText prints a tool result: each item on its own line(s) (a text
// as it is, a newline added when it lacks one; a spilled file's path; a
// link's URI), then the structured content (as JSON, or its path) when the
// result has no content items at all: it mirrors them, and an image's
// mirror is its base64 again.
func (a *app) writeToolText(doc *render.ToolDoc) error {
	for _, item := range doc.Content {
		line := render.ItemLine(item)
		if !strings.HasSuffix(line, "\n") {
			line += "\n"
		}
		if _, err := io.WriteString(a.s.Out, line); err != nil {
			return err
		}
	}
	if len(doc.Content) > 0 || doc.Omitted > 0 {
		return nil
	}
	var err error
	switch {
	case doc.StructuredContentPath != nil:
		_, err = fmt.Fprintln(a.s.Out, *doc.StructuredContentPath)
	case doc.StructuredContent != nil:
		err = a.s.WriteJSONLine(doc.StructuredContent)
	}
	return err
}

// invokeNotes says what was cut, spilled or left out of a tool result.
func (a *app) invokeNotes(doc *render.ToolDoc) {
	n := &itemNotes{a: a}
	for i, item := range doc.Content {
		switch it := item.(type) {
		case *render.TextItem:
			if it.Truncated {
				limit := fmt.Sprintf("the slice clamp of %s, the most of one text a tool result prints", text.HumanBytes(limits.SliceClamp))
				if it.CutByCeiling {
					limit = fmt.Sprintf("the response ceiling of %s, shared by all the items of a result", text.HumanBytes(limits.ResponseCeiling))
				}
				n.note("item #%d: the text was cut at %d of its %d bytes by %s; narrow the call's arguments to get less", i, it.Bytes, it.TotalBytes, limit)
			}
		case *render.BlobItem:
			mime := "no mime type"
			if it.MimeType != nil {
				mime = a.clip(*it.MimeType, 100)
			}
			n.note("item #%d: %s content (%s, %s) is never printed; it was written to %s", i, it.Type, mime, count(int(it.SizeBytes), "byte"), it.Path)
		}
	}
	n.done()
	if doc.Omitted > 0 {
		a.log.Note("%s omitted: the response ceiling of %s was reached", count(doc.Omitted, "item"), text.HumanBytes(limits.ResponseCeiling))
	}
	if doc.StructuredContentPath != nil {
		a.log.Note("the structured content is over the slice clamp of %s; it was written to %s", text.HumanBytes(limits.SliceClamp), *doc.StructuredContentPath)
	}
	if len(doc.Content) == 0 && doc.Omitted == 0 && doc.StructuredContent == nil && doc.StructuredContentPath == nil {
		what := "the task"
		if doc.Tool != nil {
			what = "tool " + a.quote(*doc.Tool, 200)
		}
		a.log.Note("server %q: %s returned no content", doc.Server, what)
	}
}

// toolError: the tool's result had isError: true (exit 1, tool_error). The
// result itself has been printed. tool is "" for a task's result, fetched
// by its id.
func toolError(server, tool string) error {
	msg := fmt.Sprintf("server %q: tool %s reported an error (isError: true)", server, text.QuoteClip(tool, 200))
	if tool == "" {
		msg = fmt.Sprintf("server %q: the task's result reports an error (isError: true)", server)
	}
	return &fail.Error{Code: fail.ToolError, Server: server, What: "tool", Name: tool, Message: msg}
}
