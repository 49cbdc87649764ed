package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/internal/fail"
)

// maxFindProblems is how many items without a usable id Find reports one
// by one; the rest are counted in one more Problem.
const maxFindProblems = 20

// Find looks up one item of a kind in the server's complete listing. It
// reads only the id of each item (see itemID), and parses the first item
// whose id is id alone (duplicate ids keep the first, as List does).
// found is nil when it is not listed; complete is false when the listing
// did not end cleanly (a failed listing, a repeated cursor, too many pages
// or bytes, an item without a usable id), in which case "not listed" does
// not mean "not there". The listing's problems are returned for the caller
// to report; the lesser problems of items other than the one found are not
// looked for. When id is not in a complete listing and near is not nil,
// near is called with the id of each listed item, in order (for a "did you
// mean" hint); id may share the memory of the page it was listed in, which
// is never modified. A timeout, a dead connection or a limit is an error; the
// context is checked as the items are scanned.
func (c *Conn) Find(ctx context.Context, kind, id string, near func(id string)) (found *Item, complete bool, problems []Problem, err error) {
	raws, problems, failed, err := c.listed(ctx, kind)
	if err != nil {
		return nil, false, problems, err
	}
	method := listSpecs[kind].method
	timedOut := func(i int) bool { return i%checkEvery == checkEvery-1 && ctx.Err() != nil }
	complete = failed == nil
	for _, p := range problems {
		complete = complete && p.Excluded
	}
	badIDs := 0
	for i, raw := range raws {
		if timedOut(i) {
			return nil, false, problems, c.classify(ctx, method, ctx.Err())
		}
		v, ok := itemID(kind, raw)
		if !ok {
			complete = false
			if badIDs++; badIDs <= maxFindProblems {
				_, ps, _ := parseItem(c.T.Name, kind, i, raw, true)
				problems = append(problems, ps...)
			}
			continue
		}
		if !jsonStringIs(v, id) {
			continue
		}
		it, ps, ok := parseItem(c.T.Name, kind, i, raw, true)
		problems = append(problems, ps...)
		if ok { // always: its id was read above
			found = it
			break
		}
	}
	if badIDs > maxFindProblems {
		problems = append(problems, Problem{Kind: kind, Code: "bad_item",
			Message: fmt.Sprintf("server %q: %d more %s have no usable %q; skipped", c.T.Name, badIDs-maxFindProblems, pluralKind(kind), idField[kind])})
	}
	if failed != nil {
		problems = append(problems, *failed)
	}
	if found == nil && complete && near != nil {
		for i, raw := range raws {
			if timedOut(i) {
				return nil, false, problems, c.classify(ctx, method, ctx.Err())
			}
			v, _ := itemID(kind, raw)
			if s, ok := jsonStringView(v); ok {
				near(s)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, false, problems, c.classify(ctx, method, err)
	}
	return found, complete, problems, nil
}

// GetPrompt gets a prompt and returns the result exactly as the server sent
// it (mcpx parses messages itself: mcp-go fails a whole result on one
// unknown content type, an unknown role or a message whose content is a
// list). A server without the prompts capability is refused before any
// request.
func (c *Conn) GetPrompt(ctx context.Context, name string, args map[string]string) (json.RawMessage, error) {
	if !c.Caps.Prompts {
		return nil, Unsupported(c.T.Name, "prompts")
	}
	return c.callRaw(ctx, "prompts/get", func(ctx context.Context) (json.RawMessage, error) {
		return c.roundTrips(ctx, "prompts/get", func(round mcp.MultiRoundTripParams) any {
			return mcp.GetPromptParams{Name: name, Arguments: args, MultiRoundTripParams: round}
		})
	})
}

// CallTool calls a tool with args (a JSON object, sent exactly as given so
// that numbers keep their digits) and returns the result exactly as the
// server sent it. It is sent whatever the server advertised (invoke fails
// open); "method not found" is unsupported.
func (c *Conn) CallTool(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	raw, err := c.callRaw(ctx, "tools/call", func(ctx context.Context) (json.RawMessage, error) {
		meta := c.progressMeta()
		return c.roundTrips(ctx, "tools/call", func(round mcp.MultiRoundTripParams) any {
			return mcp.CallToolParams{Name: name, Arguments: args, Meta: meta, MultiRoundTripParams: round}
		})
	})
	if unsup, ok := fail.As(err, fail.Unsupported); ok && !c.Caps.Tools {
		unsup.What = "tools"
	}
	return raw, err
}
