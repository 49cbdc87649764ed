package config

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
)

// Host files are read in a cost proportional to their server entries, not
// to their size (see CONFIGURATION in mcpx(1)): ~/.claude.json keeps Claude
// Code's conversation history next to its servers and is commonly tens of
// megabytes, and every command and every TAB reads it. skim streams a JSON
// host file through a fixed buffer, checks its syntax, and keeps only the
// members the dialect's reader looks at, as a small JSON document that the
// reader then parses as it would the whole file: everything else is
// skipped without being decoded or kept.
//
// skim accepts a subset of what the readers accept (JSON with comments and
// trailing commas, as jwcc reads it) and, for what it accepts, the reduced
// document means to the reader what the whole file does. Anything else — a
// syntax error, a top level that is not an object, an unusual shape — is
// errSkim: the caller then reads the whole file with the reader of old,
// which words the problem with its line and column. A broken file costs
// its size; a good one does not.

// errSkim says that skim cannot reduce the file: read it whole.
var errSkim = errors.New("skim: read the whole file")

// keep says which members of an object a reduced document keeps: raw ones
// whole, sub ones as objects reduced in turn ("*": every member).
type keep struct {
	name string // of a document's keep: what state files call it
	raw  map[string]bool
	sub  map[string]*keep
	// fold matches keys as encoding/json matches them to a struct's
	// fields: by Unicode case folding (the claude-code reader decodes
	// into structs; the other readers look keys up exactly).
	fold bool
}

// match says what k keeps of the member name: all of it (raw) or what sub
// keeps of it (nil: nothing).
func (k *keep) match(name string) (raw bool, sub *keep) {
	if k.fold {
		for key := range k.raw {
			if strings.EqualFold(key, name) {
				return true, nil
			}
		}
		for key, sub := range k.sub {
			if key != "*" && strings.EqualFold(key, name) {
				return false, sub
			}
		}
		return false, k.sub["*"]
	}
	if k.raw[name] {
		return true, nil
	}
	if sub := k.sub[name]; sub != nil {
		return false, sub
	}
	return false, k.sub["*"]
}

// skimBuffer is the size of skim's read buffer.
const skimBuffer = 256 << 10

// maxSkimDepth is the nesting skim follows, encoding/json's own bound.
const maxSkimDepth = 10000

// skimKeyMax bounds a key skim keeps to compare (a longer one is errSkim
// when the key matters).
const skimKeyMax = 64 << 10

type skimmer struct {
	r        io.Reader
	buf      []byte
	pos, end int
	rerr     error // the reader's error, once it gave one (io.EOF at the end)

	out      []byte // the reduced document
	capStart int    // while capturing: where the capture starts in buf
	capture  *[]byte
	depth    int
}

// skim reduces the JSON object that r holds to the members k keeps.
func skim(r io.Reader, k *keep) ([]byte, error) {
	s := &skimmer{r: r, buf: make([]byte, skimBuffer), capStart: -1}
	if err := s.bom(); err != nil {
		return nil, err
	}
	if err := s.space(); err != nil {
		return nil, err
	}
	c, ok, err := s.peek()
	if err != nil {
		return nil, err
	}
	if !ok || c != '{' {
		return nil, errSkim // an empty file, or not an object: the whole reader words it
	}
	if err := s.object(k); err != nil {
		return nil, err
	}
	if err := s.space(); err != nil {
		return nil, err
	}
	if _, ok, err := s.peek(); err != nil || ok {
		return nil, errors.Join(err, errSkim)
	}
	return s.out, nil
}

// fill reads more of the file into the buffer; it reports false at the end.
// What is being captured is saved first.
func (s *skimmer) fill() (bool, error) {
	if s.capture != nil {
		*s.capture = append(*s.capture, s.buf[s.capStart:s.end]...)
		s.capStart = 0
	}
	s.pos, s.end = 0, 0
	for s.rerr == nil {
		n, err := s.r.Read(s.buf)
		s.end, s.rerr = n, err
		if n > 0 {
			return true, nil
		}
	}
	if s.rerr == io.EOF {
		return false, nil
	}
	return false, s.rerr
}

// peek returns the next byte without taking it; ok is false at the end.
func (s *skimmer) peek() (byte, bool, error) {
	if s.pos == s.end {
		ok, err := s.fill()
		if !ok {
			return 0, false, err
		}
	}
	return s.buf[s.pos], true, nil
}

// next takes the next byte, which must exist.
func (s *skimmer) next() (byte, error) {
	c, ok, err := s.peek()
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, errSkim
	}
	s.pos++
	return c, nil
}

// startCapture copies what is read from here on to *to.
func (s *skimmer) startCapture(to *[]byte) { s.capture, s.capStart = to, s.pos }

// stopCapture ends a capture here.
func (s *skimmer) stopCapture() {
	*s.capture = append(*s.capture, s.buf[s.capStart:s.pos]...)
	s.capture, s.capStart = nil, -1
}

// bom skips a byte order mark at the start (jwcc blanks it).
func (s *skimmer) bom() error {
	if _, err := s.fill(); err != nil {
		return err
	}
	for s.end < 3 && s.rerr == nil { // a reader may give fewer than 3 bytes at first
		n, err := s.r.Read(s.buf[s.end:])
		s.end, s.rerr = s.end+n, err
	}
	if s.rerr != nil && s.rerr != io.EOF {
		return s.rerr
	}
	if bytes.HasPrefix(s.buf[:s.end], []byte("\xef\xbb\xbf")) {
		s.pos = 3
	}
	return nil
}

// space skips white space and comments.
func (s *skimmer) space() error {
	for {
		c, ok, err := s.peek()
		if err != nil || !ok {
			return err
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			s.pos++
			continue
		case '/':
		default:
			return nil
		}
		s.pos++
		c, err = s.next()
		if err != nil {
			return err
		}
		switch c {
		case '/': // to the end of the line
			for {
				if i := bytes.IndexByte(s.buf[s.pos:s.end], '\n'); i >= 0 {
					s.pos += i
					break
				}
				s.pos = s.end
				if ok, err := s.fill(); err != nil || !ok {
					return err
				}
			}
		case '*':
			star := false
			for {
				c, err := s.next()
				if err != nil {
					return err
				}
				if star && c == '/' {
					break
				}
				star = c == '*'
			}
		default:
			return errSkim
		}
	}
}

// value checks one JSON value and skips it.
func (s *skimmer) value() error {
	c, ok, err := s.peek()
	if err != nil {
		return err
	}
	if !ok {
		return errSkim
	}
	switch {
	case c == '{':
		return s.object(nil)
	case c == '[':
		return s.array()
	case c == '"':
		return s.str()
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return errSkim
}

func (s *skimmer) literal(word string) error {
	for i := 0; i < len(word); i++ {
		c, err := s.next()
		if err != nil {
			return err
		}
		if c != word[i] {
			return errSkim
		}
	}
	return s.delimited()
}

// delimited checks that a literal or number ends where it should.
func (s *skimmer) delimited() error {
	c, ok, err := s.peek()
	if err != nil || !ok {
		return err
	}
	switch c {
	case ' ', '\t', '\n', '\r', ',', ']', '}', '/':
		return nil
	}
	return errSkim
}

// number checks a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *skimmer) number() error {
	c, err := s.next()
	if err != nil {
		return err
	}
	if c == '-' {
		if c, err = s.next(); err != nil {
			return err
		}
	}
	digits := func() (int, error) {
		n := 0
		for {
			c, ok, err := s.peek()
			if err != nil || !ok || c < '0' || c > '9' {
				return n, err
			}
			s.pos++
			n++
		}
	}
	switch {
	case c == '0':
	case c >= '1' && c <= '9':
		if _, err := digits(); err != nil {
			return err
		}
	default:
		return errSkim
	}
	c, ok, err := s.peek()
	if err != nil {
		return err
	}
	if ok && c == '.' {
		s.pos++
		if n, err := digits(); err != nil || n == 0 {
			return errors.Join(err, errSkim)
		}
		if c, ok, err = s.peek(); err != nil {
			return err
		}
	}
	if ok && (c == 'e' || c == 'E') {
		s.pos++
		if c, ok, err = s.peek(); err != nil {
			return err
		}
		if ok && (c == '+' || c == '-') {
			s.pos++
		}
		if n, err := digits(); err != nil || n == 0 {
			return errors.Join(err, errSkim)
		}
	}
	return s.delimited()
}

// plain marks the bytes a string holds as they are: not a quote, not a
// backslash, not a control character.
var plain = func() (t [256]bool) {
	for i := 0x20; i < 256; i++ {
		t[i] = i != '"' && i != '\\'
	}
	return t
}()

// str checks a JSON string and skips it. This is where a history file
// spends its bytes: plain bytes are passed over eight at a time.
func (s *skimmer) str() error {
	if c, err := s.next(); err != nil || c != '"' {
		return errors.Join(err, errSkim)
	}
	for {
		buf, i := s.buf[:s.end], s.pos
		for {
			for i+8 <= len(buf) && plain8(binary.LittleEndian.Uint64(buf[i:])) {
				i += 8
			}
			for i < len(buf) && plain[buf[i]] {
				i++
			}
			if i+6 >= len(buf) {
				break // near the end of the buffer: byte by byte below
			}
			switch buf[i] {
			case '"':
				s.pos = i + 1
				return nil
			case '\\':
				if e := buf[i+1]; escaped[e] {
					i += 2
					continue
				} else if e == 'u' && hex4(buf[i+2:i+6]) {
					i += 6
					continue
				}
			}
			return errSkim // a control character, or a bad escape
		}
		s.pos = i
		if i == len(buf) {
			if ok, err := s.fill(); err != nil || !ok {
				return errors.Join(err, errSkim)
			}
			continue
		}
		s.pos++
		switch buf[i] {
		case '"':
			return nil
		case '\\':
			if err := s.escape(); err != nil {
				return err
			}
		default:
			if plain[buf[i]] {
				continue
			}
			return errSkim // a control character
		}
	}
}

// hex4 reports whether b is four hexadecimal digits.
func hex4(b []byte) bool {
	for _, h := range b {
		if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
			return false
		}
	}
	return true
}

// plain8 reports whether none of the eight bytes of w is a quote, a
// backslash or a control character (the bit tricks of "Bit Twiddling
// Hacks": a byte of zero, a byte less than n).
func plain8(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	return zero(w^(ones*'"'))|zero(w^(ones*'\\'))|((w-ones*0x20) & ^w & highs) == 0
}

// escaped marks the characters a backslash may escape (but u).
var escaped = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// escape checks what follows a backslash in a string.
func (s *skimmer) escape() error {
	c, err := s.next()
	if err != nil {
		return err
	}
	if escaped[c] {
		return nil
	}
	if c != 'u' {
		return errSkim
	}
	var h [4]byte
	for k := range h {
		c, err := s.next()
		if err != nil {
			return err
		}
		h[k] = c
	}
	if !hex4(h[:]) {
		return errSkim
	}
	return nil
}

func (s *skimmer) enter() error {
	s.depth++
	if s.depth > maxSkimDepth {
		return errSkim
	}
	return nil
}

func (s *skimmer) array() error {
	s.pos++ // [
	if err := s.enter(); err != nil {
		return err
	}
	defer func() { s.depth-- }()
	for first := true; ; first = false {
		end, err := s.more(first, ']')
		if err != nil || end {
			return err
		}
		if err := s.value(); err != nil {
			return err
		}
	}
}

// more reads what comes before the next member of an array or object (a
// comma, unless it is the first) and reports whether the container ends
// instead, at close (a trailing comma before it is allowed).
func (s *skimmer) more(first bool, close byte) (end bool, err error) {
	if err := s.space(); err != nil {
		return false, err
	}
	c, ok, err := s.peek()
	if err != nil || !ok {
		return false, errors.Join(err, errSkim)
	}
	if c == close {
		s.pos++
		return true, nil
	}
	if first {
		return false, nil
	}
	if c != ',' {
		return false, errSkim
	}
	s.pos++
	if err := s.space(); err != nil {
		return false, err
	}
	c, ok, err = s.peek()
	if err != nil || !ok {
		return false, errors.Join(err, errSkim)
	}
	if c == close { // a trailing comma
		s.pos++
		return true, nil
	}
	return false, nil
}

// object checks an object and skips it, or, when k is not nil, writes the
// members k keeps to the reduced document.
func (s *skimmer) object(k *keep) error {
	s.pos++ // {
	if err := s.enter(); err != nil {
		return err
	}
	defer func() { s.depth-- }()
	if k != nil {
		s.out = append(s.out, '{')
	}
	kept := 0
	var key []byte
	for first := true; ; first = false {
		end, err := s.more(first, '}')
		if err != nil {
			return err
		}
		if end {
			break
		}
		if c, ok, err := s.peek(); err != nil || !ok || c != '"' {
			return errors.Join(err, errSkim)
		}
		if k == nil {
			if err := s.str(); err != nil {
				return err
			}
		} else {
			key = key[:0]
			s.startCapture(&key)
			err := s.str()
			s.stopCapture()
			if err != nil {
				return err
			}
		}
		if err := s.space(); err != nil {
			return err
		}
		if c, err := s.next(); err != nil || c != ':' {
			return errors.Join(err, errSkim)
		}
		if err := s.space(); err != nil {
			return err
		}
		if k == nil {
			if err := s.value(); err != nil {
				return err
			}
			continue
		}
		name, err := keyName(key)
		if err != nil {
			return err
		}
		raw, sub := k.match(name)
		if !raw && sub == nil {
			if err := s.value(); err != nil {
				return err
			}
			continue
		}
		if kept > 0 {
			s.out = append(s.out, ',')
		}
		kept++
		s.out = append(append(s.out, key...), ':')
		if raw {
			s.startCapture(&s.out)
			err := s.value()
			s.stopCapture()
			if err != nil {
				return err
			}
			continue
		}
		if c, ok, err := s.peek(); err != nil || !ok || c != '{' {
			return errors.Join(err, errSkim) // not an object: the whole reader says so
		}
		if err := s.object(sub); err != nil {
			return err
		}
	}
	if k != nil {
		s.out = append(s.out, '}')
	}
	return nil
}

// keyName is the text of a quoted key.
func keyName(quoted []byte) (string, error) {
	if len(quoted) > skimKeyMax {
		return "", errSkim
	}
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1]), nil
	}
	var name string
	if json.Unmarshal(quoted, &name) != nil {
		return "", errSkim
	}
	return name, nil
}

// errTooLarge: the file is larger than its host's bound.
var errTooLarge = errors.New("too large")

// skimKeep is what a JSON dialect's reader looks at (nil: not a JSON
// dialect): parseJSONHost and parseClaudeCode read nothing else.
func skimKeep(dialect string) *keep {
	k := dialectKeep(dialect)
	if k != nil {
		k.name = dialect
		if dialect == "claude-code-local" {
			k.name = "claude-code" // the same document
		}
	}
	return k
}

func dialectKeep(dialect string) *keep {
	raw := func(keys ...string) *keep {
		k := &keep{raw: map[string]bool{}}
		for _, key := range keys {
			k.raw[key] = true
		}
		return k
	}
	switch dialect {
	case "codex", "goose":
		return nil
	case "claude-code", "claude-code-local":
		// decoded into claudeDoc: keys match by case folding
		k, proj := raw("mcpServers"), raw("mcpServers")
		proj.fold = true
		k.fold, k.sub = true, map[string]*keep{"projects": {fold: true, sub: map[string]*keep{"*": proj}}}
		return k
	case "vscode":
		return raw("servers")
	case "vscode-settings", "opencode":
		return raw("mcp")
	case "zed":
		return raw("context_servers")
	case "gemini":
		return raw("mcpServers", "mcp")
	}
	return raw("mcpServers")
}

// hostMemo keeps what one Load read of a file that several sources share
// (~/.claude.json is Claude Code's user and local scopes).
type hostMemo struct {
	skims  map[string]skimmed
	claude map[string]*claudeDoc
}

type skimmed struct {
	reduced []byte
	err     error
}

func newHostMemo() *hostMemo {
	return &hostMemo{skims: map[string]skimmed{}, claude: map[string]*claudeDoc{}}
}

// skim reduces the host file f, open as fh (fi: its Stat), to what k
// keeps, once per path. The file is read up to its host's bound. A large
// file's reduced document is remembered in the state directory for the
// version of the file it was read from.
func (m *hostMemo) skim(f hostFile, fh io.Reader, fi os.FileInfo, k *keep, state hostState) ([]byte, error) {
	if m != nil {
		if s, ok := m.skims[f.Path]; ok {
			return s.reduced, s.err
		}
	}
	kind, id := "skim-"+k.name, ""
	if fi.Size() >= cacheMin {
		id = version(fi)
		if reduced, ok := state.read(f.Path, kind, id); ok {
			m.set(f.Path, skimmed{reduced: reduced})
			return reduced, nil
		}
	}
	lr := &io.LimitedReader{R: fh, N: f.Max + 1}
	reduced, err := skim(lr, k)
	if lr.N == 0 {
		reduced, err = nil, errTooLarge
	}
	if err == nil && int64(len(reduced)) <= fi.Size()/2 {
		// (a file that is mostly servers costs its servers either way)
		state.write(f.Path, kind, id, reduced)
	}
	m.set(f.Path, skimmed{reduced, err})
	return reduced, err
}

func (m *hostMemo) set(path string, s skimmed) {
	if m != nil {
		m.skims[path] = s
	}
}

func (m *hostMemo) claudeDoc(path string) (*claudeDoc, bool) {
	if m == nil {
		return nil, false
	}
	d, ok := m.claude[path]
	return d, ok
}

func (m *hostMemo) setClaudeDoc(path string, d *claudeDoc) {
	if m != nil {
		m.claude[path] = d
	}
}
