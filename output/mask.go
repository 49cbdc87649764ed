package output

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"
	"strings"
	"sync"
)

// Masked is what a secret looks like in anything mcpx prints.
const Masked = "***"

// MinSecretLen is the shortest value that is masked: shorter values (a "1"
// in an env entry) cannot hide anything, and masking them would garble
// everything mcpx prints.
const MinSecretLen = 4

// Masker replaces secrets with ***. Secrets are added as servers are resolved,
// possibly from several goroutines (--all, --probe).
type Masker struct {
	mu       sync.RWMutex
	secrets  map[string]bool
	replacer *strings.Replacer
	list     []string // the secrets, longest first
}

// Add registers secret values. Empty values are ignored. The JSON-escaped form
// of each value is registered too, so a secret cannot leak through --json.
func (m *Masker) Add(values ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.secrets == nil {
		m.secrets = map[string]bool{}
	}
	changed := false
	for _, v := range values {
		if len(v) < MinSecretLen || m.secrets[v] {
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
			if esc := string(b[1 : len(b)-1]); esc != v && len(esc) >= MinSecretLen {
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
	pairs := make([]string, 0, 2*len(all))
	for _, v := range all {
		pairs = append(pairs, v, Masked)
	}
	m.replacer = strings.NewReplacer(pairs...)
	m.list = all
}

// Mask returns s with every registered secret replaced by ***.
func (m *Masker) Mask(s string) string {
	m.mu.RLock()
	r := m.replacer
	m.mu.RUnlock()
	if r == nil {
		return s
	}
	return r.Replace(s)
}

// Longest is the length in bytes of the longest secret (0: none): how much
// of the text around a piece MaskIn looks at.
func (m *Masker) Longest() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if len(m.list) == 0 {
		return 0
	}
	return len(m.list[0])
}

// MaskIn returns text with every secret replaced by ***, including the part
// of a secret that begins in before or ends in after — the text on either
// side of text in the whole it was cut from (a page of a resource, one of
// several content items). A page that starts or ends inside a secret thus
// shows *** for the part it holds, never half of it in clear.
func (m *Masker) MaskIn(before, text, after string) string {
	m.mu.RLock()
	r, list := m.replacer, m.list
	m.mu.RUnlock()
	if r == nil || text == "" {
		return text
	}
	ctx := len(list[0]) - 1
	b := before[max(0, len(before)-ctx):]
	a := after[:min(len(after), ctx)]
	lo, hi := 0, len(text)
	if b != "" {
		// occurrences that start in b and end past it
		w := b + text[:min(len(text), ctx)]
		if len(text) <= ctx {
			w += a
		}
		for _, sec := range list {
			for i := max(0, len(b)-len(sec)+1); i < len(b); i++ {
				if i+len(sec) <= len(w) && w[i:i+len(sec)] == sec {
					lo = max(lo, i+len(sec)-len(b))
				}
			}
		}
	}
	if a != "" {
		// occurrences that end in a and start before it
		from := max(0, len(text)-ctx)
		w, off := text[from:]+a, from // off: where w starts, relative to text
		if from == 0 {
			w, off = b+w, -len(b)
		}
		cut := len(text) - off // where a starts in w
		for _, sec := range list {
			for i := max(0, cut-len(sec)+1); i < cut; i++ {
				if i+len(sec) <= len(w) && w[i:i+len(sec)] == sec {
					hi = min(hi, off+i)
				}
			}
		}
	}
	if lo >= hi {
		return Masked // text lies inside secrets
	}
	var out strings.Builder
	if lo > 0 {
		out.WriteString(Masked)
	}
	out.WriteString(r.Replace(text[lo:hi]))
	if hi < len(text) {
		out.WriteString(Masked)
	}
	return out.String()
}

func (m *Masker) active() bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.replacer != nil
}

// MaskJSON masks secrets inside the string values of a JSON document,
// leaving everything else — keys, numbers, literals, structure — as it is,
// so the result is still valid JSON and reads the same to a program.
func (m *Masker) MaskJSON(doc []byte) []byte {
	if !m.active() {
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

// maskWriter masks secrets in each Write. Callers write whole documents or
// whole lines, so a secret is never split across two writes.
type maskWriter struct {
	m *Masker
	w io.Writer
}

func (mw *maskWriter) Write(p []byte) (int, error) {
	if !mw.m.active() {
		return mw.w.Write(p)
	}
	if _, err := io.WriteString(mw.w, mw.m.Mask(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
