// Package client talks to one MCP server over one connection: Connect
// starts or reaches the server (through client/transport), initializes,
// and records its capabilities; the connection's operations list, find,
// call, read, complete and answer what the server asks meanwhile
// (elicitations, roots, logs, progress). It performs one MCP operation
// per call and returns typed values and typed errors; it never formats
// anything for people and knows nothing about flags or terminals.
//
// mcp-go's Client starts the transport, runs the handshake and dispatches
// the server's requests and notifications; the operations' own requests
// go through Conn.request (wire.go), which returns the raw result the
// server sent, or a typed error, and runs the 2026-07-28 era's
// input_required rounds itself (Conn.roundTrips).
//
// Where a server comes from is internal/config's concern, its stored OAuth
// tokens client/auth's, and how messages travel client/transport's; this
// package imports those and internal packages, and nothing else of mcpx's.
package client
