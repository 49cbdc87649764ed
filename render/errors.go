package render

import (
	"fmt"

	"github.com/mcpx-cli/mcpx/internal/fail"
)

// BadContentError: an item of a server's reply cannot be rendered — a
// resource item with both text and blob or neither, invalid base64 (exit 1,
// bad_content). Item is the item's index in the reply, -1 for the result as a whole.
// Server and Method, which the caller fills in, say whose reply it was.
type BadContentError struct {
	Item   int
	URI    string // the item's uri, when it has one
	Where  string // where the item is, when Item alone does not say: "message #2"
	Msg    string
	Server string
	Method string // e.g. "resources/read"
}

func (e *BadContentError) Error() string {
	if e.Server != "" {
		return fmt.Sprintf("server %q: %s: %s", e.Server, e.Method, e.what())
	}
	return e.what()
}

// FailCode is fail.BadContent: under --json, the error's "item" is the
// item's index (none for the result as a whole).
func (e *BadContentError) FailCode() fail.Code { return fail.BadContent }

// what is the message without the server and method.
func (e *BadContentError) what() string {
	if e.Item < 0 { // the result as a whole
		return e.Msg
	}
	where := ""
	if e.Where != "" {
		where = e.Where + ", "
	}
	if e.URI != "" {
		return fmt.Sprintf("%sitem #%d (%s): %s", where, e.Item, e.URI, e.Msg)
	}
	return fmt.Sprintf("%sitem #%d: %s", where, e.Item, e.Msg)
}
