//go:build windows

package daemon

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The kernel reports the peer of an AF_UNIX socket (its pid, then the
// user of that process): here the test itself, on both ends.
func TestPeerCredentials(t *testing.T) {
	sock := filepath.Join(tempDir(t), "s")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Skipf("no AF_UNIX sockets here: %v", err)
	}
	defer ln.Close()
	dialed := make(chan *net.UnixConn, 1)
	go func() {
		c, err := net.Dial("unix", sock)
		if err != nil {
			dialed <- nil
			return
		}
		dialed <- c.(*net.UnixConn)
	}()
	c, err := ln.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d := <-dialed
	if d == nil {
		t.Fatal("dial failed")
	}
	defer d.Close()
	for _, end := range []*net.UnixConn{c, d} {
		who, pid, err := peerUser(end)
		if err != nil {
			t.Fatal(err)
		}
		if err := peerRefusal(myUser(), who, nil); err != nil || !strings.HasPrefix(who, "user S-1-") {
			t.Fatalf("peer %q: %v", who, err)
		}
		if pid != os.Getpid() {
			t.Fatalf("peer pid %d, want %d", pid, os.Getpid())
		}
	}
}

// tempDir is a temporary directory removed at the end of the test, if it
// can be (Wine cannot remove some files as Go asks).
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "mcpxd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// mkdirSDDL creates dir with the security descriptor sddl.
func mkdirSDDL(t *testing.T, dir, sddl string) {
	t.Helper()
	sd, err := windows.SecurityDescriptorFromString(sddl)
	if err != nil {
		t.Fatal(err)
	}
	sa := windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(sa))
	p, _ := windows.UTF16PtrFromString(dir)
	if err := windows.CreateDirectory(p, &sa); err != nil {
		t.Fatal(err)
	}
}

func TestCheckDir(t *testing.T) {
	base := tempDir(t)
	good := filepath.Join(base, "a", "good")
	if err := PrepareDir(good); err != nil {
		t.Fatal(err)
	}
	h, err := openNoFollow(good, windows.READ_CONTROL|windows.FILE_READ_ATTRIBUTES, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS)
	if err != nil {
		t.Fatal(err)
	}
	d, err := describe(h)
	windows.CloseHandle(h)
	if err != nil {
		t.Fatal(err)
	}
	sid, _ := mySID()
	if d.Owner != sid || len(d.DACL) != 2 || !slices.Contains(d.DACL, winACE{aceAllowed, sid}) || !slices.Contains(d.DACL, winACE{aceAllowed, sidSystem}) {
		t.Fatalf("the new directory: %+v", d)
	}
	if err := PrepareDir(good); err != nil {
		t.Fatalf("again: %v", err)
	}
	open := filepath.Join(base, "open")
	mkdirSDDL(t, open, "D:P(A;OICI;FA;;;"+sid+")(A;OICI;FA;;;WD)")
	if err := CheckDir(open); err == nil || !strings.Contains(err.Error(), "grants access to S-1-1-0") {
		t.Fatalf("a directory open to everyone: %v", err)
	}
	if err := PrepareDir(open); err == nil {
		t.Fatal("PrepareDir accepted a directory open to everyone")
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("a file: %v", err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Skipf("no symbolic link (%v): the reparse point check is not exercised", err)
	}
	if fi, err := os.Lstat(link); err != nil || !isReparse(fi) {
		t.Skipf("a symbolic link here is no reparse point (Wine): the reparse point check is not exercised (%v)", err)
	}
	if err := CheckDir(link); err == nil || !strings.Contains(err.Error(), "is a reparse point") {
		t.Fatalf("a link: %v", err)
	}
	if _, err := openLogFile(filepath.Join(link, "x")); err != nil {
		t.Logf("through a link: %v", err)
	}
	flink := filepath.Join(base, "flink")
	if err := os.Symlink(file, flink); err == nil {
		if f, err := openLogFile(flink); err == nil {
			f.Close()
			t.Fatal("the log was opened through a link")
		}
	}
}

func TestLogAppends(t *testing.T) {
	p := filepath.Join(tempDir(t), "daemon.log")
	for _, line := range []string{"one\n", "two\n"} {
		f, err := openLogFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(line); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if b, _ := os.ReadFile(p); string(b) != "one\ntwo\n" {
		t.Fatalf("log %q", b)
	}
}

func TestSocketDirs(t *testing.T) {
	env := map[string]string{"LOCALAPPDATA": `C:\Users\u\AppData\Local`}
	getenv := func(k string) string { return env[k] }
	const name = "daemon"
	if c := socketDirs(getenv, 0, ""); len(c) != 1 || c[0].dir != `C:\Users\u\AppData\Local\mcpx\`+name {
		t.Fatalf("%v", c)
	}
	if p := LogPath(getenv); p != `C:\Users\u\AppData\Local\mcpx\`+name+`\daemon.log` {
		t.Fatalf("%s", p)
	}
	delete(env, "LOCALAPPDATA")
	if c := socketDirs(getenv, 0, ""); len(c) != 0 {
		t.Fatalf("none: %v", c)
	}
	if _, err := choose(getenv, true); err == nil || !strings.HasPrefix(err.Error(), "no directory for the mcpx daemon's socket") {
		t.Fatalf("none: %v", err)
	}
	if err := PrepareDir(""); err != errNoDir {
		t.Fatalf("none: %v", err)
	}
}

// The elevation of a token is read, or the reading fails: a token opened
// without TOKEN_QUERY is not taken for one that is not elevated.
func TestTokenElevated(t *testing.T) {
	want := windows.GetCurrentProcessToken().IsElevated()
	if got, err := tokenElevated(windows.GetCurrentProcessToken()); err != nil || got != want {
		t.Fatalf("this process: %v %v, want %v", got, err, want)
	}
	var tok windows.Token
	if err := windows.OpenProcessToken(windows.CurrentProcess(), windows.TOKEN_DUPLICATE, &tok); err != nil {
		t.Skip(err)
	}
	defer tok.Close()
	if got, err := tokenElevated(tok); err == nil {
		t.Fatalf("a token without TOKEN_QUERY: %v, want an error", got)
	}
}

// A log that is a hard link to a file elsewhere is not written.
func TestLogRefusesHardLink(t *testing.T) {
	dir := tempDir(t)
	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "daemon.log")
	if err := os.Link(other, p); err != nil {
		t.Skipf("no hard link here: %v", err)
	}
	if f, err := openLogFile(p); err == nil {
		f.Close()
		t.Fatal("the log was opened through a hard link")
	}
	if b, _ := os.ReadFile(other); string(b) != "keep\n" {
		t.Fatalf("the linked file: %q", b)
	}
}

// An elevated process gets no daemon; one that is not elevated does.
func TestPlatformRefusal(t *testing.T) {
	err := platformRefusal()
	if windows.GetCurrentProcessToken().IsElevated() {
		if !errors.Is(err, ErrUnsupported) {
			t.Fatalf("elevated: %v, want ErrUnsupported", err)
		}
		if _, _, aerr := Attach(context.Background(), Env{Getenv: os.Getenv}, Hello{}); !errors.Is(aerr, ErrUnsupported) {
			t.Fatalf("elevated Attach: %v, want ErrUnsupported", aerr)
		}
		return
	}
	if err != nil {
		t.Fatalf("not elevated: %v", err)
	}
}
