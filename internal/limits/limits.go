// Package limits holds mcpx's named safety limits (see LIMITS in mcpx(1))
// and their error, which the transports (a message too large) and the
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

// The limits of LIMITS in mcpx(1). Every message that applies one names it and
// its value.
const (
	// DefaultPage is the default --max-bytes.
	DefaultPage = 51200
	// SliceClamp is the largest page, and the tool text and structured content ceiling.
	SliceClamp = 204800
	// ResponseCeiling bounds the text bytes of one whole rendered response.
	ResponseCeiling = 204800
	// DecodeCeiling bounds the decoded bytes of all blobs of one response.
	DecodeCeiling = 50 << 20
	// MessageCeiling bounds one JSON-RPC message (a stdio line or an HTTP body).
	MessageCeiling = 128 << 20
	// SpillBudget bounds the total size of the spill directory tree.
	SpillBudget = 512 << 20
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
