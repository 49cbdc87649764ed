package auth

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestTransports: a URL is remembered as SSE once set, by a marker that
// holds nothing of the URL, in directories made 0700; forgotten on Forget;
// and no marker is believed from a directory or file another user could
// have written.
func TestTransports(t *testing.T) {
	state := filepath.Join(t.TempDir(), "mcpx")
	m := NewTransports(filepath.Join(state, "transports"))
	const u = "https://example.com/sse?key=s3cr3t"
	if m.IsSSE(u) {
		t.Fatal("remembered before anything was set")
	}
	if err := m.SetSSE(u); err != nil {
		t.Fatal(err)
	}
	if !m.IsSSE(u) || m.IsSSE(u+"x") {
		t.Fatal("IsSSE after SetSSE: want the URL alone")
	}
	entries, _ := os.ReadDir(m.dir)
	if len(entries) != 1 {
		t.Fatalf("markers: %v", entries)
	}
	data, _ := os.ReadFile(filepath.Join(m.dir, entries[0].Name()))
	if string(data) != "sse\n" || strings.Contains(entries[0].Name(), "s3cr3t") {
		t.Errorf("marker %s holds %q", entries[0].Name(), data)
	}
	if runtime.GOOS != "windows" {
		for _, d := range []string{state, m.dir} {
			if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o700 {
				t.Errorf("%s is mode %v", d, fi.Mode())
			}
		}
		if fi, _ := os.Stat(m.path(u)); fi.Mode().Perm() != 0o600 {
			t.Errorf("marker is mode %v", fi.Mode())
		}
		// open to others' writes: not believed; SetSSE narrows it again
		_ = os.Chmod(m.dir, 0o777)
		if m.IsSSE(u) {
			t.Error("a marker in a world-writable directory was believed")
		}
		if err := m.SetSSE(u); err != nil || !m.IsSSE(u) {
			t.Errorf("SetSSE did not narrow the directory: %v", err)
		}
		_ = os.Chmod(m.path(u), 0o666)
		if m.IsSSE(u) {
			t.Error("a world-writable marker was believed")
		}
		// a link in place of the marker
		_ = os.Remove(m.path(u))
		other := filepath.Join(t.TempDir(), "x")
		_ = os.WriteFile(other, []byte("sse\n"), 0o600)
		if err := os.Symlink(other, m.path(u)); err == nil && m.IsSSE(u) {
			t.Error("a marker that is a symbolic link was believed")
		}
		_ = os.Remove(m.path(u))
	}
	// a marker that holds something else
	if err := os.WriteFile(m.path(u), []byte("http\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if m.IsSSE(u) {
		t.Error("a marker holding something else was believed")
	}
	if err := m.SetSSE(u); err != nil {
		t.Fatal(err)
	}
	m.Forget(u)
	if m.IsSSE(u) {
		t.Error("remembered after Forget")
	}
	// no state directory: nothing remembered, nothing written
	var none Transports
	if none.SetSSE(u) != nil || none.IsSSE(u) {
		t.Error("the zero Transports remembered something")
	}
	none.Forget(u)
	if d := TransportsDir(func(k string) string { return map[string]string{"XDG_STATE_HOME": "/st"}[k] }); d.dir != filepath.Join("/st", "mcpx", "transports") {
		t.Errorf("TransportsDir = %q", d.dir)
	}
}
