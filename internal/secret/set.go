package secret

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Masked is what a secret looks like in anything mcpx prints.
const Masked = "***"

// MinLen is the shortest value that is masked: shorter values (a "1"
// in an env entry) cannot hide anything, and masking them would garble
// everything mcpx prints.
const MinLen = 4

// Set is the secrets of one invocation; it replaces them with ***. Secrets
// are added as servers are resolved and tokens read, possibly from several
// goroutines (--all, --probe), and masked from any goroutine. Every byte
// that an occurrence of a secret covers is masked, so that secrets that
// overlap (the end of one the start of another) are masked whole: a run of
// overlapping occurrences shows as one ***. The zero Set is empty and
// ready to use; a nil *Set is an empty set that ignores Add.
type Set struct {
	mu      sync.RWMutex
	secrets map[string]bool
	list    []string // the secrets, longest first
}

// Add registers secret values. Empty values are ignored. The JSON-escaped form
// of each value is registered too, so a secret cannot leak through --json.
func (m *Set) Add(values ...string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.secrets == nil {
		m.secrets = map[string]bool{}
	}
	changed := false
	for _, v := range values {
		if len(v) < MinLen || m.secrets[v] {
			continue
		}
		m.secrets[v] = true
		changed = true
		// The JSON-escaped form too, for JSON a server embedded in its text.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(v) == nil {
			b := bytes.TrimSpace(buf.Bytes())
			if esc := string(b[1 : len(b)-1]); esc != v && len(esc) >= MinLen {
				m.secrets[esc] = true
			}
		}
	}
	if !changed {
		return
	}
	all := make([]string, 0, len(m.secrets))
	for v := range m.secrets {
		all = append(all, v)
	}
	// Longest first, so a secret that contains another is masked whole.
	sort.Slice(all, func(i, j int) bool {
		if len(all[i]) != len(all[j]) {
			return len(all[i]) > len(all[j])
		}
		return all[i] < all[j]
	})
	m.list = all
}

// secretList is the secrets, longest first (never modified: Add makes a
// new list).
func (m *Set) secretList() []string {
	if m == nil {
		return nil
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.list
}

// runs returns where the secrets of list occur in s: [start, end) byte
// ranges in order, occurrences that overlap merged into one range.
func runs(list []string, s string) [][2]int {
	var found [][2]int
	for _, sec := range list {
		for off := 0; off+len(sec) <= len(s); {
			i := strings.Index(s[off:], sec)
			if i < 0 {
				break
			}
			found = append(found, [2]int{off + i, off + i + len(sec)})
			off += i + 1
		}
	}
	if len(found) < 2 {
		return found
	}
	slices.SortFunc(found, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	merged := found[:1]
	for _, r := range found[1:] {
		if last := &merged[len(merged)-1]; r[0] < last[1] {
			last[1] = max(last[1], r[1])
		} else {
			merged = append(merged, r)
		}
	}
	return merged
}

// Mask returns s with every registered secret replaced by ***.
func (m *Set) Mask(s string) string {
	return maskRange(m.secretList(), s, 0, len(s))
}

// maskRange returns s[lo:hi] with every byte that an occurrence of a
// secret in s covers masked: *** for each run of them (cut to the range).
func maskRange(list []string, s string, lo, hi int) string {
	if len(list) == 0 || lo == hi {
		return s[lo:hi]
	}
	var out strings.Builder
	pos := lo
	for _, r := range runs(list, s) {
		if r[1] <= lo || r[0] >= hi {
			continue
		}
		if out.Len() == 0 {
			out.Grow(hi - lo)
		}
		out.WriteString(s[pos:max(pos, r[0])])
		out.WriteString(Masked)
		pos = min(r[1], hi)
	}
	if pos == lo && out.Len() == 0 {
		return s[lo:hi]
	}
	out.WriteString(s[pos:hi])
	return out.String()
}

// Longest is the length in bytes of the longest secret (0: none): how much
// of the text around a piece MaskIn looks at.
func (m *Set) Longest() int {
	list := m.secretList()
	if len(list) == 0 {
		return 0
	}
	return len(list[0])
}

// MaskIn returns text with every secret replaced by ***, including the part
// of a secret that begins in before or ends in after — the text on either
// side of text in the whole it was cut from (a page of a resource, one of
// several content items). A page that starts or ends inside a secret thus
// shows *** for the part it holds, never half of it in clear.
func (m *Set) MaskIn(before, text, after string) string {
	list := m.secretList()
	if len(list) == 0 || text == "" {
		return text
	}
	ctx := len(list[0]) - 1
	b := before[max(0, len(before)-ctx):]
	a := after[:min(len(after), ctx)]
	if b == "" && a == "" {
		return maskRange(list, text, 0, len(text))
	}
	return maskRange(list, b+text+a, len(b), len(b)+len(text))
}

// Active reports whether the set holds a secret: what has none to mask
// can pass as it is.
func (m *Set) Active() bool {
	return len(m.secretList()) > 0
}

// MaskJSON masks secrets inside the string values of a JSON document,
// leaving everything else — keys, numbers, literals, structure — as it is,
// so the result is still valid JSON and reads the same to a program.
func (m *Set) MaskJSON(doc []byte) []byte {
	if !m.Active() {
		return doc
	}
	var out []byte
	last := 0
	for i := 0; i < len(doc); i++ {
		if doc[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(doc) && doc[j] != '"' {
			if doc[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(doc) {
			break
		}
		lit := doc[i : j+1]
		k := j + 1
		for k < len(doc) && (doc[k] == ' ' || doc[k] == '\t' || doc[k] == '\n' || doc[k] == '\r') {
			k++
		}
		if k < len(doc) && doc[k] == ':' { // a key
			i = j
			continue
		}
		var str string
		if json.Unmarshal(lit, &str) == nil {
			if masked := m.Mask(str); masked != str {
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetEscapeHTML(false)
				if enc.Encode(masked) == nil {
					out = append(out, doc[last:i]...)
					out = append(out, bytes.TrimRight(buf.Bytes(), "\n")...)
					last = j + 1
				}
			}
		}
		i = j
	}
	if out == nil {
		return doc
	}
	return append(out, doc[last:]...)
}
