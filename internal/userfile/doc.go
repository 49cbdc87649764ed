// Package userfile holds what mcpx needs of files that only the user may
// write: exclusive locks on lock files (flock; LockFileEx on Windows),
// opening without following a symbolic link, and the checks that a file or
// directory is the user's own (owner, mode, no link) before anything in it
// is trusted. The token store, the user config file's writer and the state
// directory use it.
package userfile
