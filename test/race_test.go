//go:build race

package test

// Under the race detector mcpx (this test binary) starts and runs several
// times slower: within scales its bounds.
func init() { withinScale = 4 }
