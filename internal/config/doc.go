// Package config finds the MCP servers an invocation can use: it reads
// and merges the config files (Load, Config, Server), finds the server a
// SRV argument names (Lookup, the built-in demo), and resolves a server
// into a Target ready to connect to (Resolve: ${...} expansion, the
// child's environment, headers, the timeout). It owns the rule for which
// names and values are secrets (IsSecretName, HeaderSecrets, URLSecrets).
// A broken file or entry is a usage *fail.Error, a name that does not
// exist a not_found one. It also reads the other hosts' config files
// (Sources, ReadSource) and writes what mcpx import copies from them into
// the user file (ImportEntry, EditServers).
//
// It imports internal packages only. It never connects to anything.
package config
