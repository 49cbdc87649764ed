package transport

import (
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func TestLookPathWindows(t *testing.T) {
	files := map[string]bool{
		`C:\node\npx.cmd`:        true,
		`C:\node\node.exe`:       true,
		`C:\tools\srv.bat`:       true,
		`C:\tools\srv.exe`:       true,
		`C:\tools\run.py`:        true,
		`D:\my server\x.EXE`:     true,
		`D:\my server\x.exe`:     true,
		`C:\Program Files\a.cmd`: true,
	}
	isFile := func(p string) bool { return files[p] }
	env := []string{`Path=C:\node;;"C:\tools"`, "PATHEXT=.COM;.EXE;.BAT;.CMD"}
	for _, tc := range []struct{ cmd, want string }{
		{"npx", `C:\node\npx.cmd`},
		{"node", `C:\node\node.exe`},
		{"node.exe", `C:\node\node.exe`},
		{"srv", `C:\tools\srv.exe`}, // .EXE comes before .BAT in PATHEXT
		{"srv.bat", `C:\tools\srv.bat`},
		{`D:\my server\x`, `D:\my server\x.exe`},
		{`D:\my server\x.exe`, `D:\my server\x.exe`},
		{`C:\Program Files\a`, `C:\Program Files\a.cmd`},
	} {
		got, err := lookPathWindows(tc.cmd, env, isFile)
		if err != nil || got != tc.want {
			t.Errorf("lookPathWindows(%q) = %q, %v; want %q", tc.cmd, got, err, tc.want)
		}
	}
	for _, cmd := range []string{"run", "run.py", "missing", `C:\tools\run`} {
		_, err := lookPathWindows(cmd, env, isFile)
		if !errors.Is(err, exec.ErrNotFound) {
			t.Errorf("lookPathWindows(%q): err = %v, want not found", cmd, err)
		}
	}
	// PATHEXT unset: the Windows default; ".PY" added: found.
	if got, _ := lookPathWindows("npx", []string{`PATH=C:\node`}, isFile); got != `C:\node\npx.cmd` {
		t.Errorf("default PATHEXT: got %q", got)
	}
	if got, _ := lookPathWindows("run", []string{`PATH=C:\tools`, "PATHEXT=.EXE;.PY"}, isFile); got != `C:\tools\run.py` {
		t.Errorf("PATHEXT with .PY: got %q", got)
	}
	// the current directory is never searched
	if _, err := lookPathWindows("a", []string{`PATH=`}, func(p string) bool { return !strings.Contains(p, `\`) }); err == nil {
		t.Error("a bare name was found outside PATH")
	}
}

func TestBatchCommandLine(t *testing.T) {
	for _, tc := range []struct {
		script string
		args   []string
		want   string
	}{
		{`C:\node\npx.cmd`, []string{"-y", "@modelcontextprotocol/server-filesystem", `C:\Users\me\My Docs`},
			`C:\Windows\System32\cmd.exe /d /s /c ""C:\node\npx.cmd" -y @modelcontextprotocol/server-filesystem "C:\Users\me\My Docs""`},
		{`C:\Program Files\nodejs\npx.cmd`, []string{"a&b", "x|y", "", `dir\`, `C:\dir with space\`},
			`C:\Windows\System32\cmd.exe /d /s /c ""C:\Program Files\nodejs\npx.cmd" "a&b" "x|y" "" dir\ "C:\dir with space\\""`},
	} {
		got, err := batchCommandLine(`C:\Windows\System32\cmd.exe`, tc.script, tc.args)
		if err != nil || got != tc.want {
			t.Errorf("batchCommandLine(%q, %q) =\n  %s, %v\nwant\n  %s", tc.script, tc.args, got, err, tc.want)
		}
	}
	// What cmd.exe would expand or split on is refused (BatBadBut).
	for _, arg := range []string{`"&calc.exe`, "%PATH%", "a!b!", "a\nb", "a\r\nb", "x\x00"} {
		_, err := batchCommandLine(`cmd.exe`, `C:\a.cmd`, []string{"ok", arg})
		if !errors.Is(err, errBatchArg) || !strings.HasPrefix(err.Error(), "the argument "+strconv.Quote(arg)+" cannot be passed safely") {
			t.Errorf("batchCommandLine with %q: err = %v, want errBatchArg", arg, err)
		}
	}
	if got, _ := batchCommandLine(`C:\Program Files\cmd.exe`, `C:\a.cmd`, nil); got != `"C:\Program Files\cmd.exe" /d /s /c ""C:\a.cmd""` {
		t.Errorf("comspec with a space: %s", got)
	}
}

func TestComspecAndBatch(t *testing.T) {
	if got := comspec([]string{`COMSPEC=D:\Win\system32\cmd.exe`}); got != `D:\Win\system32\cmd.exe` {
		t.Errorf("comspec from COMSPEC = %q", got)
	}
	if got := comspec([]string{`SystemRoot=E:\W`}); got != `E:\W\System32\cmd.exe` {
		t.Errorf("comspec from SystemRoot = %q", got)
	}
	if got := comspec(nil); got != `C:\Windows\System32\cmd.exe` {
		t.Errorf("comspec default = %q", got)
	}
	for p, want := range map[string]bool{`a.cmd`: true, `A.BAT`: true, `x.exe`: false, `dir.cmd\x`: false, `npx`: false} {
		if isBatch(p) != want {
			t.Errorf("isBatch(%q) = %v", p, !want)
		}
	}
}

func TestExitStatus(t *testing.T) {
	for code, want := range map[int]string{
		0:                "exited with status 0",
		3:                "exited with status 3",
		int(0xC000013A):  "exited with status 0xC000013A (ended by Ctrl-C or Ctrl-Break)",
		int(0xC0000005):  "exited with status 0xC0000005",
		int(-1073741510): "exited with status 0xC000013A (ended by Ctrl-C or Ctrl-Break)",
	} {
		if got := exitStatus(code); got != want {
			t.Errorf("exitStatus(%d) = %q, want %q", code, got, want)
		}
	}
}

// TestLookPathWindowsRelative: a relative PATH element, and the current
// directory that cmd.exe would search first, never find a program; one
// found only there is named in the error.
func TestLookPathWindowsRelative(t *testing.T) {
	files := map[string]bool{`.\here.exe`: true, `tools\rel.cmd`: true, `C:\abs\both.exe`: true, `.\both.exe`: true, `\rooted\r.exe`: true, `C:x\d.exe`: true}
	isFile := func(p string) bool { return files[p] }
	for _, tc := range []struct {
		cmd, path, want string
		found, elem     string // the RelativeOnlyError, when want is ""
	}{
		{"both", `.;tools;C:\abs`, `C:\abs\both.exe`, "", ""},
		{"here", `C:\abs`, "", `.\here.exe`, ""},
		{"here", `.;C:\abs`, "", `.\here.exe`, "."},
		{"rel", `tools;C:\abs`, "", `tools\rel.cmd`, "tools"},
		{"r", `\rooted;C:\abs`, "", `\rooted\r.exe`, `\rooted`},
		{"d", `C:x;C:\abs`, "", `C:x\d.exe`, "C:x"},
		{"none", `.;tools;C:\abs`, "", "", ""},
	} {
		got, err := lookPathWindows(tc.cmd, []string{"PATH=" + tc.path}, isFile)
		var rel *RelativeOnlyError
		switch {
		case tc.want != "":
			if err != nil || got != tc.want {
				t.Errorf("lookPathWindows(%q) in %s = %q, %v; want %q", tc.cmd, tc.path, got, err, tc.want)
			}
		case !errors.Is(err, exec.ErrNotFound):
			t.Errorf("lookPathWindows(%q) in %s = %q, %v; want not found", tc.cmd, tc.path, got, err)
		case tc.found == "" && errors.As(err, &rel):
			t.Errorf("lookPathWindows(%q) in %s: %+v, want no RelativeOnlyError", tc.cmd, tc.path, rel)
		case tc.found != "" && (!errors.As(err, &rel) || rel.Found != tc.found || rel.Elem != tc.elem):
			t.Errorf("lookPathWindows(%q) in %s: err %v (%+v), want found %q through %q", tc.cmd, tc.path, err, rel, tc.found, tc.elem)
		}
	}
	for p, abs := range map[string]bool{`C:\x`: true, `c:/x`: true, `\\srv\share`: true, `//srv/share`: true, `\x`: false, `C:x`: false, `x`: false, `.`: false, `1:\x`: false} {
		if windowsAbs(p) != abs {
			t.Errorf("windowsAbs(%q) = %v", p, !abs)
		}
	}
}
