package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/text"
	"github.com/mcpx-cli/mcpx/internal/uritemplate"
	"github.com/mcpx-cli/mcpx/render"
)

// describeOptions are describe's arguments and flags, as given; validate
// checks them before anything is started, and sets the rest.
type describeOptions struct {
	Args []string // SRV ID
	Kind string   // --kind

	Server string
	ID     string // as typed
	// A key KIND:ID splits into these; the whole ID is still tried as an id
	// when the key names nothing (a URI such as resource://x looks like one).
	KeyKind, KeyID string
}

func (a *app) newDescribeCmd() *cli.Command {
	o := &describeOptions{}
	return &cli.Command{
		Name:      "describe",
		Usage:     "show the full metadata of one catalog item",
		ArgsUsage: "SRV ID",
		Description: "ID is a catalog key KIND:ID (e.g. prompt:review), or an id with --kind, or an id that " +
			"names exactly one item across kinds. Tools show their schemas exactly as the server sent them (--json); the " +
			"text's parameter table follows local $refs and lists the fields of object parameters, one level deep.\n\n" +
			"EXIT STATUS: 0, 1 the listing that would hold the item failed, 2 usage or an ambiguous ID, " +
			"3 connection, 4 no such item or server, 5 the server does not offer that kind, 7 timeout.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "kind", Usage: "look only among `KIND` (tool, resource, resource_template, prompt)", Destination: &o.Kind},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o.Args = cmd.Args().Slice()
			if err := o.validate(); err != nil {
				return err
			}
			return a.describe(ctx, o)
		},
	}
}

// validate checks describe's arguments and flags, and splits a key.
func (o *describeOptions) validate() error {
	if len(o.Args) != 2 {
		return usagef("describe takes SRV and ID, got %s", count(len(o.Args), "argument"))
	}
	o.Server, o.ID = o.Args[0], o.Args[1]
	if o.Kind != "" {
		if err := checkKinds([]string{o.Kind}); err != nil {
			return err
		}
	}
	if k, id, ok := strings.Cut(o.ID, ":"); ok && isKind(k) && id != "" {
		if o.Kind != "" && o.Kind != k {
			return usagef("%q is a %s key, but --kind says %s", o.ID, k, o.Kind)
		}
		o.KeyKind, o.KeyID = k, id
	}
	if o.ID == "" {
		return usagef("describe needs a non-empty ID")
	}
	return nil
}

var capabilityOf = map[string]string{client.KindTool: "tools", client.KindResource: "resources",
	client.KindTemplate: "resources", client.KindPrompt: "prompts"}

func (a *app) describe(ctx context.Context, o *describeOptions) error {
	t, err := a.target(o.Server)
	if err != nil {
		return err
	}
	s, err := a.connect(ctx, t, connectOptions{})
	if err != nil {
		return err
	}
	defer s.close()
	conn := s.conn
	w := &warner{a: a}
	defer w.flush(conn.T.Name)
	if o.Kind != "" && !conn.Advertised(o.Kind) {
		return client.Unsupported(conn.T.Name, capabilityOf[o.Kind])
	}
	it, err := describedItem(newListings(s.ctx, conn, w), o)
	if err != nil {
		return err
	}
	d := describeDoc(it)
	if a.asJSON() {
		return a.writeDoc(d)
	}
	_, err = a.s.Out.Write([]byte(render.DescribeText(d)))
	return err
}

// describedItem finds the one item o names: by its key KIND:ID when it has
// one (then, when the key names nothing, by its whole ID in that kind: a
// URI such as resource://x looks like a key), else by its whole ID across
// the kinds o allows. A key lists its kind alone: a listing of another
// kind that fails does not stand in the way.
func describedItem(l *listings, o *describeOptions) (*client.Item, error) {
	kinds := client.Kinds
	if o.Kind != "" {
		kinds = []string{o.Kind}
	}
	var found []*client.Item
	var err error
	if o.KeyKind != "" {
		kinds = []string{o.KeyKind}
		if found, err = l.findAcross(kinds, o.KeyID); err != nil {
			return nil, err
		}
	}
	if len(found) == 0 {
		if found, err = l.findAcross(kinds, o.ID); err != nil {
			return nil, err
		}
	}
	switch len(found) {
	case 0:
		return nil, notDescribed(l, o, kinds)
	case 1:
		return found[0], nil
	}
	keys := make([]string, len(found))
	for i, it := range found {
		keys[i] = it.Key()
	}
	return nil, ambiguous(o.ID, keys)
}

// notDescribed is the error when no listing of kinds holds the item o
// names: the listing's own error when one failed, as the item may be in it.
func notDescribed(l *listings, o *describeOptions, kinds []string) error {
	if o.KeyKind != "" && !l.conn.Advertised(o.KeyKind) {
		return client.Unsupported(l.conn.T.Name, capabilityOf[o.KeyKind])
	}
	for _, k := range kinds {
		if err := l.failed[k]; err != nil {
			return err // not found in a listing that failed is not "not found"
		}
	}
	what, name := "catalog item", o.ID
	if o.Kind != "" {
		what = strings.ReplaceAll(o.Kind, "_", " ")
	} else if o.KeyKind != "" {
		what, name = strings.ReplaceAll(o.KeyKind, "_", " "), o.KeyID
	}
	e := fail.Unknown(what, name, "")
	e.Hints = []string{fmt.Sprintf("list what there is with: mcpx catalog %s", shellArg(o.Server))}
	if near := nearItem(l, o, kinds); near != "" {
		e.Hints = append([]string{fmt.Sprintf("did you mean %q?", near)}, e.Hints...)
	}
	return e
}

// nearItem is what describe could have been asked for instead of o's ID,
// as invoke and prompt suggest a name (see argNearest): the closest id of
// the key's kind, as a key, for a key; else the closest id of kinds, as a
// key when items of several kinds have it; "" when none is close.
func nearItem(l *listings, o *describeOptions, kinds []string) string {
	name, asKey := o.ID, false
	if o.KeyKind != "" {
		name, asKey = o.KeyID, true
	}
	var ids []string
	for _, k := range kinds {
		for _, it := range l.listed[k] {
			if nearCandidate(name, it.ID) {
				ids = append(ids, it.ID)
			}
		}
	}
	near := nearestName(l.ctx, name, ids)
	if near == "" {
		return ""
	}
	var keys []string
	for _, k := range kinds {
		for _, it := range l.listed[k] {
			if it.ID == near {
				keys = append(keys, it.Key())
			}
		}
	}
	if asKey || len(keys) > 1 {
		return keys[0]
	}
	return near
}

// describeDoc is the document describe prints for it.
func describeDoc(it *client.Item) *render.Describe {
	d := &render.Describe{CatalogItem: catalogItem(it), InputSchema: it.InputSchema, OutputSchema: it.OutputSchema}
	if it.Kind == client.KindTemplate {
		d.Variables = uritemplate.Variables(it.ID)
		if d.Variables == nil {
			d.Variables = []string{}
		}
	}
	return d
}

// shellArg quotes s for a hint the user may paste into a shell: as it
// is when nothing in it is special to a shell, ANSI-C quoted when it holds
// a control character (see text.ANSIQuote), else single-quoted.
func shellArg(s string) string {
	if q, ok := text.ANSIQuote(s); ok {
		return q
	}
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
