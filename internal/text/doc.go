// Package text holds the small string helpers that several packages of
// mcpx share: quoting a server's string on one line of a message
// (Escape, FirstLine, Squash), cutting it short (FirstChars, Clip,
// ClipBytes, Truncate), masking a window of it (MaskWindow), shell words
// (QuoteWord), sizes (HumanBytes) and compact JSON.
//
// It imports nothing of mcpx's, and knows nothing of servers, flags or
// terminals.
package text
