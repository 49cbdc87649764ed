//go:build unix

package test

// Custom testscript commands for the completion scripts: real interactive
// shells driven under tmux (tty), and a time bound (within).

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// ttyWait bounds every wait of tty on the shell: generous, as each wait
// returns as soon as the shell is there.
const ttyWait = 15 * time.Second

// ttyEnv are the variables a tty session gets from the script (those that
// are set), besides TERM=screen, LANG=C.UTF-8 and TTYBUF. XDG_RUNTIME_DIR
// and XDG_STATE_HOME put the daemon a TAB starts (a TAB keeps its server
// warm) in the script's own directory, where the script's end stops it.
var ttyEnv = []string{"PATH", "HOME", "WORK", "TMPDIR", "MCPX_CONFIG", "MCPX_CACHE_DIR", "XDG_CONFIG_HOME",
	"XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "MCPX_FIXTURE_PIDFILE", "MCPX_FIXTURE_LOG", "MCPX_COMPLETE_TIMEOUT"}

// tty drives interactive shells in a tmux server private to the script
// (socket $TTYSOCK, normally $WORK/tmux.sock; the server is killed when the
// script ends), each in a session NAME of 100x30 cells, no status line:
//
//	tty start NAME PROG [ARGS...]  start PROG in a new session, in the script's
//	                               directory, with a clean environment (ttyEnv)
//	                               and TTYBUF=$WORK/NAME.buf
//	tty type NAME TEXT             type TEXT literally
//	tty keys NAME KEY...           press tmux keys (Tab, Enter, C-u, C-l, ...)
//	tty screen NAME FILE           wait until the screen, trailing blanks and
//	                               blank lines dropped, is FILE's text
//	tty line NAME FILE             press C-x C-p, which the session must bind to
//	                               writing its line buffer to $TTYBUF, wait for
//	                               that file and move it to FILE
//	tty stop NAME                  kill the session
//
// A wait that fails shows the screen.
func cmdTTY(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: tty start|type|keys|screen|line|stop NAME ...")
	}
	op, name, rest := args[0], args[1], args[2:]
	switch {
	case op == "start" && len(rest) >= 1:
		ttyStart(ts, name, rest)
	case op == "type" && len(rest) == 1:
		tmux(ts, "send-keys", "-t", name, "-l", "--", rest[0])
	case op == "keys" && len(rest) >= 1:
		tmux(ts, append([]string{"send-keys", "-t", name}, rest...)...)
	case op == "screen" && len(rest) == 1:
		b, err := os.ReadFile(ts.MkAbs(rest[0]))
		ts.Check(err)
		want := trimScreen(string(b))
		var got string
		for deadline := time.Now().Add(ttyWait); ; {
			if got = ttyScreen(ts, name); got == want {
				return
			}
			if time.Now().After(deadline) {
				ts.Fatalf("tty %s: the screen is not %s after %s; it is:\n%s\n(want:\n%s)", name, rest[0], ttyWait, got, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	case op == "line" && len(rest) == 1:
		buf := ttyBuf(ts, name)
		_ = os.Remove(buf)
		tmux(ts, "send-keys", "-t", name, "C-x", "C-p")
		for deadline := time.Now().Add(ttyWait); ; {
			// The shells write the line and a newline at once; a file
			// without its newline is still being written.
			if b, err := os.ReadFile(buf); err == nil && bytes.HasSuffix(b, []byte("\n")) {
				ts.Check(os.Rename(buf, ts.MkAbs(rest[0])))
				return
			}
			if time.Now().After(deadline) {
				ts.Fatalf("tty %s: C-x C-p wrote no line to %s within %s; the screen:\n%s", name, buf, ttyWait, ttyScreen(ts, name))
			}
			time.Sleep(10 * time.Millisecond)
		}
	case op == "stop" && len(rest) == 0:
		tmux(ts, "kill-session", "-t", name)
	default:
		ts.Fatalf("usage: tty start NAME PROG [ARGS...] | type NAME TEXT | keys NAME KEY... | screen NAME FILE | line NAME FILE | stop NAME")
	}
}

func ttyBuf(ts *testscript.TestScript, name string) string {
	return filepath.Join(ts.Getenv("WORK"), name+".buf")
}

// ttyStart starts a session; the first one starts the script's tmux
// server, with the clean environment every session's shell then gets. The
// socket is $WORK/tmux.sock, unless that path is too long for a unix socket.
func ttyStart(ts *testscript.TestScript, name string, prog []string) {
	if _, err := exec.LookPath("tmux"); err != nil {
		ts.Fatalf("tty: tmux is not installed (.ci/run installs it)")
	}
	args := []string{"new-session", "-d", "-x", "100", "-y", "30", "-s", name, "-c", ts.MkAbs("."),
		"-e", "TTYBUF=" + ttyBuf(ts, name), "--"}
	args = append(args, prog...)
	if ts.Getenv("TTYSOCK") != "" {
		tmux(ts, args...)
		return
	}
	work := ts.Getenv("WORK")
	sock := filepath.Join(work, "tmux.sock")
	if len(sock) > 100 {
		dir, err := os.MkdirTemp("", "tty")
		ts.Check(err)
		ts.Defer(func() { os.RemoveAll(dir) })
		sock = filepath.Join(dir, "sock")
	}
	conf := filepath.Join(work, "tmux.conf")
	ts.Check(os.WriteFile(conf, []byte("set -s exit-empty off\nset -s escape-time 0\nset -g status off\nset -g default-terminal screen\n"), 0o644))
	ts.Setenv("TTYSOCK", sock)
	ts.Defer(func() { _ = exec.Command("tmux", "-S", sock, "kill-server").Run() })
	var env []string
	for _, k := range ttyEnv {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	env = append(env, "TERM=screen", "LANG=C.UTF-8")
	tmuxEnv(ts, env, append([]string{"-f", conf}, args...)...)
}

// tmux runs a tmux command on the script's server.
func tmux(ts *testscript.TestScript, args ...string) string {
	return tmuxEnv(ts, nil, args...)
}

func tmuxEnv(ts *testscript.TestScript, env []string, args ...string) string {
	sock := ts.Getenv("TTYSOCK")
	if sock == "" {
		ts.Fatalf("tty: no session started")
	}
	cmd := exec.Command("tmux", append([]string{"-S", sock}, args...)...)
	if env != nil {
		cmd.Env = env
	} else {
		cmd.Env = []string{"PATH=" + ts.Getenv("PATH"), "TERM=screen"}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		ts.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

func ttyScreen(ts *testscript.TestScript, name string) string {
	return trimScreen(tmux(ts, "capture-pane", "-p", "-t", name))
}

// trimScreen drops the blanks at the end of every line and the blank lines
// at the end.
func trimScreen(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// withinScale multiplies the bounds of within (see race_test.go).
var withinScale time.Duration = 1

// within DUR PROG [ARGS...]: run PROG like exec (its output is what stdout
// and stderr then check) and require that it succeeds and takes less than
// DUR (times withinScale). PROG is killed (through timeout(1)) if it runs
// 5 s longer than that, so that a hang fails the script instead of stalling
// it.
func cmdWithin(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: within DUR PROG [ARGS...]")
	}
	limit, err := time.ParseDuration(args[0])
	ts.Check(err)
	limit *= withinScale
	kill := fmt.Sprintf("%.3f", (limit + 5*time.Second).Seconds())
	start := time.Now()
	err = ts.Exec("timeout", append([]string{"-k", "1", kill, args[1]}, args[2:]...)...)
	took := time.Since(start)
	if err != nil {
		ts.Fatalf("%s: %v (after %s; status 124 or 137: killed by timeout)", args[1], err, took.Round(time.Millisecond))
	}
	if took >= limit {
		ts.Fatalf("%s took %s, more than %s", args[1], took.Round(time.Millisecond), limit)
	}
	ts.Logf("%s took %s", args[1], took.Round(time.Millisecond))
}
