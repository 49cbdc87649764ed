// Package test holds mcpx's end-to-end tests: testscript scripts that drive
// the real mcpx entry point (the test binary becomes mcpx) against fixture
// MCP servers started the way users start theirs — stdio children, and
// streamable-HTTP and SSE servers on loopback.
package test

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpx-cli/mcpx/commands"
	"github.com/mcpx-cli/mcpx/output"
	"github.com/mcpx-cli/mcpx/test/fixture"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"mcpx": func() { os.Exit(commands.Main(os.Args, output.System())) },
		// mcpx-fixture MODE: a stdio fixture server (see test/fixture).
		"mcpx-fixture": func() {
			if len(os.Args) != 2 {
				fmt.Fprintf(os.Stderr, "usage: mcpx-fixture MODE (one of %s)\n", strings.Join(fixture.Modes(), ", "))
				os.Exit(2)
			}
			if err := fixture.ServeStdio(os.Args[1]); err != nil {
				fmt.Fprintln(os.Stderr, "mcpx-fixture:", err)
				os.Exit(1)
			}
		},
	})
}

func TestScript(t *testing.T) {
	testscript.Run(t, params("testdata/script"))
}

func params(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("MCPX_UPDATE_GOLDEN") != "",
		Setup: func(env *testscript.Env) error {
			env.Setenv("MCPX_CACHE_DIR", filepath.Join(env.WorkDir, "cache"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, "xdg"))
			env.Setenv("MCPX_FIXTURE_PIDFILE", filepath.Join(env.WorkDir, "fixture.pid"))
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"fixture-http": cmdFixtureHTTP,
			"exitcode":     cmdExitCode,
			"signal":       cmdSignal,
			"closedstdout": cmdClosedStdout,
			"gone":         cmdGone,
		},
	}
}

// fixture-http VAR MODE: start an HTTP fixture server on loopback; VAR gets its URL.
func cmdFixtureHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: fixture-http VAR MODE")
	}
	h, err := fixture.NewHTTP(args[1])
	ts.Check(err)
	srv := httptest.NewServer(h)
	ts.Defer(srv.Close)
	u := srv.URL + "/mcp"
	switch args[1] {
	case "sse":
		u = srv.URL + "/sse"
	case "redirect":
		u = srv.URL // the script picks the path: /same or /foreign
	}
	ts.Setenv(args[0], u)
}

// exitcode N PROG ARGS...: run PROG (like exec) and require exit status N.
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// scriptCmd builds a command that runs with the script's environment.
func scriptCmd(ts *testscript.TestScript, prog string, args ...string) *exec.Cmd {
	path := prog
	if !strings.Contains(prog, "/") {
		for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
			if p := filepath.Join(dir, prog); fileExists(p) {
				path = p
				break
			}
		}
	}
	cmd := exec.Command(path, args...)
	cmd.Args[0] = prog
	cmd.Dir = ts.MkAbs(".")
	keys := []string{"PATH", "HOME", "WORK", "TMPDIR", "MCPX_CONFIG", "MCPX_CACHE_DIR", "XDG_CONFIG_HOME", "MCPX_FIXTURE_PIDFILE"}
	env := os.Environ()
	for _, k := range keys {
		env = append(env, k+"="+ts.Getenv(k))
	}
	cmd.Env = env
	return cmd
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// signal SIG N PROG ARGS...: start PROG, wait until the fixture has written
// $MCPX_FIXTURE_PIDFILE, send SIG (INT, TERM, HUP) to PROG, and require exit
// status N. Then the fixture process must be gone. PROG's output is left in
// signal.stdout and signal.stderr.
func cmdSignal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: signal SIG N PROG [ARGS...]")
	}
	sigs := map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP}
	sig, ok := sigs[args[0]]
	if !ok {
		ts.Fatalf("unknown signal %s", args[0])
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	pidfile := ts.Getenv("MCPX_FIXTURE_PIDFILE")
	_ = os.Remove(pidfile)
	cmd := scriptCmd(ts, args[2], args[3:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	ts.Check(cmd.Start())
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(pidfile); err == nil && len(bytes.TrimSpace(b)) > 0 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			ts.Fatalf("the fixture never wrote %s", pidfile)
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // let mcpx reach its request
	start := time.Now()
	ts.Check(cmd.Process.Signal(sig))
	err = cmd.Wait()
	elapsed := time.Since(start)
	ts.Logf("[stderr]\n%s", stderr.String())
	got := 0
	if ee, ok := err.(*exec.ExitError); ok {
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d after SIG%s, want %d", args[2], got, args[0], want)
	}
	if elapsed > 3*time.Second {
		ts.Fatalf("%s took %s to exit after the signal", args[2], elapsed)
	}
	if err := os.WriteFile(ts.MkAbs("signal.stderr"), stderr.Bytes(), 0o644); err != nil {
		ts.Fatalf("%v", err)
	}
	if err := os.WriteFile(ts.MkAbs("signal.stdout"), stdout.Bytes(), 0o644); err != nil {
		ts.Fatalf("%v", err)
	}
	cmdGone(ts, false, []string{pidfile})
}

// closedstdout N PROG ARGS...: run PROG with a stdout whose reader is
// already closed, and require exit status N and an empty stderr.
func cmdClosedStdout(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: closedstdout N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	r, w, err := os.Pipe()
	ts.Check(err)
	r.Close()
	cmd := scriptCmd(ts, args[1], args[2:]...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	err = cmd.Run()
	w.Close()
	got := 0
	if ee, ok := err.(*exec.ExitError); ok {
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d with stdout closed, want %d; stderr:\n%s", args[1], got, want, stderr.String())
	}
	if stderr.Len() > 0 {
		ts.Fatalf("%s wrote to stderr with stdout closed:\n%s", args[1], stderr.String())
	}
}

// gone PIDFILE: the process whose pid PIDFILE holds no longer exists.
func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gone PIDFILE")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	ts.Check(err)
	deadline := time.Now().Add(500 * time.Millisecond)
	for {
		if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
			return
		}
		if zombieOrGone(pid) && time.Now().After(deadline) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("process %d is still running", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// zombieOrGone reports whether pid has exited (a zombie waits only for its reaper).
func zombieOrGone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z'
	}
	return false
}
