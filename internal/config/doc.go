// Package config finds the MCP servers an invocation can use: it reads
// and merges the config files (Load, Config, Server), finds the server a
// SRV argument names (Lookup, the built-in demo), and resolves a server
// into a Target ready to connect to (Resolve: ${...} expansion, the
// child's environment, headers, the timeout). It owns the rule for which
// names and values are secrets (IsSecretName, HeaderSecrets, URLSecrets)
// and the errors of this level: Error for a broken file or entry, and
// NotFoundError for a name that does not exist. It also reads the other
// hosts' config files (Sources, ReadSource) and writes what mcpx import
// copies from them into the user file (ImportEntry, EditServers).
//
// It imports client/transport only for RPCError (a NotFoundError carries
// the server's error reply when there was one), and the internal leaves
// text and userfile. It never connects to anything.
package config
