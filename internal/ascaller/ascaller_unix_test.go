//go:build unix

package ascaller

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"
)

func TestMain(m *testing.M) {
	// The command Wrap makes runs this test binary: a trampoline.
	Trampoline()
	os.Exit(m.Run())
}

func TestWrapStartsAsTheCaller(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	cmd := exec.Command(sh, "-c", `umask; ulimit -n; echo "mark=${MCPX_AS_CALLER_EXEC-unset}"`)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	a := &Attrs{Umask: 0o077, Limits: []Limit{{Name: "nofile", Cur: 50, Max: 50}}}
	if err := Wrap(cmd, a); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got, want := string(out), "0077\n50\nmark=unset\n"; got != want {
		t.Errorf("the server saw %q, want %q", got, want)
	}
}

func TestWrapRefusesWhatCannotRun(t *testing.T) {
	for _, p := range []string{"/nonexistent/server", t.TempDir()} {
		cmd := &exec.Cmd{Path: p}
		if err := Wrap(cmd, &Attrs{Umask: 0o22}); err == nil || cmd.Path != p {
			t.Errorf("Wrap(%s) = %v, path %s; want an error and the command left", p, err, cmd.Path)
		}
	}
}

func TestCaptureAndKey(t *testing.T) {
	a := Capture()
	if a.Umask < 0 || a.Umask > 0o777 {
		t.Errorf("umask %o", a.Umask)
	}
	i := slices.IndexFunc(a.Limits, func(l Limit) bool { return l.Name == nofile })
	if i < 0 {
		t.Fatal("no limit on open files")
	}
	// Go's runtime raised the soft limit, or found it at the hard one.
	if l := a.Limits[i]; !l.Raised && l.Cur != l.Max && l.Cur != l.Max-1 {
		t.Errorf("open files %+v", l)
	}
	b := &Attrs{Umask: a.Umask, Limits: slices.Clone(a.Limits)}
	slices.Reverse(b.Limits)
	if !slices.Equal(a.Key(), b.Key()) {
		t.Error("the key depends on the order of the limits")
	}
	b.Umask = a.Umask ^ 0o070
	if slices.Equal(a.Key(), b.Key()) {
		t.Error("another umask, the same key")
	}
}

func TestWrapRelativeToDir(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "server"), []byte("#!"+sh+"\numask\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{Path: "./server", Args: []string{"./server"}, Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}}
	if err := Wrap(cmd, &Attrs{Umask: 0o027}); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if got := string(out); err != nil || got != "0027\n" {
		t.Errorf("a relative command from its directory: %q, %v", got, err)
	}
}

// TestProcUmask: the umask read from /proc is the process's (where /proc
// shows it).
func TestProcUmask(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	m, ok := procUmask()
	if !ok {
		if _, err := os.Stat("/proc/self/status"); err == nil && runtime.GOOS == "linux" {
			t.Fatal("no umask read from /proc/self/status")
		}
		t.Skip("no umask in /proc here")
	}
	if m != 0o027 {
		t.Errorf("umask %04o read, want 0027", m)
	}
}
