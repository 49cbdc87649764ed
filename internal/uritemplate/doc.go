// Package uritemplate reads RFC 6570 URI templates the way mcpx uses them:
// the variables of a server's template (describe, completion), whether a
// URI could be one of its expansions (read's "not found"), and the level-1
// expansion of read's VAR=VALUE pairs (see "mcpx read" in mcpx(1)).
//
// The grammar of an expression, its operator, variables and modifiers, is
// github.com/yosida95/uritemplate's, the implementation mcp-go itself
// uses. mcpx adds what the library does not do: the level-1 gate, errors
// that show the expression and teach the fix, the percent-encoding of a
// value's UTF-8 bytes, and a brace scan that lets literal text through
// unchanged (the library refuses a space or a stray "}" in a literal).
//
// It imports nothing of mcpx's.
package uritemplate
