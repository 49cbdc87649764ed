package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// Kinds of catalog items, in catalog order.
const (
	KindTool     = "tool"
	KindResource = "resource"
	KindTemplate = "resource_template"
	KindPrompt   = "prompt"
)

// Kinds lists the kinds in catalog order.
var Kinds = []string{KindTool, KindResource, KindTemplate, KindPrompt}

// maxPages ends a listing that never ends (a server handing out fresh cursors forever).
const maxPages = 10000

type listSpec struct {
	method string
	key    string // the array in the result
	send   func(c *Conn, ctx context.Context, cursor string) error
}

var listSpecs = map[string]listSpec{
	KindTool: {"tools/list", "tools", func(c *Conn, ctx context.Context, cur string) error {
		req := mcp.ListToolsRequest{}
		req.Params.Cursor = mcp.Cursor(cur)
		_, err := c.mc.ListToolsByPage(ctx, req)
		return err
	}},
	KindResource: {"resources/list", "resources", func(c *Conn, ctx context.Context, cur string) error {
		req := mcp.ListResourcesRequest{}
		req.Params.Cursor = mcp.Cursor(cur)
		_, err := c.mc.ListResourcesByPage(ctx, req)
		return err
	}},
	KindTemplate: {"resources/templates/list", "resourceTemplates", func(c *Conn, ctx context.Context, cur string) error {
		req := mcp.ListResourceTemplatesRequest{}
		req.Params.Cursor = mcp.Cursor(cur)
		_, err := c.mc.ListResourceTemplatesByPage(ctx, req)
		return err
	}},
	KindPrompt: {"prompts/list", "prompts", func(c *Conn, ctx context.Context, cur string) error {
		req := mcp.ListPromptsRequest{}
		req.Params.Cursor = mcp.Cursor(cur)
		_, err := c.mc.ListPromptsByPage(ctx, req)
		return err
	}},
}

// Advertised reports whether the server advertised the capability a kind needs.
func (c *Conn) Advertised(kind string) bool {
	switch kind {
	case KindTool:
		return c.Caps.Tools
	case KindResource, KindTemplate:
		return c.Caps.Resources
	case KindPrompt:
		return c.Caps.Prompts
	}
	return false
}

// Problem is something wrong with a listing that does not stop the rest:
// a kind whose listing failed, an item that could not be parsed, a cursor
// that repeated.
type Problem struct {
	Kind    string
	Item    string // the item's id, or "#N" (its index) when it has none
	Code    string // list_failed, bad_item, repeated_cursor, ...
	Message string
	Err     error // for list_failed: why the listing failed
}

// ListError is a listing that failed for one kind: the server answered with
// an error or sent a page that is not a list. It degrades to a warning.
type ListError struct {
	Kind string
	Err  error
}

func (e *ListError) Error() string { return e.Err.Error() }
func (e *ListError) Unwrap() error { return e.Err }

// ListRaw lists every item of one kind, following nextCursor to the end.
// It returns each item's raw JSON. A cursor that repeats ends the listing
// with a Problem. A failure that concerns only this listing is a *ListError
// (returned with the items of the pages before it); a timeout, a dead
// connection or a limit is returned as is.
func (c *Conn) ListRaw(ctx context.Context, kind string) ([]json.RawMessage, []Problem, error) {
	spec := listSpecs[kind]
	var items []json.RawMessage
	var problems []Problem
	seen := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		raw, err := c.call(ctx, spec.method, func(ctx context.Context) error { return spec.send(c, ctx, cursor) })
		if err != nil {
			switch err.(type) {
			case *ServerError, *UnsupportedError:
				return items, problems, &ListError{Kind: kind, Err: err}
			}
			return items, problems, err
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return items, problems, &ListError{Kind: kind, Err: &BadReplyError{Server: c.T.Name, Method: spec.method, Msg: "returned a result that is not a JSON object"}}
		}
		var pageItems []json.RawMessage
		if arr, ok := obj[spec.key]; ok && string(arr) != "null" {
			if err := json.Unmarshal(arr, &pageItems); err != nil {
				return items, problems, &ListError{Kind: kind, Err: &BadReplyError{Server: c.T.Name, Method: spec.method, Msg: fmt.Sprintf("returned %q that is not an array", spec.key)}}
			}
		}
		items = append(items, pageItems...)
		next, ok := obj["nextCursor"]
		if !ok || string(next) == "null" {
			return items, problems, nil
		}
		var cur string
		if err := json.Unmarshal(next, &cur); err != nil {
			problems = append(problems, Problem{Kind: kind, Code: "bad_cursor",
				Message: fmt.Sprintf("server %q: %s returned a nextCursor that is not a string (%s); the listing stops at page %d", c.T.Name, spec.method, c.clip(string(next), 40), page)})
			return items, problems, nil
		}
		if cur == "" {
			return items, problems, nil
		}
		if seen[cur] {
			problems = append(problems, Problem{Kind: kind, Code: "repeated_cursor",
				Message: fmt.Sprintf("server %q: %s repeated the cursor %q; the listing stops after %d pages", c.T.Name, spec.method, c.clip(cur, 40), page)})
			return items, problems, nil
		}
		if page >= maxPages {
			problems = append(problems, Problem{Kind: kind, Code: "too_many_pages",
				Message: fmt.Sprintf("server %q: %s is still paging after %d pages; the listing stops there", c.T.Name, spec.method, page)})
			return items, problems, nil
		}
		seen[cur] = true
		cursor = cur
	}
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "..."
}
