// Package skills reads and verifies server-published skills (the MCP
// extension io.modelcontextprotocol/skills; see "mcpx skills" in mcpx(1)):
// the entries of a skills/list result, each file's size and SHA-256
// digest, SKILL.md's YAML frontmatter against the entry's, and the path
// each file takes under the skill's directory. It sends nothing and
// writes nothing: the caller reads the files, one at a time, and checks
// each before it reads the next.
package skills

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// SkillFile is the name of a skill's main file, the last segment of its URI.
const SkillFile = "SKILL.md"

// Entry is one skill of a skills/list result.
type Entry struct {
	URI         string          // the skill's SKILL.md
	Name        string          // frontmatter.name
	Description string          // frontmatter.description ("" when absent)
	Frontmatter json.RawMessage // the entry's frontmatter object, as sent
	Files       []File          // its resources, SKILL.md first, the rest in listing order
}

// File is one file of a skill: its URI, digest and size as listed.
type File struct {
	URI    string
	Digest string // "sha256:" and 64 lowercase hex digits
	Size   int64
	Sized  bool // the listing gave a size
}

// A skill that fails verification, or an entry mcpx cannot use, is a
// bad_content *fail.Error (failure): its Said what differed, its Details the check
// (size, digest, frontmatter, path, entry, read) and the file it concerns
// (its URI), until Explain names the server and the skill in its message.
func failure(check, uri, msg string) *fail.Error {
	d := map[string]any{"check": check}
	if uri != "" {
		d["uri"] = uri
	}
	e := &fail.Error{Code: fail.BadContent, What: "skill", Said: msg, Details: d}
	Explain(e, "", "")
	return e
}

// Problem returns the verification failure in err's chain, if any.
func Problem(err error) (*fail.Error, bool) {
	if e, ok := fail.As(err, fail.BadContent); ok && e.What == "skill" {
		return e, true
	}
	return nil, false
}

// Failed is a verification failure of the skill named skill of server
// (exit 1; nothing was written), from what check found, at uri ("" for
// the listing entry).
func Failed(server, skill, check, uri, msg string) *fail.Error {
	e := failure(check, uri, msg)
	Explain(e, server, skill)
	return e
}

// Explain names the server and the skill of a verification failure e, in
// its message and its fields.
func Explain(e *fail.Error, server, skill string) {
	check, _ := e.Details["check"].(string)
	uri, _ := e.Details["uri"].(string)
	where := ""
	if uri != "" {
		where = " " + text.QuoteClip(uri, 200)
	}
	e.Server, e.Name = server, skill
	e.Details["skill"] = skill
	e.Message = fmt.Sprintf("server %q: skill %s: %s%s: %s; nothing was written", server, text.QuoteClip(skill, 100), fileWord(check), where, e.Said)
}

func fileWord(check string) string {
	if check == "entry" {
		return "its listing entry"
	}
	return "file"
}

// ParseEntry reads one element of a skills/list result's "skills" array.
// A malformed entry is a verification failure (see failure) naming what is wrong (Server and Skill
// left for the caller).
func ParseEntry(raw []byte) (*Entry, error) {
	var e struct {
		URI         *string         `json:"uri"`
		Frontmatter json.RawMessage `json:"frontmatter"`
		Resources   []struct {
			URI    *string          `json:"uri"`
			Digest *string          `json:"digest"`
			Size   *json.RawMessage `json:"size"`
		} `json:"resources"`
	}
	bad := func(format string, args ...any) error {
		return failure("entry", "", fmt.Sprintf(format, args...))
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, bad("not a skill object (%v)", err)
	}
	if e.URI == nil || *e.URI == "" {
		return nil, bad("no uri")
	}
	var fm map[string]json.RawMessage
	if json.Unmarshal(e.Frontmatter, &fm) != nil || fm == nil {
		return nil, bad("no frontmatter object")
	}
	out := &Entry{URI: *e.URI, Frontmatter: e.Frontmatter}
	if json.Unmarshal(fm["name"], &out.Name) != nil || out.Name == "" {
		return nil, bad("frontmatter has no name")
	}
	_ = json.Unmarshal(fm["description"], &out.Description)
	for i, r := range e.Resources {
		f, err := parseFile(i, r.URI, r.Digest, r.Size)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out.Files, func(g File) bool { return g.URI == f.URI }) {
			return nil, bad("resource %s is listed twice", text.QuoteClip(f.URI, 200))
		}
		if f.URI == out.URI {
			out.Files = slices.Insert(out.Files, 0, f)
		} else {
			out.Files = append(out.Files, f)
		}
	}
	if len(out.Files) == 0 || out.Files[0].URI != out.URI {
		return nil, bad("its SKILL.md %s is not among its resources, so it cannot be verified", text.QuoteClip(out.URI, 200))
	}
	return out, nil
}

// parseFile reads resource #i of an entry.
func parseFile(i int, uri, digest *string, size *json.RawMessage) (File, error) {
	if uri == nil || *uri == "" {
		return File{}, failure("entry", "", fmt.Sprintf("resource #%d has no uri", i))
	}
	f := File{URI: *uri}
	if digest != nil {
		f.Digest = *digest
	}
	if size != nil {
		n, err := strconv.ParseInt(string(*size), 10, 64)
		if err != nil || n < 0 {
			return File{}, failure("entry", "", fmt.Sprintf("resource %s has a size that is not a whole number of bytes", text.QuoteClip(f.URI, 200)))
		}
		f.Size, f.Sized = n, true
	}
	return f, nil
}

// Root is the URI prefix every file of the skill has: its SKILL.md's URI
// without the last segment (with the "/").
func (e *Entry) Root() (string, error) {
	root, ok := strings.CutSuffix(e.URI, "/"+SkillFile)
	if !ok || root == "" || strings.HasSuffix(root, "/") || !strings.Contains(root, "://") {
		return "", failure("path", e.URI, "a skill's uri must name its "+SkillFile+" under a directory")
	}
	return root + "/", nil
}

// Path is the path a file of the skill takes under the skill's directory
// (slash-separated): its URI after the root. A URI outside the root, or
// one whose path could leave the directory or name something other than
// a plain file below it, is a verification failure (see failure).
func (e *Entry) Path(uri string) (string, error) {
	root, err := e.Root()
	if err != nil {
		return "", err
	}
	bad := func(why string) error { return failure("path", uri, why) }
	rel, ok := strings.CutPrefix(uri, root)
	if !ok || rel == "" {
		return "", bad("it is not under the skill's root " + text.QuoteClip(root, 200))
	}
	if strings.ContainsAny(rel, "\\?#%:\x00") {
		return "", bad(`its path has a character mcpx does not write to a file name (\ ? # % : or NUL)`)
	}
	for _, seg := range strings.Split(rel, "/") {
		switch {
		case seg == "":
			return "", bad("its path has an empty segment")
		case seg == "." || seg == "..":
			return "", bad("its path has a " + strconv.Quote(seg) + " segment")
		case strings.ContainsFunc(seg, func(r rune) bool { return r < 0x20 || r == 0x7f }):
			return "", bad("its path has a control character")
		}
	}
	return rel, nil
}

// Verify checks b, the file's bytes as read, against the listing: its
// size first (a read of another length fails whatever its digest), then
// its digest. A digest that is not sha256 is a verification failure (see failure) too: mcpx cannot
// check it.
func (f File) Verify(b []byte) error {
	if f.Sized && int64(len(b)) != f.Size {
		return failure("size", f.URI, fmt.Sprintf("the listing gives %d bytes, the server sent %d", f.Size, len(b)))
	}
	hexPart, ok := strings.CutPrefix(f.Digest, "sha256:")
	if f.Digest == "" {
		return failure("digest", f.URI, "the listing gives it no digest")
	}
	if !ok || len(hexPart) != 2*sha256.Size || strings.ToLower(hexPart) != hexPart {
		return failure("digest", f.URI, fmt.Sprintf("the listing's digest %s is not sha256: and 64 lowercase hex digits", text.QuoteClip(f.Digest, 100)))
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != hexPart {
		return failure("digest", f.URI, fmt.Sprintf("the listing gives sha256:%s, what the server sent has sha256:%s", hexPart, got))
	}
	return nil
}

// CheckFrontmatter parses the YAML frontmatter of skillMD (between a first
// line "---" and the next "---") and compares it field by field with the
// entry's: the same fields, each with the same value.
func (e *Entry) CheckFrontmatter(skillMD []byte) error {
	bad := func(format string, args ...any) error {
		return failure("frontmatter", e.URI, fmt.Sprintf(format, args...))
	}
	block, ok := frontmatter(skillMD)
	if !ok {
		return bad("it has no YAML frontmatter (a first line ---, the fields, a line ---)")
	}
	var doc map[string]any
	if err := yaml.Unmarshal(block, &doc); err != nil {
		return bad("its frontmatter is not YAML: %s", clip(err.Error()))
	}
	got, err := asJSON(doc)
	if err != nil {
		return bad("its frontmatter has a value mcpx cannot compare: %v", err)
	}
	var want map[string]any
	if err := json.Unmarshal(e.Frontmatter, &want); err != nil {
		return bad("the listing's frontmatter is not an object")
	}
	for _, k := range sortedKeys(want) {
		g, ok := got[k]
		switch {
		case !ok:
			return bad("its frontmatter has no %s, the listing's has %s", text.QuoteClip(k, 100), shown(want[k]))
		case !reflect.DeepEqual(g, want[k]):
			return bad("its frontmatter's %s is %s, the listing's is %s", text.QuoteClip(k, 100), shown(g), shown(want[k]))
		}
	}
	for _, k := range sortedKeys(got) {
		if _, ok := want[k]; !ok {
			return bad("its frontmatter has %s, which the listing's does not", text.QuoteClip(k, 100))
		}
	}
	return nil
}

// frontmatter is the YAML between the first line "---" and the next line
// "---" (or "..."), CRLF line ends allowed.
func frontmatter(b []byte) ([]byte, bool) {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	rest, ok := cutLine(b, "---")
	if !ok {
		return nil, false
	}
	for i := 0; i < len(rest); {
		end := bytes.IndexByte(rest[i:], '\n')
		line := rest[i:]
		if end >= 0 {
			line = rest[i : i+end]
		}
		if l := string(bytes.TrimSuffix(line, []byte("\r"))); l == "---" || l == "..." {
			return rest[:i], true
		}
		if end < 0 {
			break
		}
		i += end + 1
	}
	return nil, false
}

// cutLine returns what follows b's first line when that line is want.
func cutLine(b []byte, want string) ([]byte, bool) {
	line, rest, ok := bytes.Cut(b, []byte("\n"))
	if !ok || string(bytes.TrimSuffix(line, []byte("\r"))) != want {
		return nil, false
	}
	return rest, true
}

// asJSON is a YAML document as JSON decodes the same values (numbers as
// float64, mappings as map[string]any), so that it compares with the
// listing's.
func asJSON(doc map[string]any) (map[string]any, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	return out, json.Unmarshal(b, &out)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// shown is a value as a message quotes it: compact JSON, clipped.
func shown(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return clip(string(b))
}

// clip shows a server's string in a message: at most 100 characters,
// line breaks and control characters escaped.
func clip(s string) string { return text.EscapeClip(s, 100) }
