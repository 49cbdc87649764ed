//go:build !unix

package output

// oNoFollow: O_EXCL alone (CREATE_NEW on Windows) already refuses an
// existing name, symbolic link or junction included.
const oNoFollow = 0
