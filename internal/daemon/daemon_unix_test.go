//go:build unix

package daemon

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The kernel reports the peer of a Unix socket: here the test itself.
func TestPeerCredentials(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "s")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := net.Dial("unix", sock)
		if err == nil {
			defer c.Close()
			_, _ = c.Read(make([]byte, 1))
		}
	}()
	c, err := ln.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	uid, pid, err := peer(c)
	if err != nil {
		t.Fatal(err)
	}
	if uid != os.Geteuid() {
		t.Fatalf("peer uid %d, want %d", uid, os.Geteuid())
	}
	if pid != 0 && pid != os.Getpid() {
		t.Fatalf("peer pid %d, want %d", pid, os.Getpid())
	}
}

func TestCheckDir(t *testing.T) {
	base := t.TempDir()
	good := filepath.Join(base, "good")
	if err := PrepareDir(good); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(good); fi.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(open); err == nil || !strings.Contains(err.Error(), "open to other users") {
		t.Fatalf("a 0755 directory: %v", err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("a symlink: %v", err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("a file: %v", err)
	}
}

// The candidate socket directories, in order (socketDirs): the runtime
// directory's, the state directory's (per host), then the one named after
// the uid in the temporary directory.
func TestSocketDirs(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want []string
	}{
		{map[string]string{}, []string{"/tmp/mcpx-7"}},
		{map[string]string{"TMPDIR": "/var/tmp", "HOME": "relative"}, []string{"/var/tmp/mcpx-7"}},
		{map[string]string{"HOME": "/"}, []string{"/tmp/mcpx-7"}},
		{map[string]string{"HOME": "/home/u"}, []string{"/home/u/.local/state/mcpx/run-h", "/tmp/mcpx-7"}},
		{map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/s/"}, []string{"/s/mcpx/run-h", "/tmp/mcpx-7"}},
		{map[string]string{"XDG_RUNTIME_DIR": "/run/user/7", "HOME": "/home/u"},
			[]string{"/run/user/7/mcpx", "/home/u/.local/state/mcpx/run-h", "/tmp/mcpx-7"}},
	} {
		var got []string
		for _, c := range socketDirs(func(k string) string { return tc.env[k] }, 7, "h") {
			got = append(got, c.dir)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v: %q, want %q", tc.env, got, tc.want)
		}
	}
}

// A host name in a directory name: its first label when short and plain,
// else a hash.
func TestHostTag(t *testing.T) {
	for h, want := range map[string]string{"box": "box", "box.example.org": "box", "": shortHash("", 8),
		"a-very-long-host-name-indeed": shortHash("a-very-long-host-name-indeed", 8), "we ird": shortHash("we ird", 8)} {
		if got := tagOf(h); got != want {
			t.Errorf("%q: %q, want %q", h, got, want)
		}
	}
}

// choose takes the first candidate that is private, passing over one that
// another user made first, one open to others, a symbolic link, or a
// runtime directory that is shared; it creates what it needs only when
// asked to, and chooses the same without creating anything.
func TestChoose(t *testing.T) {
	host := hostTag()
	type setup func(t *testing.T, root string)
	chmod := func(p string, m os.FileMode) setup {
		return func(t *testing.T, root string) {
			if err := os.Chmod(filepath.Join(root, p), m); err != nil {
				t.Fatal(err)
			}
		}
	}
	mkdir := func(p string, m os.FileMode) setup {
		return func(t *testing.T, root string) {
			if err := os.Mkdir(filepath.Join(root, p), m); err != nil {
				t.Fatal(err)
			}
			chmod(p, m)(t, root)
		}
	}
	other := func(p string) setup {
		return func(t *testing.T, root string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to make a directory of another user")
			}
			if err := os.Chown(filepath.Join(root, p), 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}
	}
	link := func(p, to string) setup {
		return func(t *testing.T, root string) {
			if err := os.Symlink(filepath.Join(root, to), filepath.Join(root, p)); err != nil {
				t.Fatal(err)
			}
		}
	}
	runtime, state, tmp := "run/mcpx", "state/mcpx/run-"+host, "tmp/mcpx-"+strconv.Itoa(os.Geteuid())
	for _, tc := range []struct {
		name  string
		setup []setup
		want  string // "": none
	}{
		{"runtime", nil, runtime},
		{"runtime shared", []setup{chmod("run", 0o1777)}, state},
		{"runtime open to the group", []setup{chmod("run", 0o770)}, state},
		{"runtime's mcpx open", []setup{mkdir("run/mcpx", 0o755)}, state},
		{"runtime's mcpx a link", []setup{mkdir("elsewhere", 0o700), link("run/mcpx", "elsewhere")}, state},
		{"runtime's mcpx another's", []setup{mkdir("run/mcpx", 0o700), other("run/mcpx")}, state},
		{"runtime another's", []setup{other("run")}, state},
		{"state's mcpx another's", []setup{chmod("run", 0o1777), mkdir("state", 0o700), mkdir("state/mcpx", 0o700), other("state/mcpx")}, tmp},
		{"state open", []setup{chmod("run", 0o1777), mkdir("state", 0o777)}, tmp},
		{"state's run open", []setup{chmod("run", 0o1777), mkdir("state", 0o700), mkdir("state/mcpx", 0o700),
			mkdir("state/mcpx/run-"+host, 0o755)}, tmp},
		{"none", []setup{chmod("run", 0o1777), mkdir("state", 0o777), mkdir(tmp, 0o700), other(tmp)}, ""},
		{"none, tmp open", []setup{chmod("run", 0o1777), mkdir("state", 0o777), mkdir(tmp, 0o755)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for _, d := range []string{"run", "tmp"} {
				if err := os.Mkdir(filepath.Join(root, d), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			for _, s := range tc.setup {
				s(t, root)
			}
			env := map[string]string{"XDG_RUNTIME_DIR": filepath.Join(root, "run"), "XDG_STATE_HOME": filepath.Join(root, "state"),
				"TMPDIR": filepath.Join(root, "tmp")}
			getenv := func(k string) string { return env[k] }
			want := ""
			if tc.want != "" {
				want = filepath.Join(root, tc.want)
			}
			probed, perr := choose(getenv, false)
			got, err := choose(getenv, true)
			if got != want || (err == nil) != (want != "") {
				t.Fatalf("chose %q (%v), want %q", got, err, want)
			}
			if probed != got || (perr == nil) != (err == nil) {
				t.Fatalf("without creating: %q (%v), with: %q (%v)", probed, perr, got, err)
			}
			if _, why := pick(getenv, true); want == "" && (err == nil || err.Error() != "no private directory for the mcpx daemon's socket: "+strings.Join(why, "; ") || len(why) != 3) {
				t.Fatalf("none: %v (%q), want no private directory, for three reasons", err, why)
			}
			if want == "" {
				return
			}
			if err := CheckDir(got); err != nil {
				t.Fatal(err)
			}
			if again, err := choose(getenv, false); again != got || err != nil {
				t.Fatalf("once made: %q (%v), want %q", again, err, got)
			}
			if dirs := Dirs(getenv); len(dirs) == 0 || dirs[0] != got {
				t.Fatalf("Dirs: %q, want %q first", dirs, got)
			}
		})
	}
}

// tempDir is a directory of the test's own.
func tempDir(t *testing.T) string { return t.TempDir() }
