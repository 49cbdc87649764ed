package render

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/internal/limits"
)

func TestSpillDirName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "_"},
		{".", "_"},
		{"..", "__"},
		{"...", "___"},
		{".hidden", "_hidden"},
		{"a/b", "ab"},
		{"../../etc", "____etc"}, // "/" dropped first: "....etc", then each leading dot
		{"../../x", "____x"},
		{"/.x", "_x"},
		{"a/../b", "a..b"}, // dots inside a name are harmless
		{"_.x", "_.x"},
		{"名前", "_"},
		{"名前x", "x"},
		{"host.example.com:8080", "host.example.com8080"},
		{"a\x00b", "ab"},
		{"\x00", "_"},
		{"\x00..", "__"},
		{"-x", "-x"},
		{"My_Server-2.v1", "My_Server-2.v1"},
		{"a b\tc\nd", "abcd"},
		{"a\\b", "ab"},
		{"srv.", "srv."},
	} {
		if got := spillDirName(c.in); got != c.want {
			t.Errorf("SpillDirName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func sha(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

func perm(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

// tmpFiles lists the ".tmp-*" files under dir.
func tmpFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tmpPrefix) {
			out = append(out, path)
		}
		return nil
	})
	return out
}

func TestSpillPathsAndModes(t *testing.T) {
	// The cache root and its parent are both missing.
	root := filepath.Join(t.TempDir(), "user-cache", "mcpx")
	s := &Spiller{Root: root, Warn: func(m string) { t.Errorf("warning: %s", m) }}
	data := []byte("\x89PNG\r\n\x1a\n\x00\x00 not really an image")
	got, err := s.Spill("host.example.com:8080", data, "image/png")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "mcp-resources", "host.example.com8080")
	want := Spilled{Path: filepath.Join(dir, sha(data)+"."+extension("image/png")), SHA256: sha(data), Size: int64(len(data))}
	if got != want {
		t.Fatalf("Spill = %+v, want %+v", got, want)
	}
	if b, err := os.ReadFile(got.Path); err != nil || !bytes.Equal(b, data) {
		t.Fatalf("file holds %q, %v; want the data", b, err)
	}
	for _, d := range []string{root, filepath.Dir(dir), dir} {
		if m := perm(t, d); m != fs.ModeDir|0o700 {
			t.Errorf("%s: mode %v, want drwx------", d, m)
		}
	}
	if m := perm(t, got.Path); m != 0o600 {
		t.Errorf("%s: mode %v, want -rw-------", got.Path, m)
	}
	if tmp := tmpFiles(t, root); tmp != nil {
		t.Errorf("temporary files left: %q", tmp)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%s holds %d entries, want 1", dir, len(entries))
	}
}

func TestSpillHostileNames(t *testing.T) {
	root := t.TempDir()
	top := filepath.Join(root, "mcp-resources")
	s := &Spiller{Root: root}
	data := []byte{0, 1, 2, 3}
	for _, c := range []struct{ server, mime, dir string }{
		{"../../etc", "../../../x", "____etc"},
		{"..", "image/png/../../..", "__"},
		{"/abs/path", "text/plain;x=/../..", "abspath"},
		{"", "\x00", "_"},
	} {
		got, err := s.Spill(c.server, data, c.mime)
		if err != nil {
			t.Fatalf("%q %q: %v", c.server, c.mime, err)
		}
		rel, err := filepath.Rel(top, got.Path)
		if err != nil || filepath.Dir(rel) != c.dir || strings.Contains(filepath.Base(rel), "/") {
			t.Errorf("%q %q: path %s, want it in %s/%s", c.server, c.mime, got.Path, top, c.dir)
		}
		if ext := strings.TrimPrefix(filepath.Ext(got.Path), "."); !safeExtension(ext) {
			t.Errorf("%q %q: extension %q", c.server, c.mime, ext)
		}
	}
	// Nothing was created outside the spill tree.
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 || entries[0].Name() != "mcp-resources" {
		t.Errorf("root holds %v, want only mcp-resources", entries)
	}
}

func TestSpillRelativeRoot(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	got, err := (&Spiller{Root: "cache"}).Spill("srv", []byte{0}, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "cache", "mcp-resources", "srv"); filepath.Dir(got.Path) != want {
		t.Errorf("path %s, want it in %s", got.Path, want)
	}
	if got, err := (&Spiller{}).Spill("srv", []byte{0}, ""); err == nil {
		t.Errorf("no root: spilled to %s", got.Path)
	}
}

func TestSpillReuseTouches(t *testing.T) {
	root := t.TempDir()
	s := &Spiller{Root: root}
	data := bytes.Repeat([]byte{0xff, 0}, 1000)
	first, err := s.Spill("srv", data, "application/octet-stream")
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(first.Path, old, old); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Lstat(first.Path)
	again, err := s.Spill("srv", data, "application/octet-stream")
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Fatalf("second spill %+v, first %+v", again, first)
	}
	after, _ := os.Lstat(again.Path)
	if !os.SameFile(before, after) {
		t.Error("the file was rewritten, want it reused")
	}
	if d := time.Since(after.ModTime()); d > time.Minute || d < -time.Minute {
		t.Errorf("mtime %v not touched", after.ModTime())
	}
	// Another server gets its own copy; another mime type its own extension.
	other, err := s.Spill("other", data, "application/octet-stream")
	if err != nil || filepath.Base(other.Path) != filepath.Base(first.Path) || other.Path == first.Path {
		t.Errorf("other server: %+v, %v", other, err)
	}
	png, err := s.Spill("srv", data, "image/png")
	if err != nil {
		t.Fatal(err)
	}
	if png.Path == first.Path || png.SHA256 != first.SHA256 || filepath.Dir(png.Path) != filepath.Dir(first.Path) ||
		filepath.Base(png.Path) != first.SHA256+".png" {
		t.Errorf("image/png: %s, octet-stream: %s", png.Path, first.Path)
	}
}

func TestSpillRewritesWrongSize(t *testing.T) {
	s := &Spiller{Root: t.TempDir()}
	data := bytes.Repeat([]byte("\x00abc"), 500)
	first, err := s.Spill("srv", data, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(first.Path, 100); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Lstat(first.Path)
	again, err := s.Spill("srv", data, "")
	if err != nil || again != first {
		t.Fatalf("second spill %+v, %v; first %+v", again, err, first)
	}
	after, _ := os.Lstat(again.Path)
	if os.SameFile(before, after) {
		t.Error("the short file was reused, want it replaced by a new one")
	}
	if b, _ := os.ReadFile(again.Path); !bytes.Equal(b, data) {
		t.Errorf("file holds %d bytes, want the %d bytes of data", len(b), len(data))
	}
	if m := after.Mode(); m != 0o600 {
		t.Errorf("mode %v", m)
	}
}

func TestSpillReplacesSymlinkAtFinalName(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "victim")
	data := []byte("\x00spilled bytes\x00")
	// Same size as data, so following the link would pass the size check.
	victim := bytes.Repeat([]byte("v"), len(data))
	if err := os.WriteFile(outside, victim, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "mcp-resources", "srv")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(root, 0o700)
	os.Chmod(filepath.Dir(dir), 0o700)
	final := filepath.Join(dir, sha(data)+"."+extension("application/octet-stream"))
	if err := os.Symlink(outside, final); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-3 * time.Hour)
	os.Chtimes(outside, old, old)

	got, err := (&Spiller{Root: root}).Spill("srv", data, "application/octet-stream")
	if err != nil {
		t.Fatal(err)
	}
	if got.Path != final {
		t.Fatalf("path %s, want %s", got.Path, final)
	}
	if m := perm(t, final); m != 0o600 {
		t.Errorf("final name: mode %v, want a regular 0600 file", m)
	}
	if b, _ := os.ReadFile(final); !bytes.Equal(b, data) {
		t.Errorf("final file holds %q", b)
	}
	fi, err := os.Stat(outside)
	if b, _ := os.ReadFile(outside); err != nil || !bytes.Equal(b, victim) || !fi.ModTime().Equal(old) || fi.Mode() != 0o644 {
		t.Errorf("the link's target was touched: %q, %v", b, err)
	}
}

func TestSpillDirectoryAtFinalName(t *testing.T) {
	root := t.TempDir()
	data := []byte{0, 'd'}
	dir := filepath.Join(root, "mcp-resources", "srv")
	final := filepath.Join(dir, sha(data)+".bin")

	// An empty directory at the final name is replaced.
	if err := os.MkdirAll(final, 0o700); err != nil {
		t.Fatal(err)
	}
	got, err := (&Spiller{Root: root}).Spill("srv", data, "")
	if err != nil || got.Path != final || perm(t, final) != 0o600 {
		t.Fatalf("over an empty directory: %+v, %v", got, err)
	}

	// A non-empty one is not deleted: the spill fails and leaves no temporary file.
	os.Remove(final)
	if err := os.MkdirAll(filepath.Join(final, "keep"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err = (&Spiller{Root: root}).Spill("srv", data, "")
	if err == nil || !strings.Contains(err.Error(), final) {
		t.Fatalf("over a non-empty directory: %v, want an error naming %s", err, final)
	}
	var le *limits.Error
	if errors.As(err, &le) {
		t.Errorf("a write failure is not a limit: %v", err)
	}
	if _, err := os.Stat(filepath.Join(final, "keep")); err != nil {
		t.Errorf("the directory's contents were removed: %v", err)
	}
	if tmp := tmpFiles(t, root); tmp != nil {
		t.Errorf("temporary files left: %q", tmp)
	}
}

func TestSpillRefusesDirectory(t *testing.T) {
	mkdir := func(t *testing.T, p string, mode fs.FileMode) {
		t.Helper()
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	// Each case prepares root and returns the path that must be refused.
	for _, c := range []struct {
		name, why string
		setup     func(t *testing.T, root, outside string) string
	}{
		{"symlinked root", "symbolic link", func(t *testing.T, root, outside string) string {
			os.Remove(root)
			must(t, os.Symlink(outside, root))
			return root
		}},
		{"symlinked mcp-resources", "symbolic link", func(t *testing.T, root, outside string) string {
			p := filepath.Join(root, "mcp-resources")
			must(t, os.Symlink(outside, p))
			return p
		}},
		{"symlinked server dir", "symbolic link", func(t *testing.T, root, outside string) string {
			p := filepath.Join(root, "mcp-resources", "srv")
			mkdir(t, filepath.Dir(p), 0o700)
			must(t, os.Symlink(outside, p))
			return p
		}},
		{"mcp-resources is a file", "not a directory", func(t *testing.T, root, outside string) string {
			p := filepath.Join(root, "mcp-resources")
			must(t, os.WriteFile(p, nil, 0o600))
			return p
		}},
		{"group-writable server dir", "chmod 700 ", func(t *testing.T, root, outside string) string {
			p := filepath.Join(root, "mcp-resources", "srv")
			mkdir(t, p, 0o770)
			return p
		}},
		{"world-writable root", "chmod 700 ", func(t *testing.T, root, outside string) string {
			mkdir(t, root, 0o707)
			return root
		}},
		{"world-writable mcp-resources, sticky", "chmod 700 ", func(t *testing.T, root, outside string) string {
			p := filepath.Join(root, "mcp-resources")
			mkdir(t, p, fs.ModeSticky|0o777)
			return p
		}},
		{"group-writable, not readable", "group- or world-writable (mode 0020)", func(t *testing.T, root, outside string) string {
			p := filepath.Join(root, "mcp-resources")
			mkdir(t, p, 0o020)
			return p
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "cache")
			must(t, os.Mkdir(root, 0o700))
			outside := t.TempDir()
			bad := c.setup(t, root, outside)
			_, err := (&Spiller{Root: root}).Spill("srv", []byte{0}, "")
			var le *limits.Error
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want a *limits.Error", err)
			}
			if le.Limit != "spill directory" || !strings.Contains(le.Msg, bad+" ") || !strings.Contains(le.Msg, c.why) {
				t.Errorf("got %+v, want the spill directory limit naming %s and %q", le, bad, c.why)
			}
			if le.Error() != le.Msg {
				t.Errorf("Error() = %q", le.Error())
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Errorf("wrote through the link: %v", entries)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestSpillRefusesForeignOwner(t *testing.T) {
	var bad string
	root := "/"
	if os.Getuid() == 0 {
		// As root: a directory handed to nobody.
		root = filepath.Join(t.TempDir(), "cache")
		must(t, os.Mkdir(root, 0o700))
		must(t, os.Chown(root, 65534, 65534))
		bad = root
	} else {
		// Not root: "/" belongs to someone else, and is checked before anything is made.
		fi, err := os.Lstat("/")
		if uid, ok := fileOwner(fi); err != nil || !ok || uid == os.Getuid() {
			t.Skip("no directory owned by another user")
		}
		bad = "/"
	}
	_, err := (&Spiller{Root: root}).Spill("srv", []byte{0}, "")
	var le *limits.Error
	if !errors.As(err, &le) || !strings.Contains(le.Msg, bad+" is owned by uid ") || !strings.Contains(le.Msg, "--cache-dir") {
		t.Fatalf("got %v, want a *limits.Error naming %s and its owner", err, bad)
	}
	if entries, _ := os.ReadDir(root); root != "/" && len(entries) != 0 {
		t.Errorf("wrote into it: %v", entries)
	}
}

// plant writes size bytes at root/mcp-resources/rel with the given age.
func plant(t *testing.T, root, rel string, size int, age time.Duration) string {
	t.Helper()
	p := filepath.Join(root, "mcp-resources", rel)
	must(t, os.MkdirAll(filepath.Dir(p), 0o700))
	must(t, os.WriteFile(p, bytes.Repeat([]byte{'x'}, size), 0o600))
	when := time.Now().Add(-age)
	must(t, os.Chtimes(p, when, when))
	return p
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func TestSpillEviction(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "big")
	must(t, os.WriteFile(outside, make([]byte, 1<<20), 0o600))
	old1 := plant(t, root, "a/old1.bin", 1000, 3*time.Hour)
	tmpOld := plant(t, root, "b/.tmp-old", 1000, 2*time.Hour)
	old2 := plant(t, root, "b/old2.bin", 1000, 90*time.Minute)
	mid := plant(t, root, "a/mid.bin", 1000, 30*time.Minute)
	tmpYoung := plant(t, root, "a/.tmp-young", 1000, 50*time.Minute)
	// A symlink in the tree is neither counted nor followed nor removed.
	link := filepath.Join(root, "mcp-resources", "a", "link.bin")
	must(t, os.Symlink(outside, link))
	// So is a file in a deeper directory counted like any other.
	deep := plant(t, root, "a/sub/deep.bin", 500, 10*time.Minute)

	// total: 5 × 1000 + 500 + 1000 new = 6500; budget 4000 → old1, .tmp-old, old2 go.
	s := &Spiller{Root: root, Budget: 4000, Warn: func(m string) { t.Errorf("warning: %s", m) }}
	data := bytes.Repeat([]byte{0}, 1000)
	got, err := s.Spill("srv", data, "")
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{
		old1: false, tmpOld: false, old2: false,
		mid: true, tmpYoung: true, deep: true, link: true, got.Path: true, outside: true,
	} {
		if exists(p) != want {
			t.Errorf("%s: exists %v, want %v", p, !want, want)
		}
	}
	if fi, err := os.Stat(outside); err != nil || fi.Size() != 1<<20 {
		t.Errorf("link target: %v", err)
	}
	// A reuse evicts too: with a smaller budget everything else but the young
	// temporary file goes, oldest first.
	s.Budget = 2500
	if again, err := s.Spill("srv", data, ""); err != nil || again != got {
		t.Fatal(again, err)
	}
	for p, want := range map[string]bool{mid: false, deep: true, tmpYoung: true, got.Path: true} {
		if exists(p) != want {
			t.Errorf("after reuse: %s: exists %v, want %v", p, !want, want)
		}
	}
}

func TestSpillEvictionKeepsTheFileReturned(t *testing.T) {
	root := t.TempDir()
	older := plant(t, root, "srv/older.bin", 10, time.Hour)
	// The blob alone is over the budget: everything else goes, the blob stays.
	s := &Spiller{Root: root, Budget: 10}
	data := bytes.Repeat([]byte{1, 0}, 50)
	got, err := s.Spill("srv", data, "")
	if err != nil {
		t.Fatal(err)
	}
	if !exists(got.Path) || exists(older) {
		t.Errorf("over-budget blob: kept %v (want true), older kept %v (want false)", exists(got.Path), exists(older))
	}
}

func TestSpillEvictionDefaultBudget(t *testing.T) {
	root := t.TempDir()
	// Budget 0 means limits.SpillBudget: 100 files of 1000 bytes are far below it.
	var planted []string
	for i := range 100 {
		planted = append(planted, plant(t, root, fmt.Sprintf("srv/f%d.bin", i), 1000, time.Duration(i+1)*time.Hour))
	}
	if _, err := (&Spiller{Root: root}).Spill("srv", []byte{0}, ""); err != nil {
		t.Fatal(err)
	}
	for _, p := range planted {
		if !exists(p) {
			t.Fatalf("%s evicted under the default budget", p)
		}
	}
}

func TestSpillEvictionToleratesVanishedFiles(t *testing.T) {
	root := t.TempDir()
	old1 := plant(t, root, "x/old1.bin", 1000, 3*time.Hour)
	old2 := plant(t, root, "x/old2.bin", 1000, 2*time.Hour)
	old3 := plant(t, root, "y/old3.bin", 1000, time.Hour)
	gone := plant(t, root, "gone/g.bin", 10, 10*time.Hour)
	var removedFirst []string
	testOnlyHook = func(event, path string) {
		switch {
		case event == "walk" && filepath.Base(path) == "gone":
			// another process removes a whole directory while it is walked
			must(t, os.RemoveAll(path))
		case event == "remove" && path == old1:
			// another process evicts old1 between our walk and our unlink
			must(t, os.Remove(path))
			removedFirst = append(removedFirst, path)
		}
	}
	t.Cleanup(func() { testOnlyHook = nil })
	// total 4000 (gone vanished before it was counted); budget 2500: old1 (by
	// the other process) and old2 go, old3 stays.
	s := &Spiller{Root: root, Budget: 2500, Warn: func(m string) { t.Errorf("warning: %s", m) }}
	got, err := s.Spill("srv", bytes.Repeat([]byte{0}, 1000), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(removedFirst) != 1 {
		t.Fatalf("the hook removed %v", removedFirst)
	}
	for p, want := range map[string]bool{old1: false, old2: false, old3: true, gone: false, got.Path: true} {
		if exists(p) != want {
			t.Errorf("%s: exists %v, want %v", p, !want, want)
		}
	}
}

func TestSpillRacesWithAnotherProcess(t *testing.T) {
	t.Cleanup(func() { testOnlyHook = nil })
	data := []byte{0, 'r'}

	// Another process makes the server directory between our Lstat and Mkdir:
	// theirs is used when it passes the checks, refused when it does not.
	for mode, refused := range map[fs.FileMode]bool{0o700: false, 0o777: true} {
		root := t.TempDir()
		testOnlyHook = func(event, path string) {
			if event == "mkdir" && filepath.Base(path) == "srv" {
				must(t, os.Mkdir(path, mode))
				must(t, os.Chmod(path, mode))
			}
		}
		got, err := (&Spiller{Root: root}).Spill("srv", data, "")
		var le *limits.Error
		if refused && !errors.As(err, &le) || !refused && (err != nil || !exists(got.Path)) {
			t.Errorf("server directory made meanwhile with mode %v: %+v, %v", mode, got, err)
		}
	}

	// Another process evicts the file we were about to reuse: it is written again.
	testOnlyHook = nil
	s := &Spiller{Root: t.TempDir()}
	first, err := s.Spill("srv", data, "")
	must(t, err)
	testOnlyHook = func(event, path string) {
		if event == "reuse" {
			must(t, os.Remove(path))
		}
	}
	again, err := s.Spill("srv", data, "")
	if b, _ := os.ReadFile(first.Path); err != nil || again != first || !bytes.Equal(b, data) {
		t.Errorf("file evicted before its reuse: %+v, %v; the file holds %q", again, err, b)
	}
}

// The spill helper process: one of several OS processes spilling into the same
// cache root at once (TestSpillConcurrentProcesses), or a single spill under a
// hostile umask (TestSpillUmask), or the peak RSS probe (TestSpillPeakRSS).
const helperEnv = "MCPX_SPILL_HELPER"

func TestSpillHelperProcess(t *testing.T) {
	var err error
	switch mode := os.Getenv(helperEnv); mode {
	case "":
		t.Skip("a helper process for other tests")
	case "concurrent":
		err = helperConcurrent()
	case "umask":
		err = helperUmask()
	case "rss":
		err = helperRSS()
	default:
		err = fmt.Errorf("unknown helper mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// helperCmd runs this test binary as a helper in mode with env added.
func helperCmd(mode string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestSpillHelperProcess$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), helperEnv+"="+mode), env...)
	return cmd
}

func helperUmask() error {
	umask(0o277) // would leave directories r-x and files r--
	root := filepath.Join(os.Getenv("MCPX_SPILL_ROOT"), "cache")
	got, err := (&Spiller{Root: root}).Spill("srv", []byte{0, 1}, "")
	if err != nil {
		return err
	}
	for _, p := range []string{root, filepath.Join(root, "mcp-resources"), filepath.Dir(got.Path), got.Path} {
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		fmt.Printf("%v %s\n", fi.Mode(), p)
	}
	return nil
}

func TestSpillUmask(t *testing.T) {
	dir := t.TempDir()
	out, err := helperCmd("umask", "MCPX_SPILL_ROOT="+dir).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	root := filepath.Join(dir, "cache")
	sum := sha([]byte{0, 1})
	want := fmt.Sprintf("drwx------ %s\ndrwx------ %s/mcp-resources\ndrwx------ %s/mcp-resources/srv\n-rw------- %s/mcp-resources/srv/%s.bin\n",
		root, root, root, root, sum)
	if string(out) != want {
		t.Errorf("under umask 277:\n%s\nwant\n%s", out, want)
	}
}

// concurrentBlob is blob number seed: 128 to 384 KiB of random bytes.
func concurrentBlob(seed uint64) []byte {
	var key [32]byte
	key[0], key[1] = byte(seed), byte(seed>>8)
	r := rand.NewChaCha8(key)
	b := make([]byte, 128<<10+int(seed*7919%(256<<10)))
	r.Read(b)
	return b
}

// verifyTree reads every final file under root/mcp-resources and checks that
// it holds exactly the bytes its name promises. It returns the tree's total size.
func verifyTree(root string) (int64, error) {
	var total int64
	err := filepath.WalkDir(filepath.Join(root, "mcp-resources"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), tmpPrefix) {
			return nil
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // evicted meanwhile
		} else if err != nil {
			return err
		}
		total += int64(len(b))
		if name, _, _ := strings.Cut(d.Name(), "."); name != sha(b) {
			return fmt.Errorf("%s holds %d bytes with sha256 %s", path, len(b), sha(b))
		}
		return nil
	})
	return total, err
}

func helperConcurrent() error {
	root := os.Getenv("MCPX_SPILL_ROOT")
	id, _ := strconv.Atoi(os.Getenv("MCPX_SPILL_ID"))
	budget, _ := strconv.ParseInt(os.Getenv("MCPX_SPILL_BUDGET"), 10, 64)
	gate := os.Getenv("MCPX_SPILL_GATE")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(gate); err == nil {
			break
		} else if time.Now().After(deadline) {
			return errors.New("the start gate never opened")
		}
	}
	s := &Spiller{Root: root, Budget: budget, Warn: func(m string) { fmt.Fprintln(os.Stderr, "warning:", m) }}
	type job struct {
		seed   uint64
		server string
	}
	var jobs []job
	for k := range 20 {
		jobs = append(jobs, job{uint64(1000*(id+1) + k), fmt.Sprintf("p%d", id)}, job{uint64(k), "shared"})
	}
	rand.New(rand.NewPCG(uint64(id), 1)).Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	for i, j := range jobs {
		data := concurrentBlob(j.seed)
		got, err := s.Spill(j.server, data, "image/png")
		if err != nil {
			return err
		}
		if got.SHA256 != sha(data) || got.Size != int64(len(data)) {
			return fmt.Errorf("blob %d: got %+v, want sha256 %s size %d", j.seed, got, sha(data), len(data))
		}
		fmt.Printf("SPILL %d %s %s\n", j.seed, got.SHA256, got.Path)
		// Read it back at once, while the others write and evict: whole or gone.
		if b, err := os.ReadFile(got.Path); err == nil && !bytes.Equal(b, data) {
			return fmt.Errorf("%s: read back %d bytes, sha256 %s", got.Path, len(b), sha(b))
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if i%4 == 3 {
			if _, err := verifyTree(root); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestSpillConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 8 processes")
	}
	const procs = 8
	const budget = 2 << 20 // about 8 blobs: every spill evicts
	dir := t.TempDir()
	root := filepath.Join(dir, "cache") // missing: the processes race to make it
	gate := filepath.Join(dir, "gate")
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*bytes.Buffer, procs)
	errs := make([]*bytes.Buffer, procs)
	for i := range cmds {
		cmds[i] = helperCmd("concurrent", "MCPX_SPILL_ROOT="+root, "MCPX_SPILL_ID="+strconv.Itoa(i),
			"MCPX_SPILL_BUDGET="+strconv.Itoa(budget), "MCPX_SPILL_GATE="+gate)
		outs[i], errs[i] = new(bytes.Buffer), new(bytes.Buffer)
		cmds[i].Stdout, cmds[i].Stderr = outs[i], errs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.WriteFile(gate, nil, 0o600))

	type report struct{ sha, path string }
	reports := map[uint64]report{} // blob seed → what a process got for it
	var maxBlob int64
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil || errs[i].Len() != 0 {
			t.Errorf("process %d: %v\n%s", i, err, errs[i])
			continue
		}
		n := 0
		sc := bufio.NewScanner(outs[i])
		for sc.Scan() {
			var seed uint64
			var r report
			if _, err := fmt.Sscanf(sc.Text(), "SPILL %d %s %s", &seed, &r.sha, &r.path); err != nil {
				t.Fatalf("process %d: %q: %v", i, sc.Text(), err)
			}
			n++
			data := concurrentBlob(seed)
			maxBlob = max(maxBlob, int64(len(data)))
			if r.sha != sha(data) || filepath.Base(r.path) != r.sha+".png" {
				t.Errorf("process %d: blob %d reported as %+v", i, seed, r)
			}
			// Same server, bytes and mime: the same path in every process.
			if prev, ok := reports[seed]; ok && prev != r {
				t.Errorf("blob %d: %+v and %+v", seed, prev, r)
			}
			reports[seed] = r
			if b, err := os.ReadFile(r.path); err == nil && sha(b) != r.sha {
				t.Errorf("%s: holds sha256 %s, want %s", r.path, sha(b), r.sha)
			} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Error(err)
			}
		}
		if n != 40 {
			t.Errorf("process %d reported %d spills, want 40", i, n)
		}
	}
	if len(reports) != 20+procs*20 {
		t.Errorf("%d distinct blobs reported, want %d", len(reports), 20+procs*20)
	}
	total, err := verifyTree(root)
	if err != nil {
		t.Fatal(err)
	}
	if total > budget+maxBlob {
		t.Errorf("the tree holds %d bytes, over the budget %d + one blob %d", total, budget, maxBlob)
	}
	if total == 0 {
		t.Error("the tree is empty")
	}
	if tmp := tmpFiles(t, root); tmp != nil {
		t.Errorf("temporary files left: %q", tmp)
	}
	for _, d := range []string{root, filepath.Join(root, "mcp-resources"), filepath.Join(root, "mcp-resources", "shared")} {
		if m := perm(t, d); m != fs.ModeDir|0o700 {
			t.Errorf("%s: mode %v", d, m)
		}
	}
}
