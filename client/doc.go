// Package client talks to one MCP server over one connection: Connect
// starts or reaches the server (through client/transport), initializes,
// and records its capabilities; the connection's operations list, find,
// call, read, complete and answer what the server asks meanwhile
// (elicitations, roots, logs, progress). It performs one MCP operation
// per call and returns typed values and the failures of internal/fail
// (see errors.go); it never formats
// anything for people and knows nothing about flags or terminals.
//
// mcp-go's Client starts the transport, runs the handshake and dispatches
// the server's requests and notifications; the operations' own requests
// go through Conn.request (wire.go), which returns the raw result the
// server sent, or a typed error, and runs the 2026-07-28 era's
// input_required rounds itself (Conn.roundTrips).
//
// The request path: an operation (CallTool, ReadResource, a page of a
// listing) gives callRaw a send function, which callRawOnce runs under a
// context that also ends when the connection is lost (guard). send calls
// Conn.request (through roundTrips for a request that may take
// input_required rounds), which adds the 2026-07-28 era's _meta
// (requestMeta, with the request's options such as declareTasks) and
// headers, writes the request through the tap and returns the result the
// server sent, unparsed: the operation parses it. The failure path: what
// send returns instead is classified once, in callRawOnce. classifyCall
// reads the server's own answer (a JSON-RPC error reply, a reply that
// breaks JSON-RPC, an HTTP 401 or 403); anything else goes to classify (a
// limit met, the connection lost or the server dead, the deadline, a
// framing violation). A request abandoned because ctx ended is cancelled
// with the server first. A refusal of the 2026-07-28 era (-32022, a
// ConnectError wrapping a versionRefusal) makes callRaw renegotiate, once
// per connection: a new connection at a legacy version replaces this
// one (adopt), and send runs again.
//
//	operation ─▶ callRaw ─▶ callRawOnce ─▶ send(guard(ctx)) ─▶ request ─▶ tap ─▶ server
//	                                         │
//	     result ◀───────────────────────────┤ the raw result
//	                                         │ an error:
//	                                         ├─ classifyCall: ServerError, UnsupportedError,
//	                                         │   BadReplyError, auth.Error, ConnectError
//	                                         │   └─ -32022 ─▶ callRaw: renegotiate, adopt, send again
//	                                         └─ classify: limits.Error, ConnectError (lost,
//	                                             died, framing), TimeoutError, ctx.Err()
//
// Where a server comes from is internal/config's concern, its stored OAuth
// tokens client/auth's, and how messages travel client/transport's; this
// package imports those and internal packages, and nothing else of mcpx's.
package client
