//go:build !linux

package transport

// BecomeSubreaper is a no-op where there is no child subreaper.
func BecomeSubreaper() {}

// StopOrphans is a no-op where there is no child subreaper.
func StopOrphans() {}

// Spare is a no-op where StopOrphans is one.
func Spare(int) {}
