package commands

// Runs that nobody watches (see HEADLESS RUNS in mcpx(1)): the global
// flags of answers, least privilege, trace context and timings; the one
// gate every tools/call passes (a server entry's "tools" rules,
// --read-only); and the --timings report.

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/text"
	"github.com/mcpx-cli/mcpx/output"
)

// exit codes of headless runs (see EXIT STATUS in mcpx(1)).
const (
	exitNeedsInput = 10
	exitDenied     = 11
)

// headlessFlags are the global flags of headless runs.
func (a *app) headlessFlags() []cli.Flag {
	g := &a.g
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "answer", Usage: "answer the field of a server's form, `FIELD=VALUE`, typed by its schema (repeatable)", Destination: &g.answerPairs},
		&cli.StringFlag{Name: "answers", Usage: "answers to a server's forms from a JSON object, `FILE` or - for stdin: {\"FIELD\": value} or {\"TOOL\": {\"FIELD\": value}}", Destination: &g.answersFile},
		&cli.StringFlag{Name: "on-input", Usage: "when a server asks for input that nobody can give: `decline|fail` (fail exits 10)", Value: onInputDecline, Destination: &g.onInput},
		&cli.BoolFlag{Name: "read-only", Usage: "invoke only tools annotated read-only and not destructive (also MCPX_READ_ONLY=1)", Destination: &g.readOnly},
		&cli.BoolFlag{Name: "timings", Usage: "say on stderr where each server's time went: connect, initialize, list, operation, render", Destination: &g.timings},
	}
}

// setupHeadless applies the headless flags and environment (setup).
func (a *app) setupHeadless() error {
	if err := a.loadAnswers(); err != nil {
		return err
	}
	switch v := a.getenv("MCPX_READ_ONLY"); strings.ToLower(v) {
	case "", "0", "false", "no":
	case "1", "true", "yes":
		a.readOnlyEnv = true
	default:
		return usagef("MCPX_READ_ONLY=%s: want 1 (read-only) or 0", a.line(v, 40))
	}
	if tp := a.getenv("TRACEPARENT"); tp != "" {
		if client.ValidTraceParent(tp) {
			a.traceParent, a.traceState = tp, a.getenv("TRACESTATE")
		} else {
			a.log.Debug("TRACEPARENT=%s is not a W3C traceparent (VERSION-TRACEID-PARENTID-FLAGS in lowercase hex); no trace context is sent", a.line(tp, 80))
		}
	}
	return nil
}

// readOnlyBy names what makes invoke of t read-only ("" when nothing
// does): --read-only, MCPX_READ_ONLY, or the entry's "readOnly".
func (a *app) readOnlyBy(t *config.Target) string {
	switch {
	case a.g.readOnly:
		return "--read-only"
	case a.readOnlyEnv:
		return "MCPX_READ_ONLY=1"
	case t.ReadOnly:
		return fmt.Sprintf("\"readOnly\": true of server %q in %s", t.Name, t.Source)
	}
	return ""
}

// hideTool is the listing filter of t's "tools" rules (nil when it has
// none): hidden tools are left out of catalog, describe, completion and
// the lookups (see client.Options.HideTool).
func hideTool(t *config.Target) func(string) bool {
	if t.Tools == nil {
		return nil
	}
	return func(name string) bool {
		_, hidden := t.Tools.Hidden(name)
		return hidden
	}
}

// gate is the one place mcpx's own policy decides whether a tools/call of
// tool may be sent to t's server: t's "tools" rules, then read-only (by
// the tool's annotations, it its listing entry; nil when the listing did
// not complete, which no read-only call passes). lookupErr is the lookup's
// error: a tool the rules hide is denied whether or not it is listed; any
// other lookup error stands.
func (a *app) gate(t *config.Target, tool string, it *client.Item, lookupErr error) error {
	if rule, hidden := t.Tools.Hidden(tool); hidden {
		return denial{Server: t.Name, Tool: tool, Rule: &rule, Rules: t.Tools}.err()
	}
	if lookupErr != nil {
		return nil
	}
	by := a.readOnlyBy(t)
	if by == "" {
		return nil
	}
	var ann json.RawMessage
	if it != nil {
		ann = it.Annotations
		if readOnlyTool(ann) {
			return nil
		}
	}
	return denial{Server: t.Name, Tool: tool, ReadOnly: by, Annotations: ann, Unlisted: it == nil}.err()
}

// readOnlyTool reports whether annotations (a tool's, as listed) say it
// is read-only and do not say it is destructive.
func readOnlyTool(ann json.RawMessage) bool {
	if !gjson.ValidBytes(ann) {
		return false
	}
	a := gjson.ParseBytes(ann)
	return a.Get("readOnlyHint").Type == gjson.True && a.Get("destructiveHint").Type != gjson.True
}

// denial: mcpx's own policy refused a tools/call before anything was
// sent (exit 11): the server entry's "tools" rules (Rule, Rules), or
// read-only (ReadOnly names what set it; Annotations are the tool's, nil
// when it has none; Unlisted: the listing did not complete, so its
// annotations are not known). err is the failure.
type denial struct {
	Server, Tool string
	Rule         *config.Rule
	Rules        *config.ToolRules
	ReadOnly     string
	Annotations  json.RawMessage
	Unlisted     bool
}

func (e denial) err() *fail.Error {
	return &fail.Error{Code: fail.Denied, Server: e.Server, What: "tool", Name: e.Tool, Message: e.message(),
		Details: e.details(), Hints: e.hints()}
}

func (e denial) message() string {
	tool := text.QuoteClip(e.Tool, 200)
	if e.Rule != nil {
		if e.Rule.Key == "deny" {
			return fmt.Sprintf("server %q: tool %s is denied by the rule \"deny\": %q of its \"tools\" in %s; mcpx does not call it",
				e.Server, tool, e.Rule.Glob, e.Rules.File)
		}
		return fmt.Sprintf("server %q: tool %s matches no glob of \"allow\": %s of its \"tools\" in %s; mcpx does not call it",
			e.Server, tool, globList(e.Rules.Allow), e.Rules.File)
	}
	return fmt.Sprintf("server %q: %s: tool %s is not read-only by its annotations (%s); mcpx does not call it",
		e.Server, e.ReadOnly, tool, e.annotationWords())
}

// annotationWords says what the tool's annotations say about it.
func (e denial) annotationWords() string {
	if e.Unlisted {
		return "the tool listing did not complete, so its annotations are not known"
	}
	a := gjson.ParseBytes(e.Annotations)
	var said []string
	for _, k := range []string{"readOnlyHint", "destructiveHint"} {
		if v := a.Get(k); v.Exists() && gjson.ValidBytes(e.Annotations) {
			said = append(said, k+": "+text.ClipBytes(v.Raw, 40))
		}
	}
	if len(said) == 0 {
		return "it has no readOnlyHint annotation"
	}
	return strings.Join(said, ", ")
}

func globList(globs []string) string {
	q := make([]string, len(globs))
	for i, g := range globs {
		q[i] = strconv.Quote(g)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// details are the failure's fields under --json.
func (e denial) details() map[string]any {
	d := map[string]any{"server": e.Server, "tool": e.Tool}
	if e.Rule != nil {
		d["rule"], d["file"] = e.Rule.Key, e.Rules.File
		if e.Rule.Key == "deny" {
			d["glob"] = e.Rule.Glob
		} else {
			d["allow"] = e.Rules.Allow
		}
		return d
	}
	d["read_only"] = e.ReadOnly
	if e.Annotations != nil && gjson.ValidBytes(e.Annotations) {
		d["annotations"] = e.Annotations
	} else {
		d["annotations"] = nil
	}
	return d
}

// hints say what would let the call through.
func (e denial) hints() []string {
	if e.Rule != nil {
		return []string{fmt.Sprintf("the server's \"tools\" rules decide which tools mcpx shows and calls; change them in %s", e.Rules.File)}
	}
	return nil
}

// reportTimings says, with --timings, where s's time went: starting or
// connecting, initializing, listing, the operation's requests, and
// rendering (from the last answer to now).
func (a *app) reportTimings(s *session) {
	if !a.g.timings {
		return
	}
	t := s.conn.Timings()
	render := time.Duration(0)
	if !t.End.IsZero() {
		render = time.Since(t.End)
	}
	a.log.Timings(s.conn.T.Name, []output.Phase{{Name: "connect", Time: t.Connect}, {Name: "initialize", Time: t.Initialize},
		{Name: "list", Time: t.List}, {Name: "operation", Time: t.Operation}, {Name: "render", Time: render}})
}

// dryRun is invoke --dry-run: everything up to the call is done; the
// exact params of the tools/call (of a task when the tool requires one or
// --detach asks for one) are printed, secrets masked, and nothing is sent.
func (a *app) dryRun(ctx context.Context, s *session, it *client.Item, tool string, args json.RawMessage, detach bool) error {
	task := detach || it != nil && it.TaskSupport() == client.TaskSupportRequired
	params, err := s.conn.PreviewCall(ctx, tool, args, task)
	if err != nil {
		return err
	}
	if err := a.writeDoc(json.RawMessage(params)); err != nil {
		return err
	}
	a.log.Note("server %q: --dry-run: tools/call of %s was not sent", s.conn.T.Name, a.quote(tool, 200))
	return nil
}
