package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/render"
)

func (a *app) newInvokeCmd() *cli.Command {
	var argsJSON string
	return &cli.Command{
		Name:      "invoke",
		Usage:     "call a tool, with arguments typed by its input schema",
		ArgsUsage: "SRV TOOL [KEY=VALUE ...]",
		Description: "KEY=VALUE is typed by the tool's input schema: a string stays a string; number, integer and boolean " +
			"are parsed (numbers keep their digits); arrays and objects take JSON; a property with no type, or a union " +
			"that includes string, takes the string. KEY:=JSON passes raw JSON. KEY=@FILE and KEY=@- read the value " +
			"from FILE or stdin (verbatim for a string; trimmed of surrounding white space for other types), KEY=@@x " +
			"is the literal @x. --args gives the whole argument object as JSON; pairs are merged over it. Missing " +
			"required keys and keys the schema forbids are refused before anything is sent.\n\n" +
			"The result goes through the content policy: text is printed as it is unless it is over 204800 bytes " +
			"(then cut there, with a note); images, audio and binary blobs are written to CACHE/mcp-resources/SERVER/ " +
			"and their paths printed; a resource link prints its URI; an unknown content type prints [TYPE content " +
			"omitted], with a warning. Structured content is printed as JSON when there is no text (--json always " +
			"carries it), or written to a .json file when it is over 204800 bytes. A result with isError prints its " +
			"content and exits 1.\n\n" +
			"EXIT STATUS: 0 (notes allowed), 1 the tool reported an error (isError), a server error or a malformed " +
			"result, 2 usage (a bad value, missing or forbidden keys, an unreadable @FILE, bad --args), 3 connection, " +
			"4 no such server or tool, 5 the server does not know tools/call, 6 authentication, 7 timeout, 8 a safety " +
			"limit, 9 --select matched nothing, 130 interrupted, 141 stdout closed.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "args", Usage: "the whole argument object as `JSON`: inline, @FILE, or - for stdin (pairs are merged over it)", Destination: &argsJSON},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			args := cmd.Args().Slice()
			if len(args) < 2 {
				return usagef("invoke takes SRV and TOOL (and KEY=VALUE pairs), got %d arguments", len(args))
			}
			stdinUsed := false
			var base []byte
			if cmd.IsSet("args") {
				var err error
				if base, err = readArgsFlag(argsJSON, a.s.In, &stdinUsed); err != nil {
					return err
				}
				if _, err = argsObject(base); err != nil { // a usage error, before any server is started
					return err
				}
			}
			pairs, err := parsePairs(args[2:], true, a.s.In, &stdinUsed)
			if err != nil {
				return err
			}
			return a.invoke(ctx, args[0], args[1], base, pairs)
		},
	}
}

func (a *app) invoke(ctx context.Context, srv, tool string, base []byte, pairs []pair) error {
	conn, cctx, done, err := a.open(ctx, srv)
	if err != nil {
		return err
	}
	defer done()
	it, complete, problems, err := conn.Find(cctx, client.KindTool, tool)
	if err != nil {
		return err
	}
	var schema json.RawMessage
	switch {
	case it != nil:
		schema = it.InputSchema
		if schema == nil {
			a.log.Note("server %q: tool %q has no input schema: values are sent as strings, unchecked", conn.T.Name, render.Clip(tool, 200))
		}
	case complete:
		return &client.NotFoundError{What: "tool", Name: tool,
			Hints: []string{fmt.Sprintf("list the tools with: mcpx catalog %s --kind tool", shellArg(srv))}}
	default:
		why := "did not complete"
		for _, p := range problems {
			a.log.Debug("%s", p.Message)
			if p.Code == "list_failed" {
				why = "failed (" + render.Clip(p.Message, 200) + ")"
			}
		}
		a.log.Note("server %q: the tool listing %s, so no schema is known for %q: values are sent as strings, unchecked", conn.T.Name, why, render.Clip(tool, 200))
	}
	args, err := toolArgs(tool, base, pairs, schema)
	if err != nil {
		return err
	}
	raw, err := conn.CallTool(cctx, tool, args)
	if err != nil {
		return err
	}
	sp := a.spiller()
	doc, warnings, err := render.RenderToolResult(raw, render.Policy{Ctx: cctx, Spill: func(data []byte, mime string) (render.Spilled, error) {
		if sp == nil {
			return render.Spilled{}, noCacheDir()
		}
		return sp.Spill(conn.T.SpillName, data, mime)
	}})
	if err != nil {
		return a.contentErrorFor(conn, "tools/call", err)
	}
	done()
	doc.Server, doc.Tool = conn.T.Name, tool
	a.contentWarnings(conn.T.Name, "tool", tool, warnings)
	if a.asJSON() {
		a.invokeNotes(doc)
		if err := a.writeDoc(doc); err != nil {
			return err
		}
	} else {
		if err := a.writeToolText(doc); err != nil {
			return err
		}
		a.invokeNotes(doc)
	}
	if doc.IsError {
		return &ToolError{Server: conn.T.Name, Tool: tool}
	}
	return nil
}

// writeToolText prints a tool result: each item on its own line(s) (a text
// as it is, a newline added when it lacks one; a spilled file's path; a
// link's URI), then the structured content (as JSON, or its path) when
// there is no text item.
func (a *app) writeToolText(doc *render.ToolDoc) error {
	texts := 0
	for _, item := range doc.Content {
		if _, ok := item.(*render.TextItem); ok {
			texts++
		}
		line := render.ItemLine(item)
		if !strings.HasSuffix(line, "\n") {
			line += "\n"
		}
		if _, err := io.WriteString(a.s.Out, line); err != nil {
			return err
		}
	}
	if texts > 0 {
		return nil
	}
	var err error
	switch {
	case doc.StructuredContentPath != nil:
		_, err = fmt.Fprintln(a.s.Out, *doc.StructuredContentPath)
	case doc.StructuredContent != nil:
		_, err = fmt.Fprintf(a.s.Out, "%s\n", doc.StructuredContent)
	}
	return err
}

// invokeNotes says what was cut, spilled or left out of a tool result.
func (a *app) invokeNotes(doc *render.ToolDoc) {
	shown, held := 0, 0
	note := func(format string, args ...any) {
		if shown < maxItemNotes {
			shown++
			a.log.Note(format, args...)
		} else {
			held++
		}
	}
	for i, item := range doc.Content {
		switch it := item.(type) {
		case *render.TextItem:
			if it.Truncated {
				note("item #%d: the text was cut at %d of its %d bytes (the tool text ceiling is the slice clamp of %s, shared by the whole response); narrow the call's arguments to get less",
					i, len(it.Text), it.TotalBytes, render.HumanBytes(render.SliceClamp))
			}
		case *render.BlobItem:
			mime := "no mime type"
			if it.MimeType != nil {
				mime = render.Clip(*it.MimeType, 100)
			}
			note("item #%d: %s content (%s, %d bytes) is never printed; it was written to %s", i, it.Type, mime, it.SizeBytes, it.Path)
		}
	}
	if held > 0 {
		a.log.Note("%d more note(s) about items not shown; --json has every item's details", held)
	}
	if doc.Omitted > 0 {
		a.log.Note("%d item(s) omitted: the response ceiling of %s was reached", doc.Omitted, render.HumanBytes(render.ResponseCeiling))
	}
	if doc.StructuredContentPath != nil {
		a.log.Note("the structured content is over the slice clamp of %s; it was written to %s", render.HumanBytes(render.SliceClamp), *doc.StructuredContentPath)
	}
	if len(doc.Content) == 0 && doc.Omitted == 0 && doc.StructuredContent == nil && doc.StructuredContentPath == nil {
		a.log.Note("server %q: tool %q returned no content", doc.Server, render.Clip(doc.Tool, 200))
	}
}

// ToolError: the tool's result had isError: true (exit 1, tool_error). The
// result itself has been printed.
type ToolError struct {
	Server string
	Tool   string
}

func (e *ToolError) Error() string {
	return fmt.Sprintf("server %q: tool %q reported an error (isError: true)", e.Server, render.Clip(e.Tool, 200))
}
