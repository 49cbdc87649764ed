package render

import (
	"fmt"

	"github.com/mcpx-cli/mcpx/internal/text"
)

// LimitError: a named limit (LIMITS in mcpx(1)) refused the content or the
// spill directory (exit 8). Msg says what happened; Error names the limit and
// its value.
type LimitError struct {
	Limit string // the named limit, e.g. "decode ceiling"; "spill directory" for directory checks
	Value int64  // its value in bytes (0 when the limit is not a size)
	Msg   string
}

func (e *LimitError) Error() string {
	if e.Value == 0 {
		return e.Msg
	}
	return fmt.Sprintf("%s: over the %s of %s", e.Msg, e.Limit, text.HumanBytes(e.Value))
}

// BadContentError: an item of a server's reply cannot be rendered — a
// resource item with both text and blob or neither, invalid base64 (exit 1,
// bad_content). Item is the item's index in the reply, -1 for the result as a whole.
type BadContentError struct {
	Item  int
	URI   string // the item's uri, when it has one
	Where string // where the item is, when Item alone does not say: "message #2"
	Msg   string
}

func (e *BadContentError) Error() string {
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
