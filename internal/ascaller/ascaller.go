// Package ascaller carries what a stdio server inherits from the process
// that starts it, besides its environment, from a caller to the process
// that starts the server for it: the mcpx daemon starts a warm server
// with the umask and resource limits of the caller that asked for it (see
// WARM CONNECTIONS in mcpx(1)). Go cannot set those for a child it
// starts, so the server is started through mcpx itself: Wrap makes the
// command run mcpx with the attributes in its environment, and Trampoline,
// first thing in mcpx's main, sets them and executes the server in place.
package ascaller

import (
	"fmt"
	"slices"
	"strings"
)

// Attrs are a process's attributes that a server it starts inherits.
type Attrs struct {
	Umask  int     `json:"umask"` // -1: not known
	Limits []Limit `json:"limits,omitempty"`
}

// Limit is one resource limit (setrlimit).
type Limit struct {
	Name string `json:"name"` // "nofile", "as", ...: the RLIMIT_ name in lower case
	Cur  uint64 `json:"cur"`
	Max  uint64 `json:"max"`
	// Raised: the soft limit on open files is the one Go's runtime set at
	// the caller's start (the hard one, less one), not the caller's own,
	// which no Go program can read: the server keeps the soft limit its
	// starter gives a child (under the caller's hard limit).
	Raised bool `json:"raised,omitempty"`
}

// Key is what makes a along with the rest of a target: one string a
// limit, in a fixed order.
func (a *Attrs) Key() []string {
	if a == nil {
		return nil
	}
	k := []string{fmt.Sprintf("umask %04o", a.Umask)}
	if a.Umask < 0 {
		k[0] = "umask unknown"
	}
	for _, l := range a.Limits {
		if l.Raised {
			k = append(k, fmt.Sprintf("limit %s raised %d", l.Name, l.Max))
			continue
		}
		k = append(k, fmt.Sprintf("limit %s %d %d", l.Name, l.Cur, l.Max))
	}
	slices.Sort(k[1:])
	return k
}

// envVar marks a trampoline: it holds the server's path and the
// attributes to set (JSON). The server never sees it.
const envVar = "MCPX_AS_CALLER_EXEC"

// trampoline is envVar's value.
type trampoline struct {
	Path  string `json:"path"`
	Attrs Attrs  `json:"attrs"`
}

// withoutMark is env without envVar.
func withoutMark(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, envVar+"=") })
}
