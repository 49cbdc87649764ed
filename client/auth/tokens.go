// The OAuth token store (see AUTHENTICATION in mcpx(1)): one file per
// canonical server URL under $XDG_STATE_HOME/mcpx/tokens/, directory 0700 and
// files 0600, written through a temporary file and a rename, refreshed under a
// file lock so that concurrent mcpx processes refresh once.

package auth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/mcpx-cli/mcpx/internal/userfile"
)

// StoredToken is one token file: the tokens, and what refreshing and
// revoking them needs (endpoints and client), so neither has to discover
// anything again.
type StoredToken struct {
	Server             string     `json:"server"`   // canonical server URL (the key)
	Resource           string     `json:"resource"` // the RFC 8707 resource the token was issued for
	Issuer             string     `json:"issuer"`
	TokenEndpoint      string     `json:"token_endpoint"`
	RevocationEndpoint string     `json:"revocation_endpoint,omitempty"`
	ClientID           string     `json:"client_id"`
	ClientSecret       string     `json:"client_secret,omitempty"` // a dynamically registered client's only
	Registered         bool       `json:"registered"`              // the client came from dynamic registration
	AuthMethod         string     `json:"token_endpoint_auth_method"`
	Grant              string     `json:"grant,omitempty"` // client_credentials; "": authorization code
	AccessToken        string     `json:"access_token"`
	TokenType          string     `json:"token_type"`
	RefreshToken       string     `json:"refresh_token,omitempty"`
	Scope              string     `json:"scope,omitempty"`
	ExpiresAt          *time.Time `json:"expires_at,omitempty"`
	ObtainedAt         time.Time  `json:"obtained_at"`
	// DPoPKey is the private JWK a DPoP token (TokenType "DPoP") is bound
	// to (RFC 9449): the file is the key's only copy.
	DPoPKey string `json:"dpop_key,omitempty"`
}

// expired reports whether the access token is past its expiry, or close
// enough to it that an operation started now could outlive it: within 30 s,
// or within a quarter of its lifetime for a short-lived token.
func (s *StoredToken) expired(now time.Time) bool {
	if s.ExpiresAt == nil {
		return false
	}
	margin := 30 * time.Second
	if life := s.ExpiresAt.Sub(s.ObtainedAt); life > 0 && life/4 < margin {
		margin = life / 4
	}
	return !now.Before(s.ExpiresAt.Add(-margin))
}

// Secrets are the values a message must never show.
func (s *StoredToken) Secrets() []string {
	var out []string
	if s.DPoPKey != "" {
		if k, err := parseDPoPKey(s.DPoPKey); err == nil {
			raw, _ := k.key.Bytes()
			out = append(out, b64(raw))
		}
	}
	for _, v := range []string{s.AccessToken, s.RefreshToken, s.ClientSecret} {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// TokenDir is where tokens are stored: $XDG_STATE_HOME/mcpx/tokens, else
// ~/.local/state/mcpx/tokens (on Windows %LOCALAPPDATA%\mcpx\tokens; ""
// when none is known).
func TokenDir(getenv func(string) string) string {
	return tokenDirFor(runtime.GOOS, getenv)
}

func tokenDirFor(goos string, getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "mcpx", "tokens")
	}
	if goos == "windows" {
		if d := getenv("LOCALAPPDATA"); filepath.IsAbs(d) {
			return filepath.Join(d, "mcpx", "tokens")
		}
		return ""
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", "mcpx", "tokens")
	}
	return ""
}

// tokenStore is the token directory.
type tokenStore struct{ dir string }

// maxTokenFile bounds a token file read: a token store file is small, and
// anything else there must not eat memory.
const maxTokenFile = 1 << 20

func (s tokenStore) path(server string) string {
	sum := sha256.Sum256([]byte(server))
	return filepath.Join(s.dir, hex.EncodeToString(sum[:16])+".json")
}

// dirs are the directories a token's trust rests on, outermost first: the
// state directory ($XDG_STATE_HOME/mcpx, the token directory's parent) and
// the token directory.
func (s tokenStore) dirs() []storeDir {
	return []storeDir{{"the state directory", filepath.Dir(s.dir)}, {"the token directory", s.dir}}
}

type storeDir struct{ what, path string }

// untrusted says why a directory is not the user's own to trust ("" when
// it is, or does not exist): a symbolic link, another owner, or one of the
// permission bits in deny.
func untrusted(path string, deny os.FileMode) string { return userfile.Untrusted(path, deny) }

// load returns the stored token for a canonical server URL, nil when there
// is none. Nothing is read from a state or token directory that another
// user could have written to.
func (s tokenStore) load(server string) (*StoredToken, error) {
	for _, d := range s.dirs() {
		if why := untrusted(d.path, 0o022); why != "" {
			return nil, fmt.Errorf("%s %s %s; mcpx uses no token from it", d.what, d.path, why)
		}
	}
	p := s.path(server)
	f, err := userfile.OpenNoFollow(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, syscall.ELOOP) { // O_NOFOLLOW met a symbolic link
		return nil, fmt.Errorf("token file %s is not a regular file (a symbolic link)", p)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the token store: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("token file %s is not a regular file", p)
	}
	if why := userfile.Private(fi, 0o077); why != "" {
		return nil, fmt.Errorf("token file %s %s; mcpx does not use it", p, why)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read token file %s: %w", p, err)
	}
	var t StoredToken
	dec := json.NewDecoder(bytes.NewReader(data))
	if len(data) > maxTokenFile || dec.Decode(&t) != nil || t.AccessToken == "" || dec.More() {
		return nil, fmt.Errorf("token file %s is damaged", p)
	}
	if t.Server != server {
		// A hash collision, or a file copied in by hand: not this server's.
		return nil, nil
	}
	return &t, nil
}

// save writes a token file through a temporary file and a rename, so a
// reader sees the old file or the new one, never a part.
func (s tokenStore) save(t *StoredToken) error {
	if err := s.mkdir(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.dir, ".token-*") // mode 0600
	if err != nil {
		return fmt.Errorf("cannot write the token store: %w", err)
	}
	_, werr := tmp.Write(append(data, '\n'))
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("cannot write the token store: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path(t.Server)); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("cannot write the token store: %w", err)
	}
	return nil
}

// remove deletes a server's token file; it reports whether there was one.
func (s tokenStore) remove(server string) (bool, error) {
	err := os.Remove(s.path(server))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("cannot remove the token file: %w", err)
	}
	return true, nil
}

// mkdir makes the state and token directories 0700 (and their parents
// 0700, as XDG says for state directories), and narrows existing ones. A
// symbolic link, or a directory of another user's, is refused.
func (s tokenStore) mkdir() error {
	if s.dir == "" {
		return errors.New("no token directory: set HOME or XDG_STATE_HOME")
	}
	for _, d := range s.dirs() {
		if err := narrow(d); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("cannot create the token directory: %w", err)
	}
	for _, d := range s.dirs() {
		if err := narrow(d); err != nil {
			return err
		}
	}
	return nil
}

// narrow makes an existing directory of the store 0700, or says why it
// cannot be used.
func narrow(d storeDir) error {
	if why := untrusted(d.path, 0); why != "" {
		return fmt.Errorf("%s %s %s; mcpx does not use it", d.what, d.path, why)
	}
	fi, err := os.Lstat(d.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot create %s: %w", d.what, err)
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(d.path, 0o700); err != nil {
			return fmt.Errorf("%s %s is mode %o and cannot be made 0700: %w", d.what, d.path, fi.Mode().Perm(), err)
		}
	}
	return nil
}

// lock takes the server's lock file (an exclusive flock), waiting until ctx
// ends. The lock file is never removed: removing it would let two processes
// hold "the" lock on two different files.
func (s tokenStore) lock(ctx context.Context, server string) (func(), error) {
	if err := s.mkdir(); err != nil {
		return nil, err
	}
	p := strings.TrimSuffix(s.path(server), ".json") + ".lock"
	unlock, err := userfile.Lock(ctx, p)
	if err != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("cannot lock the token file: %w", err)
	}
	return unlock, err
}
