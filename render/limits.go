package render

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
