package commands

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/internal/text"
	"github.com/mcpx-cli/mcpx/internal/uritemplate"
	"github.com/mcpx-cli/mcpx/output"
	"github.com/mcpx-cli/mcpx/render"
)

// readOptions are read's arguments and flags, as given; validate checks
// them before anything is started, and sets the rest.
type readOptions struct {
	Args        []string // SRV URI [VAR=VALUE ...]
	PatternText string   // --pattern
	Offset      int      // --offset
	Max         int      // --max-bytes
	Raw         bool     // --raw, and -o (validate)
	Output      string   // -o FILE ("-" is stdout)
	// Given: which of output, pattern, offset and max-bytes were given.
	Given map[string]bool
	// JSON and Select: --json is on, --select is given (both clash with
	// --raw and -o).
	JSON, Select bool

	Server  string
	URI     string         // after template expansion
	Pattern *regexp.Regexp // --pattern compiled; nil without it
}

func (a *app) newReadCmd() *cli.Command {
	o := &readOptions{}
	return &cli.Command{
		Name:      "read",
		Usage:     "read a resource through the content policy",
		ArgsUsage: "SRV URI [VAR=VALUE ...]",
		Description: "URI is a resource URI, or a resource template whose {var} expressions (RFC 6570 level 1) are " +
			"expanded from VAR=VALUE pairs, each value percent-encoded. Text is printed a page at a time " +
			"(--offset, --max-bytes) on UTF-8 boundaries; --pattern keeps matching lines with 2 lines of " +
			"context, like grep -n -C2, before paging. Binary content is never printed: it is written to " +
			"CACHE/mcp-resources/SERVER/SHA256.EXT and its path is printed. --raw (or -o FILE) writes the " +
			"decoded contents whole instead.\n\n" +
			"EXIT STATUS: 0 (notes allowed), 1 a server error, a malformed item or a failed -o write, 2 usage (flags, " +
			"pattern, template, no cache directory), 3 connection, 4 no such server or resource, 5 the server has no " +
			"resources, 6 authentication, 7 timeout, 8 a safety limit (message or decode ceiling, spill directory, binary " +
			"content for a terminal), 9 --select matched nothing, 10 the server asked for input nobody could give (--on-input fail), 129/130/143 SIGHUP/SIGINT/SIGTERM, 141 stdout closed.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "pattern", Usage: "keep lines of text matching the Go regexp `RE`, with 2 lines of context", Destination: &o.PatternText},
			&cli.IntFlag{Name: "offset", Usage: "start each text item at byte `N` (of the filtered text with --pattern)", Destination: &o.Offset},
			&cli.IntFlag{Name: "max-bytes", Usage: fmt.Sprintf("print at most `N` bytes of each text item (at most %d; a longer character is printed whole)", limits.SliceClamp), Value: limits.DefaultPage, Destination: &o.Max},
			&cli.BoolFlag{Name: "raw", Usage: "write the decoded contents whole, with no paging, filtering or spilling", Destination: &o.Raw},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the decoded contents to `FILE` (implies --raw; - is stdout)", Destination: &o.Output},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o.Args, o.Given = cmd.Args().Slice(), flagsGiven(cmd, "output", "pattern", "offset", "max-bytes")
			o.JSON, o.Select = a.g.json, a.g.selectSet
			if err := o.validate(a.log.Note); err != nil {
				return err
			}
			return a.read(ctx, o)
		},
	}
}

// validate checks read's arguments and flags, and expands the URI; note
// says what it changed (a --max-bytes over the slice clamp).
func (o *readOptions) validate(note func(format string, args ...any)) error {
	if len(o.Args) < 2 {
		return usagef("read takes SRV and URI (and VAR=VALUE pairs for a template), got %s", count(len(o.Args), "argument"))
	}
	o.Server = o.Args[0]
	o.Raw = o.Raw || o.Given["output"]
	if o.Given["output"] && o.Output == "" {
		return usagef("-o needs a file name (or - for stdout)")
	}
	if err := o.rawClash(); err != nil {
		return err
	}
	if o.Offset < 0 {
		return usagef("--offset must be 0 or more, not %d", o.Offset)
	}
	if o.Max < 1 {
		return usagef("--max-bytes must be at least 1, not %d", o.Max)
	}
	if o.Max > limits.SliceClamp {
		note("--max-bytes %d is over the slice clamp of %s: using %d", o.Max, text.HumanBytes(limits.SliceClamp), limits.SliceClamp)
		o.Max = limits.SliceClamp
	}
	if o.Given["pattern"] {
		re, err := regexp.Compile(o.PatternText)
		if err != nil {
			return &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("invalid --pattern: %v", err),
				Hints: []string{"--pattern takes Go regexp syntax (RE2), see https://pkg.go.dev/regexp/syntax"}}
		}
		o.Pattern = re
	}
	uri, err := expandURI(o.Args[1], o.Args[2:])
	if err != nil {
		return err
	}
	o.URI = uri
	return nil
}

// rawClash refuses --raw (or -o) with a flag that pages or shapes the
// contents: it writes them whole.
func (o *readOptions) rawClash() error {
	if !o.Raw {
		return nil
	}
	var clash []string
	if o.JSON {
		clash = append(clash, "--json")
	}
	if o.Select {
		clash = append(clash, "--select")
	}
	for _, f := range []string{"pattern", "offset", "max-bytes"} {
		if o.Given[f] {
			clash = append(clash, "--"+f)
		}
	}
	if len(clash) == 0 {
		return nil
	}
	what := "--raw"
	if o.Given["output"] {
		what = "-o"
	}
	return &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("%s cannot be combined with %s: it writes the contents whole", what, strings.Join(clash, ", ")),
		Details: map[string]any{"forbidden": clash}}
}

// expandURI expands a resource template from VAR=VALUE pairs.
func expandURI(uri string, pairs []string) (string, error) {
	vars := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return "", &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("%q is not a VAR=VALUE pair", p),
				Hints: []string{"arguments after the URI fill a resource template: mcpx read SRV 'x://items/{id}' id=42"}}
		}
		if _, dup := vars[k]; dup {
			return "", usagef("template variable %q is given twice", k)
		}
		vars[k] = v
	}
	if len(vars) == 0 && !strings.ContainsAny(uri, "{}") {
		return uri, nil
	}
	out, err := uritemplate.Expand(uri, vars)
	if err != nil {
		if te, ok := err.(*fail.Error); ok { // a refusal: its expression and variables
			d := map[string]any{}
			if te.Known != nil {
				d["variables"] = te.Known
			}
			if te.Name != "" {
				d["expression"] = te.Name
			}
			return "", &fail.Error{Code: fail.Usage, Message: te.Message, Details: d}
		}
		return "", err
	}
	return out, nil
}

func (a *app) read(ctx context.Context, o *readOptions) error {
	t, err := a.target(o.Server)
	if err != nil {
		return err
	}
	s, err := a.connect(ctx, t, connectOptions{listen: true})
	if err != nil {
		return err
	}
	defer s.close()
	// The server is stopped (the deferred close) once the result is
	// written, not before (see SERVER PROCESSES in mcpx(1)).
	conn, cctx := s.conn, s.ctx
	raw, err := conn.ReadResource(cctx, o.URI)
	if err != nil {
		return err
	}
	if o.Raw {
		items, err := render.ParseResourceContents(raw)
		if err != nil {
			return a.contentError(conn, err)
		}
		return a.writeRaw(items, o.Output)
	}
	p := a.contentPolicy(cctx, conn)
	p.Pattern, p.Offset, p.Max = o.Pattern, o.Offset, o.Max
	rendered, omitted, err := render.RenderResourceRead(raw, p)
	if timedOut(cctx, err) {
		return &fail.TimeoutError{Server: conn.T.Name, Phase: "rendering", Timeout: conn.T.Timeout}
	}
	if err != nil {
		return a.contentError(conn, err)
	}
	if len(rendered)+omitted == 0 {
		a.log.Note("server %q returned no contents for %s", conn.T.Name, a.clip(o.URI, 200))
	}
	doc := render.ReadDoc{Server: conn.T.Name, URI: o.URI, Contents: rendered, Omitted: omitted}
	if doc.Contents == nil {
		doc.Contents = []any{}
	}
	if a.asJSON() {
		a.readNotes(&doc, o)
		return a.writeDoc(doc)
	}
	if err := a.printContents(doc.Contents); err != nil {
		return err
	}
	a.readNotes(&doc, o)
	return nil
}

// printContents prints the rendered items of a read as text: each text
// page (a newline after it where pageBreak says), each spilled blob's path.
func (a *app) printContents(contents []any) error {
	for i, r := range contents {
		var err error
		switch it := r.(type) {
		case *render.TextItem:
			if it.Text != "" {
				_, err = fmt.Fprint(a.s.Out, it.Text)
				if err == nil && !strings.HasSuffix(it.Text, "\n") && a.pageBreak(it.NextOffset == nil || i+1 < len(contents)) {
					_, err = fmt.Fprintln(a.s.Out)
				}
			}
		case *render.BlobItem:
			_, err = fmt.Fprintln(a.s.Out, it.Path)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pageBreak reports whether a newline follows a page of text that lacks
// one: always on a terminal (the next line, or the prompt, starts on a
// line of its own); to a pipe or a file only after an item's last page or
// before another item, never after a page that has more after it, so that
// the pages of a text, joined in offset order, are that text byte for byte
// (see read in COMMANDS, mcpx(1)).
func (a *app) pageBreak(end bool) bool { return a.s.OutTTY || end }

// maxItemNotes is how many notes about single items read prints.
const maxItemNotes = 20

// readNotes says what the reader should know about a rendered read: where
// the next page starts, what was spilled or omitted, annotations.
func (a *app) readNotes(doc *render.ReadDoc, o *readOptions) {
	// Item notes are capped: a server can send thousands of items.
	n := &itemNotes{a: a}
	note := n.note
	nexts := map[int]bool{} // the different next offsets
	for i, r := range doc.Contents {
		switch it := r.(type) {
		case *render.TextItem:
			if next := a.textNotes(note, it, itemName(doc, i, it.URI, a), len(doc.Contents) > 1, o); next != nil {
				nexts[*next] = true
			}
		case *render.BlobItem:
			name := itemName(doc, i, it.URI, a)
			note("%s: binary content (%s, %s) is never printed; it was written to %s", name, a.clip(orDefault(it.MimeType, "no mime type"), 100), count(int(it.SizeBytes), "byte"), it.Path)
			if it.Annotations != nil {
				note("%s: annotations %s", name, a.clip(text.CompactJSON(it.Annotations), 200))
			}
		}
	}
	n.done()
	if len(nexts) > 1 {
		a.log.Note("the items continue at different offsets, and --offset applies to every item: --raw or -o FILE writes them whole")
	}
	if doc.Omitted > 0 {
		a.log.Note("%s omitted: the response ceiling of %s was reached; --raw or -o FILE writes every item whole",
			count(doc.Omitted, "item"), text.HumanBytes(limits.ResponseCeiling))
	}
}

// itemName names item i of a read in a note: its URI, with its number
// when the read has several.
func itemName(doc *render.ReadDoc, i int, uri *string, a *app) string {
	name := a.clip(orDefault(uri, doc.URI), 200)
	if len(doc.Contents) > 1 {
		name = fmt.Sprintf("item #%d (%s)", i, name)
	}
	return name
}

// textNotes says where a text item's next page starts (naming the item
// when the read has several), or why it shows nothing, and its
// annotations; it returns the next offset, if any.
func (a *app) textNotes(note func(string, ...any), it *render.TextItem, name string, several bool, o *readOptions) *int {
	if it.NextOffset != nil {
		what := "more text remains"
		if o.Pattern != nil {
			what = "more matching lines remain"
		}
		if several {
			what = fmt.Sprintf("%s: %s", name, what)
		}
		cut := ""
		if it.CutByCeiling {
			cut = fmt.Sprintf(", cut short by the response ceiling of %s", text.HumanBytes(limits.ResponseCeiling))
		}
		note("%s (bytes %d to %d of %d shown%s); next page: --offset %d", what, it.Offset, it.Offset+it.Bytes, it.TotalBytes, cut, *it.NextOffset)
	} else if it.Text == "" && o.Pattern != nil && it.TotalBytes == 0 {
		note("no line of %s matches --pattern %s", name, a.quote(o.Pattern.String(), 200))
	} else if it.Text == "" && it.TotalBytes > 0 && o.Offset >= it.TotalBytes {
		note("nothing to show at --offset %d: %s has %s", o.Offset, name, count(it.TotalBytes, "byte"))
	}
	if it.Annotations != nil {
		note("%s: annotations %s", name, a.clip(text.CompactJSON(it.Annotations), 200))
	}
	return it.NextOffset
}

func orDefault(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}

// writeRaw writes the decoded items, concatenated in order, to stdout or
// (through a temporary file and a rename) to a file.
func (a *app) writeRaw(items []render.Content, file string) error {
	parts := make([][]byte, len(items))
	for i, c := range items {
		if c.IsBlob {
			parts[i] = c.Blob
		} else {
			// No copy: the text can be tens of MiB, and nothing writes to it.
			parts[i] = text.BytesView(c.Text)
		}
	}
	if file != "" && file != "-" {
		return output.WriteFileAtomic(file, parts)
	}
	// Data is data: to a pipe it is written byte for byte, secrets and
	// all (see SECRETS in mcpx(1)); on a terminal it is masked and escaped
	// like any output.
	w := a.s.Data
	if a.s.OutTTY {
		for i, p := range parts {
			if !utf8.Valid(p) {
				return &limits.Error{Limit: "terminal safety",
					Msg: fmt.Sprintf("item #%d is binary content, which mcpx does not write to a terminal; redirect stdout or use -o FILE", i)}
			}
		}
		w = a.s.Out
		// one write: a secret split between two items is masked whole
		parts = [][]byte{bytes.Join(parts, nil)}
	}
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// contentError names the server in a content error.
func (a *app) contentError(conn *client.Conn, err error) error {
	return a.contentErrorFor(conn, "resources/read", err)
}

// spiller returns the spill writer, or nil when no cache directory is known.
func (a *app) spiller() *render.Spiller {
	root := a.g.cacheDir
	if root == "" {
		dir := config.UserCacheDir(a.getenv)
		if dir == "" {
			return nil
		}
		root = filepath.Join(dir, "mcpx")
	}
	return &render.Spiller{Root: root, Warn: func(msg string) { a.log.Warnf("%s", msg) }}
}

func noCacheDir() error {
	return &fail.Error{Code: fail.Usage, Message: "binary content must be written to a file, and no cache directory is known",
		Hints: []string{"set --cache-dir DIR or $MCPX_CACHE_DIR (or $XDG_CACHE_HOME / $HOME)"}}
}
