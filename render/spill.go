package render

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpx-cli/mcpx/internal/limits"
)

// The spill writer is the only IO in package render (see CONTENT POLICY in
// mcpx(1)). Its rules:
//
//   - A blob goes to ROOT/mcp-resources/SERVER/SHA256.EXT. SERVER is
//     spillDirName(server) and EXT is extension(mime), checked again here, so
//     nothing a server sends can name a file outside ROOT/mcp-resources.
//   - ROOT, ROOT/mcp-resources and SERVER are created 0700 when missing; each,
//     new or old, must be a real directory (not a symlink), owned by the user
//     and not group- or world-writable, or the spill is refused with a
//     *limits.Error (exit 8).
//   - A file is written to a ".tmp-*" name created exclusively (O_EXCL,
//     O_NOFOLLOW, 0600) in its directory and renamed into place, so a reader
//     never sees half a file. There is no fsync: this is a cache, and a file
//     lost to a crash is written again by the next read of the same content.
//   - The same server, bytes and mime type give the same path. A regular file
//     already there with the right size is reused (its mtime touched); anything
//     else there is replaced, never followed.
//   - After each write or reuse, while the whole mcp-resources tree is over the
//     budget, the oldest files by mtime are removed, except the file just
//     returned and ".tmp-*" files younger than an hour (another process's
//     write in progress). Eviction is best effort: other mcpx processes share
//     the tree, a file they removed first is not an error, and any other
//     eviction failure goes to Spiller.Warn, never failing the spill.

// Spiller writes blobs to CACHE/mcp-resources/SERVER/SHA256.EXT.
type Spiller struct {
	Root   string // the cache root (--cache-dir, $MCPX_CACHE_DIR, or the user cache dir + "/mcpx")
	Budget int64  // the spill budget; 0 (or less) means limits.SpillBudget
	// Warn, when set, receives eviction problems (a file that could not be
	// removed, a directory that could not be read). They never fail a spill.
	Warn func(msg string)

	// The tree is walked at the first spill, and again only when the total
	// it found plus what this Spiller wrote since exceeds the budget: one
	// response can spill thousands of small blobs, and a walk per blob
	// would make that quadratic. Other processes' writes are counted by
	// their own walks.
	walked bool
	known  int64
}

// Spilled describes one spilled file.
type Spilled struct {
	Path   string // absolute path
	SHA256 string // hex
	Size   int64
}

const (
	spillSubdir = "mcp-resources"
	tmpPrefix   = ".tmp-"
	// tmpGrace: a ".tmp-*" file younger than this may be another process's
	// write in progress, so eviction leaves it alone.
	tmpGrace = time.Hour
)

// testOnlyHook, when set by a test, is called at the points where another
// mcpx process may act between two steps of this one: before a missing spill
// directory is made ("mkdir", dir), before an existing file is touched for
// reuse ("reuse", file), before eviction reads a directory ("walk", dir) and
// before it removes a file ("remove", file).
var testOnlyHook func(event, path string)

// spillDirName reduces a server name to a safe directory name: only
// [A-Za-z0-9._-] is kept (every other byte is dropped), leading dots become
// "_" (so neither "." nor ".." nor a hidden name), and an empty result is "_".
func spillDirName(server string) string {
	b := make([]byte, 0, len(server))
	for i := 0; i < len(server); i++ {
		switch c := server[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
			b = append(b, c)
		}
	}
	for i := 0; i < len(b) && b[i] == '.'; i++ {
		b[i] = '_'
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// Spill writes data to ROOT/mcp-resources/SERVER/SHA256.EXT, or reuses the
// file already there, then evicts old files over the budget. data is hashed
// and written as given, never copied. A refused spill directory is a
// *limits.Error; other failures are plain errors naming the path. An empty
// Root is an error, never the current directory.
// Dir is the directory the server's files are spilled to (for lengths and
// messages; it may not exist yet).
func (s *Spiller) Dir(server string) string {
	root, err := filepath.Abs(s.Root)
	if err != nil {
		root = s.Root
	}
	return filepath.Join(root, spillSubdir, spillDirName(server))
}

func (s *Spiller) Spill(server string, data []byte, mime string) (Spilled, error) {
	if s.Root == "" {
		return Spilled{}, errors.New("spill: no cache directory given")
	}
	root, err := filepath.Abs(s.Root)
	if err != nil {
		return Spilled{}, fmt.Errorf("spill directory %q: %w", s.Root, err)
	}
	top := filepath.Join(root, spillSubdir)
	dir := filepath.Join(top, spillDirName(server))
	if err := ensureDir(root, true); err != nil {
		return Spilled{}, err
	}
	if err := ensureDir(top, false); err != nil {
		return Spilled{}, err
	}
	if err := ensureDir(dir, false); err != nil {
		return Spilled{}, err
	}

	sum := sha256.Sum256(data)
	out := Spilled{SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))}
	ext := extension(mime)
	if !safeExtension(ext) { // extension promises this; the file name depends on it
		ext = "bin"
	}
	out.Path = filepath.Join(dir, out.SHA256+"."+ext)

	wrote := false
	if !reuse(out.Path, out.Size) {
		if err := writeFile(dir, out.Path, data); err != nil {
			return Spilled{}, err
		}
		wrote = true
	}
	if wrote {
		s.known += out.Size
	}
	if !s.walked || s.known > s.budget() {
		s.known, s.walked = s.evict(top, out.Path), true
	}
	return out, nil
}

// reuse touches path and reports true when it is a regular file of the given
// size. Anything else (missing, a symlink, another size, vanished meanwhile)
// is false: the caller writes the file again.
func reuse(path string, size int64) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != size {
		return false
	}
	if testOnlyHook != nil {
		testOnlyHook("reuse", path)
	}
	now := time.Now()
	// Chtimes follows a symlink; the Lstat above saw a regular file, and only
	// the owner of this 0700 directory could swap one in since.
	return os.Chtimes(path, now, now) == nil
}

// writeFile writes data to a new ".tmp-*" file in dir and renames it to final.
// On any failure the temporary file is removed.
func writeFile(dir, final string, data []byte) error {
	f, tmp, err := createTemp(dir)
	if err != nil {
		return fmt.Errorf("spill: cannot create a file in %s: %w", dir, err)
	}
	// The umask may have removed bits from 0600 but cannot add any; set them
	// exactly so the owner can read the file whatever the umask.
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// rename replaces a symlink or other non-directory at final without
		// following it. A directory there is removed only when empty: the
		// spill writer never deletes a tree it did not make.
		if err = os.Rename(tmp, final); err != nil {
			if fi, lerr := os.Lstat(final); lerr == nil && fi.IsDir() && os.Remove(final) == nil {
				err = os.Rename(tmp, final)
			}
		}
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("spill: cannot write %s: %w", final, err)
	}
	return nil
}

// createTemp creates dir/.tmp-RANDOM exclusively, never through a symlink.
func createTemp(dir string) (*os.File, string, error) {
	var rnd [12]byte
	for try := 0; ; try++ {
		rand.Read(rnd[:]) // crypto/rand.Read never fails (Go 1.24+)
		name := filepath.Join(dir, tmpPrefix+hex.EncodeToString(rnd[:]))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o600)
		if err == nil {
			return f, name, nil
		}
		if !errors.Is(err, fs.ErrExist) || try == 10 {
			return nil, "", err
		}
	}
}

// ensureDir makes path a directory the spill writer may use: created 0700
// when missing, then checked whether new or not. makeParents creates missing
// parents too (for the cache root only; they are not checked).
func ensureDir(path string, makeParents bool) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if makeParents {
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return fmt.Errorf("spill: cannot create %s: %w", filepath.Dir(path), err)
			}
		}
		if testOnlyHook != nil {
			testOnlyHook("mkdir", path)
		}
		switch err := os.Mkdir(path, 0o700); {
		case err == nil:
			// The umask may have removed bits from 0700; set it exactly.
			if err := os.Chmod(path, 0o700); err != nil {
				return fmt.Errorf("spill: cannot set the mode of %s: %w", path, err)
			}
		case errors.Is(err, fs.ErrExist):
			// another process made it first; check theirs
		default:
			return fmt.Errorf("spill: cannot create %s: %w", path, err)
		}
		fi, err = os.Lstat(path)
	}
	if err != nil {
		return fmt.Errorf("spill: %w", err)
	}
	return checkDir(path, fi)
}

// checkDir refuses a spill directory that is a symlink, not a directory, not
// owned by the user, or writable by group or others.
func checkDir(path string, fi fs.FileInfo) error {
	refuse := func(why, fix string) error {
		return &limits.Error{Limit: "spill directory", Msg: fmt.Sprintf("spill directory %s %s: refusing to use it; %s", path, why, fix)}
	}
	const other = "or choose another --cache-dir"
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return refuse("is a symbolic link", "replace it with a real directory (mode 700) "+other)
	case !fi.IsDir():
		return refuse("is not a directory", "remove it "+other)
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Getuid() {
		return refuse(fmt.Sprintf("is owned by uid %d, not by you (uid %d)", uid, os.Getuid()), "choose another --cache-dir")
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return refuse(fmt.Sprintf("is group- or world-writable (mode %04o)", perm), fmt.Sprintf("run `chmod 700 %s` %s", path, other))
	}
	return nil
}

// spillFile is one regular file of the tree, as eviction sees it.
type spillFile struct {
	path  string
	size  int64
	mtime time.Time
}

func (s *Spiller) budget() int64 {
	if s.Budget <= 0 {
		return limits.SpillBudget
	}
	return s.Budget
}

// evict removes the oldest files of the tree under top while its total size
// is over the budget, sparing keep and young ".tmp-*" files. It returns the
// total left.
func (s *Spiller) evict(top, keep string) int64 {
	budget := s.budget()
	warn := func(format string, args ...any) {
		if s.Warn != nil {
			s.Warn(fmt.Sprintf(format, args...))
		}
	}
	now := time.Now()
	var total int64
	var victims []spillFile
	filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				warn("spill eviction: %v", err)
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if testOnlyHook != nil {
				testOnlyHook("walk", path)
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // symlinks and others: neither counted nor followed
		}
		fi, err := d.Info()
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				warn("spill eviction: %v", err)
			}
			return nil
		}
		total += fi.Size()
		if path == keep || strings.HasPrefix(d.Name(), tmpPrefix) && now.Sub(fi.ModTime()) < tmpGrace {
			return nil
		}
		victims = append(victims, spillFile{path, fi.Size(), fi.ModTime()})
		return nil
	})
	if total <= budget {
		return total
	}
	slices.SortFunc(victims, func(a, b spillFile) int {
		if c := a.mtime.Compare(b.mtime); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
	for _, v := range victims {
		if total <= budget {
			return total
		}
		if testOnlyHook != nil {
			testOnlyHook("remove", v.path)
		}
		if err := os.Remove(v.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			warn("spill eviction: %v", err)
			continue
		}
		total -= v.size // removed, by us or by another process
	}
	return total
}
