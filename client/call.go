package client

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
)

// Find looks up one item of a kind in the server's complete listing.
// found is nil when it is not listed; complete is false when the listing
// did not end cleanly (a failed listing, a repeated cursor, an item that
// could not be parsed), in which case "not listed" does not mean "not
// there". The listing's problems are returned for the caller to report. A
// timeout, a dead connection or a limit is an error.
func (c *Conn) Find(ctx context.Context, kind, id string) (found *Item, complete bool, problems []Problem, err error) {
	items, problems, err := c.List(ctx, kind)
	if err != nil {
		return nil, false, problems, err
	}
	for _, it := range items {
		if it.ID == id {
			found = it
			break
		}
	}
	return found, len(problems) == 0, problems, nil
}

// GetPrompt gets a prompt and returns the result exactly as the server sent
// it (mcpx parses messages itself: mcp-go fails a whole result on one
// unknown content type, an unknown role or a message whose content is a
// list). A server without the prompts capability is refused before any
// request.
func (c *Conn) GetPrompt(ctx context.Context, name string, args map[string]string) (json.RawMessage, error) {
	if !c.Caps.Prompts {
		return nil, &UnsupportedError{Server: c.T.Name, What: "prompts"}
	}
	return c.callRaw(ctx, "prompts/get", json.RawMessage(`{"messages":[]}`), func(ctx context.Context) error {
		req := mcp.GetPromptRequest{}
		req.Params.Name = name
		req.Params.Arguments = args
		_, err := c.mc.GetPrompt(ctx, req)
		return err
	})
}

// CallTool calls a tool with args (a JSON object, sent exactly as given so
// that numbers keep their digits) and returns the result exactly as the
// server sent it. It is sent whatever the server advertised (invoke fails
// open); "method not found" is an *UnsupportedError.
func (c *Conn) CallTool(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	raw, err := c.callRaw(ctx, "tools/call", json.RawMessage(`{"content":[]}`), func(ctx context.Context) error {
		req := mcp.CallToolRequest{}
		req.Params.Name = name
		req.Params.Arguments = args
		_, err := c.mc.CallTool(ctx, req)
		return err
	})
	var unsup *UnsupportedError
	if errors.As(err, &unsup) && !c.Caps.Tools {
		unsup.What = "tools"
	}
	return raw, err
}
