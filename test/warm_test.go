//go:build unix

package test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpx-cli/mcpx/internal/daemon"
)

// warmSkips are the scripts TestScriptWarm does not run, and why: they are
// about process lifetime or process-level behaviour that a warm connection
// changes by design (the server outlives the invocation), or they already
// exercise the daemon themselves.
var warmSkips = map[string]string{
	// Process lifetime: a warm server outlives the invocation by design.
	"robust_orphans":        "checks that no server outlives mcpx",
	"robust_flood":          "checks that the server is stopped after the call",
	"connect_timeout":       "checks that the server is stopped after a timeout",
	"connect_signals":       "checks that the server is stopped after a signal",
	"serverreq_cancel":      "checks that the server is stopped after an interrupt",
	"hostile_serverreq":     "checks that the server is stopped after the call",
	"completion_guard":      "checks that a TAB over budget stops its server (completionKeepAlive 0)",
	"prompt_invoke_edges":   "a server that can start only once, started again by the same invocation",
	"connect_banner":        "counts server starts",
	"demo":                  "counts server starts",
	"connect_failures":      "-v of a later call: the server's startup lines were written during the first call",
	"terminal_forged_lines": "-v of a later call: the server's startup lines were written during the first call",
	// The server's own record of what it received: a warm connection sends
	// the handshake once and answers listings from its cache.
	"invoke_errors":         "asserts the requests the server logs",
	"invoke_args":           "asserts the requests the server logs",
	"invoke_types":          "asserts the requests the server logs",
	"prompt_args":           "asserts the requests the server logs",
	"prompt_errors":         "asserts the requests the server logs",
	"prompt_interactive":    "asserts the requests the server logs",
	"elicit_defaults":       "asserts the requests the server logs",
	"elicit_interactive":    "asserts the requests the server logs",
	"elicit_interrupt":      "asserts the requests the server logs",
	"era2026_commands":      "asserts the requests the server logs",
	"headless_answers":      "asserts the requests the server logs (its own warm section checks warm calls)",
	"headless_tools":        "asserts the requests the server logs (its own warm section checks warm calls)",
	"headless_dryrun_trace": "asserts the requests the server logs (its own warm section checks warm calls)",
	"skills_published":      "asserts the requests the server logs (its own warm section checks warm calls)",
	"era2026_mrtr":          "asserts the requests the server logs",
	"era2026_refused":       "asserts the requests the server logs",
	"serverreq_sampling":    "asserts the requests the server logs",
	"serverreq_roots":       "asserts the requests the server logs",
	"serverreq_progress":    "asserts the requests the server logs",
	"serverreq_logging":     "asserts the requests the server logs",
	"era2026_fallback":      "asserts the requests the server logs",
	// An HTTP server's log: a warm connection holds the standalone GET
	// stream and sends the handshake (initialize, or server/discover in the
	// 2026-07-28 era) once.
	"era2026_headers": "asserts the requests the server logs",
	"era2026_refs":    "asserts the requests the server logs",
	"auth_discovery":  "asserts the requests the server logs",
	"auth_clients":    "asserts the requests the server logs",
	"auth_login":      "asserts the requests the server logs",
	"auth_machine":    "asserts the requests the server logs",
	"auth_refresh":    "asserts the requests the server logs",
	"auth_scope":      "asserts the requests the server logs",
	// Tasks: a warm server keeps its tasks and numbers them on.
	"tasks_era2026": "asserts task ids that a fresh server process numbers from 1",
	"tasks_detach":  "asserts that --detach on a one-shot stdio server is refused (warm_tasks covers it warm)",
}

// TestScriptWarm runs the end-to-end scripts again with keep-alive forced
// on (MCPX_KEEP_ALIVE=1m): the same outputs and exit codes through the
// daemon (see WARM CONNECTIONS in mcpx(1)).
func TestScriptWarm(t *testing.T) {
	t.Parallel() // see TestScript
	if testing.Short() {
		t.Skip("the warm run of the scripts is long")
	}
	p := params("testdata/script")
	setup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		name := strings.TrimPrefix(filepath.Base(env.WorkDir), "script-")
		if why, ok := warmSkips[name]; ok && os.Getenv("MCPX_WARM_NOSKIP") == "" {
			env.T().Skip("not run warm: " + why)
		}
		if strings.HasPrefix(name, "warm_") {
			env.T().Skip("not run warm: a warm_ script sets keep-alive itself")
		}
		if err := setup(env); err != nil {
			return err
		}
		env.Setenv("MCPX_KEEP_ALIVE", "1m")
		return nil
	}
	testscript.Run(t, p)
}

// isolateDaemon gives a script a daemon of its own (its socket under
// $WORK/run) and stops it when the script ends, with its servers. Every
// daemon found where the script's mcpx could have put one (its runtime
// directory, its state directory, its temporary directory) is stopped;
// one found elsewhere than $WORK/run, and still running, fails the
// script: a script that makes mcpx fall back to another directory stops
// its daemons itself (daemon stop --all), and one that a command ran
// without the script's $XDG_RUNTIME_DIR would have outlived the test.
func isolateDaemon(env *testscript.Env) {
	run := filepath.Join(env.WorkDir, "run")
	if err := os.Mkdir(run, 0o700); err != nil {
		env.T().Fatal(err)
	}
	env.Setenv("XDG_RUNTIME_DIR", run)
	vars := map[string]string{"XDG_RUNTIME_DIR": run, "XDG_STATE_HOME": env.Getenv("XDG_STATE_HOME"),
		"TMPDIR": env.Getenv("TMPDIR"), "HOME": env.Getenv("HOME")}
	env.Defer(func() {
		for _, f := range stopDaemons(func(k string) string { return vars[k] }) {
			if filepath.Dir(f.Socket) == filepath.Join(run, "mcpx") {
				continue
			}
			msg := fmt.Sprintf("an mcpx daemon (pid %d) ran in %s, not under the script's $XDG_RUNTIME_DIR: a command ran mcpx without the script's environment, or the script did not stop it", f.Pid, filepath.Dir(f.Socket))
			if t, ok := env.T().(interface{ Errorf(string, ...any) }); ok {
				t.Errorf("%s", msg)
			} else {
				env.T().Fatal(msg)
			}
		}
	})
}

// daemons are the daemons listening in the socket directories of the
// environment getenv, of any build.
func daemons(getenv func(string) string) []daemon.Found {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cs, _ := daemon.Status(ctx, daemon.Env{Getenv: getenv})
	if cs == nil {
		return nil
	}
	return cs.Others // the test binary's own build runs none
}

// stopDaemons asks every daemon of the environment getenv to exit (any
// build understands it), waits until each is gone (SIGKILL after 5 s: a
// stopped one does not answer) and returns those found.
func stopDaemons(getenv func(string) string) []daemon.Found {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, found := daemon.StopAll(ctx, daemon.Env{Getenv: getenv})
	for _, f := range found {
		if f.Pid == 0 {
			continue
		}
		deadline := time.Now().Add(5 * time.Second)
		for syscall.Kill(f.Pid, 0) == nil && !zombieOrGone(f.Pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if syscall.Kill(f.Pid, 0) == nil && !zombieOrGone(f.Pid) {
			_ = syscall.Kill(f.Pid, syscall.SIGKILL)
		}
	}
	return found
}

// daemon-pid VAR [EXE]: VAR gets the pid of the script's daemon of the
// mcpx EXE (default: the mcpx on $PATH), and VAR_SOCK its socket.
func cmdDaemonPid(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: daemon-pid VAR [EXE]")
	}
	exe := ""
	if len(args) == 2 {
		exe = ts.MkAbs(args[1])
	} else {
		for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
			if p := filepath.Join(dir, "mcpx"); fileExists(p) {
				exe = p
				break
			}
		}
	}
	want, err := filepath.EvalSymlinks(exe)
	ts.Check(err)
	for _, f := range daemons(ts.Getenv) {
		if !f.Known() {
			continue
		}
		if got, err := filepath.EvalSymlinks(f.Reply.Exe); err == nil && got == want || f.Reply.Exe == exe {
			ts.Setenv(args[0], strconv.Itoa(f.Pid))
			ts.Setenv(args[0]+"_SOCK", f.Socket)
			return
		}
	}
	ts.Fatalf("no daemon of %s is running", exe)
}

// daemon-gone PID: wait (at most 10 s) until process PID has exited.
func cmdDaemonGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: daemon-gone PID")
	}
	pid, err := strconv.Atoi(args[0])
	ts.Check(err)
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil && !zombieOrGone(pid) {
		if time.Now().After(deadline) {
			ts.Fatalf("process %d is still running", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kill9 PID|PIDFILE: SIGKILL a process.
func cmdKill9(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: kill9 PID|PIDFILE")
	}
	s := args[0]
	if b, err := os.ReadFile(ts.MkAbs(s)); err == nil {
		s = strings.TrimSpace(string(b))
	}
	pid, err := strconv.Atoi(s)
	ts.Check(err)
	ts.Check(syscall.Kill(pid, syscall.SIGKILL))
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil && !zombieOrGone(pid) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

// other-build DIR: DIR/mcpx becomes a link to mcpx, a build of its own
// (its path differs).
func cmdOtherBuild(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: other-build DIR")
	}
	self, err := os.Executable()
	ts.Check(err)
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	ts.Check(os.Link(self, filepath.Join(dir, "mcpx")))
}

// upgrade DIR: DIR/mcpx is replaced by a copy of mcpx, as an upgrade in
// place replaces a binary (a new file renamed over the old one).
func cmdUpgrade(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: upgrade DIR")
	}
	self, err := os.Executable()
	ts.Check(err)
	data, err := os.ReadFile(self)
	ts.Check(err)
	p := filepath.Join(ts.MkAbs(args[0]), "mcpx")
	ts.Check(os.WriteFile(p+".new", data, 0o755))
	ts.Check(os.Rename(p+".new", p))
}

// concurrent N PROG ARGS...: run N copies of PROG at once; each must exit 0
// and print the same stdout, which becomes the script's stdout.
func cmdConcurrent(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: concurrent N PROG [ARGS...]")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	type result struct {
		out []byte
		err error
	}
	results := make(chan result, n)
	for i := 0; i < n; i++ {
		go func() {
			cmd := scriptCmd(ts, args[1], args[2:]...)
			out, err := cmd.Output()
			if ee, ok := err.(*exec.ExitError); ok {
				err = fmt.Errorf("%v: %s", err, ee.Stderr)
			}
			results <- result{out, err}
		}()
	}
	var first []byte
	for i := 0; i < n; i++ {
		r := <-results
		if r.err != nil {
			ts.Fatalf("a copy failed: %v", r.err)
		}
		if i == 0 {
			first = r.out
		} else if string(r.out) != string(first) {
			ts.Fatalf("outputs differ: %q and %q", first, r.out)
		}
	}
	ts.Logf("%d copies agreed", n)
	fmt.Fprint(ts.Stdout(), string(first))
}

// other-user-dial SOCKET: connect to SOCKET as another user (nobody) and
// send a hello, as an attacker that got past the directory's permissions
// would: the directories on the way and the socket are opened up for the
// attempt, then restored. Prints "reply: ..." or "refused: ...". Needs
// root ([root] condition).
func cmdOtherUserDial(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: other-user-dial SOCKET")
	}
	sock := ts.MkAbs(args[0])
	u, err := user.Lookup("nobody")
	ts.Check(err)
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	// A copy of the test binary that nobody may run, named for its dispatch.
	bin, err := os.MkdirTemp("", "mcpx-dial")
	ts.Check(err)
	defer os.RemoveAll(bin)
	ts.Check(os.Chmod(bin, 0o755))
	self, err := os.Executable()
	ts.Check(err)
	data, err := os.ReadFile(self)
	ts.Check(err)
	ts.Check(os.WriteFile(filepath.Join(bin, "mcpx-dial"), data, 0o755))
	// Open the way to the socket, and restore it afterwards.
	var restore []func()
	defer func() {
		for i := len(restore) - 1; i >= 0; i-- {
			restore[i]()
		}
	}()
	for p := sock; p != "/" && p != "."; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		ts.Check(err)
		mode := fi.Mode().Perm()
		want := mode | 0o011
		if p == sock {
			want = 0o666
		}
		if want != mode {
			ts.Check(os.Chmod(p, want))
			restore = append(restore, func() { _ = os.Chmod(p, mode) })
		}
	}
	cmd := exec.Command(filepath.Join(bin, "mcpx-dial"), sock)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.CombinedOutput()
	fmt.Fprint(ts.Stdout(), string(out))
	if err != nil && len(out) == 0 {
		ts.Fatalf("mcpx-dial: %v", err)
	}
}

// dialMain is mcpx-dial SOCKET (see cmdOtherUserDial).
func dialMain() {
	c, err := net.Dial("unix", os.Args[1])
	if err != nil {
		fmt.Println("refused:", err)
		os.Exit(1)
	}
	_, _ = c.Write([]byte(`{"proto":1,"op":"status"}` + "\n"))
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
	b := make([]byte, 4096)
	n, err := c.Read(b)
	if n > 0 {
		fmt.Printf("reply: %s", b[:n])
		return
	}
	fmt.Println("refused:", err)
	os.Exit(1)
}

// vanish DUR PROG ARGS...: start PROG, SIGKILL it after DUR (a caller that
// disappears mid-call).
func cmdVanish(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: vanish DUR PROG [ARGS...]")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	cmd := scriptCmd(ts, args[1], args[2:]...)
	ts.Check(cmd.Start())
	time.Sleep(d)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
}

// waitfile FILE PATTERN: wait (at most 10 s) until FILE has a line
// matching PATTERN.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfile FILE PATTERN")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(ts.MkAbs(args[0]))
		if re.Match(b) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s never matched %s: %q", args[0], args[1], b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// suspended CODE WAITFILE PATTERN PROG ARGS...: start PROG; once WAITFILE
// has a line matching PATTERN (its call is under way), suspend it
// (SIGSTOP) until the daemon's log says that it cut a caller off, then
// let it go on (SIGCONT); it must exit with status CODE, and its stdout
// and stderr become the script's.
func cmdSuspended(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 {
		ts.Fatalf("usage: suspended CODE WAITFILE PATTERN PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	under, err := regexp.Compile("(?m)" + args[2])
	ts.Check(err)
	cmd := scriptCmd(ts, args[3], args[4:]...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	ts.Check(cmd.Start())
	waitMatch := func(path string, re *regexp.Regexp, limit time.Duration) {
		deadline := time.Now().Add(limit)
		for {
			if b, _ := os.ReadFile(path); re.Match(b) {
				return
			}
			if time.Now().After(deadline) {
				_ = cmd.Process.Kill()
				_ = syscall.Kill(cmd.Process.Pid, syscall.SIGCONT)
				_ = cmd.Wait()
				ts.Fatalf("%s never matched %s (stderr: %.500s)", path, re, stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitMatch(ts.MkAbs(args[1]), under, 10*time.Second)
	ts.Check(syscall.Kill(cmd.Process.Pid, syscall.SIGSTOP))
	waitMatch(daemon.LogPath(ts.Getenv), regexp.MustCompile(`cut a caller off`), 60*time.Second)
	ts.Check(syscall.Kill(cmd.Process.Pid, syscall.SIGCONT))
	err = cmd.Wait()
	got := 0
	if ee, ok := err.(*exec.ExitError); ok {
		got = ee.ExitCode()
	} else {
		ts.Check(err)
	}
	fmt.Fprint(ts.Stdout(), stdout.String())
	fmt.Fprint(ts.Stderr(), stderr.String())
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[3], got, want)
	}
}
