// Package output owns everything mcpx writes: the result on stdout and the one
// voice on stderr (notes, warnings, hints, errors). It computes the terminal
// facts once, applies terminal safety to any stream that is a terminal, masks
// the secrets of its set (Streams.Secrets) everywhere, and knows nothing about MCP.
package output
