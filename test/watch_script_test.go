package test

import (
	"os"
	"regexp"

	"github.com/rogpeppe/go-internal/testscript"
)

// stampRE matches the time of an event of mcpx watch.
var stampRE = regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\b`)

// stamps FILE: replace the times of mcpx watch's events in FILE by TIME,
// after checking that they never go back (the file is the script's stdout
// when FILE is "stdout").
func cmdStamps(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: stamps FILE")
	}
	var data string
	if args[0] == "stdout" {
		data = ts.ReadFile("stdout")
	} else {
		b, err := os.ReadFile(ts.MkAbs(args[0]))
		ts.Check(err)
		data = string(b)
	}
	last := ""
	for _, s := range stampRE.FindAllString(data, -1) {
		if s < last {
			ts.Fatalf("%s: time %s after %s", args[0], s, last)
		}
		last = s
	}
	out := stampRE.ReplaceAllString(data, "TIME")
	name := args[0]
	if name == "stdout" {
		name = "stdout.stamped"
	}
	ts.Check(os.WriteFile(ts.MkAbs(name), []byte(out), 0o644))
}
