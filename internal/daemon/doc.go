// Package daemon keeps MCP connections warm between mcpx invocations (see
// WARM CONNECTIONS in mcpx(1), and docs/daemon.md for the design). It
// holds both ends of the daemon's socket: the daemon (Serve) and the
// caller's end (Open), which an mcpx process uses as its transport.
//
// The daemon is the mcpx binary itself, started in the background on first
// use (Attach), in a session of its own with no terminal. It listens on a
// Unix socket of its build in a private directory (choose), serves only
// peers of its own uid (kernel peer credentials), and holds one live
// connection per target: the fully resolved server entry, hashed
// (Spec.Key). It only forwards raw JSON-RPC: a caller's requests go to
// the server with ids and progress tokens mapped, the server's requests
// and notifications go to the caller whose request is in flight, and
// everything else (rendering, masking, errors, elicitation on the
// caller's terminal) stays in the calling process, which sees the socket
// as one more stdio-like transport (Open). The daemon answers the handshake (initialize,
// server/discover) of every caller after the first from the server's
// first answer, and listings from its cache (Cache).
//
// A hello line opens every socket connection (Hello, Reply): the protocol
// version and the build identity (BuildID). Each build has a daemon of its
// own, on a socket named after the build: builds side by side never stop
// each other, and a daemon whose executable changed on disk drains. Status,
// Stop and StopAll are `mcpx daemon status`, `mcpx daemon stop` and
// `mcpx daemon stop --all`: another build's daemon is asked only status
// and "exit", which every version understands.
//
// After an attach, what the daemon says besides the server's messages
// goes to the caller as notifications of its own (MethodStderr,
// MethodSkipped, MethodLost, MethodOneShot, MethodFailed), which Open
// takes off the stream and reports to the caller's Events.
//
// The package is a peer of the client over client/transport, which it
// imports; client and commands import it, and nothing below them does.
package daemon
