package commands

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/snapshot"
	"github.com/mcpx-cli/mcpx/output"
)

// snapshotOptions are snapshot's arguments and flags, as given.
type snapshotOptions struct {
	Args           []string // SRV
	Output         string   // -o FILE ("" or "-": stdout)
	NoDescriptions bool

	Server string
}

func (a *app) newSnapshotCmd() *cli.Command {
	o := &snapshotOptions{}
	return &cli.Command{
		Name:      "snapshot",
		Usage:     "write a server's whole catalog as one JSON document, for drift checks",
		ArgsUsage: "SRV",
		Description: "Every tool (schemas as sent), resource, resource template and prompt, each kind complete " +
			"and sorted by key, object keys sorted: two snapshots of an unchanged server are byte-identical. " +
			"Compare two with mcpx diff (see SNAPSHOTS AND DRIFT).\n\n" +
			"EXIT STATUS: 0, 1 a listing failed or had a bad item (nothing is written), 2 usage, 3 connection, " +
			"4 unknown server, 6 auth, 7 timeout.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the snapshot to `FILE` (through a temporary file and a rename; - is stdout)", Destination: &o.Output},
			&cli.BoolFlag{Name: "no-descriptions", Usage: "leave out every description and title (those of the schemas too)", Destination: &o.NoDescriptions},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o.Args = cmd.Args().Slice()
			if len(o.Args) != 1 {
				return usagef("snapshot takes one server, got %s", count(len(o.Args), "argument"))
			}
			o.Server = o.Args[0]
			return a.snapshot(ctx, o)
		},
	}
}

func (a *app) snapshot(ctx context.Context, o *snapshotOptions) error {
	doc, err := a.snapshotOf(ctx, o.Server, o.NoDescriptions)
	if err != nil {
		return err
	}
	// A snapshot is committed next to code: the secrets mcpx knows (a
	// header's token a server echoes in a description) are masked in it as
	// in any output (see SECRETS in mcpx(1)).
	doc = a.s.Secrets().MaskJSON(doc)
	if o.Output == "" || o.Output == "-" {
		_, err = a.s.Out.Write(doc)
		return err
	}
	return output.WriteFileAtomic(o.Output, [][]byte{doc})
}

// snapshotOf lists every kind of the server srv names and builds its
// snapshot. A snapshot is a baseline, so it is all or nothing: any warning
// of the listing (a kind that failed, an item skipped) fails it, exit 1.
func (a *app) snapshotOf(ctx context.Context, srv string, noDesc bool) ([]byte, error) {
	t, err := a.target(srv)
	if err != nil {
		return nil, err
	}
	s, err := a.connect(ctx, t, connectOptions{})
	if err != nil {
		return nil, err
	}
	defer s.close()
	conn := s.conn
	listing, err := conn.ListCatalog(s.ctx, nil)
	if err != nil {
		return nil, err
	}
	w := &warner{a: a}
	var items []snapshot.Item
	err = listing.Each(s.ctx, func(it *client.Item) error {
		items = append(items, snapshotItem(it))
		return nil
	}, func(p client.Problem) { w.warn(warningOf(conn.T.Name, p)) })
	w.flush(conn.T.Name)
	if err != nil {
		return nil, err
	}
	if w.total > 0 {
		return nil, incomplete(fmt.Sprintf("snapshot of server %q not written: the catalog is incomplete", conn.T.Name), w.total)
	}
	caps := conn.Caps
	info := snapshot.Info{Name: conn.ServerName, Version: conn.ServerVersion, Protocol: conn.Protocol,
		Capabilities: map[string]bool{"tools": caps.Tools, "resources": caps.Resources, "prompts": caps.Prompts,
			"completions": caps.Completions, "logging": caps.Logging}}
	return snapshot.Build(info, items, noDesc)
}

// snapshotItem is what a snapshot records of a catalog item.
func snapshotItem(it *client.Item) snapshot.Item {
	si := snapshot.Item{Kind: it.Kind, ID: it.ID, Name: it.Name, Title: it.Title, Description: it.Description,
		URI: it.URI, URITemplate: it.URITemplate, MimeType: it.MimeType, Size: it.Size,
		Annotations: it.Annotations, InputSchema: it.InputSchema, OutputSchema: it.OutputSchema, Exec: it.Execution}
	if it.Kind == client.KindPrompt {
		si.Arguments = make([]snapshot.Argument, 0, len(it.Arguments))
		for _, pa := range it.Arguments {
			si.Arguments = append(si.Arguments, snapshot.Argument{Name: pa.Name, Title: pa.Title, Description: pa.Description, Required: pa.Required})
		}
	}
	return si
}
