// Package text holds the small string helpers that several packages of
// mcpx share: quoting a server's string on one line of a message
// (Escape, OneLine, Squash, EscapeClip, QuoteClip), cutting it short
// (FirstChars, FirstBytes, Clip, ClipBytes, Truncate), the window a
// message quotes from (ClipWindow), shell words (QuoteWord), counts and sizes (Plural,
// HumanBytes), compact JSON (CompactJSON), and the audited zero-copy
// views between []byte and string (StringView, BytesView, SubSlice,
// Within, SliceHeader), the one place mcpx imports unsafe.
//
// It imports nothing of mcpx's, and knows nothing of servers, flags or
// terminals.
package text
