// Package transport carries JSON-RPC messages between mcpx and one MCP
// server, and owns what can go wrong on the way. Over stdio: starting the
// server in a session of its own and stopping it (Process, StartProcess,
// the subreaper of StopOrphans), framing its stdout into messages under
// the message ceiling (Stdio). Over HTTP: the round tripper under mcp-go's
// streamable HTTP and SSE transports (HTTP), with its bounded bodies,
// same-origin policy and authentication challenges. Its errors are those
// of internal/fail and internal/limits (limits.Error); a server that
// breaks the framing ends its stream, and Limit records the violation
// (Limit.Violation) for the connection to classify.
//
// It imports nothing of mcpx's but internal packages: it knows nothing of
// config files, tokens, MCP operations, flags or terminals.
package transport
