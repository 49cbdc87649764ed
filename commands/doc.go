// Package commands is mcpx's command line: one file per subcommand, each
// parsing its arguments into options, validating them before any side
// effect, doing one operation through client, rendering through render and
// printing through output. Errors travel back up as typed values; exit.go
// maps them to the exit codes of EXIT STATUS in mcpx(1) in one place.
package commands
