package output

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpx-cli/mcpx/internal/text"
)

// Phase is one phase of a connection and the time it took (--timings).
type Phase struct {
	Name string
	Time time.Duration
}

// Timings reports where one server's time went (see --timings in mcpx(1)):
// "mcpx: timings: server "NAME": connect N ms, initialize N ms, ...", or
// under --json one object {"timings": {"server": NAME, "connect_ms": N,
// ...}}. Milliseconds are whole, rounded down.
func (l *Log) Timings(server string, phases []Phase) {
	if l.JSON {
		m := map[string]any{"server": server}
		for _, p := range phases {
			m[p.Name+"_ms"] = p.Time.Milliseconds()
		}
		l.writeJSON(map[string]any{"timings": m})
		return
	}
	parts := make([]string, len(phases))
	for i, p := range phases {
		parts[i] = fmt.Sprintf("%s %d ms", p.Name, p.Time.Milliseconds())
	}
	l.writeLine(fmt.Sprintf("mcpx: timings: server %q: %s", text.Escape(server), strings.Join(parts, ", ")))
}
