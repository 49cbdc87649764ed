//go:build unix

package test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// replace FILE OLD NEW: replace every OLD in FILE by NEW (the scripts of
// other hosts' config files put $WORK and fixture URLs into files that
// have no variables of their own).
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	if !strings.Contains(string(data), args[1]) {
		ts.Fatalf("%s does not contain %q", args[0], args[1])
	}
	ts.Check(os.WriteFile(path, []byte(strings.ReplaceAll(string(data), args[1], args[2])), 0o644))
}

// parallel N PROG ARGS... [-- PROG ARGS...]...: run N copies of each
// command at once, {i} in ARGS replaced by each copy's number (00, 01,
// ...), and require that every copy exit 0. Their outputs are dropped.
func cmdParallel(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: parallel N PROG [ARGS...] [-- PROG [ARGS...]]...")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	var cmds [][]string
	for rest := args[1:]; len(rest) > 0; {
		i := slices.Index(rest, "--")
		if i < 0 {
			i = len(rest)
		}
		if i == 0 {
			ts.Fatalf("parallel: an empty command")
		}
		cmds = append(cmds, rest[:i])
		rest = rest[min(i+1, len(rest)):]
	}
	errs := make(chan error, n*len(cmds))
	for i := range n {
		for _, c := range cmds {
			argv := make([]string, len(c)-1)
			for k, a := range c[1:] {
				argv[k] = strings.ReplaceAll(a, "{i}", fmt.Sprintf("%02d", i))
			}
			go func() {
				out, err := scriptCmd(ts, c[0], argv...).CombinedOutput()
				if err != nil {
					err = fmt.Errorf("%s %s: %v\n%s", c[0], strings.Join(argv, " "), err, out)
				}
				errs <- err
			}()
		}
	}
	for range n * len(cmds) {
		if err := <-errs; err != nil {
			ts.Fatalf("%v", err)
		}
	}
}
