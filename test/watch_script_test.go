package test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"

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

// injectID is the id of the request mcpx-inject writes; the answer to
// it is not passed on.
const injectID = `"id":"mcpx-inject"`

// injectMain is mcpx-inject AFTER LINE -- CMD ARGS...: run CMD, copying
// stdin to it line by line, and once a line containing AFTER has been
// copied, write LINE to it too (once): a request of the test's own (id
// "mcpx-inject", whose answer is dropped from CMD's stdout) on the session
// of the client whose stdin this is: server-everything's
// toggle-subscriber-updates, on mcpx watch's session. CMD's stderr is
// this program's.
func injectMain() {
	if len(os.Args) < 5 || os.Args[3] != "--" {
		fmt.Fprintln(os.Stderr, "usage: mcpx-inject AFTER LINE -- CMD [ARGS...]")
		os.Exit(2)
	}
	after, line := os.Args[1], os.Args[2]
	cmd := exec.Command(os.Args[4], os.Args[5:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	var out io.ReadCloser
	if err == nil {
		out, err = cmd.StdoutPipe()
	}
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpx-inject:", err)
		os.Exit(1)
	}
	go copyInjecting(in, after, line)
	r := bufio.NewReader(out)
	for {
		l, err := r.ReadBytes('\n')
		if !strings.Contains(string(l), injectID) {
			_, _ = os.Stdout.Write(l)
		}
		if err != nil {
			break
		}
	}
	if err := cmd.Wait(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			os.Exit(ee.ExitCode())
		}
		os.Exit(1)
	}
	os.Exit(0)
}

// copyInjecting copies stdin to in, line by line, and line after the first
// line containing after; then it closes in.
func copyInjecting(in io.WriteCloser, after, line string) {
	r := bufio.NewReader(os.Stdin)
	injected := false
	for {
		l, err := r.ReadBytes('\n')
		if _, werr := in.Write(l); werr != nil {
			break
		}
		if !injected && strings.Contains(string(l), after) {
			injected = true
			_, _ = in.Write([]byte(line + "\n"))
		}
		if err != nil {
			break
		}
	}
	_ = in.Close()
}
