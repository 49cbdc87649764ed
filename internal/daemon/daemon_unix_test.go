//go:build unix

package daemon

import (
	"net"
	"os"
	"path/filepath"
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

func TestSocketDir(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if d := SocketDir(getenv); !strings.HasPrefix(d, "/tmp/mcpx-") {
		t.Fatalf("default: %s", d)
	}
	env["TMPDIR"] = "/var/tmp"
	if d := SocketDir(getenv); !strings.HasPrefix(d, "/var/tmp/mcpx-") {
		t.Fatalf("TMPDIR: %s", d)
	}
	env["XDG_RUNTIME_DIR"] = "/run/user/7"
	if d := SocketDir(getenv); d != "/run/user/7/mcpx" {
		t.Fatalf("XDG_RUNTIME_DIR: %s", d)
	}
}

// tempDir is a directory of the test's own.
func tempDir(t *testing.T) string { return t.TempDir() }
