//go:build !unix && !windows

package output

import "os"

// termWidth is 0: the width is not known on this system.
func termWidth(*os.File) int { return 0 }
