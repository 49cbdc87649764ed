// Package daemon keeps MCP connections warm between mcpx invocations (see
// WARM CONNECTIONS in mcpx(1), and docs/daemon.md for the design).
//
// The daemon is the mcpx binary itself, started in the background on first
// use (Dial), in a session of its own with no terminal. It listens on a
// Unix socket in a private directory (SocketDir), serves only peers of its
// own uid (kernel peer credentials), and holds one live connection per
// target: the fully resolved server entry, hashed (Spec.Key). It only
// forwards raw JSON-RPC: a caller's requests go to the server with ids
// mapped, the server's requests and notifications go to the caller whose
// request is in flight, and everything else (rendering, masking, errors,
// elicitation on the caller's terminal) stays in the calling process, which
// sees the socket as one more stdio-like transport. The daemon answers the
// handshake (initialize, server/discover) of every caller after the first
// from the server's first answer, and listings from its cache (Cache).
//
// A hello line opens every socket connection (Hello, Reply): the protocol
// version and the build identity (BuildID); a CLI and a daemon of
// different builds never talk — the CLI asks the old daemon to exit (the
// "exit" operation is understood by every version), kills it if it must,
// and starts its own.
package daemon
