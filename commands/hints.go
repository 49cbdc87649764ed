// What would help, worded for the command line: the hints of the final
// error (see classify). Every error type below commands returns data (the
// scopes a server requires, the command that is not installed, ...); the
// flags, commands and config keys it points at are named here alone.

package commands

import (
	"slices"

	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/client/auth"
	"github.com/mcpx-cli/mcpx/client/config"
	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// hints says what would help with f.
func hints(f failure) []string {
	switch e := f.(type) {
	case *AmbiguousError:
		return []string{"name one of them as KIND:ID, or pass --kind"}
	case *UsageError:
		return e.Hints
	case *config.NotFoundError:
		return e.Hints
	case *transport.ConnectError:
		return e.Hints
	case *client.TimeoutError:
		if e.Phase == "login" {
			return []string{"login waits 5 minutes for the browser unless --timeout says otherwise"}
		}
		return append(slices.Clone(e.Hints), "raise the bound with --timeout, or \"timeout\" in the server's config entry")
	case *client.ServerError:
		return urlElicitations(e.RPC)
	case *auth.Error:
		return e.Hints()
	}
	return nil
}

// stderrLines are the last lines a server wrote on stderr that explain f.
func stderrLines(f failure) []string {
	switch e := f.(type) {
	case *transport.ConnectError:
		return e.Stderr
	case *client.TimeoutError:
		return e.Stderr
	}
	return nil
}

// urlElicitationRequired is the error a server answers when the user must
// first visit a URL (URL-mode elicitation, MCP 2025-11-25).
const urlElicitationRequired = -32042

// urlElicitations returns a hint for each URL a -32042 error asks the user
// to visit (mcpx opens none itself).
func urlElicitations(rpc transport.RPCError) []string {
	if rpc.Code != urlElicitationRequired || len(rpc.Data) == 0 {
		return nil
	}
	var hints []string
	gjson.GetBytes(rpc.Data, "elicitations").ForEach(func(_, e gjson.Result) bool {
		// A URL is shown whole or not at all: one cut short is of no use,
		// and could show part of a secret that masking would not find.
		if u := text.Squash(e.Get("url").String()); u != "" && len(u) <= 2000 && len(hints) < 5 {
			hints = append(hints, "open this URL, then run the command again: "+u)
		}
		return true
	})
	return hints
}
