package commands

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/render"
)

// lookup finds the tool or prompt name in the server's listing. A name
// missing from the complete listing is a *client.NotFoundError (naming a
// close match when there is one). When the listing did not complete (it
// failed, repeated a cursor, or had an item that could not be read), the
// item may exist: it returns nil and why, and the caller goes on without
// the item's declaration.
func (a *app) lookup(ctx context.Context, conn *client.Conn, srv, kind, name string) (it *client.Item, incomplete string, err error) {
	items, problems, err := conn.List(ctx, kind)
	if err != nil {
		return nil, "", err
	}
	names := make([]string, 0, len(items))
	for _, x := range items {
		if x.ID == name {
			return x, "", nil
		}
		names = append(names, x.ID)
	}
	if len(problems) == 0 {
		e := &client.NotFoundError{What: kind, Name: name,
			Detail: fmt.Sprintf("server %q does not list it", conn.T.Name),
			Hints:  []string{fmt.Sprintf("list the %ss with: mcpx catalog %s --kind %s", kind, shellArg(srv), kind)}}
		if near := argNearest(name, names); near != "" {
			e.Hints = append([]string{fmt.Sprintf("did you mean %q?", near)}, e.Hints...)
		}
		return nil, "", e
	}
	why := "did not complete"
	for _, p := range problems {
		a.log.Debug("%s", p.Message)
		var se *client.ServerError
		var ue *client.UnsupportedError
		switch {
		case p.Code != "list_failed" || p.Err == nil:
		case errors.As(p.Err, &se):
			why = fmt.Sprintf("failed (%s, code %d)", render.Clip(oneLineText(se.RPC.Message), 200), se.RPC.Code)
		case errors.As(p.Err, &ue):
			why = "failed (the server does not know " + ue.Method + ")"
		default:
			why = "failed (" + render.Clip(p.Err.Error(), 200) + ")"
		}
	}
	return nil, why, nil
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
		n.a.log.Note("%d more note(s) about items not shown; --json has every item's details", n.held)
	}
}
