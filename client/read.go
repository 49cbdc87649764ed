package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/uritemplate"
)

// MCP's "resource not found" error code.
const codeResourceNotFound = -32002

// ReadResource reads uri and returns the result exactly as the server sent
// it (mcpx parses contents itself: mcp-go drops a blob that comes with a
// text, fails a whole read on one odd item, and multiplies the memory of a
// big blob). A server without the resources capability is refused before
// any request. Not found — -32002, -32602 with data.uri, or -32602 for a
// uri that is neither listed nor matches a listed template — is a
// not_found *fail.Error.
func (c *Conn) ReadResource(ctx context.Context, uri string) (json.RawMessage, error) {
	if !c.Caps.Resources {
		return nil, Unsupported(c.T.Name, "resources")
	}
	raw, err := c.callRaw(ctx, "resources/read", func(ctx context.Context) (json.RawMessage, error) {
		meta := c.progressMeta()
		return c.roundTrips(ctx, "resources/read", func(round mcp.MultiRoundTripParams) any {
			return mcp.ReadResourceParams{URI: uri, Meta: meta, MultiRoundTripParams: round}
		})
	})
	se, ok := AsServerError(err)
	if err == nil || !ok {
		return raw, err
	}
	answer := fmt.Sprintf("%s (code %d)", se.Said, se.RPC.Code)
	switch se.RPC.Code {
	case codeResourceNotFound:
		return nil, c.unknownResource(uri, se.RPC, fmt.Sprintf("server %q answered: %s", c.T.Name, answer))
	case mcp.INVALID_PARAMS:
		if u := gjson.GetBytes(se.RPC.Data, "uri"); u.Type == gjson.String {
			// How servers say "not found" since SEP-2164 (the Go SDK from
			// 1.7): -32602 naming the URI in data.uri.
			return nil, c.unknownResource(uri, se.RPC, fmt.Sprintf("server %q answered: %s", c.T.Name, answer))
		}
		if known, lerr := c.knows(ctx, uri); lerr == nil && !known {
			return nil, c.unknownResource(uri, se.RPC, fmt.Sprintf("server %q lists no such resource and no template matches it; it answered: %s", c.T.Name, answer))
		}
	}
	return nil, err
}

// knows reports whether uri is listed or matches a listed template. A
// listing that did not end cleanly (a repeated cursor, the page cap, an
// item that could not be parsed) cannot say "no": that is an error.
func (c *Conn) knows(ctx context.Context, uri string) (bool, error) {
	for _, kind := range []string{KindResource, KindTemplate} {
		items, problems, err := c.List(ctx, kind)
		if err != nil {
			return false, err
		}
		if len(problems) > 0 {
			return false, errors.New("the listing is incomplete")
		}
		for _, it := range items {
			if it.ID == uri || (kind == KindTemplate && uritemplate.Matches(it.ID, uri)) {
				return true, nil
			}
		}
	}
	return false, nil
}

// unknownResource: the server says it has no resource uri.
func (c *Conn) unknownResource(uri string, rpc *fail.RPCError, detail string) error {
	e := fail.Unknown("resource", uri, detail)
	e.Server, e.RPC = c.T.Name, rpc
	return e
}
