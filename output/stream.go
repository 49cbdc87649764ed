package output

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mattn/go-runewidth"
)

// ErrStalled is a write to stdout that was still blocked when the
// deadline passed (a reader that stopped reading): it is abandoned, and
// whatever was written before it stays written. The error wraps the
// context's too.
var ErrStalled = errors.New("writing to stdout")

func stalled(err error) error { return fmt.Errorf("%w: %w", ErrStalled, err) }

// ctxWriter returns from a write still blocked when ctx ends, with a
// ErrStalled. The write itself goes on in the background (nothing can
// interrupt it); the buffer under it is not written to again, since a
// bufio.Writer keeps its first error.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (cw *ctxWriter) Write(p []byte) (int, error) {
	if err := cw.ctx.Err(); err != nil {
		return 0, stalled(err)
	}
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := cw.w.Write(p)
		done <- result{n, err}
	}()
	select {
	case r := <-done:
		return r.n, r.err
	case <-cw.ctx.Done():
		return 0, stalled(cw.ctx.Err())
	}
}

// stream is stdout for a result printed piece by piece as it is rendered,
// so that no whole document is held in memory: a buffer whose writes give
// up when ctx ends (ErrStalled; a write is checked only when the
// buffer is flushed, 64 KiB at a time). A result cut short that way leaves
// a partial document on stdout, as any interrupted producer does; the exit
// status says so.
type stream struct {
	s *Streams
	w *bufio.Writer
}

// Stream returns stdout as a stream bounded by ctx.
func (s *Streams) Stream(ctx context.Context) *stream {
	var w io.Writer = s.out
	if ctx.Done() != nil {
		w = &ctxWriter{ctx: ctx, w: w}
	}
	return &stream{s: s, w: bufio.NewWriterSize(w, 64<<10)}
}

// Flush writes what is buffered.
func (st *stream) Flush() error { return st.w.Flush() }

// cell is a table cell as a terminal shows it: one line, secrets masked,
// controls escaped.
func (s *Streams) cell(c string) string {
	return sanitize(s.secrets.Mask(cleanField(c)))
}

// CellWidth is the number of terminal columns a table cell takes on stdout
// (see table): a caller measures its columns with it in a pass of its own.
func (s *Streams) CellWidth(c string) int {
	if !s.OutTTY {
		return 0
	}
	return runewidth.StringWidth(s.cell(c))
}

// table writes rows one at a time. On a terminal they are aligned under a
// header: each column but the last as wide as the widest of its cells
// (widths, measured by the caller with CellWidth) or its header, two
// spaces apart, and the last column is cut (with "…") to what is left of
// the terminal's width. In a pipe they are tab-separated, with no header,
// never cut. Tab, CR and LF inside a cell become a space; secrets are
// masked; a terminal gets controls escaped. The set of lines is the same in
// both; only the decoration differs.
type table struct {
	st      *stream
	header  []string
	widths  []int
	started bool
	line    strings.Builder
}

// Table starts a table on the stream.
func (st *stream) Table(header []string, widths []int) *table {
	t := &table{st: st, header: header, widths: make([]int, len(header))}
	for i, h := range header {
		t.widths[i] = runewidth.StringWidth(h)
		if i < len(widths) {
			t.widths[i] = max(t.widths[i], widths[i])
		}
	}
	return t
}

// Row writes one row (the header first, on a terminal).
func (t *table) Row(cells []string) error {
	s := t.st.s
	if !s.OutTTY {
		t.line.Reset()
		for i, c := range cells {
			if i > 0 {
				t.line.WriteByte('\t')
			}
			t.line.WriteString(cleanField(c))
		}
		t.line.WriteByte('\n')
		_, err := t.st.w.WriteString(s.secrets.Mask(t.line.String()))
		return err
	}
	if !t.started {
		t.started = true
		if err := t.write(t.header); err != nil {
			return err
		}
	}
	safe := make([]string, len(cells))
	for i, c := range cells {
		safe[i] = s.cell(c)
	}
	return t.write(safe)
}

// write writes a row of cells already made safe, aligned.
func (t *table) write(cells []string) error {
	t.line.Reset()
	used := 0
	for i, c := range cells {
		last := i == len(cells)-1
		if last {
			if w := t.st.s.OutWidth; w > 0 {
				c = cut(c, w-used)
			}
			t.line.WriteString(c)
			break
		}
		t.line.WriteString(c)
		if rest := cells[i+1:]; allEmpty(rest) {
			break // no trailing blanks
		}
		pad := t.widths[i] + 2 - runewidth.StringWidth(c)
		t.line.WriteString(strings.Repeat(" ", max(pad, 2)))
		used += t.widths[i] + 2
	}
	t.line.WriteByte('\n')
	_, err := t.st.w.WriteString(t.line.String())
	return err
}

// cut shortens s to at most room columns, marking the cut with "…".
func cut(s string, room int) string {
	if runewidth.StringWidth(s) <= room {
		return s
	}
	if room <= 0 {
		return ""
	}
	return runewidth.Truncate(s, room, "…")
}

func allEmpty(cells []string) bool {
	for _, c := range cells {
		if c != "" {
			return false
		}
	}
	return true
}

// Member is a member of a JSON object, for jsonList.Close.
type Member struct {
	Key   string
	Value any
}

// jsonList writes the JSON document {"KEY": [ELEMENT...], MEMBER...} an
// element at a time, as the elements are rendered: compact in a pipe,
// indented on a terminal (as WriteJSON prints a document), each element
// masked on its own (MaskJSON). With a --select path the document is built
// in memory instead, since a gjson path needs all of it, and the selection
// is printed by Close.
type jsonList struct {
	st         *stream
	w          io.Writer // the stream, escaped as JSON on a terminal
	selectPath string
	doc        bytes.Buffer // with --select: the document so far
	enc        *json.Encoder
	buf        bytes.Buffer // the element being encoded
	pretty     bytes.Buffer
	n          int
}

// JSONList starts a document whose first member is the array key.
func (st *stream) JSONList(key, selectPath string) *jsonList {
	l := &jsonList{st: st, w: st.w, selectPath: selectPath}
	if st.s.OutTTY {
		l.w = &safeWriter{w: st.w, json: true}
	}
	l.enc = json.NewEncoder(&l.buf)
	l.enc.SetEscapeHTML(false)
	k, _ := Marshal(key)
	if l.indented() {
		_ = l.write([]byte("{\n  " + string(k) + ": ["))
	} else {
		_ = l.write([]byte("{" + string(k) + ":["))
	}
	return l
}

func (l *jsonList) indented() bool { return l.selectPath == "" && l.st.s.OutTTY }

func (l *jsonList) write(b []byte) error {
	if l.selectPath != "" {
		l.doc.Write(b)
		return nil
	}
	_, err := l.w.Write(b)
	return err
}

// encode encodes v, masked, into l.buf (without its newline) and returns it.
func (l *jsonList) encode(v any) ([]byte, error) {
	l.buf.Reset()
	if err := l.enc.Encode(v); err != nil {
		return nil, err
	}
	b := l.st.s.secrets.MaskJSON(bytes.TrimSuffix(l.buf.Bytes(), []byte("\n")))
	return b, nil
}

// indent is b indented as the member values of an indented document at
// depth levels are.
func (l *jsonList) indent(b []byte, depth int) []byte {
	l.pretty.Reset()
	if json.Indent(&l.pretty, b, strings.Repeat("  ", depth), "  ") != nil {
		return b
	}
	return l.pretty.Bytes()
}

// Add writes one element of the array.
func (l *jsonList) Add(v any) error {
	b, err := l.encode(v)
	if err != nil {
		return err
	}
	sep := ","
	if l.n == 0 {
		sep = ""
	}
	l.n++
	if l.indented() {
		if err := l.write([]byte(sep + "\n    ")); err != nil {
			return err
		}
		return l.write(l.indent(b, 2))
	}
	if err := l.write([]byte(sep)); err != nil {
		return err
	}
	return l.write(b)
}

// Close ends the array, writes the other members and ends the document,
// or, with --select, prints the selection of the document (a
// a no_match *fail.Error when it matches nothing). It flushes the stream.
func (l *jsonList) Close(members ...Member) error {
	var tail bytes.Buffer
	if l.indented() && l.n > 0 {
		tail.WriteString("\n  ")
	}
	tail.WriteString("]")
	for _, m := range members {
		k, err := Marshal(m.Key)
		if err != nil {
			return err
		}
		v, err := l.encode(m.Value)
		if err != nil {
			return err
		}
		if l.indented() {
			tail.WriteString(",\n  " + string(k) + ": ")
			tail.Write(l.indent(v, 1))
		} else {
			tail.WriteString("," + string(k) + ":")
			tail.Write(v)
		}
	}
	if l.indented() {
		tail.WriteString("\n")
	}
	tail.WriteString("}")
	if l.selectPath == "" {
		tail.WriteString("\n")
	}
	if err := l.write(tail.Bytes()); err != nil {
		return err
	}
	if l.selectPath != "" {
		if err := writeSelection(l.w, l.doc.Bytes(), l.selectPath); err != nil {
			return err
		}
	}
	return l.st.Flush()
}
