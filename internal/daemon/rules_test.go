package daemon

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Only the user's own processes are served, and trusted as the daemon.
func TestPeerRefusal(t *testing.T) {
	for _, tc := range []struct {
		me, who string
		err     error
		want    string // "" when the peer is accepted
	}{
		{"uid 1000", "uid 1000", nil, ""},
		{"user S-1-5-21-1-2-3-1001", "user S-1-5-21-1-2-3-1001", nil, ""},
		{"uid 1000", "uid 0", nil, "the process is of uid 0, not of uid 1000"},
		{"user S-1-5-21-1-2-3-1001", "user S-1-5-18", nil, "the process is of user S-1-5-18, not of user S-1-5-21-1-2-3-1001"},
		{"uid 1000", "uid 1000", errors.New("no credentials"), "no credentials"},
		{"uid 1000", "", nil, "the user of the process is not known"},
		{"", "", nil, "the user of the process is not known"},
	} {
		err := peerRefusal(tc.me, tc.who, tc.err)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("peerRefusal(%q, %q, %v) = %q, want %q", tc.me, tc.who, tc.err, got, tc.want)
		}
	}
}

// The daemon gets only the variables it needs: names compared exactly on
// Unix, without case on Windows.
func TestFilterEnv(t *testing.T) {
	environ := []string{"HOME=/h", "SECRET_TOKEN=x", "Path=C:\\bin", "LocalAppData=C:\\L", "=C:=C:\\", "PATH=/bin"}
	if got, want := filterEnv(environ, []string{"HOME", "PATH"}, false), []string{"HOME=/h", "PATH=/bin"}; !reflect.DeepEqual(got, want) {
		t.Errorf("exact: %q, want %q", got, want)
	}
	if got, want := filterEnv(environ, []string{"PATH", "LOCALAPPDATA"}, true), []string{"Path=C:\\bin", "LocalAppData=C:\\L", "PATH=/bin"}; !reflect.DeepEqual(got, want) {
		t.Errorf("folded: %q, want %q", got, want)
	}
}

func TestWinSocketDir(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"LOCALAPPDATA": `C:\Users\u\AppData\Local`, "USERPROFILE": `C:\Users\u`}, `C:\Users\u\AppData\Local\mcpx\daemon`},
		{map[string]string{"LOCALAPPDATA": `D:\Local\`}, `D:\Local\mcpx\daemon`},
		{map[string]string{"LOCALAPPDATA": `\\server\share\u`}, `\\server\share\u\mcpx\daemon`},
		{map[string]string{"LOCALAPPDATA": `relative`, "USERPROFILE": `C:\Users\u`}, `C:\Users\u\AppData\Local\mcpx\daemon`},
		{map[string]string{"LOCALAPPDATA": `C:`, "USERPROFILE": `c:/Users/u`}, `c:/Users/u\AppData\Local\mcpx\daemon`},
		{map[string]string{"LOCALAPPDATA": `E:\`}, `E:\mcpx\daemon`},
		{map[string]string{"USERPROFILE": `/home/u`, "HOME": `C:\h`}, ``},
		{map[string]string{}, ``},
	} {
		if got := winSocketDir(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.env, got, tc.want)
		}
	}
}

// An elevated process is not served by a daemon that is not, nor the
// other way round.
func TestWinUser(t *testing.T) {
	const sid = "S-1-5-21-1-2-3-1001"
	if got, want := winUser(sid, false), "user "+sid; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got, want := winUser(sid, true), "user "+sid+" (elevated)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if peerRefusal(winUser(sid, true), winUser(sid, false), nil) == nil || peerRefusal(winUser(sid, false), winUser(sid, true), nil) == nil {
		t.Error("an elevated peer and one that is not were taken for one another")
	}
}

func TestWinPrivateSDDL(t *testing.T) {
	const sid = "S-1-5-21-1-2-3-1001"
	if got, want := winPrivateSDDL(sid), "O:S-1-5-21-1-2-3-1001D:P(A;OICI;FA;;;S-1-5-21-1-2-3-1001)(A;OICI;FA;;;SY)"; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
}

// What a Windows daemon directory may be: the decision over what
// GetSecurityInfo and GetFileInformationByHandle report.
func TestWinDirRefusal(t *testing.T) {
	const me = "S-1-5-21-1-2-3-1001"
	const other = "S-1-5-21-1-2-3-1002"
	private := []winACE{{aceAllowed, me}, {aceAllowed, sidSystem}}
	for _, tc := range []struct {
		name string
		d    winDir
		want string
	}{
		{"created by mcpx", winDir{Attrs: fileAttrDirectory, Owner: me, DACL: private}, ""},
		{"inherited from LOCALAPPDATA", winDir{Attrs: fileAttrDirectory, Owner: me,
			DACL: []winACE{{aceAllowed, sidSystem}, {aceAllowed, sidAdmins}, {aceAllowed, me}, {aceAllowed, sidCreatorOwner}}}, ""},
		{"owned by the administrators", winDir{Attrs: fileAttrDirectory, Owner: sidAdmins, DACL: private}, ""},
		{"a deny entry", winDir{Attrs: fileAttrDirectory, Owner: me, DACL: append([]winACE{{aceDenied, other}}, private...)}, ""},
		{"a junction", winDir{Attrs: fileAttrDirectory | fileAttrReparse, Owner: me, DACL: private}, "is a reparse point (a link or junction)"},
		{"a file", winDir{Attrs: 0x20, Owner: me, DACL: private}, "is not a directory"},
		{"another owner", winDir{Attrs: fileAttrDirectory, Owner: other, DACL: private}, "belongs to " + other + ", not to you"},
		{"a null DACL", winDir{Attrs: fileAttrDirectory, Owner: me, NullDACL: true}, "has no access control list, so it is open to everyone"},
		{"everyone", winDir{Attrs: fileAttrDirectory, Owner: me, DACL: append(private, winACE{aceAllowed, "S-1-1-0"})},
			"grants access to S-1-1-0, open to other users"},
		{"users", winDir{Attrs: fileAttrDirectory, Owner: me, DACL: append(private, winACE{aceAllowed, "S-1-5-32-545"})},
			"grants access to S-1-5-32-545, open to other users"},
		{"another user", winDir{Attrs: fileAttrDirectory, Owner: me, DACL: []winACE{{aceAllowed, other}}},
			"grants access to " + other + ", open to other users"},
		{"an object entry", winDir{Attrs: fileAttrDirectory, Owner: me, DACL: append(private, winACE{Type: 5})},
			"has an access entry of type 5, which mcpx does not check"},
	} {
		if got := winDirRefusal(tc.d, me); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if !strings.Contains(winDirRefusal(winDir{Attrs: fileAttrDirectory, Owner: me, DACL: private}, other), "belongs to") {
		t.Error("the user is checked")
	}
}
