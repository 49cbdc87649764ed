package commands

// The pairs after a prompt's or a tool's name (ARG=VALUE, KEY=VALUE and
// KEY:=JSON, see COMMANDS in mcpx(1)), the values read for them (@FILE,
// @- from stdin, read at most once, and @@ for a literal @), and --args.
// Nothing here talks to a server; the only IO is reading @FILE and stdin.
// Values keep their bytes.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/limits"
)

// pair is one ARG=VALUE, KEY=VALUE or KEY:=JSON argument after @-reading.
type pair struct {
	Key   string
	Value string // the value; for Raw, the JSON text
	Raw   bool   // KEY:=JSON (invoke only)
	File  string // "" or the @FILE / "-" the value came from (for messages)
}

// parsePairs splits command-line pairs. allowRaw enables KEY:=JSON (invoke).
// VALUE forms: "@FILE" reads FILE verbatim; "@-" reads stdin (at most once per
// invocation, also counting --args -: pass stdinUsed); "@@x" is the literal "@x".
// A missing/unreadable FILE (or a directory) is exit 2 naming the key and file,
// never sent as a literal. A file or stdin over limits.MessageCeiling is a
// *limits.Error. Content that is not valid UTF-8 is exit 2 (values are JSON strings).
// A pair without "=" or with an empty key is exit 2 with an example. The same key twice is exit 2.
func parsePairs(args []string, allowRaw bool, stdin io.Reader, stdinUsed *bool) ([]pair, error) {
	return parsePairsLimit(args, allowRaw, stdin, stdinUsed, limits.MessageCeiling)
}

// parsePairsLimit is parsePairs with the size ceiling as a parameter (tests).
func parsePairsLimit(args []string, allowRaw bool, stdin io.Reader, stdinUsed *bool, limit int64) ([]pair, error) {
	if stdinUsed == nil {
		stdinUsed = new(bool)
	}
	pairs := make([]pair, 0, len(args))
	seen := map[string]bool{}
	for _, arg := range args {
		p, err := splitPair(arg, allowRaw)
		if err != nil {
			return nil, err
		}
		if seen[p.Key] {
			e := &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("argument %q is given twice", p.Key), Details: map[string]any{"key": p.Key}}
			if allowRaw {
				e.Hints = []string{fmt.Sprintf("give each key once; a list is one JSON value: %s:='[\"a\",\"b\"]'", p.Key)}
			} else {
				e.Hints = []string{"give each argument once"}
			}
			return nil, e
		}
		seen[p.Key] = true
		what := fmt.Sprintf("argument %q", p.Key)
		if strings.HasPrefix(p.Value, "@") {
			var b []byte
			b, p.File, err = readAtValue(p.Value, what, p.Key, stdin, stdinUsed, limit)
			if err != nil {
				return nil, err
			}
			p.Value = string(b)
		}
		if !utf8.ValidString(p.Value) {
			return nil, notUTF8(what, p.Key, p.File)
		}
		if p.Raw {
			if _, err := rawPairJSON(p); err != nil {
				return nil, err
			}
		}
		pairs = append(pairs, p)
	}
	return pairs, nil
}

// splitPair splits one argument at its first "=". With allowRaw, a key
// ending in ":" (KEY:=JSON) makes a raw pair; "a:b=1" is the key "a:b".
func splitPair(arg string, allowRaw bool) (pair, error) {
	key, val, ok := strings.Cut(arg, "=")
	if !ok || key == "" || (allowRaw && key == ":") {
		var msg string
		if !ok {
			msg = fmt.Sprintf("%q is not %s pair", argClip(arg, 60), pairForm(allowRaw))
		} else {
			msg = fmt.Sprintf("%q has an empty name before \"=\"", argClip(arg, 60))
		}
		return pair{}, &fail.Error{Code: fail.Usage, Message: msg, Hints: []string{pairExample(allowRaw)}}
	}
	p := pair{Key: key, Value: val}
	if allowRaw && strings.HasSuffix(key, ":") {
		p.Key, p.Raw = strings.TrimSuffix(key, ":"), true
	}
	if !utf8.ValidString(p.Key) {
		return pair{}, &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("argument name %q is not valid UTF-8", p.Key)}
	}
	return p, nil
}

func pairForm(allowRaw bool) string {
	if allowRaw {
		return "a KEY=VALUE or KEY:=JSON"
	}
	return "an ARG=VALUE"
}

func pairExample(allowRaw bool) string {
	if allowRaw {
		return `arguments after the tool name are KEY=VALUE (typed by the tool's schema) or KEY:=JSON: mcpx invoke SRV TOOL path=/tmp/notes.txt limit:=10`
	}
	return "arguments after the prompt name are ARG=VALUE: mcpx prompt SRV NAME topic=rust"
}

// readAtValue resolves a value starting with "@": "@@x" is the literal "@x"
// (returned with file ""), "@-" reads stdin (file "-"), "@FILE" reads FILE.
// what names the value in messages ("argument \"k\"", "--args"); key is the
// "key" detail ("" for none).
func readAtValue(v, what, key string, stdin io.Reader, stdinUsed *bool, limit int64) ([]byte, string, error) {
	rest := v[1:]
	details := func(file string) map[string]any {
		d := map[string]any{"file": file}
		if key != "" {
			d["key"] = key
		}
		return d
	}
	switch {
	case strings.HasPrefix(rest, "@"):
		return []byte(rest), "", nil
	case rest == "-":
		if *stdinUsed {
			return nil, "", &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("%s: @- reads stdin, which another value already read", what),
				Details: details("-"),
				Hints:   []string{"stdin can be read only once: put the other value in a file and pass @FILE"}}
		}
		*stdinUsed = true
		b, err := readCapped(stdin, limit)
		if err != nil {
			var le *limits.Error
			if errors.As(err, &le) {
				le.Msg = fmt.Sprintf("%s: the value read from stdin is too large", what)
				return nil, "", le
			}
			return nil, "", &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("%s: cannot read stdin: %v", what, err), Details: details("-")}
		}
		return b, "-", nil
	case rest == "":
		return nil, "", &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("%s: \"@\" names no file", what), Details: details(""),
			Hints: []string{`@FILE reads a file, @- reads stdin, and @@ stands for a literal "@"`}}
	}
	file := rest
	b, err := readFileCapped(file, limit)
	if err != nil {
		var le *limits.Error
		if errors.As(err, &le) {
			le.Msg = fmt.Sprintf("%s: %s is too large", what, file)
			return nil, "", le
		}
		cause := err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			cause = pe.Err
		}
		e := &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("%s: cannot read @%s: %v", what, file, cause), Details: details(file)}
		if strings.HasPrefix(file, "~/") {
			e.Hints = append(e.Hints, `the shell does not expand "~" after "@"; write @$HOME/`+file[2:])
		}
		if key != "" {
			e.Hints = append(e.Hints, fmt.Sprintf("to send the literal text %q, double the @: %s=@%s", v, key, v))
		}
		return nil, "", e
	}
	return b, file, nil
}

var errIsDir = errors.New("is a directory")

// readFileCapped reads a whole file of at most limit bytes.
func readFileCapped(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errIsDir}
	}
	if st.Mode().IsRegular() && st.Size() > limit {
		return nil, &limits.Error{Limit: "message ceiling", Value: limit}
	}
	return readCapped(f, limit)
}

// readCapped reads r to its end, refusing more than limit bytes. A nil
// reader reads as empty.
func readCapped(r io.Reader, limit int64) ([]byte, error) {
	if r == nil {
		return []byte{}, nil
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &limits.Error{Limit: "message ceiling", Value: limit}
	}
	return b, nil
}

func notUTF8(what, key, file string) error {
	d := map[string]any{}
	if key != "" {
		d["key"] = key
	}
	var msg string
	switch file {
	case "":
		msg = fmt.Sprintf("%s: the value is not valid UTF-8", what)
	case "-":
		d["file"] = file
		msg = fmt.Sprintf("%s: the value read from stdin is not valid UTF-8", what)
	default:
		d["file"] = file
		msg = fmt.Sprintf("%s: %s is not valid UTF-8 text", what, file)
	}
	return &fail.Error{Code: fail.Usage, Message: msg, Details: d,
		Hints: []string{"values are sent as JSON strings; encode binary data (e.g. base64) first"}}
}

// readArgsFlag returns the JSON text of --args: "-" (or "@-") reads stdin,
// "@FILE" reads FILE, "@@x" is the literal "@x", anything else is the JSON
// itself. stdinUsed is shared with parsePairs (stdin is read at most once).
func readArgsFlag(v string, stdin io.Reader, stdinUsed *bool) ([]byte, error) {
	return readArgsFlagLimit(v, stdin, stdinUsed, limits.MessageCeiling)
}

func readArgsFlagLimit(v string, stdin io.Reader, stdinUsed *bool, limit int64) ([]byte, error) {
	if stdinUsed == nil {
		stdinUsed = new(bool)
	}
	if v == "-" {
		v = "@-"
	}
	if !strings.HasPrefix(v, "@") {
		return []byte(v), nil
	}
	b, file, err := readAtValue(v, "--args", "", stdin, stdinUsed, limit)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(b) {
		return nil, notUTF8("--args", "", file)
	}
	return b, nil
}
