package transport

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// envLookup is the value of name in env (the last one wins); on Windows
// names are matched without regard to case ("Path" is PATH).
func envLookup(env []string, name string, windows bool) string {
	v := ""
	for _, kv := range env {
		k, val, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if k == name || windows && strings.EqualFold(k, name) {
			v = val
		}
	}
	return v
}

// defaultPathExt is what Windows uses when PATHEXT is unset.
const defaultPathExt = ".COM;.EXE;.BAT;.CMD"

// RelativeOnlyError: a command that no absolute element of PATH finds, and
// an empty or relative one would find in (or under) the current directory,
// which mcpx never searches (see SERVER PROCESSES in mcpx(1)). It is
// exec.ErrNotFound (errors.Is), and names where the program is, so that a
// hint can say to give its path.
type RelativeOnlyError struct {
	Found string // the program as that element finds it: ./npxlike, bin/npxlike
	Elem  string // the PATH element ("" for an empty one, or the current directory on Windows)
	Abs   string // Found made absolute, when it could be
}

func (e *RelativeOnlyError) Error() string { return exec.ErrNotFound.Error() }

// Is makes a RelativeOnlyError exec.ErrNotFound.
func (e *RelativeOnlyError) Is(target error) bool { return target == exec.ErrNotFound }

// withAbs fills in Abs of the RelativeOnlyError in err, if any.
func withAbs(err error) error {
	var rel *RelativeOnlyError
	if errors.As(err, &rel) && rel.Abs == "" {
		if abs, aerr := filepath.Abs(rel.Found); aerr == nil {
			rel.Abs = abs
		}
	}
	return err
}

// relFound is the command as the relative PATH element dir finds it,
// written as a path a shell takes for one: "./npxlike" for an empty element
// or ".", "bin/npxlike" for "bin" (sep: the platform's separator).
func relFound(dir, command, sep string) string {
	if dir == "" || dir == "." {
		return "." + sep + command
	}
	if strings.HasSuffix(dir, sep) || strings.HasSuffix(dir, "/") {
		return dir + command
	}
	return dir + sep + command
}

// windowsAbs reports whether p is an absolute Windows path: a drive and a
// root (C:\x, C:/x) or a UNC path (\\server\share); \x and C:x name a
// place relative to the current drive or directory, as os/exec takes them.
func windowsAbs(p string) bool {
	if len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') {
		c := p[0] | 0x20
		return c >= 'a' && c <= 'z'
	}
	return len(p) >= 2 && (p[0] == '\\' || p[0] == '/') && (p[1] == '\\' || p[1] == '/')
}

// lookPathWindows finds a command as Windows hosts do: a name without a
// directory is searched in the absolute elements of the server's PATH
// (never the current directory, which cmd.exe would search first, nor
// through a relative element, as os/exec does), and a name without one of
// the PATHEXT extensions is tried with each of them in order, so "npx"
// finds "npx.cmd". isFile reports whether a path names a regular file. A
// program found only in the current directory, or through a relative
// element, is named in the error (see RelativeOnlyError).
func lookPathWindows(command string, env []string, isFile func(string) bool) (string, error) {
	exts := pathExts(envLookup(env, "PATHEXT", true))
	try := func(base string) (string, bool) {
		if hasExt(base, exts) && isFile(base) {
			return base, true
		}
		for _, e := range exts {
			if isFile(base + e) {
				return base + e, true
			}
		}
		return "", false
	}
	if strings.ContainsAny(command, `/\:`) {
		if p, ok := try(command); ok {
			return p, nil
		}
		return "", &exec.Error{Name: command, Err: exec.ErrNotFound}
	}
	var rel *RelativeOnlyError
	for _, dir := range strings.Split(envLookup(env, "PATH", true), ";") {
		dir = strings.Trim(dir, `"`)
		if dir == "" {
			continue
		}
		if !windowsAbs(dir) {
			if p, ok := try(relFound(dir, command, `\`)); ok && rel == nil {
				rel = &RelativeOnlyError{Found: p, Elem: dir}
			}
			continue
		}
		if !strings.HasSuffix(dir, `\`) && !strings.HasSuffix(dir, "/") {
			dir += `\`
		}
		if p, ok := try(dir + command); ok {
			return p, nil
		}
	}
	if rel == nil { // cmd.exe would look in the current directory first
		if p, ok := try(`.\` + command); ok {
			rel = &RelativeOnlyError{Found: p}
		}
	}
	if rel != nil {
		return "", &exec.Error{Name: command, Err: rel}
	}
	return "", &exec.Error{Name: command, Err: exec.ErrNotFound}
}

// pathExts splits PATHEXT into lower-case extensions with their dot.
func pathExts(v string) []string {
	if v == "" {
		v = defaultPathExt
	}
	var out []string
	for _, e := range strings.Split(v, ";") {
		if e = strings.ToLower(strings.TrimSpace(e)); e == "" {
			continue
		}
		if !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		out = append(out, e)
	}
	return out
}

func hasExt(p string, exts []string) bool {
	i := strings.LastIndexAny(p, `.\/`)
	if i < 0 || p[i] != '.' {
		return false
	}
	ext := strings.ToLower(p[i:])
	for _, e := range exts {
		if e == ext {
			return true
		}
	}
	return false
}

// isBatch reports whether Windows runs p through cmd.exe.
func isBatch(p string) bool {
	return hasExt(p, []string{".cmd", ".bat"})
}

// errBatchArg is why a .cmd or .bat server is refused an argument.
var errBatchArg = errors.New("cannot be passed safely to a .cmd or .bat file through cmd.exe")

// batchCommandLine is the command line that runs script with args through
// comspec the way the hosts start "npx" on Windows:
//
//	cmd.exe /d /s /c ""C:\path\npx.cmd" "arg 1" arg2"
//
// /d skips AutoRun commands, /s makes cmd strip only the outer quotes. cmd
// expands %VAR% (and !VAR! under delayed expansion) even inside quotes and
// ends a quoted argument at any '"', so an argument with '"', '%' or '!', or
// a line break, could run other commands (the "BatBadBut" class): those are
// refused, not escaped. Every other argument is quoted when it holds a
// space or a cmd metacharacter, and trailing backslashes are doubled so
// that a program reading its arguments the C runtime's way sees them as
// they were.
func batchCommandLine(comspec, script string, args []string) (string, error) {
	var b strings.Builder
	b.WriteString(quoteArg(comspec))
	b.WriteString(` /d /s /c "`)
	if strings.ContainsAny(script, "\"%!\r\n\x00") {
		return "", batchArgError(script)
	}
	b.WriteString(`"` + script + `"`)
	for _, a := range args {
		if strings.ContainsAny(a, "\"%!\r\n\x00") {
			return "", batchArgError(a)
		}
		b.WriteByte(' ')
		if a == "" || strings.ContainsAny(a, " \t&|<>()^,;=") {
			b.WriteString(`"` + doubleTrailingBackslashes(a) + `"`)
		} else {
			b.WriteString(a)
		}
	}
	b.WriteByte('"')
	return b.String(), nil
}

// batchArgError: an argument for a .cmd or .bat server that cmd.exe could
// misread (see batchCommandLine); it is errBatchArg.
func batchArgError(arg string) error {
	return fmt.Errorf("the argument %s %w (it holds '\"', '%%', '!' or a line break); run the server's program directly instead",
		strconv.Quote(arg), errBatchArg)
}

// quoteArg quotes a program path for a Windows command line when it holds
// a space or a tab (a path holds no '"').
func quoteArg(s string) string {
	if s == "" || strings.ContainsAny(s, " \t") {
		return `"` + doubleTrailingBackslashes(s) + `"`
	}
	return s
}

func doubleTrailingBackslashes(s string) string {
	n := len(s) - len(strings.TrimRight(s, `\`))
	return s + strings.Repeat(`\`, n)
}

// comspec is cmd.exe as the server's environment names it.
func comspec(env []string) string {
	if c := envLookup(env, "ComSpec", true); c != "" {
		return c
	}
	root := envLookup(env, "SystemRoot", true)
	if root == "" {
		root = `C:\Windows`
	}
	return root + `\System32\cmd.exe`
}

// exitStatus describes a leader's exit code; Windows reports an NTSTATUS
// (0xC000013A: ended by Ctrl-C or Ctrl-Break) as a large code, shown in
// hex.
func exitStatus(code int) string {
	if uint32(code) >= 0xC0000000 {
		s := fmt.Sprintf("exited with status 0x%08X", uint32(code))
		if uint32(code) == 0xC000013A {
			s += " (ended by Ctrl-C or Ctrl-Break)"
		}
		return s
	}
	return fmt.Sprintf("exited with status %d", code)
}
