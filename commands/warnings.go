package commands

import (
	"github.com/mcpx-cli/mcpx/output"
	"github.com/mcpx-cli/mcpx/render"
)

// warner reports warnings on stderr, and keeps those it reports for a
// JSON document when keep is set.
type warner struct {
	a     *app
	keep  bool
	total int              // every warning (--strict)
	shown []render.Warning // with keep: those reported
}

func (w *warner) warn(rw render.Warning) {
	w.total++
	w.report(rw)
}

// flush ends the warnings of server.
func (w *warner) flush(server string) {}

func (w *warner) report(rw render.Warning) {
	w.a.log.Warn(output.Warning(rw))
	if w.keep {
		w.shown = append(w.shown, rw)
	}
}
