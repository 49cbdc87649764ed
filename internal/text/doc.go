// Package text holds the small string helpers that several packages of
// mcpx share: quoting a server's string on one line of a message
// (Escape, FirstLine, Squash), cutting it short (FirstChars, Clip,
// ClipBytes, Truncate), masking a window of it (MaskWindow), shell words
// (QuoteWord), sizes (HumanBytes), compact JSON, and the audited
// zero-copy views between []byte and string (StringView, BytesView,
// SubSlice).
//
// It imports nothing of mcpx's, and knows nothing of servers, flags or
// terminals.
package text
