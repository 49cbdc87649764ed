package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/userfile"
)

// mcpx import copies a host's entries into mcpx's user file. The file is
// edited, not rewritten: new entries are spliced into its "mcpServers"
// object (replaced entries in place), so every other byte — key order,
// unknown keys, spacing — stays as it was. It is written through a
// temporary file and a rename, under the file's lock (EditServers).

// ImportEntry is the entry mcpx import writes for s, in mcpx's format, with
// relative paths made absolute (the user file lives elsewhere), or why it
// cannot be imported.
func (s *Server) ImportEntry() (MCPXEntry, error) {
	if s.entry == nil {
		return MCPXEntry{}, fmt.Errorf("not a host's entry")
	}
	if s.entry.Problem != "" {
		return MCPXEntry{}, errors.New(s.entry.Problem)
	}
	if s.err != nil && !s.Disabled {
		if ce, ok := fail.As(s.err, fail.Usage); ok { // the entry's problem, without its name
			return MCPXEntry{}, errors.New(strings.TrimPrefix(ce.Message, fmt.Sprintf("server %q: ", ce.Server)))
		}
		return MCPXEntry{}, s.err
	}
	m := s.entry.mcpx()
	if m.Cwd != "" && !filepath.IsAbs(m.Cwd) && !strings.HasPrefix(m.Cwd, "${") {
		m.Cwd = filepath.Join(s.Dir, m.Cwd)
	}
	if strings.Contains(m.Command, "/") && !filepath.IsAbs(m.Command) && !strings.HasPrefix(m.Command, "${") {
		m.Command = filepath.Join(s.Dir, m.Command)
	}
	return m, nil
}

// ImportSecrets returns the literal values of e that are secrets (see
// SECRETS in mcpx(1)), so that what mcpx import prints masks them: header
// values, env values of secret names, and secrets in args and the URL.
// A ${VAR} reference is not a secret.
func ImportSecrets(e MCPXEntry) []string {
	var out []string
	lit := func(v string) bool { return v != "" && !strings.Contains(v, "${") }
	for _, v := range e.Headers {
		if lit(v) {
			out = append(out, v)
			out = append(out, HeaderSecrets(v)...)
		}
	}
	for k, v := range e.Env {
		if IsSecretName(k) && lit(v) {
			out = append(out, v)
		}
		out = append(out, valueSecrets(v)...)
	}
	for _, a := range e.Args {
		out = append(out, valueSecrets(a)...)
	}
	return append(out, valueSecrets(e.URL)...)
}

// ServerNames returns the names the mcpx config file at path defines (none
// when it does not exist).
func ServerNames(path string) (map[string]bool, error) {
	f, err := readFile(path, false)
	if err != nil || f == nil {
		return map[string]bool{}, err
	}
	names := map[string]bool{}
	for _, s := range f.servers {
		names[s.Name] = true
	}
	return names, nil
}

// NamedEntry is one entry to write.
type NamedEntry struct {
	Name  string
	Entry MCPXEntry
}

// The one writer of mcpx's own config file (see CONFIGURATION in mcpx(1)):
// every change to it — mcpx import, and any later command that adds a
// server — goes through EditServers, which holds the file's lock across
// its read, its edit and its rename, so that two mcpx processes never
// lose each other's entries. The lock is a lock file beside the config
// file (".config.json.lock"), never removed. A program that edits the file
// without the lock is caught too: just before the rename, the file is read
// again, and when it is no longer what the edit started from, the edit
// starts over from the new content (plan decides again what to write),
// so that change is kept, not overwritten. A file that keeps changing is
// refused: a conflict (see conflict), and nothing written.

// editAttempts bounds how often EditServers starts over because the file
// changed under it.
const editAttempts = 5

// lockWait bounds how long EditServers waits for another writer's lock.
const lockWait = 10 * time.Second

// beforeReplace, when set (tests), runs after an edit is ready and before
// the file is checked and replaced.
var beforeReplace func(path string)

// conflict: the config file could not be written because another process
// held it locked, or kept changing it (exit 1).
func conflict(path, msg string) *fail.Error {
	return &fail.Error{Code: fail.Conflict, What: "file", Name: path,
		Message: fmt.Sprintf("config file %s %s; nothing was written", path, msg)}
}

// EditServers changes the mcpx config file at path under its lock: plan is
// given the names the file defines and returns the entries to set (a name
// the file has is replaced in place); everything else of the file is kept
// as it is. plan may be called more than once (when the file changed under
// the edit), each time with what the file then holds; no entries is no
// write. A missing file (and its directory) is created, mode 0600; an
// existing one keeps its mode, and a symbolic link keeps pointing at the
// file.
func EditServers(path string, plan func(have map[string]bool) ([]NamedEntry, error)) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Invalid("", fmt.Sprintf("config file %s: %v", path, err))
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return Invalid("", fmt.Sprintf("cannot write config file: %v", err))
	}
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	lock := filepath.Join(filepath.Dir(abs), "."+filepath.Base(abs)+".lock")
	unlock, err := userfile.Lock(ctx, lock)
	if errors.Is(err, context.DeadlineExceeded) {
		return conflict(abs, fmt.Sprintf("is locked by another process (%s) for more than %s", lock, lockWait))
	}
	if err != nil {
		return Invalid("", fmt.Sprintf("cannot lock config file %s: %v", abs, err))
	}
	defer unlock()
	for range editAttempts {
		data, mode, err := readConfig(abs)
		if err != nil {
			return err
		}
		have := map[string]bool{}
		if len(data) > 0 {
			f, err := parseFile(abs, data)
			if err != nil {
				return err
			}
			for _, s := range f.servers {
				have[s.Name] = true
			}
		}
		entries, err := plan(have)
		if err != nil || len(entries) == 0 {
			return err
		}
		out, err := spliceServers(data, entries)
		if err != nil {
			return Invalid("", fmt.Sprintf("config file %s: %v", abs, err))
		}
		if beforeReplace != nil {
			beforeReplace(abs)
		}
		now, _, err := readConfig(abs)
		if err != nil {
			return err
		}
		if !bytes.Equal(now, data) {
			continue // another program changed it: start over from what it wrote
		}
		if err := writeAtomic(abs, out, mode); err != nil {
			return Invalid("", fmt.Sprintf("cannot write config file: %v", err))
		}
		return nil
	}
	return conflict(abs, fmt.Sprintf("changed under mcpx %d times while it was being written", editAttempts))
}

// readConfig reads the config file to edit and its mode (nothing, 0600
// when it does not exist).
func readConfig(path string) ([]byte, fs.FileMode, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o600, nil
	}
	if err != nil {
		return nil, 0, Invalid("", fmt.Sprintf("cannot read config file: %v", err))
	}
	if !st.Mode().IsRegular() {
		return nil, 0, Invalid("", fmt.Sprintf("config file %s is not a regular file", path))
	}
	data, err := readBounded(path)
	if err != nil {
		return nil, 0, Invalid("", fmt.Sprintf("cannot read config file: %v", err))
	}
	return data, st.Mode().Perm(), nil
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxHostFile+1))
	if err == nil && len(data) > maxHostFile {
		err = fmt.Errorf("%s is larger than %d MiB", path, maxHostFile>>20)
	}
	return data, err
}

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename, so that a reader sees the old file or the new
// one, never half of one.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	abandon := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		return abandon(err)
	}
	if _, err := tmp.Write(data); err != nil {
		return abandon(err)
	}
	if err := tmp.Sync(); err != nil {
		return abandon(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}

// span is a JSON value's place in a file.
type span struct{ start, end int }

// object is the members of a JSON object in a file: each key's value
// span, in order, and where its braces are.
type object struct {
	open, close int // offsets of { and }
	keys        []string
	vals        map[string]span
}

// parseObject reads the object that starts at data[off] (after spaces).
func parseObject(data []byte, off int) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(data[off:]))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonAt(data, off, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("%s: want a JSON object", position(data, off+int(dec.InputOffset())-1))
	}
	o := &object{open: off + int(dec.InputOffset()) - 1, vals: map[string]span{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonAt(data, off, err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, jsonAt(data, off, err)
		}
		end := off + int(dec.InputOffset())
		if _, dup := o.vals[key]; !dup {
			o.keys = append(o.keys, key)
			o.vals[key] = span{end - len(raw), end}
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonAt(data, off, err)
	}
	o.close = off + int(dec.InputOffset()) - 1
	return o, nil
}

// indentAt is the white space that starts the line of offset off.
func indentAt(data []byte, off int) (string, bool) {
	i := bytes.LastIndexByte(data[:off], '\n')
	ws := data[i+1 : off]
	// a key on the line of the brace (compact JSON) has no indentation of its own
	if len(bytes.TrimLeft(ws, " \t")) > 0 {
		return "", false
	}
	return string(ws), true
}

// keyStart finds the offset of the quoted key before a value at off.
func keyStart(data []byte, off int) int {
	i := bytes.LastIndexByte(data[:off], ':')
	for i > 0 && data[i] != '"' {
		i--
	}
	// i is the closing quote; find the opening one (keys have no raw quotes)
	j := i - 1
	for j > 0 && !(data[j] == '"' && data[j-1] != '\\') {
		j--
	}
	return j
}

// spliceServers returns data with entries set in its "mcpServers" object.
func spliceServers(data []byte, entries []NamedEntry) ([]byte, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, jsonAt(data, 0, err)
	}
	top, err := parseObject(data, 0)
	if err != nil {
		return nil, err
	}
	s := splicer{data: data, unit: "  "}
	if len(top.keys) > 0 {
		if ind, ok := indentAt(data, keyStart(data, top.vals[top.keys[0]].start)); ok && ind != "" {
			s.unit = ind
		}
	}
	var edits []edit
	sp, has := top.vals["mcpServers"]
	null := has && string(data[sp.start:sp.end]) == "null"
	if has && !null {
		edits, err = s.intoServers(sp, entries)
	} else {
		edits, err = s.newServers(top, sp, null, entries)
	}
	if err != nil {
		return nil, err
	}
	return applyEdits(data, edits)
}

// edit replaces data[at:end] with text.
type edit struct {
	at, end int
	text    string
}

// splicer writes entries into a config file's JSON, indented with the
// file's own unit of indentation.
type splicer struct {
	data    []byte
	unit    string // one level of indentation
	compact bool   // entries on one line (the object's members are)
}

// encode is an entry as the file shows it: indented from prefix, or
// compact on one line.
func (s *splicer) encode(e MCPXEntry, prefix string) (string, error) {
	if s.compact {
		b, err := marshalEntry(e)
		return string(b), err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, s.unit)
	if err := enc.Encode(e); err != nil {
		return "", err
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// quoteKey is a member name as JSON.
func quoteKey(name string) string { b, _ := marshalEntry(name); return string(b) }

// newServers writes a new "mcpServers" object of entries: in place of a
// null one (null: sp is where it is), else as the last member of top.
func (s *splicer) newServers(top *object, sp span, null bool, entries []NamedEntry) ([]edit, error) {
	unit := s.unit
	var b strings.Builder
	b.WriteString("{")
	for i, e := range entries {
		text, err := s.encode(e.Entry, unit+unit)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n" + unit + unit + quoteKey(e.Name) + ": " + text)
	}
	b.WriteString("\n" + unit + "}")
	if null {
		return []edit{{sp.start, sp.end, b.String()}}, nil
	}
	at, text := top.open+1, "\n"+unit+`"mcpServers": `+b.String()+"\n"
	if len(top.keys) > 0 {
		at, text = top.vals[top.keys[len(top.keys)-1]].end, ",\n"+unit+`"mcpServers": `+b.String()
	}
	return []edit{{at, at, text}}, nil
}

// intoServers sets entries in the "mcpServers" object at sp: an entry of
// a name it has replaces that member's value, the others are added after
// its last member, indented as its members are.
func (s *splicer) intoServers(sp span, entries []NamedEntry) ([]edit, error) {
	obj, err := parseObject(s.data, sp.start)
	if err != nil {
		return nil, fmt.Errorf("\"mcpServers\": %v", err)
	}
	parent, _ := indentAt(s.data, keyStart(s.data, sp.start))
	ind, nl := parent+s.unit, "\n"
	if len(obj.keys) > 0 {
		i, ok := indentAt(s.data, keyStart(s.data, obj.vals[obj.keys[0]].start))
		if ok {
			ind = i
		} else {
			// members on one line: compact entries, on that line
			ind, nl, s.compact = "", " ", true
		}
	}
	at := obj.open + 1
	if len(obj.keys) > 0 {
		at = obj.vals[obj.keys[len(obj.keys)-1]].end
	}
	var edits []edit
	var add strings.Builder
	n := len(obj.keys)
	for _, e := range entries {
		text, err := s.encode(e.Entry, ind)
		if err != nil {
			return nil, err
		}
		if v, ok := obj.vals[e.Name]; ok {
			edits = append(edits, edit{v.start, v.end, text})
			continue
		}
		if n > 0 {
			add.WriteString(",")
		}
		n++
		add.WriteString(nl + ind + quoteKey(e.Name) + ": " + text)
	}
	if add.Len() > 0 {
		text := add.String()
		if len(obj.keys) == 0 {
			text += "\n" + parent
		}
		edits = append(edits, edit{at, at, text})
	}
	return edits, nil
}

// applyEdits applies edits to a copy of data, from the end, so that
// earlier offsets stay right; the result must be valid JSON.
func applyEdits(data []byte, edits []edit) ([]byte, error) {
	out := bytes.Clone(data)
	sort.Slice(edits, func(i, j int) bool { return edits[i].at < edits[j].at })
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		out = append(out[:e.at:e.at], append([]byte(e.text), out[e.end:]...)...)
	}
	if !json.Valid(out) {
		return nil, fmt.Errorf("the edited file would not be valid JSON; it was left alone")
	}
	return out, nil
}
