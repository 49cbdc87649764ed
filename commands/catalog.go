package commands

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/output"
	"github.com/mcpx-cli/mcpx/render"
)

type catalogOptions struct {
	Server string
	Query  string
	Kinds  []string
	All    bool
	Strict bool
}

func (a *app) newCatalogCmd() *cli.Command {
	o := &catalogOptions{}
	return &cli.Command{
		Name:      "catalog",
		Usage:     "list a server's tools, resources, resource templates and prompts in one list",
		ArgsUsage: "SRV [QUERY] | --all [QUERY]",
		Description: "Lists every kind the server advertises, following every page. QUERY keeps items whose " +
			"id, name, title or description contains it (case-insensitive).\n\n" +
			"EXIT STATUS: 0 (warnings allowed), 1 with --strict and warnings, 2 usage, 3 connection, " +
			"4 unknown server, 6 auth, 7 timeout, 8 limit, 9 --select matched nothing.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "kind", Usage: "list only `KIND` (tool, resource, resource_template, prompt; repeatable)", Destination: &o.Kinds},
			&cli.BoolFlag{Name: "all", Usage: "query every configured server", Destination: &o.All},
			&cli.BoolFlag{Name: "strict", Usage: "exit 1 when there are warnings (stdout still carries the result)", Destination: &o.Strict},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			args := cmd.Args().Slice()
			switch {
			case o.All && len(args) > 1:
				return usagef("catalog --all takes at most one QUERY, got %d arguments", len(args))
			case o.All && len(args) == 1:
				o.Query = args[0]
			case !o.All && len(args) == 0:
				return usagef("catalog needs a server: mcpx catalog SRV [QUERY], or mcpx catalog --all [QUERY]")
			case !o.All && len(args) > 2:
				return usagef("catalog takes SRV and at most one QUERY, got %d arguments", len(args))
			case !o.All:
				o.Server = args[0]
				if len(args) == 2 {
					o.Query = args[1]
				}
			}
			if err := checkKinds(o.Kinds); err != nil {
				return err
			}
			return a.catalog(ctx, o)
		},
	}
}

func checkKinds(kinds []string) error {
	for _, k := range kinds {
		if !isKind(k) {
			return usagef("unknown kind %q (want one of %s)", k, strings.Join(client.Kinds, ", "))
		}
	}
	return nil
}

func isKind(k string) bool { return slices.Contains(client.Kinds, k) }

// serverCatalog is one server's part of the catalog.
type serverCatalog struct {
	items    []render.CatalogItem
	warnings []render.Warning
}

func (a *app) catalog(ctx context.Context, o *catalogOptions) error {
	var doc render.Catalog
	if o.All {
		cfg, err := a.config()
		if err != nil {
			return err
		}
		names := cfg.Names()
		results := make([]serverCatalog, len(names))
		if err := a.forEach(ctx, len(names), func(i int) {
			results[i] = a.serverCatalogOf(ctx, cfg.Servers[names[i]], o.Kinds)
		}); err != nil {
			return err
		}
		for _, r := range results {
			doc.Items = append(doc.Items, r.items...)
			doc.Warnings = append(doc.Warnings, r.warnings...)
		}
		if len(names) == 0 {
			a.log.Note("no servers are configured; --all has nothing to list")
		}
	} else {
		conn, cctx, done, err := a.open(ctx, o.Server)
		if err != nil {
			return err
		}
		defer done()
		items, problems, err := conn.Catalog(cctx, o.Kinds)
		if err != nil {
			return err
		}
		doc.Items = catalogItems(items)
		doc.Warnings = warningsOf(conn.T.Name, problems)
		if !conn.Caps.Tools && !conn.Caps.Resources && !conn.Caps.Prompts {
			a.log.Note("server %q advertises no tools, resources or prompts", conn.T.Name)
		}
	}
	if o.Query != "" {
		kept := doc.Items[:0]
		for _, it := range doc.Items {
			if it.Matches(o.Query) {
				kept = append(kept, it)
			}
		}
		doc.Items = kept
	}
	if doc.Items == nil {
		doc.Items = []render.CatalogItem{}
	}
	if doc.Warnings == nil {
		doc.Warnings = []render.Warning{}
	}
	for _, w := range doc.Warnings {
		a.log.Warn(output.Warning(w))
	}
	if o.Query != "" && len(doc.Items) == 0 {
		a.log.Note("no catalog items match %q", o.Query)
	}
	if err := a.printCatalog(&doc, o.All); err != nil {
		return err
	}
	if o.Strict && len(doc.Warnings) > 0 {
		return &StrictError{N: len(doc.Warnings)}
	}
	return nil
}

// serverCatalogOf lists one server for --all: every failure is a warning.
func (a *app) serverCatalogOf(ctx context.Context, srv *client.Server, kinds []string) serverCatalog {
	fail := func(err error) serverCatalog {
		rep := classify(err, nil)
		return serverCatalog{warnings: []render.Warning{{Server: srv.Name, Code: rep.Code, Message: rep.Message}}}
	}
	conn, cctx, done, err := a.openServer(ctx, srv)
	if err != nil {
		return fail(err)
	}
	defer done()
	items, problems, err := conn.Catalog(cctx, kinds)
	if err != nil {
		return fail(err)
	}
	return serverCatalog{items: catalogItems(items), warnings: warningsOf(srv.Name, problems)}
}

// forEach runs f(0..n-1), --jobs at a time. Once ctx is done (a signal) it
// starts no more, and returns ctx's error: an interrupted command has no result.
func (a *app) forEach(ctx context.Context, n int, f func(i int)) error {
	sem := make(chan struct{}, a.g.jobs)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			f(i)
		}(i)
	}
	wg.Wait()
	return ctx.Err()
}

func catalogItems(items []*client.Item) []render.CatalogItem {
	out := make([]render.CatalogItem, 0, len(items))
	for _, it := range items {
		out = append(out, catalogItem(it))
	}
	return out
}

func catalogItem(it *client.Item) render.CatalogItem {
	ci := render.CatalogItem{Server: it.Server, Kind: it.Kind, ID: it.ID, Key: it.Key(), Name: it.Name,
		Title: it.Title, Description: it.Description, URI: it.URI, URITemplate: it.URITemplate,
		MimeType: it.MimeType, Size: it.Size, Annotations: it.Annotations,
		Icons: it.Icons, Meta: it.Meta, Execution: it.Execution}
	if it.Arguments != nil {
		ci.Arguments = make([]render.Argument, 0, len(it.Arguments))
		for _, pa := range it.Arguments {
			ci.Arguments = append(ci.Arguments, render.Argument{Name: pa.Name, Description: pa.Description, Required: pa.Required})
		}
	}
	return ci
}

func warningsOf(server string, problems []client.Problem) []render.Warning {
	var ws []render.Warning
	for _, p := range problems {
		ws = append(ws, render.Warning{Server: server, Kind: orNil(p.Kind), Item: orNil(p.Item), Code: p.Code, Message: p.Message})
	}
	return ws
}

// orNil is s, or nil (JSON null) when s is empty.
func orNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (a *app) printCatalog(doc *render.Catalog, all bool) error {
	if a.asJSON() {
		return a.writeDoc(doc)
	}
	header := []string{"KIND", "ID", "DESCRIPTION"}
	if all {
		header = append([]string{"SERVER"}, header...)
	}
	rows := make([][]string, 0, len(doc.Items))
	for _, it := range doc.Items {
		row := []string{it.Kind, it.ID, render.FirstLine(it.Description)}
		if all {
			row = append([]string{it.Server}, row...)
		}
		rows = append(rows, row)
	}
	return a.s.WriteTable(header, rows)
}
