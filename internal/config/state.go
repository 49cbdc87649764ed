package config

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpx-cli/mcpx/internal/userfile"
)

// What mcpx remembers of the hosts' files, in the state directory
// ($XDG_STATE_HOME/mcpx/hosts; see XDG_STATE_HOME in ENVIRONMENT, mcpx(1)): one file per host
// file and kind, named by a hash of the host file's path, holding a header
// line that names the path and the version of the file it describes (its
// identity, size and modification time) and what is remembered of that
// version:
//
//   - NAME.skim: the reduced document of a large JSON host file (see skim),
//     so that an unchanged ~/.claude.json costs a small read;
//   - NAME.warned: that its warning was shown (see Config.HostWarnings).
//
// Nothing in it is trusted unless the state directory and the hosts
// directory are the user's own (not a symbolic link, not writable by
// others) and the file is the user's, mode 0600, not a link; anything else
// is ignored, never an error: the host files themselves are always there
// to read. A version of a file is remembered only once its modification
// time is a while in the past (racyWindow), so that a file rewritten with
// the same size within one tick of the clock is not taken for the one
// remembered.

// stateVersion is the format of the state files.
const stateVersion = 1

// cacheMin is the size from which a skimmed host file is remembered:
// smaller ones cost less to skim than the state file does to check.
const cacheMin = 1 << 20

// racyWindow: a file modified this recently is not remembered.
const racyWindow = 2 * time.Second

// maxStateFile bounds what is read of a state file.
const maxStateFile = 16 << 20

// stateDirFor is $XDG_STATE_HOME/mcpx, else ~/.local/state/mcpx (on
// Windows %LOCALAPPDATA%\mcpx; "" when none is known).
func stateDirFor(goos string, getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "mcpx")
	}
	if goos == "windows" {
		if d := getenv("LOCALAPPDATA"); filepath.IsAbs(d) {
			return filepath.Join(d, "mcpx")
		}
		return ""
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", "mcpx")
	}
	return ""
}

// hostState is the state directory's record of host files ("": none).
type hostState struct{ state string }

func (h hostState) dir() string { return filepath.Join(h.state, "hosts") }

// trusted reports whether the state and hosts directories may be used.
func (h hostState) trusted() bool {
	return h.state != "" && userfile.Untrusted(h.state, 0o022) == "" && userfile.Untrusted(h.dir(), 0o077) == ""
}

type stateHeader struct {
	V    int    `json:"v"`
	Path string `json:"path"`
	ID   string `json:"id"`
}

func (h hostState) file(path, kind string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(h.dir(), hex.EncodeToString(sum[:16])+"."+kind)
}

// version is what identifies this version of the file at fi ("" when it
// is too recent to be remembered).
func version(fi os.FileInfo) string {
	if time.Since(fi.ModTime()) < racyWindow {
		return ""
	}
	return fileID(fi)
}

// read returns what is remembered of kind for the version id of path.
func (h hostState) read(path, kind, id string) ([]byte, bool) {
	if id == "" || !h.trusted() {
		return nil, false
	}
	f, err := userfile.OpenNoFollow(h.file(path, kind))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || userfile.Private(fi, 0o077) != "" || fi.Size() > maxStateFile {
		return nil, false
	}
	r := bufio.NewReader(io.LimitReader(f, maxStateFile))
	line, err := r.ReadBytes('\n')
	var hd stateHeader
	if err != nil || json.Unmarshal(line, &hd) != nil || hd != (stateHeader{stateVersion, path, id}) {
		return nil, false
	}
	body, err := io.ReadAll(r)
	if err != nil {
		return nil, false
	}
	return body, true
}

// write remembers body as kind for the version id of path; failing to is
// no error (the next command reads the host file again).
func (h hostState) write(path, kind, id string, body []byte) {
	if id == "" || h.state == "" {
		return
	}
	if err := os.MkdirAll(h.dir(), 0o700); err != nil || !h.trusted() {
		return
	}
	line, _ := json.Marshal(stateHeader{stateVersion, path, id})
	tmp, err := os.CreateTemp(h.dir(), ".tmp-*") // mode 0600
	if err != nil {
		return
	}
	_, werr := tmp.Write(append(append(line, '\n'), body...))
	if err := errors.Join(werr, tmp.Close()); err != nil || os.Rename(tmp.Name(), h.file(path, kind)) != nil {
		_ = os.Remove(tmp.Name())
	}
}
