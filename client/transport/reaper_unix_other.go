//go:build unix && !linux

package transport

// reapGroup: no subreaper here, nothing of the group is mcpx's to reap.
func reapGroup(int) {}
