//go:build race && unix

package test

import (
	"os"
	"strings"
	"syscall"
)

func init() {
	// Under the race detector mcpx (this test binary) starts and runs
	// several times slower: within scales its bounds.
	withinScale = 4
	raceDetector = true

	// A binary built with -race sleeps for GORACE's atexit_sleep_ms (1 s
	// by default) before it exits with status 0, so a stdio fixture would
	// never exit within the grace mcpx gives a server between closing its
	// stdin and SIGTERM (100 ms: see SERVER PROCESSES in mcpx(1)), and
	// every log showing a server that ends on its own at EOF would show a
	// SIGTERM instead. The fixture leaves without that sleep (what the race
	// detector found is reported when found, on the fixture's stderr).
	exitServed = func() { syscall.Exit(0) }

	// And mcpx itself (what the scripts run directly, with the scripts'
	// environment) need not wait a second at each exit either.
	scriptGORACE = strings.TrimSpace("atexit_sleep_ms=0 " + os.Getenv("GORACE"))
}
