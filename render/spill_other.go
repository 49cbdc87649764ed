//go:build !unix

package render

import "io/fs"

// oNoFollow: O_EXCL alone already refuses an existing name, symlink or not.
const oNoFollow = 0

// fileOwner: no uid to compare on this system; the symlink and mode checks remain.
func fileOwner(fs.FileInfo) (int, bool) { return 0, false }
