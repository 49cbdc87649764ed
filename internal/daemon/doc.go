// Package daemon keeps MCP connections warm between mcpx invocations (see
// WARM CONNECTIONS in mcpx(1), and docs/daemon.md for the design). It
// holds both ends of the daemon's socket: the daemon (Serve) and the
// caller's end (Open), which an mcpx process uses as its transport.
//
// The daemon is the mcpx binary itself, started in the background on first
// use (Attach), in a session of its own with no terminal. It listens on a
// Unix socket in a private directory (SocketDir), serves only peers of its
// own uid (kernel peer credentials), and holds one live connection per
// target: the fully resolved server entry, hashed (Spec.Key). It only
// forwards raw JSON-RPC: a caller's requests go to the server with ids
// and progress tokens mapped, the server's requests and notifications go
// to the caller whose request is in flight, and everything else
// (rendering, masking, errors, elicitation on the caller's terminal) stays
// in the calling process, which sees the socket as one more stdio-like
// transport (Open). The daemon answers the handshake (initialize,
// server/discover) of every caller after the first from the server's
// first answer, and listings from its cache (Cache).
//
// A hello line opens every socket connection (Hello, Reply): the protocol
// version and the build identity (BuildID); a CLI and a daemon of
// different builds never talk — the CLI asks the old daemon to exit (the
// "exit" operation is understood by every version), kills it if it must,
// and starts its own. Status and Stop are `mcpx daemon status` and
// `mcpx daemon stop`.
//
// After an attach, what the daemon says besides the server's messages
// goes to the caller as notifications of its own (MethodStderr,
// MethodSkipped, MethodLost, MethodOneShot, MethodFailed), which Open
// takes off the stream and reports to the caller's Events.
//
// The package is a peer of the client over client/transport, which it
// imports; client and commands import it, and nothing below them does.
package daemon
