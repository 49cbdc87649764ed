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
