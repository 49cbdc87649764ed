//go:build !unix

package ascaller

import "os/exec"

// Supported: no umask nor resource limits to pass on here.
const Supported = false

// Capture: nothing to pass on.
func Capture() *Attrs { return nil }

// Wrap leaves cmd as it is.
func Wrap(*exec.Cmd, *Attrs) error { return nil }

// Trampoline: never one here.
func Trampoline() {}
