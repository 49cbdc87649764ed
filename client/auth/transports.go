// What mcpx remembers of a URL's transport (see SERVERS in mcpx(1)): a
// URL given without a "type" is tried as streamable HTTP and, when its
// first POST gets a 4xx other than 401 and 403, again as legacy SSE, with
// a note. Once it has answered as SSE, a marker file under
// $XDG_STATE_HOME/mcpx/transports/ says so, so that later calls go
// straight to SSE, with no note. The markers live beside the tokens and are
// trusted as they are: nothing is read from a state directory another user
// could have written to.

package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpx-cli/mcpx/internal/userfile"
)

// Transports is the directory of the transport markers; the zero value
// remembers nothing.
type Transports struct{ dir string }

// TransportsDir is the transport memory of the state directory that
// TokenDir names the token directory of (none when no state directory is
// known).
func TransportsDir(getenv func(string) string) Transports {
	tokens := TokenDir(getenv)
	if tokens == "" {
		return Transports{}
	}
	return Transports{dir: filepath.Join(filepath.Dir(tokens), "transports")}
}

// NewTransports is the transport memory in dir ("": none).
func NewTransports(dir string) Transports { return Transports{dir: dir} }

// sseMarker is what a marker file holds: the URL itself is never written
// (its query may carry a secret), only named by its hash.
const sseMarker = "sse\n"

func (m Transports) path(url string) string {
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(m.dir, hex.EncodeToString(sum[:16])+".sse")
}

func (m Transports) dirs() []storeDir {
	return []storeDir{{"the state directory", filepath.Dir(m.dir)}, {"the transports directory", m.dir}}
}

// IsSSE reports whether url has answered as a legacy SSE server before. A
// marker in a directory that is a link, another user's, or open to others'
// writes is not believed (nor one that is not a small regular file of the
// user's own).
func (m Transports) IsSSE(url string) bool {
	if m.dir == "" {
		return false
	}
	for _, d := range m.dirs() {
		if untrusted(d.path, 0o022) != "" {
			return false
		}
	}
	f, err := userfile.OpenNoFollow(m.path(url))
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || userfile.Private(fi, 0o022) != "" || fi.Size() != int64(len(sseMarker)) {
		return false
	}
	b := make([]byte, len(sseMarker))
	n, _ := f.Read(b)
	return string(b[:n]) == sseMarker
}

// SetSSE remembers that url answered as a legacy SSE server. The
// directories are made (or narrowed to) 0700, as for the tokens; a marker
// is written through a temporary file and a rename.
func (m Transports) SetSSE(url string) error {
	if m.dir == "" {
		return nil // no state directory is known: nothing is remembered
	}
	for _, d := range m.dirs() {
		if err := narrow(d); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(m.dir, 0o700); err != nil {
		return fmt.Errorf("cannot create the transports directory: %w", err)
	}
	for _, d := range m.dirs() {
		if err := narrow(d); err != nil {
			return err
		}
	}
	tmp, err := os.CreateTemp(m.dir, ".sse-*") // mode 0600
	if err != nil {
		return err
	}
	_, werr := tmp.WriteString(sseMarker)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), m.path(url)); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}

// Forget drops what is remembered of url: it failed over SSE, so the next
// call tries streamable HTTP first again.
func (m Transports) Forget(url string) {
	if m.dir != "" {
		_ = os.Remove(m.path(url))
	}
}
