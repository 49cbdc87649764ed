package output

import (
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
		if b, err := json.Marshal(v); err == nil {
			if esc := string(b[1 : len(b)-1]); esc != v {
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
