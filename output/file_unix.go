//go:build unix

package output

import "syscall"

// oNoFollow keeps the temporary file from being a symbolic link planted
// under its name.
const oNoFollow = syscall.O_NOFOLLOW
