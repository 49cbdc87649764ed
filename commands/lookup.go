package commands

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/text"
	"github.com/mcpx-cli/mcpx/output"
	"github.com/mcpx-cli/mcpx/render"
)

// lookup finds the tool or prompt name in the server's listing. A name
// missing from the complete listing is a not_found *fail.Error (naming a
// close match when there is one). When the listing did not complete (it
// failed, repeated a cursor, grew too big, or had an item whose id could
// not be read), the item may exist: it returns nil and why, and the caller
// goes on without the item's declaration. Only the item found is parsed
// (see client.Conn.Find): a listing of millions costs a scan of their ids.
func (a *app) lookup(ctx context.Context, conn *client.Conn, srv, kind, name string) (it *client.Item, incomplete string, err error) {
	var names []string
	it, complete, problems, err := conn.Find(ctx, kind, name, func(id string) {
		if nearCandidate(name, id) {
			names = append(names, id)
		}
	})
	if err != nil {
		return nil, "", err
	}
	if it != nil {
		return it, "", nil
	}
	if complete {
		e := fail.Unknown(kind, name, fmt.Sprintf("server %q does not list it", conn.T.Name))
		e.Hints = []string{fmt.Sprintf("list the %ss with: mcpx catalog %s --kind %s", kind, shellArg(srv), kind)}
		for _, p := range problems {
			if p.Excluded && p.Item == name {
				// Listed by the server, left out by mcpx: say why.
				a.log.Warn(output.Warning{Server: conn.T.Name, Kind: &p.Kind, Item: &p.Item, Code: p.Code, Message: p.Message})
			}
		}
		if near := nearestName(ctx, name, names); near != "" {
			e.Hints = append([]string{fmt.Sprintf("did you mean %q?", near)}, e.Hints...)
		}
		return nil, "", e
	}
	why := "did not complete"
	for _, p := range problems {
		a.log.Debug("%s", p.Message)
		se, isReply := client.AsServerError(p.Err)
		ue, isUnsupported := fail.As(p.Err, fail.Unsupported)
		switch {
		case p.Code != "list_failed" || p.Err == nil:
		case isReply:
			why = fmt.Sprintf("failed (%s, code %d)", se.Said, se.RPC.Code)
		case isUnsupported:
			why = "failed (the server does not know " + ue.Name + ")"
		default:
			why = "failed (" + a.clip(p.Err.Error(), 200) + ")"
		}
	}
	return nil, why, nil
}

// nearCandidate reports whether argNearest could choose id for name: it
// skips names over 64 bytes, and a name it chooses has the same letters in
// another case or is at most two edits away, so its length in runes is
// within two of name's. The names a big listing passes on are few.
func nearCandidate(name, id string) bool {
	if len(id) > 64 || len(name) > 64 {
		return false
	}
	d := utf8.RuneCountInString(id) - utf8.RuneCountInString(name)
	return -2 <= d && d <= 2
}

// nearestName is argNearest(name, names), worked out a block of names at a
// time so that it ends when ctx does (then with no name): the nearest of
// the blocks' nearest is the nearest of all, as argNearest keeps the first
// of equally near names and takes a name equal but for case at once.
func nearestName(ctx context.Context, name string, names []string) string {
	const block = 1024
	var best []string
	for len(names) > 0 {
		if ctx.Err() != nil {
			return ""
		}
		n := min(block, len(names))
		if near := argNearest(name, names[:n]); near != "" {
			best = append(best, near)
		}
		names = names[n:]
	}
	return argNearest(name, best)
}

// listings are the listings of one connection, each kind listed once and
// only when the server advertises it; a listing's problems are warnings
// (through w), and the kinds whose listing failed are remembered.
type listings struct {
	ctx    context.Context
	conn   *client.Conn
	w      *warner
	listed map[string][]*client.Item
	failed map[string]error // kind -> why its listing failed
}

func newListings(ctx context.Context, conn *client.Conn, w *warner) *listings {
	return &listings{ctx: ctx, conn: conn, w: w, listed: map[string][]*client.Item{}, failed: map[string]error{}}
}

// findAcross returns the items of the listings of kinds whose id is id.
func (l *listings) findAcross(kinds []string, id string) ([]*client.Item, error) {
	var found []*client.Item
	for _, k := range kinds {
		if err := l.list(k); err != nil {
			return nil, err
		}
		for _, it := range l.listed[k] {
			if it.ID == id {
				found = append(found, it)
			}
		}
	}
	return found, nil
}

func (l *listings) list(k string) error {
	if _, done := l.listed[k]; done || !l.conn.Advertised(k) {
		return nil
	}
	items, problems, err := l.conn.List(l.ctx, k)
	if err != nil {
		return err
	}
	for _, p := range problems {
		if p.Code == "list_failed" {
			l.failed[k] = p.Err
		}
	}
	for _, p := range problems {
		l.w.warn(warningOf(l.conn.T.Name, p))
	}
	l.listed[k] = items
	return nil
}

// contentPolicy is the content policy for a result from conn: binary
// content spills to the cache directory under the server's name.
func (a *app) contentPolicy(ctx context.Context, conn *client.Conn) render.Policy {
	sp := a.spiller()
	p := render.Policy{Ctx: ctx, Spill: func(data []byte, mime string) (render.Spilled, error) {
		if sp == nil {
			return render.Spilled{}, noCacheDir()
		}
		return sp.Spill(conn.T.SpillName, data, mime)
	}}
	if sp != nil {
		p.SpillDir = sp.Dir(conn.T.SpillName)
	}
	p.Secrets = a.s.Secrets()
	return p
}

// itemNotes prints notes about single items of a response, at most
// maxItemNotes of them, then how many more there were.
type itemNotes struct {
	a           *app
	shown, held int
}

func (n *itemNotes) note(format string, args ...any) {
	if n.shown < maxItemNotes {
		n.shown++
		n.a.log.Note(format, args...)
	} else {
		n.held++
	}
}

func (n *itemNotes) done() {
	if n.held > 0 {
		n.a.log.Note("%d more %s about items not shown; --json has every item's details", n.held, text.Plural(n.held, "note", "notes"))
	}
}
