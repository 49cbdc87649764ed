//go:build windows

package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Supported reports whether warm connections work on this platform.
const Supported = true

// socketDirs are the directories the daemon's socket may be in (see
// choose): %LOCALAPPDATA%\mcpx\daemon, else
// %USERPROFILE%\AppData\Local\mcpx\daemon (winSocketDir), in the user's
// profile, where no other user may create anything. None when neither
// variable is known.
func socketDirs(getenv func(string) string, _ int, _ string) []candidate {
	if d := winSocketDir(getenv); d != "" {
		return []candidate{{dir: filepath.Clean(d)}}
	}
	return nil
}

// candidate is a directory the daemon's socket may be in (socketDirs).
type candidate struct{ dir string }

// prepare creates c's directory where it is absent, private, and checks
// it.
func (c candidate) prepare() error { return PrepareDir(c.dir) }

// usable: nothing keeps the profile's directory from use before it is
// looked at (prepare, probe).
func (c candidate) usable() error { return nil }

// probe says whether c's directory would be used, without creating it
// (absent: it does not exist, no daemon listens there).
func (c candidate) probe() (absent bool, err error) {
	if _, err := os.Lstat(c.dir); errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	return false, CheckDir(c.dir)
}

// hostTag: the directory is the user's profile's, on this host.
func hostTag() string { return "" }

// myUID: Windows names no uid in the directory.
func myUID() int { return 0 }

// platformRefusal: an elevated (administrator) process gets no warm
// connections, nor one whose elevation cannot be read. Its daemon's
// directory would be under the user's profile, where the same user's
// processes that are not elevated can swap it for a junction between a
// check and a use, and have an elevated daemon write where they choose.
func platformRefusal() error {
	elevated, err := myElevation()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	if elevated {
		return errElevated
	}
	return nil
}

// errElevated: warm connections are refused to an elevated process.
var errElevated = fmt.Errorf("%w for an elevated (administrator) process", ErrUnsupported)

// LogPath is the daemon's log, in its private directory.
func LogPath(getenv func(string) string) string {
	if d := winSocketDir(getenv); d != "" {
		return filepath.Join(filepath.Clean(d), "daemon.log")
	}
	return ""
}

// errNoDir: neither %LOCALAPPDATA% nor %USERPROFILE% names a directory.
var errNoDir = errors.New("the daemon directory is not known: %LOCALAPPDATA% is not set")

// mySID is the SID of this process's user.
var mySID = sync.OnceValues(func() (string, error) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("cannot read this process's user: %w", err)
	}
	return tu.User.Sid.String(), nil
})

// myElevation reports whether this process's token is elevated.
var myElevation = sync.OnceValues(func() (bool, error) { return tokenElevated(windows.GetCurrentProcessToken()) })

// tokenElevated reports whether token t is elevated (TokenElevation).
// Unlike Token.IsElevated, it fails when the token cannot be read, rather
// than answering "not elevated".
func tokenElevated(t windows.Token) (bool, error) {
	var elevated, n uint32
	if err := windows.GetTokenInformation(t, windows.TokenElevation, (*byte)(unsafe.Pointer(&elevated)),
		uint32(unsafe.Sizeof(elevated)), &n); err != nil {
		return false, fmt.Errorf("cannot read the token's elevation: %w", err)
	}
	return elevated != 0, nil
}

// PrepareDir creates dir when it does not exist, owned by the user with a
// protected DACL granting only the user and the system access, and checks
// it.
func PrepareDir(dir string) error {
	if dir == "" {
		return errNoDir
	}
	err := mkdirPrivate(dir)
	if errors.Is(err, os.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(dir), 0o700); err == nil {
			err = mkdirPrivate(dir)
		}
	}
	if err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("cannot create the daemon directory %s: %w", dir, err)
	}
	return CheckDir(dir)
}

func mkdirPrivate(dir string) error {
	sid, err := mySID()
	if err != nil {
		return err
	}
	sd, err := windows.SecurityDescriptorFromString(winPrivateSDDL(sid))
	if err != nil {
		return err
	}
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return err
	}
	sa := windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(sa))
	return windows.CreateDirectory(p, &sa)
}

// openNoFollow opens path itself, never what a reparse point (a link or
// junction) names: one found by Lstat is refused first, and the handle is
// opened on the reparse point itself, whose attributes the caller checks.
func openNoFollow(path string, access, disposition, flags uint32) (windows.Handle, error) {
	if fi, err := os.Lstat(path); err == nil && isReparse(fi) {
		return windows.InvalidHandle, errReparse
	}
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return windows.InvalidHandle, err
	}
	return windows.CreateFile(p, access, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, disposition, flags|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
}

// errReparse: a path is a reparse point.
var errReparse = errors.New("is a reparse point (a link or junction)")

// isReparse reports whether fi (from Lstat) is a reparse point.
func isReparse(fi os.FileInfo) bool {
	d, ok := fi.Sys().(*syscall.Win32FileAttributeData)
	return fi.Mode()&os.ModeSymlink != 0 || ok && d.FileAttributes&fileAttrReparse != 0
}

// describe reads what winDirRefusal decides on, from an open handle.
func describe(h windows.Handle) (winDir, error) {
	var d winDir
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return d, err
	}
	d.Attrs = info.FileAttributes
	sd, err := windows.GetSecurityInfo(h, windows.SE_FILE_OBJECT,
		windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return d, err
	}
	owner, _, err := sd.Owner()
	if err != nil {
		return d, err
	}
	d.Owner = owner.String()
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		d.NullDACL = true
		return d, nil
	}
	for i := 0; i < int(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, uint32(i), &ace); err != nil {
			return d, err
		}
		a := winACE{Type: ace.Header.AceType}
		if a.Type == aceAllowed || a.Type == aceDenied {
			a.SID = (*windows.SID)(unsafe.Pointer(&ace.SidStart)).String()
		}
		d.DACL = append(d.DACL, a)
	}
	return d, nil
}

// checkPrivate says why dir is not the user's own and private ("" when it
// is), or fails to read it.
func checkPrivate(dir string) (string, error) {
	h, err := openNoFollow(dir, windows.READ_CONTROL|windows.FILE_READ_ATTRIBUTES, windows.OPEN_EXISTING,
		windows.FILE_FLAG_BACKUP_SEMANTICS)
	if err == errReparse {
		return errReparse.Error(), nil
	}
	if err != nil {
		return "", err
	}
	defer windows.CloseHandle(h)
	d, err := describe(h)
	if err != nil {
		return "", err
	}
	sid, err := mySID()
	if err != nil {
		return "", err
	}
	return winDirRefusal(d, sid), nil
}

// CheckDir makes sure dir is the user's own and private: a directory, not
// a reparse point, owned by the user, with a DACL that lets no other user
// in (see winDirRefusal).
func CheckDir(dir string) error {
	if dir == "" {
		return errNoDir
	}
	why, err := checkPrivate(dir)
	if err != nil {
		return fmt.Errorf("the daemon directory %s cannot be read: %w", dir, err)
	}
	if why != "" {
		return fmt.Errorf("the daemon directory %s %s; mcpx does not use it", dir, why)
	}
	return nil
}

// CheckStateDir checks the log's directory (the daemon directory itself)
// as CheckDir does.
func CheckStateDir(dir string) error {
	why, err := checkPrivate(dir)
	if err != nil {
		return err
	}
	if why != "" {
		return fmt.Errorf("%s %s", dir, why)
	}
	return nil
}

// openRegular opens path with CreateFile, never through a reparse point:
// one is refused, as is anything but a file, and a file with other names.
func openRegular(path string, access, disposition uint32) (*os.File, error) {
	h, err := openNoFollow(path, access, disposition, windows.FILE_ATTRIBUTE_NORMAL)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		windows.CloseHandle(h)
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if info.FileAttributes&(fileAttrReparse|fileAttrDirectory) != 0 {
		windows.CloseHandle(h)
		return nil, &os.PathError{Op: "open", Path: path, Err: errors.New("is a reparse point or a directory")}
	}
	if info.NumberOfLinks > 1 {
		// A hard link to a file elsewhere: the log would be written (and
		// emptied) there.
		windows.CloseHandle(h)
		return nil, &os.PathError{Op: "open", Path: path, Err: errors.New("has other names (hard links)")}
	}
	return os.NewFile(uintptr(h), path), nil
}

// openLogFile opens the log for writing at its end, never through a
// reparse point.
func openLogFile(path string) (*os.File, error) {
	f, err := openRegular(path, windows.GENERIC_WRITE, windows.OPEN_ALWAYS)
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// lockFile takes the start lock at path (LockFileEx), waiting for it
// until ctx ends. The returned func releases it.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := openRegular(path, windows.GENERIC_READ|windows.GENERIC_WRITE, windows.OPEN_ALWAYS)
	if err != nil {
		return nil, fmt.Errorf("cannot lock the daemon directory: %w", err)
	}
	h := windows.Handle(f.Fd())
	err = pollLock(ctx, func() (bool, error) {
		err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, new(windows.Overlapped))
		return errors.Is(err, windows.ERROR_LOCK_VIOLATION), err
	})
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = windows.UnlockFileEx(h, 0, 1, 0, new(windows.Overlapped))
		f.Close()
	}, nil
}

// removeLock leaves the lock file: a file that another process has open
// is not removed at once on Windows, and a lock file is small.
func removeLock(string) {}
