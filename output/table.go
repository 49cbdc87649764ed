package output

import (
	"bufio"
	"io"
	"strings"
	"text/tabwriter"
)

// cleanField makes a value fit in one table cell: tab, CR and LF become a space.
func cleanField(s string) string {
	if !strings.ContainsAny(s, "\t\r\n") {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '\t', '\r', '\n':
			return ' '
		}
		return r
	}, s)
}

// WriteTable prints rows on stdout: aligned columns under a header on a
// terminal, tab-separated with no header in a pipe. The set of lines is the
// same in both; only the decoration differs.
func (s *Streams) WriteTable(header []string, rows [][]string) error {
	w := bufio.NewWriter(s.Out)
	if s.OutTTY {
		// Escape before aligning, so escaped cells are measured as shown.
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		if len(rows) > 0 {
			writeRow(tw, header)
		}
		for _, r := range rows {
			safe := make([]string, len(r))
			for i, c := range r {
				safe[i] = sanitize(cleanField(c))
			}
			writeRow(tw, safe)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	} else {
		for _, r := range rows {
			writeRow(w, r)
		}
	}
	return w.Flush()
}

func writeRow(w io.Writer, cells []string) {
	for i, c := range cells {
		if i > 0 {
			_, _ = io.WriteString(w, "\t")
		}
		_, _ = io.WriteString(w, cleanField(c))
	}
	_, _ = io.WriteString(w, "\n")
}
