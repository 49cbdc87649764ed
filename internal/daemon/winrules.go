package daemon

// The decisions of the Windows daemon (paths_windows.go and
// peercred_windows.go), written over plain data so that they are tested
// on every platform.

import (
	"fmt"
	"strings"
)

// winSocketDir is the daemon's directory on Windows:
// %LOCALAPPDATA%\mcpx\daemon, else %USERPROFILE%\AppData\Local\mcpx\daemon
// ("" when neither variable is an absolute path). An elevated process has
// none: see platformRefusal.
func winSocketDir(getenv func(string) string) string {
	const name = "daemon"
	if d := getenv("LOCALAPPDATA"); winAbs(d) {
		return winJoin(d, "mcpx", name)
	}
	if h := getenv("USERPROFILE"); winAbs(h) {
		return winJoin(h, "AppData", "Local", "mcpx", name)
	}
	return ""
}

// winUser names a Windows user as the peer check compares them: its SID,
// and whether its token is elevated. An elevated process and one that is
// not are different users here: a daemon started elevated would run
// servers elevated for any process of the user (elevated processes get no
// daemon at all, see platformRefusal; this check stands behind that).
func winUser(sid string, elevated bool) string {
	if elevated {
		return "user " + sid + " (elevated)"
	}
	return "user " + sid
}

// winAbs reports whether p is an absolute Windows path: a drive letter
// and a separator, or a UNC path.
func winAbs(p string) bool {
	if strings.HasPrefix(p, `\\`) {
		return len(p) > 2
	}
	return len(p) >= 3 && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

// winJoin joins path elements with backslashes.
func winJoin(base string, elem ...string) string {
	if t := strings.TrimRight(base, `\/`); len(t) > 2 || !strings.HasSuffix(t, ":") {
		base = t
	}
	for _, e := range elem {
		if !strings.HasSuffix(base, `\`) && !strings.HasSuffix(base, "/") {
			base += `\`
		}
		base += e
	}
	return base
}

// Well-known SIDs that the daemon directory may name besides the user:
// the system and the administrators (who can take any file anyway), and
// the placeholders of an inheritable entry.
const (
	sidSystem       = "S-1-5-18"
	sidAdmins       = "S-1-5-32-544"
	sidCreatorOwner = "S-1-3-0"
	sidOwnerRights  = "S-1-3-4"
)

// winPrivateSDDL is the security descriptor the daemon directory is
// created with: owned by the user, a protected DACL (nothing inherited)
// granting full control to the user and the system only, inherited by
// what is created in it (the socket, the lock, the log).
func winPrivateSDDL(sid string) string {
	return "O:" + sid + "D:P(A;OICI;FA;;;" + sid + ")(A;OICI;FA;;;SY)"
}

// ACE types (winnt.h) and file attributes (FILE_ATTRIBUTE_*).
const (
	aceAllowed        = 0
	aceDenied         = 1
	fileAttrDirectory = 0x10
	fileAttrReparse   = 0x400
)

// winACE is an entry of a DACL: its type and the SID it names.
type winACE struct {
	Type uint8
	SID  string
}

// winDir is what Windows says of a directory: its attributes, owner and
// DACL (NullDACL: none, which grants everyone everything).
type winDir struct {
	Attrs    uint32
	Owner    string
	NullDACL bool
	DACL     []winACE
}

// winDirRefusal says why directory d is not the user's own and private,
// or "" when it is: not a reparse point (a link or junction), a
// directory, owned by the user (or the system or the administrators),
// with a DACL that allows no one else.
func winDirRefusal(d winDir, me string) string {
	switch {
	case d.Attrs&fileAttrReparse != 0:
		return "is a reparse point (a link or junction)"
	case d.Attrs&fileAttrDirectory == 0:
		return "is not a directory"
	case d.Owner != me && d.Owner != sidSystem && d.Owner != sidAdmins:
		return fmt.Sprintf("belongs to %s, not to you", d.Owner)
	case d.NullDACL:
		return "has no access control list, so it is open to everyone"
	}
	for _, a := range d.DACL {
		switch a.Type {
		case aceDenied:
		case aceAllowed:
			switch a.SID {
			case me, sidSystem, sidAdmins, sidCreatorOwner, sidOwnerRights:
			default:
				return fmt.Sprintf("grants access to %s, open to other users", a.SID)
			}
		default:
			return fmt.Sprintf("has an access entry of type %d, which mcpx does not check", a.Type)
		}
	}
	return ""
}
