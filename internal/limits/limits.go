// Package limits holds the error of mcpx's named safety limits (see
// LIMITS in mcpx(1)), which the transports (a message too large) and the
// renderer (blobs too large to decode, a spill directory refused) both
// raise: one type, whatever the layer that met the limit.
//
// It imports nothing of mcpx's but internal/fail and internal/text.
package limits

import (
	"fmt"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// Error: a named limit refused what a server sent, or the spill directory
// (exit 8). Msg says what happened; Error adds the limit and its value.
type Error struct {
	Limit string // the named limit, e.g. "message ceiling"; "spill directory" for directory checks
	Value int64  // its value in bytes (0 when the limit is not a size)
	Msg   string
}

func (e *Error) Error() string {
	if e.Value == 0 {
		return e.Msg
	}
	return fmt.Sprintf("%s: over the %s of %s", e.Msg, e.Limit, text.HumanBytes(e.Value))
}

// FailCode is fail.Limit: under --json, the error's "limit" is the
// limit's name and its value in bytes (null for a limit that is not a
// size).
func (e *Error) FailCode() fail.Code { return fail.Limit }
