// Package commands is mcpx's command line: one file per subcommand, each
// parsing its arguments into options, validating them before any side
// effect, doing one operation through client, rendering through render and
// printing through output. Errors travel back up as the failures of
// internal/fail; exit.go maps them to the exit codes of EXIT STATUS in
// mcpx(1) and builds the --json error document from their fields, in one
// place, and hints.go words what would help.
package commands
