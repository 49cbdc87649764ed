package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/internal/text"
	"github.com/mcpx-cli/mcpx/output"
	"github.com/mcpx-cli/mcpx/render"
)

// promptOptions are prompt's arguments, as given; validate checks them
// before anything is started (reading @FILE and stdin), and sets the rest.
type promptOptions struct {
	Args []string // SRV NAME [ARG=VALUE ...]

	Server, Name string
	Pairs        []pair
	StdinUsed    bool // a value was read from stdin
}

func (a *app) newPromptCmd() *cli.Command {
	o := &promptOptions{}
	return &cli.Command{
		Name:      "prompt",
		Usage:     "get a server prompt as one block of text, ready for a pipe",
		ArgsUsage: "SRV NAME [ARG=VALUE ...]",
		Description: "Prints the prompt's messages as one block: each message is [ROLE] and a newline, then its text, " +
			"then a newline, and messages are joined by a newline (so a blank line separates them when a text does not end " +
			"in one). The text is printed exactly as the server sent it, never executed or interpreted, so " +
			"`mcpx prompt SRV NAME | llm` gives a model exactly one user turn; only a terminal sees control characters escaped. " +
			"Images, audio and binary blobs are written to CACHE/mcp-resources/SERVER/ and shown as [image: PATH (MIME, N bytes)]; " +
			"an embedded text resource is inlined; a resource link shows as [resource: URI]; content of an unknown type as " +
			"[TYPE content omitted], with a warning. The block is cut at 204800 bytes (the response ceiling), with a note.\n\n" +
			"ARG=VALUE pairs name the prompt's arguments (strings): ARG=@FILE reads the value from FILE, ARG=@- from stdin, " +
			"ARG=@@x passes the literal @x. They are checked against the prompt's declared arguments before it is asked for: " +
			"an undeclared argument is an error listing the declared ones; a missing required argument is asked for on the " +
			"terminal when stdin and stderr are terminals (not with --no-input, --json, or a value read from stdin), " +
			"otherwise it is an error listing every missing one.\n\n" +
			"EXIT STATUS: 0 (notes allowed), 1 a server error or a malformed message, 2 usage (missing or undeclared arguments, " +
			"an unreadable @FILE), 3 connection, 4 no such server or prompt, 5 the server has no prompts, 6 authentication, " +
			"7 timeout, 8 a safety limit, 9 --select matched nothing, 10 the server asked for input nobody could give (--on-input fail), 129/130/143 SIGHUP/SIGINT/SIGTERM, 141 stdout closed.",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o.Args = cmd.Args().Slice()
			o.StdinUsed = a.answersStdin // --answers - read it
			if err := o.validate(a.s.In); err != nil {
				return err
			}
			return a.prompt(ctx, o)
		},
	}
}

// validate checks prompt's arguments, reading the values given as @FILE
// and from stdin.
func (o *promptOptions) validate(stdin io.Reader) error {
	if len(o.Args) < 2 {
		return argCountError("prompt", "SRV and NAME (and ARG=VALUE pairs)", o.Args, "mcpx catalog SRV --kind prompt lists the prompts")
	}
	o.Server, o.Name = o.Args[0], o.Args[1]
	var err error
	o.Pairs, err = parsePairs(o.Args[2:], false, stdin, &o.StdinUsed)
	return err
}

func (a *app) prompt(ctx context.Context, o *promptOptions) error {
	srv, name, pairs := o.Server, o.Name, o.Pairs
	t, err := a.target(srv)
	if err != nil {
		return err
	}
	co := connectOptions{listen: true, stdinUsed: o.StdinUsed, op: name, listings: []string{client.KindPrompt}}
	s, err := a.connect(ctx, t, co)
	if err != nil {
		return err
	}
	defer func() { s.close() }() // s changes when the server is reached again
	conn, cctx, done := s.conn, s.ctx, s.close
	if !conn.Caps.Prompts {
		return client.Unsupported(conn.T.Name, "prompts")
	}
	it, incomplete, err := a.lookup(cctx, conn, srv, client.KindPrompt, name)
	if err != nil {
		return err
	}
	var values map[string]string
	if it == nil {
		a.log.Note("server %q: the prompt listing %s, so %s is asked for with its arguments unchecked", conn.T.Name, incomplete, a.quote(name, 200))
		values = map[string]string{}
		for _, p := range pairs {
			values[p.Key] = p.Value
		}
	} else {
		var missing []client.PromptArgument
		if values, missing, err = promptArgs(name, pairs, it.Arguments); err != nil {
			return err
		}
		if len(missing) > 0 {
			if !a.interactive(o.StdinUsed) {
				return missingPromptArgs(name, missing, a.s.Secrets())
			}
			// The deadline bounds the server, not a person typing: the
			// server is stopped while the answers are asked for, and
			// reached again afterwards.
			done()
			if err := a.askPromptArgs(ctx, name, missing, values); err != nil {
				return err
			}
			s2, err := a.connect(ctx, t, co)
			if err != nil {
				return err
			}
			s = s2
			conn, cctx = s.conn, s.ctx
			if !conn.Caps.Prompts {
				return client.Unsupported(conn.T.Name, "prompts")
			}
		}
	}
	raw, err := conn.GetPrompt(cctx, name, values)
	if err != nil {
		return err
	}
	return a.printPrompt(cctx, conn, name, raw)
}

// printPrompt renders a prompts/get result and prints it: the block of
// text, or the JSON document.
func (a *app) printPrompt(cctx context.Context, conn *client.Conn, name string, raw json.RawMessage) error {
	doc, warnings, err := render.RenderPrompt(raw, a.contentPolicy(cctx, conn))
	if err != nil {
		return a.contentErrorFor(conn, "prompts/get", err)
	}
	// The server is stopped (the deferred close) once the prompt is
	// printed, not before (see SERVER PROCESSES in mcpx(1)).
	doc.Server, doc.Prompt = conn.T.Name, name
	a.contentWarnings(conn.T.Name, "prompt", name, warnings)
	if len(doc.Messages) == 0 {
		a.log.Note("server %q: prompt %s has no messages", conn.T.Name, a.quote(name, 200))
	}
	if a.asJSON() {
		a.promptNotes(doc)
		return a.writeDoc(doc)
	}
	if _, err := io.WriteString(a.s.Out, doc.Text); err != nil {
		return err
	}
	a.promptNotes(doc)
	return nil
}

func (a *app) promptNotes(doc *render.PromptDoc) {
	if doc.Truncated {
		more := ""
		if doc.Omitted > 0 {
			more = "; left out after the cut: " + count(doc.Omitted, "content item")
		}
		a.log.Note("the prompt was cut at the response ceiling of %s%s", text.HumanBytes(limits.ResponseCeiling), more)
	}
}

// argCountError: too few arguments for a command.
func argCountError(cmd, takes string, args []string, hint string) error {
	e := &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("%s takes %s, got %s", cmd, takes, count(len(args), "argument"))}
	if hint != "" {
		e.Hints = []string{hint}
	}
	return e
}

// maxWarnings is how many content warnings one response prints.
const maxWarnings = 20

// contentWarnings reports what rendering left out (at most maxWarnings,
// then a count: a server can send thousands of unknown blocks).
func (a *app) contentWarnings(server, kind, name string, warnings []string) {
	for i, w := range warnings {
		if i == maxWarnings {
			a.log.Warn(output.Warning{Server: server, Kind: &kind, Item: &name, Code: "warning",
				Message: fmt.Sprintf("server %q: %s %s: %d more %s like these not shown", server, kind, a.quote(name, 200), len(warnings)-i, text.Plural(len(warnings)-i, "warning", "warnings"))})
			return
		}
		a.log.Warn(output.Warning{Server: server, Kind: &kind, Item: &name, Code: "warning",
			Message: fmt.Sprintf("server %q: %s %s: %s", server, kind, a.quote(name, 200), w)})
	}
}

// contentErrorFor names the server and method in a content error.
func (a *app) contentErrorFor(conn *client.Conn, method string, err error) error {
	if bc, ok := err.(*render.BadContentError); ok {
		named := *bc
		named.Server, named.Method = conn.T.Name, method
		return &named
	}
	return err
}
