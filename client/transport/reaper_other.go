//go:build !linux

package transport

// BecomeSubreaper is a no-op where there is no child subreaper.
func BecomeSubreaper() {}

func reapGroup(int) {}

// StopOrphans is a no-op where there is no child subreaper.
func StopOrphans() {}
