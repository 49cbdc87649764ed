// Package completions is mcpx's live, staged shell completion. Complete
// turns the words of a command line into suggestions, asking a source (the
// servers, through commands) only for what the stage needs; Write prints
// them for the bash, zsh and fish scripts of this package (Script). It never
// reports an error: a suggestion that cannot be had is no suggestion.
//
// Why not urfave/cli's own completion: its protocol prints "value:description"
// lines (a URI's colon becomes a description), passes the word being
// completed only when it starts with "-", and its bash script needs the
// bash-completion package and feeds server-sent names through compgen -W,
// which expands $(...) in them. Here the scripts hand mcpx the whole line,
// values are separated from descriptions by a tab, and the text bash inserts
// is computed and escaped in Go.
package completions
