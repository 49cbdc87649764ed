//go:build unix

// Package test holds mcpx's end-to-end tests: testscript scripts that drive
// the real mcpx entry point (the test binary becomes mcpx) against fixture
// MCP servers started the way users start theirs — stdio children, and
// streamable-HTTP and SSE servers on loopback.
package test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpx-cli/mcpx/commands"
	"github.com/mcpx-cli/mcpx/internal/ascaller"
	"github.com/mcpx-cli/mcpx/internal/hermetic"
	"github.com/mcpx-cli/mcpx/output"
	"github.com/mcpx-cli/mcpx/test/fixture"
)

func TestMain(m *testing.M) {
	// The daemon starts a warm server through its own binary, this one, as
	// mcpx's main does (see ascaller).
	ascaller.Trampoline()
	// hermetic: the tests that run mcpx (or node, or go) outside a
	// script never see the machine's own config, state or daemon.
	testscript.Main(hermetic.M(m), map[string]func(){
		"mcpx":      func() { os.Exit(commands.Main(os.Args, output.System())) },
		"mcpx-dial": dialMain, // warm_test.go
		// mcpx-inject: a request of the test's own on a client's session
		"mcpx-inject": injectMain, // watch_script_test.go
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
			exitServed()
		},
	})
}

// scriptGORACE, when set, is the scripts' $GORACE (see race_test.go).
var scriptGORACE string

// raceDetector: the test binary, and so the mcpx the scripts run, is built
// with the race detector (the scripts' [race] condition).
var raceDetector bool

// exitServed ends a stdio fixture whose server returned (its stdin ended)
// with status 0 (see race_test.go).
var exitServed = func() { os.Exit(0) }

// The long tests of this package (TestScript, TestScriptWarm, TestInterop,
// TestInteropServers, TestConformance) run in parallel with each other:
// their scripts then share go test's -parallel slots (GOMAXPROCS), so that
// the CPUs do not idle while one test's last, longest scripts run alone
// before the next test may start.
func TestScript(t *testing.T) {
	t.Parallel()
	testscript.Run(t, params("testdata/script"))
}

func params(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "root":
				return os.Geteuid() == 0, nil
			case "race": // built with the race detector (race_test.go)
				return raceDetector, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		UpdateScripts: os.Getenv("MCPX_UPDATE_GOLDEN") != "",
		Setup: func(env *testscript.Env) error {
			env.Setenv("MCPX_CACHE_DIR", filepath.Join(env.WorkDir, "cache"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, "xdg"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, "state"))
			env.Setenv("MCPX_FIXTURE_PIDFILE", filepath.Join(env.WorkDir, "fixture.pid"))
			isolateDaemon(env) // warm_test.go
			if scriptGORACE != "" {
				env.Setenv("GORACE", scriptGORACE)
			}
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"fixture-http":     cmdFixtureHTTP,
			"stamps":           cmdStamps,          // watch_script_test.go
			"fixture-registry": cmdFixtureRegistry, // registry_script_test.go
			"exitcode":         cmdExitCode,
			"signal":           cmdSignal,
			"closedstdout":     cmdClosedStdout,
			"gone":             cmdGone,
			"slice":            cmdSlice,
			"sparse":           cmdSparse,
			"sparsefill":       cmdSparseFill,
			"mtime":            cmdMtime,
			"spilltree":        cmdSpillTree,
			"spillrace":        cmdSpillRace,
			"sha256":           cmdSHA256,
			"dirlist":          cmdDirList,
			"chown":            cmdChown,
			"rootbin":          cmdRootBin,
			"tty":              cmdTTY,    // shell_test.go
			"within":           cmdWithin, // shell_test.go

			// The OAuth fixture, and a browser for mcpx login (oauth_script_test.go).
			"fixture-oauth": cmdFixtureOAuth,
			"oauth-log":     cmdOAuthLog,
			"oauth-login":   cmdOAuthLogin,

			// Modes, scrubbed outputs and secrets for auth_*.txtar (auth_script_test.go).
			"perm":      cmdPerm,
			"scrub":     cmdScrub,
			"nosecrets": cmdNoSecrets,

			"replace":  cmdReplace,  // hosts_script_test.go
			"parallel": cmdParallel, // hosts_script_test.go

			"remember-sse": cmdRememberSSE, // transports_script_test.go

			// Warm connections (warm_test.go).
			"daemon-pid":      cmdDaemonPid,
			"daemon-gone":     cmdDaemonGone,
			"upgrade":         cmdUpgrade,
			"kill9":           cmdKill9,
			"other-build":     cmdOtherBuild,
			"concurrent":      cmdConcurrent,
			"other-user-dial": cmdOtherUserDial,
			"vanish":          cmdVanish,
			"waitfile":        cmdWaitFile,

			// The daemon's faults and bounds (suspended: warm_test.go).
			"fixture-http-restart": cmdFixtureHTTPRestart,
			"suspended":            cmdSuspended,

			// A forward proxy, for a warm target's caller (proxy_script_test.go).
			"fixture-proxy": cmdFixtureProxy,
			"proxy-calls":   cmdProxyCalls,
		},
	}
}

// fixture-http VAR MODE: start an HTTP fixture server on loopback; VAR gets its URL.
func cmdFixtureHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: fixture-http VAR MODE")
	}
	srv := serveFixture(ts, fixtureHandler(ts, args[1]), nil)
	fixtureServers.Store(fixtureKey{ts, args[0]}, fixtureServer{srv, args[1]})
	u := srv.URL + "/mcp"
	switch args[1] {
	case "sse", "sse-400", "tasks-sse":
		u = srv.URL + "/sse"
	case "redirect":
		u = srv.URL // the script picks the path: /same or /foreign
	}
	ts.Setenv(args[0], u)
}

// fixtureServers are the scripts' HTTP fixtures, by script and VAR (for
// fixture-http-restart).
var fixtureServers sync.Map

type fixtureKey struct {
	ts   *testscript.TestScript
	name string
}

type fixtureServer struct {
	srv  *httptest.Server
	mode string
}

// fixture-http-restart VAR: stop the HTTP fixture of VAR and start it
// again, afresh, on the same address (a server restarted: its sessions
// and state are gone).
func cmdFixtureHTTPRestart(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fixture-http-restart VAR")
	}
	v, ok := fixtureServers.Load(fixtureKey{ts, args[0]})
	if !ok {
		ts.Fatalf("no fixture-http %s", args[0])
	}
	old := v.(fixtureServer)
	addr := old.srv.Listener.Addr().String()
	old.srv.CloseClientConnections()
	old.srv.Close()
	ln, err := net.Listen("tcp", addr)
	ts.Check(err)
	srv := serveFixture(ts, fixtureHandler(ts, old.mode), ln)
	fixtureServers.Store(fixtureKey{ts, args[0]}, fixtureServer{srv, old.mode})
}

// serveFixture serves h on loopback (on ln, when given) until the script
// ends.
func serveFixture(ts *testscript.TestScript, h http.Handler, ln net.Listener) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	if ln != nil {
		srv.Listener.Close()
		srv.Listener = ln
	}
	srv.Start()
	ts.Defer(func() {
		// A warm connection's streams stay open until the daemon closes
		// them: cut them, or Close waits for them.
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv
}

// fixtureHandler is a new HTTP fixture server of mode.
func fixtureHandler(ts *testscript.TestScript, mode string) http.Handler {
	h, err := fixture.NewHTTP(mode)
	switch mode {
	case "asks", "asks-sse", "modern":
		// These log what they receive to the script's $MCPX_FIXTURE_LOG
		// (and take its MCPX_FIXTURE_STEPS, MCPX_FIXTURE_STEP_MS).
		h, err = fixture.NewAsksHTTP(mode, fixture.AsksConfigFrom(ts.Getenv))
	case "tasks", "tasks-session", "tasks-sse":
		// These log what they receive to the script's $MCPX_FIXTURE_LOG.
		h, err = fixture.NewTasksHTTP(mode, fixture.TasksConfig{LogPath: ts.Getenv("MCPX_FIXTURE_LOG")})
	case "echo-secrets":
		// the bearer token it requires and echoes: the script's $API_TOKEN
		h = fixture.NewEchoSecretsHTTP(ts.Getenv(fixture.EchoSecretEnv))
	}
	ts.Check(err)
	return h
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
	keys := []string{"PATH", "HOME", "WORK", "TMPDIR", "MCPX_CONFIG", "MCPX_CACHE_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "MCPX_FIXTURE_PIDFILE",
		"XDG_RUNTIME_DIR", "MCPX_KEEP_ALIVE"}
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
	if ka := ts.Getenv("MCPX_KEEP_ALIVE"); ka != "" && ka != "0" {
		return // a warm server stays (WARM CONNECTIONS in mcpx(1))
	}
	cmdGone(ts, false, []string{pidfile})
}

// closedstdout N PROG ARGS...: run PROG with a stdout whose reader is
// already closed, and require exit status N (128+S for a death by signal
// S, as a shell reports it) and an empty stderr.
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
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			got = 128 + int(ws.Signal())
		}
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

// slice OUT PART...: write OUT as the concatenation of the PARTs, each
// FILE[A:B] (bytes A to B of FILE, either bound may be left out as in Go) or
// NL (a newline).
func cmdSlice(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: slice OUT PART... (PART: FILE[A:B] or NL)")
	}
	var out []byte
	for _, part := range args[1:] {
		if part == "NL" {
			out = append(out, '\n')
			continue
		}
		i := strings.LastIndexByte(part, '[')
		if i < 0 || !strings.HasSuffix(part, "]") {
			ts.Fatalf("slice: %q is not FILE[A:B] or NL", part)
		}
		a, b, ok := strings.Cut(part[i+1:len(part)-1], ":")
		if !ok {
			ts.Fatalf("slice: %q is not FILE[A:B] or NL", part)
		}
		data, err := os.ReadFile(ts.MkAbs(part[:i]))
		ts.Check(err)
		lo, hi := 0, len(data)
		if a != "" {
			lo, err = strconv.Atoi(a)
			ts.Check(err)
		}
		if b != "" {
			hi, err = strconv.Atoi(b)
			ts.Check(err)
		}
		if lo < 0 || lo > hi || hi > len(data) {
			ts.Fatalf("slice: %s is out of range (%d bytes)", part, len(data))
		}
		out = append(out, data[lo:hi]...)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), out, 0o644))
}

// makeSparse creates path (and missing parents, mode 0700) as a sparse file
// of size bytes — one byte written at the end, no other disk used — whose
// mtime is age ago.
func makeSparse(path string, size int64, age time.Duration) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if size > 0 {
		_, err = f.WriteAt([]byte{0}, size-1)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	t := time.Now().Add(-age)
	return os.Chtimes(path, t, t)
}

// sparse PATH SIZE AGE: create PATH as a sparse file of SIZE bytes (st_size;
// no disk used) whose mtime is AGE (a Go duration) ago. Missing parent
// directories are made with mode 0700.
func cmdSparse(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: sparse PATH SIZE AGE")
	}
	size, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	age, err := time.ParseDuration(args[2])
	ts.Check(err)
	ts.Check(makeSparse(ts.MkAbs(args[0]), size, age))
}

// sparsefill DIR COUNT TOTAL AGE: create DIR/filler-01 .. DIR/filler-COUNT,
// sparse files whose sizes sum to TOTAL bytes; filler-01 is the oldest (AGE
// plus COUNT minutes ago), each next one a minute younger.
func cmdSparseFill(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: sparsefill DIR COUNT TOTAL AGE")
	}
	count, err := strconv.Atoi(args[1])
	ts.Check(err)
	total, err := strconv.ParseInt(args[2], 10, 64)
	ts.Check(err)
	age, err := time.ParseDuration(args[3])
	ts.Check(err)
	if count < 1 {
		ts.Fatalf("sparsefill: COUNT must be at least 1")
	}
	each := total / int64(count)
	for i := 1; i <= count; i++ {
		size := each
		if i == count {
			size = total - each*int64(count-1)
		}
		p := filepath.Join(ts.MkAbs(args[0]), fmt.Sprintf("filler-%02d", i))
		ts.Check(makeSparse(p, size, age+time.Duration(count-i+1)*time.Minute))
	}
}

// mtime set FILE AGE: set FILE's mtime to AGE (a Go duration) ago.
// mtime recent FILE: FILE's mtime is within the last 10 minutes (! negates).
func cmdMtime(ts *testscript.TestScript, neg bool, args []string) {
	switch {
	case len(args) == 3 && args[0] == "set" && !neg:
		age, err := time.ParseDuration(args[2])
		ts.Check(err)
		t := time.Now().Add(-age)
		ts.Check(os.Chtimes(ts.MkAbs(args[1]), t, t))
	case len(args) == 2 && args[0] == "recent":
		fi, err := os.Stat(ts.MkAbs(args[1]))
		ts.Check(err)
		recent := time.Since(fi.ModTime()) < 10*time.Minute
		if recent == neg {
			ts.Fatalf("%s: mtime %s (recent: %v)", args[1], fi.ModTime().Format(time.RFC3339), recent)
		}
	default:
		ts.Fatalf("usage: mtime set FILE AGE | mtime recent FILE")
	}
}

// spillBudget is the spill budget (512 MiB, see LIMITS in mcpx(1)), written
// out here rather than taken from package render so that the tests check
// the documented value.
const spillBudget = 512 << 20

var spillName = regexp.MustCompile(`^([0-9a-f]{64})\.[a-z0-9]{1,8}$`)

// checkSpillTree checks the invariants of a spill tree (CACHE/mcp-resources)
// at rest: its total st_size is within the spill budget, no ".tmp-*" file is
// left, and every file named SHA256.EXT holds bytes with that SHA-256.
func checkSpillTree(dir string) error {
	var total int64
	var problems []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		total += fi.Size()
		if strings.HasPrefix(d.Name(), ".tmp-") {
			problems = append(problems, "a temporary file is left: "+path)
		}
		if m := spillName.FindStringSubmatch(d.Name()); m != nil {
			if sum, err := fileSHA256(path); err != nil || sum != m[1] {
				problems = append(problems, fmt.Sprintf("%s holds bytes with SHA-256 %s (%v)", path, sum, err))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if total > spillBudget {
		problems = append(problems, fmt.Sprintf("the tree holds %d bytes, over the spill budget of %d", total, spillBudget))
	}
	if len(problems) > 0 {
		return fmt.Errorf("spill tree %s:\n\t%s", dir, strings.Join(problems, "\n\t"))
	}
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// spilltree DIR: DIR (a CACHE/mcp-resources tree) is within the spill budget
// (512 MiB of st_size), has no .tmp-* file, and every file named SHA256.EXT
// holds bytes with that SHA-256.
func cmdSpillTree(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: spilltree DIR")
	}
	ts.Check(checkSpillTree(ts.MkAbs(args[0])))
}

// spillrace N K: run N workers at once, each running K+1 `mcpx --json read`
// processes one after the other against blob-stream fixtures: K distinct
// blobs (MCPX_FIXTURE_BYTES from 1 to 4 MiB, different for every read) and
// one blob all workers share. Every server name reduces to the spill
// directory "blob" ("blob#", "blob##", ...), so all of them write, reuse and
// evict in $MCPX_CACHE_DIR/mcp-resources/blob while a watcher hashes every
// SHA256.bin file it can open there. Then: every process exited 0 and
// reported one spilled blob at $MCPX_CACHE_DIR/mcp-resources/blob/SHA256.bin
// with the size asked for and the SHA-256 of the fixture's bytes; every
// reported file that still exists holds exactly those bytes; the watcher
// never saw a partial file; and the tree passes spilltree.
func cmdSpillRace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: spillrace N K")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	k, err := strconv.Atoi(args[1])
	ts.Check(err)
	cache := ts.Getenv("MCPX_CACHE_DIR")
	if cache == "" {
		ts.Fatalf("spillrace: $MCPX_CACHE_DIR is not set")
	}
	top := filepath.Join(cache, "mcp-resources")
	blobDir := filepath.Join(top, "blob")

	type read struct {
		server string
		size   int
	}
	const sharedSize = 2<<20 + 12345
	plan := make([][]read, n)
	servers := map[string]any{"blob": map[string]any{"command": "mcpx-fixture", "args": []string{"blob-stream"},
		"env": map[string]string{"MCPX_FIXTURE_BYTES": strconv.Itoa(sharedSize)}}}
	for w := range n {
		for r := range k {
			idx := w*k + r
			size := 1<<20 + idx*(3<<20)/(n*k) + idx // 1 to 4 MiB, all different
			name := "blob" + strings.Repeat("#", idx+1)
			servers[name] = map[string]any{"command": "mcpx-fixture", "args": []string{"blob-stream"},
				"env": map[string]string{"MCPX_FIXTURE_BYTES": strconv.Itoa(size)}}
			plan[w] = append(plan[w], read{name, size})
		}
		// the shared blob, at a different place in each worker's sequence
		at := w % (k + 1)
		plan[w] = append(plan[w][:at], append([]read{{"blob", sharedSize}}, plan[w][at:]...)...)
	}
	cfg, err := json.Marshal(map[string]any{"mcpServers": servers})
	ts.Check(err)
	cfgPath := ts.MkAbs("spillrace.json")
	ts.Check(os.WriteFile(cfgPath, cfg, 0o644))

	// The watcher: any SHA256.bin it can open must hold exactly those bytes.
	// Each file (name and inode) is hashed once: a partial file would show
	// when it appears.
	stop := make(chan struct{})
	hashed := map[string]uint64{}
	var watchWG sync.WaitGroup
	var partial []string
	watched := 0
	watchWG.Add(1)
	go func() {
		defer watchWG.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			entries, _ := os.ReadDir(blobDir)
			for _, e := range entries {
				m := spillName.FindStringSubmatch(e.Name())
				if m == nil {
					continue
				}
				f, err := os.Open(filepath.Join(blobDir, e.Name()))
				if err != nil {
					continue // evicted meanwhile
				}
				var ino uint64
				if fi, err := f.Stat(); err == nil {
					if st, ok := fi.Sys().(*syscall.Stat_t); ok {
						ino = st.Ino
					}
				}
				if ino != 0 && hashed[e.Name()] == ino {
					f.Close()
					continue
				}
				b, err := io.ReadAll(f)
				f.Close()
				if err != nil {
					continue
				}
				hashed[e.Name()] = ino
				watched++
				if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != m[1] {
					partial = append(partial, fmt.Sprintf("%s held %d bytes with another SHA-256", e.Name(), len(b)))
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()

	type result struct {
		read
		code           int
		stdout, stderr string
	}
	// The commands are made here: ts is not safe for concurrent use.
	cmds := make([][]*exec.Cmd, n)
	for w := range n {
		for _, r := range plan[w] {
			cmds[w] = append(cmds[w], scriptCmd(ts, "mcpx", "--json", "--config", cfgPath, "read", r.server, "x://blob"))
		}
	}
	results := make([][]result, n)
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, r := range plan[w] {
				cmd := cmds[w][i]
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				code := 0
				if err != nil {
					code = -1
					if ee, ok := err.(*exec.ExitError); ok {
						code = ee.ExitCode()
					}
				}
				results[w] = append(results[w], result{r, code, stdout.String(), stderr.String()})
			}
		}()
	}
	wg.Wait()
	close(stop)
	watchWG.Wait()

	var problems []string
	sharedPath := ""
	reported := 0
	for w := range n {
		for _, r := range results[w] {
			what := fmt.Sprintf("worker %d, read %s (%d bytes)", w, r.server, r.size)
			if r.code != 0 {
				problems = append(problems, fmt.Sprintf("%s: exit status %d, stderr:\n%s", what, r.code, r.stderr))
				continue
			}
			var doc struct {
				Contents []struct {
					Type      string `json:"type"`
					Spilled   bool   `json:"spilled"`
					Path      string `json:"path"`
					SizeBytes int64  `json:"size_bytes"`
					SHA256    string `json:"sha256"`
				} `json:"contents"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Contents) != 1 {
				problems = append(problems, fmt.Sprintf("%s: not one content item (%v): %.300s", what, err, r.stdout))
				continue
			}
			c := doc.Contents[0]
			wantSum := fixture.BlobStreamSHA256(r.size)
			wantPath := filepath.Join(blobDir, wantSum+".bin")
			if c.Type != "blob" || !c.Spilled || c.SHA256 != wantSum || c.SizeBytes != int64(r.size) || c.Path != wantPath {
				problems = append(problems, fmt.Sprintf("%s: reported %+v, want a spilled blob of %d bytes at %s", what, c, r.size, wantPath))
				continue
			}
			if r.server == "blob" {
				if sharedPath != "" && c.Path != sharedPath {
					problems = append(problems, fmt.Sprintf("%s: the shared blob at %s, and elsewhere at %s", what, c.Path, sharedPath))
				}
				sharedPath = c.Path
			}
			reported++
			fi, err := os.Stat(c.Path)
			if errors.Is(err, fs.ErrNotExist) {
				continue // evicted by a later spill
			}
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", what, err))
				continue
			}
			if sum, err := fileSHA256(c.Path); err != nil || fi.Size() != c.SizeBytes || sum != c.SHA256 {
				problems = append(problems, fmt.Sprintf("%s: %s holds %d bytes with SHA-256 %s (%v)", what, c.Path, fi.Size(), sum, err))
			}
		}
	}
	problems = append(problems, partial...)
	if err := checkSpillTree(top); err != nil {
		problems = append(problems, err.Error())
	}
	ts.Logf("spillrace: %d reads reported a spilled blob; the watcher hashed %d files", reported, watched)
	if len(problems) > 0 {
		ts.Fatalf("spillrace:\n%s", strings.Join(problems, "\n"))
	}
}

// sha256 FILE HEX: FILE's bytes have the SHA-256 HEX.
func cmdSHA256(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sha256 FILE HEX")
	}
	sum, err := fileSHA256(ts.MkAbs(args[0]))
	ts.Check(err)
	if sum != args[1] {
		ts.Fatalf("%s has SHA-256 %s, want %s", args[0], sum, args[1])
	}
}

// dirlist DIR NAME...: DIR holds exactly the entries NAME... (hidden ones
// included), in any order.
func cmdDirList(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: dirlist DIR NAME...")
	}
	entries, err := os.ReadDir(ts.MkAbs(args[0]))
	ts.Check(err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	want := append([]string(nil), args[1:]...)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		ts.Fatalf("%s holds %q, want %q", args[0], got, want)
	}
}

// chown UID PATH: give PATH to the user UID (root only; see rootbin).
func cmdChown(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: chown UID PATH")
	}
	uid, err := strconv.Atoi(args[0])
	ts.Check(err)
	ts.Check(os.Lchown(ts.MkAbs(args[1]), uid, -1))
}

// rootbin DIR: when the test runs as root, put an executable DIR/running-as-root,
// so that a script with DIR on its PATH can write
// `[!exec:running-as-root] skip`.
func cmdRootBin(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: rootbin DIR")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	if os.Geteuid() == 0 {
		ts.Check(os.WriteFile(filepath.Join(dir, "running-as-root"), []byte("#!/bin/sh\n"), 0o755))
	}
}
