package output

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/mattn/go-runewidth"

	"github.com/mcpx-cli/mcpx/internal/text"
)

// Log is mcpx's one voice on stderr. In text mode every line starts with
// "mcpx: " (errors carry no further prefix; notes, warnings and hints say
// what they are). With --json every line is one JSON object and an error, if
// any, is the last line. Server-originated text passes through Streams.Err,
// so it is masked and, on a terminal, escaped. A message is one line: a
// line break in it, which can only come from a server's string that its
// caller did not escape, is shown escaped (text.Escape), so that no
// server starts a line of mcpx's.
type Log struct {
	s       *Streams
	JSON    bool
	Verbose bool
	mu      sync.Mutex

	progress string // the progress line on the terminal, "" when none
}

// NewLog returns the stderr voice for s.
func NewLog(s *Streams, asJSON, verbose bool) *Log {
	return &Log{s: s, JSON: asJSON, Verbose: verbose}
}

// Warning is one degraded result: a kind whose listing failed, an item that
// could not be parsed, a server that failed under --all.
type Warning struct {
	Server  string  `json:"server"`
	Kind    *string `json:"kind"`
	Item    *string `json:"item"`
	Code    string  `json:"code"`
	Message string  `json:"message"`
}

// ErrorReport is the final error of an invocation.
type ErrorReport struct {
	Code     string         // error.code (see EXIT STATUS in mcpx(1))
	Message  string         // one line, lowercase, no trailing period
	ExitCode int            // the process exit code
	Hints    []string       // extra lines: "mcpx: hint: ..."
	Lines    []string       // quoted lines (a server's stderr tail)
	Details  map[string]any // extra error fields under --json
}

func (l *Log) writeJSON(v any) {
	b, err := Marshal(v)
	if err != nil {
		return
	}
	// Go's encoder escapes U+2028 and U+2029 but leaves NEL (U+0085) raw,
	// which some line readers take for a line break: one object, one line.
	b = bytes.ReplaceAll(l.s.secrets.MaskJSON(b), []byte("\u0085"), []byte(`\u0085`))
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.s.errJSON.Write(b)
}

func (l *Log) writeLine(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.progress != "" { // the line goes above the progress line
		_, _ = io.WriteString(l.s.errRaw, "\r\x1b[K")
	}
	_, _ = fmt.Fprintln(l.s.Err, line)
	if l.progress != "" {
		_, _ = io.WriteString(l.s.errRaw, l.progress)
	}
}

// Ask writes text as it is (a question and its answers' echoes on the
// terminal), under the lock every other stderr line takes.
func (l *Log) Ask(text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = io.WriteString(l.s.Err, text)
}

// Askf is Ask with a format.
func (l *Log) Askf(format string, args ...any) { l.Ask(fmt.Sprintf(format, args...)) }

// progressWidth bounds the progress line, so that it never wraps on an
// 80-column terminal (a wrapped line cannot be redrawn in place).
const progressWidth = 79

// Progress draws line as the progress line on stderr, replacing the one
// before; "" clears it. It draws only on a terminal and never under --json
// (nothing in a pipe: see REQUESTS FROM SERVERS in mcpx(1)). line is masked,
// escaped and cut to one line of progressWidth characters.
func (l *Log) Progress(line string) {
	if !l.s.ErrTTY || l.JSON {
		return
	}
	if line != "" {
		line = sanitize(l.s.secrets.Mask(text.Squash(line)))
		// Columns, not characters: a wide character takes two.
		line = runewidth.Truncate(line, progressWidth, "…")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if line == l.progress {
		return
	}
	if l.progress != "" {
		_, _ = io.WriteString(l.s.errRaw, "\r\x1b[K")
	}
	_, _ = io.WriteString(l.s.errRaw, line)
	l.progress = line
}

// Note tells the user something useful that is not a problem.
func (l *Log) Note(format string, args ...any) {
	msg := text.Escape(fmt.Sprintf(format, args...))
	if l.JSON {
		l.writeJSON(map[string]any{"note": msg})
		return
	}
	l.writeLine("mcpx: note: " + msg)
}

// URL asks the user to open a URL: "mcpx: MSG:" and the URL alone on the
// next line, where a terminal lets it be clicked or copied whole (under
// --json: {"note": MSG, "url": URL}).
func (l *Log) URL(msg, url string) {
	msg, url = text.Escape(msg), text.Escape(url)
	if l.JSON {
		l.writeJSON(map[string]any{"note": msg, "url": url})
		return
	}
	l.writeLine("mcpx: " + msg + ":\n" + url)
}

// Debug is a note shown only with -v.
func (l *Log) Debug(format string, args ...any) {
	if !l.Verbose {
		return
	}
	l.Note(format, args...)
}

// Warn reports a degraded result.
func (l *Log) Warn(w Warning) {
	w.Message = text.Escape(w.Message)
	if l.JSON {
		var server any // null when the warning belongs to no server
		if w.Server != "" {
			server = w.Server
		}
		l.writeJSON(map[string]any{"warning": w.Message, "server": server, "kind": w.Kind, "item": w.Item, "code": w.Code})
		return
	}
	l.writeLine("mcpx: warning: " + w.Message)
}

// Warnf reports a warning that belongs to no catalog item.
func (l *Log) Warnf(format string, args ...any) {
	l.Warn(Warning{Code: "warning", Message: fmt.Sprintf(format, args...)})
}

// ServerStderr shows one line a server wrote on its stderr (with -v).
func (l *Log) ServerStderr(server, line string) {
	if l.JSON {
		l.writeJSON(map[string]any{"server_stderr": line, "server": server})
		return
	}
	l.writeLine("[" + text.Escape(server) + "] " + text.Escape(line))
}

// Error reports the final error.
func (l *Log) Error(e ErrorReport) {
	e.Message, e.Hints = text.Escape(e.Message), nonEmpty(e.Hints)
	for i, h := range e.Hints {
		e.Hints[i] = text.Escape(h)
	}
	if l.JSON {
		obj := map[string]any{}
		for k, v := range e.Details {
			obj[k] = v
		}
		obj["code"] = e.Code
		obj["message"] = e.Message
		obj["exit_code"] = e.ExitCode
		if len(e.Hints) > 0 {
			obj["hints"] = e.Hints
		}
		if len(e.Lines) > 0 {
			obj["server_stderr"] = e.Lines
		}
		l.writeJSON(map[string]any{"error": obj})
		return
	}
	l.writeLine("mcpx: " + e.Message)
	if len(e.Lines) > 0 {
		l.writeLine("mcpx: the server's stderr ends with:")
	}
	for _, line := range e.Lines {
		l.writeLine("mcpx:   | " + text.Escape(line))
	}
	for _, h := range e.Hints {
		l.writeLine("mcpx: hint: " + h)
	}
}

// nonEmpty drops the blank strings of list: a hint with nothing to say is
// never printed (an empty "mcpx: hint:" line, or "hints":[""]).
func nonEmpty(list []string) []string {
	var out []string
	for _, v := range list {
		if strings.TrimSpace(v) != "" {
			out = append(out, v)
		}
	}
	return out
}
