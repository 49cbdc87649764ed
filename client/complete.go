package client

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpx-cli/mcpx/internal/fail"
)

// CompleteRef is what a completion/complete request completes an argument
// of: a prompt (by name) or a resource template (by its template string).
type CompleteRef struct {
	Prompt string // ref/prompt when set
	URI    string // ref/resource otherwise
}

// Complete asks the server for values of one argument (completion/complete),
// with the values of other arguments in args (context.arguments). A server
// without the completions capability is refused before any request. The
// values are returned as the server sent them, strings only: a value of
// another JSON type is skipped, never the whole answer.
func (c *Conn) Complete(ctx context.Context, ref CompleteRef, arg, value string, args map[string]string) ([]string, error) {
	if !c.Caps.Completions {
		return nil, Unsupported(c.T.Name, "completions")
	}
	raw, err := c.callRaw(ctx, "completion/complete", func(ctx context.Context) (json.RawMessage, error) {
		var p mcp.CompleteParams
		if ref.Prompt != "" {
			p.Ref = mcp.PromptReference{Type: "ref/prompt", Name: ref.Prompt}
		} else {
			p.Ref = mcp.ResourceReference{Type: "ref/resource", URI: ref.URI}
		}
		p.Argument = mcp.CompleteArgument{Name: arg, Value: value}
		p.Context = mcp.CompleteContext{Arguments: args}
		return c.plain(ctx, "completion/complete", p)
	})
	if err != nil {
		return nil, err
	}
	var res struct {
		Completion struct {
			Values []json.RawMessage `json:"values"`
		} `json:"completion"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, serverError(c.T.Name, "completion/complete", fail.RPCError{Message: "the result is not a completion: " + err.Error()}, "")
	}
	values := make([]string, 0, len(res.Completion.Values))
	for _, v := range res.Completion.Values {
		var s string
		if json.Unmarshal(v, &s) == nil {
			values = append(values, s)
		}
	}
	return values, nil
}
