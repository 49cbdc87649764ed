package auth

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/client/transport"
)

func TestCanonicalURLForms(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// scheme and host in lower case; the path keeps its case
		{"HTTPS://Example.COM/MCP", "https://example.com/MCP"},
		{"Http://EXAMPLE.com:8080/a/B", "http://example.com:8080/a/B"},
		// default ports dropped, other ports kept
		{"http://example.com:80/mcp", "http://example.com/mcp"},
		{"https://example.com:443/mcp", "https://example.com/mcp"},
		{"http://example.com:443/mcp", "http://example.com:443/mcp"},
		{"https://example.com:80", "https://example.com:80"},
		{"https://example.com:8443/", "https://example.com:8443"},
		// IPv6 literals keep their brackets
		{"https://[::1]:443/mcp", "https://[::1]/mcp"},
		{"http://[::1]:80", "http://[::1]"},
		{"http://[::1]:8080/mcp", "http://[::1]:8080/mcp"},
		{"https://[FE80::1]:443/", "https://[fe80::1]"},
		{"http://127.0.0.1:80/x", "http://127.0.0.1/x"},
		// user information and fragment dropped
		{"https://user:pass@example.com/mcp", "https://example.com/mcp"},
		{"https://user@example.com:443/mcp", "https://example.com/mcp"},
		{"https://example.com/mcp#frag", "https://example.com/mcp"},
		{"https://example.com/mcp#", "https://example.com/mcp"},
		// one trailing slash dropped
		{"https://example.com/mcp/", "https://example.com/mcp"},
		{"https://example.com/", "https://example.com"},
		{"https://example.com", "https://example.com"},
		{"https://example.com/a%2Fb/", "https://example.com/a%2Fb"},
		// the query is kept as it is
		{"https://example.com/mcp?b=2&a=1", "https://example.com/mcp?b=2&a=1"},
		{"https://example.com/mcp/?x=1#f", "https://example.com/mcp?x=1"},
		{"https://u:p@Example.com:443/?x=1", "https://example.com?x=1"},
	} {
		got, err := transport.CanonicalURL(c.in)
		if err != nil || got != c.want {
			t.Errorf("transport.CanonicalURL(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
		// canonical is a fixed point
		if again, err := transport.CanonicalURL(got); err != nil || again != got {
			t.Errorf("transport.CanonicalURL(%q) = %q, %v; not a fixed point", got, again, err)
		}
	}
	for _, in := range []string{"", "example.com/mcp", "ftp://example.com/x", "https://", "https:///path",
		"http://[::1", "mailto:a@example.com", "https://exa mple.com/", "//example.com/mcp", "file:///etc/passwd", "http:example.com"} {
		got, err := transport.CanonicalURL(in)
		want := fmt.Sprintf("%q is not an http(s) URL", in)
		if err == nil || err.Error() != want || got != "" {
			t.Errorf("transport.CanonicalURL(%q) = %q, %v; want error %q", in, got, err, want)
		}
	}
}

func TestTokenDirEnv(t *testing.T) {
	for _, c := range []struct {
		xdg, home, want string
	}{
		{"/state", "/home/u", "/state/mcpx/tokens"},
		{"/state/", "", "/state/mcpx/tokens"},
		{"state", "/home/u", "/home/u/.local/state/mcpx/tokens"}, // relative: ignored (XDG spec)
		{"./state", "/home/u", "/home/u/.local/state/mcpx/tokens"},
		{"", "/home/u", "/home/u/.local/state/mcpx/tokens"},
		{"", "", ""},
		{"rel", "home", ""},
		{"", "home/u", ""},
	} {
		got := TokenDir(func(k string) string { return map[string]string{"XDG_STATE_HOME": c.xdg, "HOME": c.home}[k] })
		if got != c.want {
			t.Errorf("TokenDir(XDG_STATE_HOME=%q HOME=%q) = %q, want %q", c.xdg, c.home, got, c.want)
		}
	}
}

// tkToken is a token for server as the store holds it.
func tkToken(server, access string) *StoredToken {
	now := time.Now().UTC().Truncate(time.Second)
	exp := now.Add(time.Hour)
	return &StoredToken{Server: server, Resource: server, Issuer: "https://as.example", TokenEndpoint: "https://as.example/token",
		ClientID: "cid", AuthMethod: "none", AccessToken: access, TokenType: "Bearer", RefreshToken: "r-" + access,
		Scope: "read", ExpiresAt: &exp, ObtainedAt: now}
}

func tkPerm(t *testing.T, p string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func tkList(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestTokenStoreSaveModes(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "state", "mcpx", "tokens")
	s := tokenStore{dir: dir}
	const server = "https://example.com/mcp"
	tok := tkToken(server, "a1")
	if err := s.save(tok); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Dir(dir), filepath.Dir(filepath.Dir(dir))} {
		if m := tkPerm(t, d); m != 0o700 {
			t.Errorf("%s: mode %o, want 700", d, m)
		}
	}
	p := s.path(server)
	if !regexp.MustCompile(`^[0-9a-f]{32}\.json$`).MatchString(filepath.Base(p)) || filepath.Dir(p) != dir {
		t.Errorf("path = %s", p)
	}
	if m := tkPerm(t, p); m != 0o600 {
		t.Errorf("token file mode %o, want 600", m)
	}
	if got := tkList(t, dir); !slices.Equal(got, []string{filepath.Base(p)}) {
		t.Errorf("directory holds %q", got)
	}
	back, err := s.load(server)
	if err != nil || back == nil {
		t.Fatalf("load = %v, %v", back, err)
	}
	if back.AccessToken != "a1" || back.RefreshToken != "r-a1" || !back.ExpiresAt.Equal(*tok.ExpiresAt) || !back.ObtainedAt.Equal(tok.ObtainedAt) ||
		back.Server != server || back.Scope != "read" || back.ClientID != "cid" {
		t.Errorf("load = %+v", back)
	}

	// An existing 0755 directory is narrowed; a 0644 file is replaced by a 0600 one.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.save(tkToken(server, "a2")); err != nil {
		t.Fatal(err)
	}
	if m := tkPerm(t, dir); m != 0o700 {
		t.Errorf("directory mode %o after save, want 700", m)
	}
	if m := tkPerm(t, p); m != 0o600 {
		t.Errorf("token file mode %o after save, want 600", m)
	}
	if back, _ := s.load(server); back == nil || back.AccessToken != "a2" {
		t.Errorf("load after second save = %+v", back)
	}
	if got := tkList(t, dir); !slices.Equal(got, []string{filepath.Base(p)}) {
		t.Errorf("directory holds %q", got)
	}

	// lock narrows too, and leaves its lock file (0600) behind.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := s.lock(context.Background(), server)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if m := tkPerm(t, dir); m != 0o700 {
		t.Errorf("directory mode %o after lock, want 700", m)
	}
	lockPath := strings.TrimSuffix(p, ".json") + ".lock"
	if m := tkPerm(t, lockPath); m != 0o600 {
		t.Errorf("lock file mode %o, want 600", m)
	}

	// No directory known.
	if err := (tokenStore{}).save(tok); err == nil || err.Error() != "no token directory: set HOME or XDG_STATE_HOME" {
		t.Errorf("save without a directory: %v", err)
	}
	if _, err := (tokenStore{}).lock(context.Background(), server); err == nil || err.Error() != "no token directory: set HOME or XDG_STATE_HOME" {
		t.Errorf("lock without a directory: %v", err)
	}
	// The directory's place is a file.
	f := filepath.Join(base, "file")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := (tokenStore{dir: f}).save(tok); err == nil || !strings.HasPrefix(err.Error(), "cannot create the token directory: ") {
		t.Errorf("save into a file: %v", err)
	}
}

func TestTokenStoreLoad(t *testing.T) {
	const server = "https://example.com/mcp"
	valid := `{"server":"https://example.com/mcp","access_token":"a","token_type":"Bearer"}`
	for _, c := range []struct {
		name    string
		setup   func(p string) error
		wantTok string // access token wanted
		wantErr string // %s is the path
	}{
		{"missing", func(string) error { return nil }, "", ""},
		{"valid", func(p string) error { return os.WriteFile(p, []byte(valid), 0o600) }, "a", ""},
		{"valid, trailing newline", func(p string) error { return os.WriteFile(p, []byte(valid+"\n"), 0o600) }, "a", ""},
		{"not JSON", func(p string) error { return os.WriteFile(p, []byte("{\"server\": \"https://exam"), 0o600) }, "", "token file %s is damaged"},
		{"empty", func(p string) error { return os.WriteFile(p, nil, 0o600) }, "", "token file %s is damaged"},
		{"JSON array", func(p string) error { return os.WriteFile(p, []byte(`[1,2]`), 0o600) }, "", "token file %s is damaged"},
		{"no access token", func(p string) error {
			return os.WriteFile(p, []byte(`{"server":"https://example.com/mcp","refresh_token":"r"}`), 0o600)
		}, "", "token file %s is damaged"},
		{"wrong field type", func(p string) error {
			return os.WriteFile(p, []byte(`{"server":"https://example.com/mcp","access_token":"a","expires_at":12}`), 0o600)
		}, "", "token file %s is damaged"},
		{"over 1 MiB", func(p string) error {
			// valid JSON, padded past the bound
			return os.WriteFile(p, []byte(valid+strings.Repeat(" ", maxTokenFile)), 0o600)
		}, "", "token file %s is damaged"},
		{"exactly 1 MiB", func(p string) error {
			return os.WriteFile(p, []byte(valid+strings.Repeat(" ", maxTokenFile-len(valid))), 0o600)
		}, "a", ""},
		{"directory", func(p string) error { return os.Mkdir(p, 0o700) }, "", "token file %s is not a regular file"},
		{"symlink to a directory", func(p string) error { return os.Symlink(os.TempDir(), p) }, "", "token file %s is not a regular file (a symbolic link)"},
		{"symlink to a character device", func(p string) error { return os.Symlink("/dev/null", p) }, "", "token file %s is not a regular file (a symbolic link)"},
		{"symlink to a regular file", func(p string) error {
			q := p + ".real"
			if err := os.WriteFile(q, []byte(`{"server":"https://example.com/mcp","access_token":"a"}`), 0o600); err != nil {
				return err
			}
			return os.Symlink(q, p)
		}, "", "token file %s is not a regular file (a symbolic link)"},
		{"another server's file", func(p string) error {
			return os.WriteFile(p, []byte(`{"server":"https://other.example/mcp","access_token":"a"}`), 0o600)
		}, "", ""},
		{"no server", func(p string) error { return os.WriteFile(p, []byte(`{"access_token":"a"}`), 0o600) }, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := tokenStore{dir: t.TempDir()}
			p := s.path(server)
			if err := c.setup(p); err != nil {
				t.Fatal(err)
			}
			tok, err := s.load(server)
			if c.wantErr != "" {
				want := fmt.Sprintf(c.wantErr, p)
				if err == nil || err.Error() != want || tok != nil {
					t.Fatalf("load = %+v, %v; want error %q", tok, err, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if c.wantTok == "" {
				if tok != nil {
					t.Fatalf("load = %+v, want nil", tok)
				}
				return
			}
			if tok == nil || tok.AccessToken != c.wantTok {
				t.Fatalf("load = %+v, want access token %q", tok, c.wantTok)
			}
		})
	}
	// The directory itself unreadable as a directory: an error, not "missing".
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if tok, err := (tokenStore{dir: f}).load(server); err == nil || tok != nil || !strings.HasPrefix(err.Error(), "cannot read the token store: ") {
		t.Errorf("load under a file = %v, %v", tok, err)
	}
}

// A FIFO where the token file should be must not hang a load (nor a
// connection, nor completion): load has to refuse it at once.
func TestTokenStoreLoadFIFO(t *testing.T) {
	const server = "https://example.com/mcp"
	s := tokenStore{dir: t.TempDir()}
	p := s.path(server)
	if err := mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	type result struct {
		tok *StoredToken
		err error
	}
	done := make(chan result, 1)
	go func() {
		tok, err := s.load(server)
		done <- result{tok, err}
	}()
	select {
	case r := <-done:
		want := fmt.Sprintf("token file %s is not a regular file", p)
		if r.err == nil || r.err.Error() != want || r.tok != nil {
			t.Fatalf("load of a FIFO = %+v, %v; want error %q", r.tok, r.err, want)
		}
	case <-time.After(2 * time.Second):
		// Unblock the stuck open(2) so the goroutine ends: open the FIFO
		// for writing (a reader waits, so this does not block) and close it.
		if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		<-done
		t.Fatal("tokenStore.load blocks forever on a FIFO at the token file's path: os.Open(p) on a FIFO waits for a writer " +
			"before the regular-file check runs (open with O_NONBLOCK, or Lstat first, then check the opened file)")
	}
}

func TestTokenStoreRemove(t *testing.T) {
	const server = "https://example.com/mcp"
	s := tokenStore{dir: t.TempDir()}
	if ok, err := s.remove(server); ok || err != nil {
		t.Errorf("remove of nothing = %v, %v", ok, err)
	}
	if err := s.save(tkToken(server, "a")); err != nil {
		t.Fatal(err)
	}
	if err := s.save(tkToken("https://other.example", "b")); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.remove(server); !ok || err != nil {
		t.Errorf("remove = %v, %v", ok, err)
	}
	if tok, err := s.load(server); tok != nil || err != nil {
		t.Errorf("load after remove = %v, %v", tok, err)
	}
	if tok, err := s.load("https://other.example"); tok == nil || err != nil {
		t.Errorf("the other server's token went too: %v, %v", tok, err)
	}
	if ok, err := s.remove(server); ok || err != nil {
		t.Errorf("second remove = %v, %v", ok, err)
	}
	// A non-empty directory in its place cannot be removed.
	p := s.path(server)
	if err := os.MkdirAll(filepath.Join(p, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.remove(server); ok || err == nil || !strings.HasPrefix(err.Error(), "cannot remove the token file: ") {
		t.Errorf("remove of a directory = %v, %v", ok, err)
	}
}

// Many concurrent saves: a reader always sees one whole file, and no
// temporary file is left behind.
func TestTokenStoreAtomicSaves(t *testing.T) {
	const server = "https://example.com/mcp"
	s := tokenStore{dir: t.TempDir()}
	if err := s.save(tkToken(server, "seed")); err != nil {
		t.Fatal(err)
	}
	const writers, saves = 8, 40
	var wg sync.WaitGroup
	var stop atomic.Bool
	errs := make(chan error, writers*saves+1)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range saves {
				tok := tkToken(server, fmt.Sprintf("w%d-%d", w, i))
				tok.Scope = strings.Repeat("scope ", 2000) // a file of some size
				if err := (tokenStore{dir: s.dir}).save(tok); err != nil {
					errs <- err
				}
			}
		}()
	}
	readerDone := make(chan int)
	go func() {
		n := 0
		for !stop.Load() {
			tok, err := (tokenStore{dir: s.dir}).load(server)
			if err != nil {
				errs <- err
			} else if tok == nil || (tok.AccessToken != "seed" && !regexp.MustCompile(`^w\d-\d+$`).MatchString(tok.AccessToken)) {
				errs <- fmt.Errorf("reader saw %+v", tok)
			}
			n++
		}
		readerDone <- n
	}()
	wg.Wait()
	stop.Store(true)
	reads := <-readerDone
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if reads == 0 {
		t.Error("the reader never read")
	}
	if got := tkList(t, s.dir); !slices.Equal(got, []string{filepath.Base(s.path(server))}) {
		t.Errorf("directory holds %q after the saves", got)
	}
}

func TestTokenLockSerializes(t *testing.T) {
	const server = "https://example.com/mcp"
	dir := t.TempDir()
	var inside, overlaps, entries atomic.Int32
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				unlock, err := tokenStore{dir: dir}.lock(context.Background(), server)
				if err != nil {
					t.Error(err)
					return
				}
				if inside.Add(1) != 1 {
					overlaps.Add(1)
				}
				entries.Add(1)
				time.Sleep(15 * time.Millisecond)
				inside.Add(-1)
				unlock()
			}
		}()
	}
	wg.Wait()
	if overlaps.Load() != 0 || entries.Load() != 12 {
		t.Errorf("%d entries while another held the lock (want 0), %d entries (want 12)", overlaps.Load(), entries.Load())
	}
}

func TestTokenLockContext(t *testing.T) {
	const server = "https://example.com/mcp"
	dir := t.TempDir()
	unlock, err := tokenStore{dir: dir}.lock(context.Background(), server)
	if err != nil {
		t.Fatal(err)
	}
	// Another server's lock is independent.
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	u2, err := tokenStore{dir: dir}.lock(ctx, "https://other.example/mcp")
	cancel()
	if err != nil {
		t.Fatalf("another server's lock: %v", err)
	}
	u2()

	// The held lock: a deadline ends the wait.
	start := time.Now()
	ctx, cancel = context.WithTimeout(context.Background(), 150*time.Millisecond)
	u, err := tokenStore{dir: dir}.lock(ctx, server)
	cancel()
	if u != nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("lock while held = %v; want context.DeadlineExceeded", err)
	}
	if el := time.Since(start); el < 150*time.Millisecond || el > 2*time.Second {
		t.Errorf("lock gave up after %v", el)
	}
	// So does a cancellation.
	ctx, cancel = context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	if _, err := (tokenStore{dir: dir}).lock(ctx, server); !errors.Is(err, context.Canceled) {
		t.Fatalf("lock while held, cancelled = %v", err)
	}
	// A waiter gets the lock when the holder lets go.
	got := make(chan error, 1)
	go func() {
		u, err := tokenStore{dir: dir}.lock(context.Background(), server)
		if err == nil {
			u()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("lock taken while held (%v)", err)
	case <-time.After(100 * time.Millisecond):
	}
	unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter never got the lock")
	}
}

// The flock helper process (see TestTokenLockCrossProcess): it does
// nothing unless MCPX_TEST_TOKEN_LOCK is set.
const tkLockEnv = "MCPX_TEST_TOKEN_LOCK"

func TestTokenLockHelperProcess(t *testing.T) {
	mode := os.Getenv(tkLockEnv)
	if mode == "" {
		return
	}
	dir, server := os.Getenv(tkLockEnv+"_DIR"), "https://example.com/mcp"
	switch mode {
	case "try": // exit 0: got the lock within 300 ms; 3: timed out
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		unlock, err := tokenStore{dir: dir}.lock(ctx, server)
		if errors.Is(err, context.DeadlineExceeded) {
			os.Exit(3)
		}
		if err != nil {
			os.Exit(4)
		}
		unlock()
		os.Exit(0)
	case "hold": // take the lock, say so, hold it until told to let go
		unlock, err := tokenStore{dir: dir}.lock(context.Background(), server)
		if err != nil {
			os.Exit(4)
		}
		if os.WriteFile(filepath.Join(dir, "locked"), nil, 0o600) != nil {
			os.Exit(5)
		}
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(dir, "release")); err == nil {
				if os.WriteFile(filepath.Join(dir, "released"), nil, 0o600) != nil {
					os.Exit(5)
				}
				unlock()
				os.Exit(0)
			}
		}
		os.Exit(6)
	}
	os.Exit(7)
}

func tkHelper(t *testing.T, dir, mode string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestTokenLockHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), tkLockEnv+"="+mode, tkLockEnv+"_DIR="+dir)
	return cmd
}

func TestTokenLockCrossProcess(t *testing.T) {
	const server = "https://example.com/mcp"
	dir := t.TempDir()

	// This process holds the lock: the other process cannot take it.
	unlock, err := tokenStore{dir: dir}.lock(context.Background(), server)
	if err != nil {
		t.Fatal(err)
	}
	err = tkHelper(t, dir, "try").Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("the other process while this one holds the lock: %v; want exit 3 (timed out)", err)
	}
	unlock()
	if err := tkHelper(t, dir, "try").Run(); err != nil {
		t.Errorf("the other process after the lock was let go: %v; want exit 0", err)
	}

	// The other process holds it: this one waits for it.
	cmd := tkHelper(t, dir, "hold")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "locked")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the helper process never took the lock")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	_, err = tokenStore{dir: dir}.lock(ctx, server)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("lock while the other process holds it = %v; want context.DeadlineExceeded", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	unlock, err = tokenStore{dir: dir}.lock(ctx, server)
	if err != nil {
		t.Fatalf("lock after the other process let go: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "released")); err != nil {
		t.Error("got the lock before the other process let go of it")
	}
	unlock()
	if err := cmd.Wait(); err != nil {
		t.Errorf("helper: %v", err)
	}
}

func TestStoredTokenExpired(t *testing.T) {
	t0 := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	at := func(d time.Duration) *time.Time { x := t0.Add(d); return &x }
	for _, c := range []struct {
		name     string
		obtained time.Time
		expires  *time.Time
		now      time.Time
		want     bool
	}{
		{"no expiry", t0, nil, t0.Add(100 * 365 * 24 * time.Hour), false},
		{"1h token, fresh", t0, at(time.Hour), t0, false},
		{"1h token, 31s left", t0, at(time.Hour), t0.Add(time.Hour - 31*time.Second), false},
		{"1h token, 30s and 1ns left", t0, at(time.Hour), t0.Add(time.Hour - 30*time.Second - 1), false},
		{"1h token, 30s left (boundary)", t0, at(time.Hour), t0.Add(time.Hour - 30*time.Second), true},
		{"1h token, at expiry", t0, at(time.Hour), t0.Add(time.Hour), true},
		{"1h token, long past", t0, at(time.Hour), t0.Add(48 * time.Hour), true},
		{"4s token, fresh", t0, at(4 * time.Second), t0, false},
		{"4s token, 1s and 1ns left", t0, at(4 * time.Second), t0.Add(3*time.Second - 1), false},
		{"4s token, 1s left (boundary)", t0, at(4 * time.Second), t0.Add(3 * time.Second), true},
		{"2m token, margin 30s", t0, at(2 * time.Minute), t0.Add(90*time.Second - 1), false},
		{"2m token, margin 30s (boundary)", t0, at(2 * time.Minute), t0.Add(90 * time.Second), true},
		{"1m token, margin 15s", t0, at(time.Minute), t0.Add(45*time.Second - 1), false},
		{"1m token, margin 15s (boundary)", t0, at(time.Minute), t0.Add(45 * time.Second), true},
		{"no obtained time: 30s", time.Time{}, at(time.Hour), t0.Add(time.Hour - 30*time.Second), true},
		{"no obtained time: 31s", time.Time{}, at(time.Hour), t0.Add(time.Hour - 31*time.Second), false},
		{"obtained after expiry: 30s", t0.Add(2 * time.Hour), at(time.Hour), t0.Add(time.Hour - 30*time.Second), true},
		{"obtained after expiry: 31s", t0.Add(2 * time.Hour), at(time.Hour), t0.Add(time.Hour - 31*time.Second), false},
	} {
		s := &StoredToken{ObtainedAt: c.obtained, ExpiresAt: c.expires}
		if got := s.expired(c.now); got != c.want {
			t.Errorf("%s: expired = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestStoredTokenSecrets(t *testing.T) {
	for _, c := range []struct {
		tok  StoredToken
		want []string
	}{
		{StoredToken{AccessToken: "a", RefreshToken: "r", ClientSecret: "s", ClientID: "id"}, []string{"a", "r", "s"}},
		{StoredToken{AccessToken: "a"}, []string{"a"}},
		{StoredToken{ClientSecret: "s"}, []string{"s"}},
		{StoredToken{}, nil},
	} {
		if got := c.tok.Secrets(); !slices.Equal(got, c.want) {
			t.Errorf("Secrets(%+v) = %q, want %q", c.tok, got, c.want)
		}
	}
}
