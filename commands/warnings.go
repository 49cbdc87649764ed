package commands

import (
	"fmt"

	"github.com/mcpx-cli/mcpx/internal/text"
	"github.com/mcpx-cli/mcpx/output"
	"github.com/mcpx-cli/mcpx/render"
)

// maxKindWarnings is how many warnings of one kind (code) a server gets in
// the output; the rest are counted in one more warning (see LIMITS in
// mcpx(1)), so that a listing of millions of bad or repeated items cannot
// flood stderr or the document.
const maxKindWarnings = 20

// warner reports warnings on stderr, maxKindWarnings of one code a server
// at most, and keeps those it reports for a JSON document when keep is set.
type warner struct {
	a     *app
	keep  bool
	total int              // every warning, those left out included (--strict)
	shown []render.Warning // with keep: those reported
	count map[warnKey]int
	codes map[string][]string // by server: its codes, in the order met
}

type warnKey struct{ server, code string }

func (w *warner) warn(rw render.Warning) {
	w.total++
	if w.count == nil {
		w.count, w.codes = map[warnKey]int{}, map[string][]string{}
	}
	k := warnKey{rw.Server, rw.Code}
	n := w.count[k] + 1
	w.count[k] = n
	if n == 1 {
		w.codes[rw.Server] = append(w.codes[rw.Server], rw.Code)
	}
	if n <= maxKindWarnings {
		w.report(rw)
	}
}

// flush reports, for each code of server's warnings, how many warn left out.
func (w *warner) flush(server string) {
	for _, code := range w.codes[server] {
		k := warnKey{server, code}
		if left := w.count[k] - maxKindWarnings; left > 0 {
			w.report(render.Warning{Server: server, Code: "omitted_warnings",
				Message: fmt.Sprintf("server %q: %d more %s %s not shown (at most %d of one kind a server)", server, left, code, text.Plural(left, "warning", "warnings"), maxKindWarnings)})
		}
		delete(w.count, k)
	}
	delete(w.codes, server)
}

func (w *warner) report(rw render.Warning) {
	w.a.log.Warn(output.Warning(rw))
	if w.keep {
		w.shown = append(w.shown, rw)
	}
}
