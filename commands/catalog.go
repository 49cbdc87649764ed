package commands

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/output"
	"github.com/mcpx-cli/mcpx/render"
)

// catalogOptions are catalog's arguments and flags, as given; validate
// checks them before anything is started, and sets the rest.
type catalogOptions struct {
	Args   []string // SRV [QUERY], or [QUERY] with --all
	Kinds  []string
	All    bool
	Strict bool

	Server string
	Query  string
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
			o.Args = cmd.Args().Slice()
			if err := o.validate(); err != nil {
				return err
			}
			return a.catalog(ctx, o)
		},
	}
}

// validate checks catalog's arguments and flags.
func (o *catalogOptions) validate() error {
	args := o.Args
	switch {
	case o.All && len(args) > 1:
		return usagef("catalog --all takes at most one QUERY, got %s", count(len(args), "argument"))
	case o.All && len(args) == 1:
		o.Query = args[0]
	case !o.All && len(args) == 0:
		return usagef("catalog needs a server: mcpx catalog SRV [QUERY], or mcpx catalog --all [QUERY]")
	case !o.All && len(args) > 2:
		return usagef("catalog takes SRV and at most one QUERY, got %s", count(len(args), "argument"))
	case !o.All:
		o.Server = args[0]
		if len(args) == 2 {
			o.Query = args[1]
		}
	}
	return checkKinds(o.Kinds)
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

// serverCatalog is one server's part of the catalog: its listing (its
// items are parsed only as they are printed), or the warning that it
// failed (under --all).
type serverCatalog struct {
	listing  *client.Listing
	failed   *render.Warning
	deadline time.Time     // the server's deadline (one server)
	timeout  time.Duration // its --timeout
}

func (a *app) catalog(ctx context.Context, o *catalogOptions) error {
	parts, closeAll, err := a.catalogParts(ctx, o)
	if err != nil {
		return err
	}
	defer closeAll()
	deadline, bound, server := a.documentDeadline(o, parts)
	pctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	pr := &catalogPrinter{a: a, o: o, w: &warner{a: a, keep: a.asJSON()}}
	if err := pr.print(pctx, parts); err != nil {
		switch {
		case errors.Is(err, output.ErrStalled) && errors.Is(err, context.DeadlineExceeded):
			err = &fail.TimeoutError{Server: server, Phase: "printing", Timeout: bound}
		case errors.Is(err, context.DeadlineExceeded):
			err = &fail.TimeoutError{Server: server, Phase: "rendering", Timeout: bound}
		}
		return err
	}
	if o.Query != "" && pr.items == 0 {
		a.log.Note("no catalog items match %q", o.Query)
	}
	if o.Strict && pr.w.total > 0 {
		return strictWarnings(pr.w.total)
	}
	return nil
}

// catalogParts lists every server o names: each configured one under
// --all (a failure is its warning), else the one server. The function it
// returns stops the one server once the catalog is printed, not before
// (see SERVER PROCESSES in mcpx(1)).
func (a *app) catalogParts(ctx context.Context, o *catalogOptions) ([]serverCatalog, func(), error) {
	if o.All {
		cfg, err := a.config()
		if err != nil {
			return nil, nil, err
		}
		names := cfg.Enabled()
		parts := make([]serverCatalog, len(names))
		if err := a.forEach(ctx, len(names), func(i int) {
			parts[i] = a.serverCatalogOf(ctx, cfg.Servers[names[i]], o.Kinds)
		}); err != nil {
			return nil, nil, err
		}
		if len(names) == 0 {
			a.log.Note("no servers are configured; --all has nothing to list")
		}
		return parts, func() {}, nil
	}
	t, err := a.target(o.Server)
	if err != nil {
		return nil, nil, err
	}
	s, err := a.connect(ctx, t, connectOptions{})
	if err != nil {
		return nil, nil, err
	}
	conn := s.conn
	listing, err := conn.ListCatalog(s.ctx, o.Kinds)
	if err != nil {
		s.close()
		return nil, nil, err
	}
	if !conn.Caps.Tools && !conn.Caps.Resources && !conn.Caps.Prompts {
		a.log.Note("server %q advertises no tools, resources or prompts", conn.T.Name)
	}
	return []serverCatalog{{listing: listing, deadline: s.expires(), timeout: conn.T.Timeout}}, s.close, nil
}

// documentDeadline: with one server, the --timeout that covers connecting
// and listing covers building and printing the document too. Under --all
// each server's deadline covers its connection and listing, and the
// document has one of its own, from now, as long as the longest of theirs
// (one server can be done long before the slowest).
func (a *app) documentDeadline(o *catalogOptions, parts []serverCatalog) (deadline time.Time, bound time.Duration, server string) {
	if !o.All {
		return parts[0].deadline, parts[0].timeout, parts[0].listing.Server
	}
	for _, p := range parts {
		bound = max(bound, p.timeout)
	}
	if bound == 0 {
		bound = config.DefaultTimeout
		if a.g.timeoutSet {
			bound = a.g.timeout
		}
	}
	return time.Now().Add(bound), bound, ""
}

// serverCatalogOf lists one server for --all: every failure is a warning.
func (a *app) serverCatalogOf(ctx context.Context, srv *config.Server, kinds []string) serverCatalog {
	fail := func(err error) serverCatalog {
		rep := classify(err, nil)
		return serverCatalog{failed: &render.Warning{Server: srv.Name, Code: rep.Code, Message: rep.Message}}
	}
	t, err := a.resolve(srv)
	if err != nil {
		return fail(err)
	}
	s, err := a.connect(ctx, t, connectOptions{})
	if err != nil {
		return fail(err)
	}
	defer s.closeLater()
	listing, err := s.conn.ListCatalog(s.ctx, kinds)
	if err != nil {
		return fail(err)
	}
	return serverCatalog{listing: listing, timeout: s.conn.T.Timeout}
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

func warningOf(server string, p client.Problem) render.Warning {
	return render.Warning{Server: server, Kind: orNil(p.Kind), Item: orNil(p.Item), Code: p.Code, Message: p.Message}
}

// orNil is s, or nil (JSON null) when s is empty.
func orNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// catalogPrinter prints the catalog as its items are parsed, so that
// memory stays proportional to the listings (bounded by the message
// ceiling), not to the number of items: a JSON document an item at a time,
// or text a line at a time. On a terminal, text is aligned: a first pass
// over the listings measures the columns (nothing else is kept), the
// second prints.
type catalogPrinter struct {
	a     *app
	o     *catalogOptions
	w     *warner
	items int // printed
}

// each calls f with every item of the catalog that QUERY keeps, in order,
// reporting the warnings when warn is set.
func (p *catalogPrinter) each(ctx context.Context, parts []serverCatalog, warn bool, f func(*client.Item) error) error {
	for _, part := range parts {
		if part.failed != nil {
			if warn {
				p.w.warn(*part.failed)
				p.w.flush(part.failed.Server)
			}
			continue
		}
		server := part.listing.Server
		err := part.listing.Each(ctx, func(it *client.Item) error {
			if p.o.Query != "" && !matches(it, p.o.Query) {
				return nil
			}
			return f(it)
		}, func(pr client.Problem) {
			if warn {
				p.w.warn(warningOf(server, pr))
			}
		})
		if err != nil {
			return err
		}
		if warn {
			p.w.flush(server)
		}
	}
	return ctx.Err()
}

// matches reports whether QUERY keeps the item (see render.CatalogItem.Matches).
func matches(it *client.Item, query string) bool {
	ci := render.CatalogItem{ID: it.ID, Name: it.Name, Title: it.Title, Description: it.Description}
	return ci.Matches(query)
}

func (p *catalogPrinter) print(ctx context.Context, parts []serverCatalog) error {
	st := p.a.s.Stream(ctx)
	if p.a.asJSON() {
		doc := st.JSONList("items", p.a.g.selectPath)
		if err := p.each(ctx, parts, true, func(it *client.Item) error {
			p.items++
			return doc.Add(catalogItem(it))
		}); err != nil {
			return err
		}
		shown := p.w.shown
		if shown == nil {
			shown = []render.Warning{}
		}
		return doc.Close(output.Member{Key: "warnings", Value: shown})
	}
	row := func(it *client.Item) []string {
		desc := render.FirstLine(it.Description)
		if it.Kind == client.KindTool && it.TaskSupport() == client.TaskSupportRequired {
			desc = strings.TrimSpace(taskMarker + " " + desc) // invoke runs it as a task (see TASKS in mcpx(1))
		}
		r := []string{it.Kind, it.ID, desc}
		if p.o.All {
			r = append([]string{it.Server}, r...)
		}
		return r
	}
	header := []string{"KIND", "ID", "DESCRIPTION"}
	if p.o.All {
		header = append([]string{"SERVER"}, header...)
	}
	var widths []int
	if p.a.s.OutTTY {
		widths = make([]int, len(header))
		if err := p.each(ctx, parts, false, func(it *client.Item) error {
			for i, c := range row(it)[:len(header)-1] {
				widths[i] = max(widths[i], p.a.s.CellWidth(c))
			}
			return nil
		}); err != nil {
			return err
		}
	}
	table := st.Table(header, widths)
	if err := p.each(ctx, parts, true, func(it *client.Item) error {
		p.items++
		return table.Row(row(it))
	}); err != nil {
		return err
	}
	return st.Flush()
}
