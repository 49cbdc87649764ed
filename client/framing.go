package client

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// LimitError says a safety limit refused what a server sent (exit 8).
type LimitError struct {
	Limit string // the named limit, e.g. "message ceiling"
	Value int64  // its value in bytes
	Msg   string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: over the %s of %s", e.Msg, e.Limit, humanBytes(e.Value))
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB (%d bytes)", n>>20, n)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB (%d bytes)", n>>10, n)
	}
	return fmt.Sprintf("%d bytes", n)
}

// limitFlag records the first limit error of a connection, so that whatever
// error mcp-go reports afterwards can be classified as exit 8.
type limitFlag struct {
	mu  sync.Mutex
	err *LimitError
	bad string // a protocol framing violation (exit 3)
}

func (f *limitFlag) set(e *LimitError) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = e
	}
}

func (f *limitFlag) get() *LimitError {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *limitFlag) setViolation(msg string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.bad == "" {
		f.bad = msg
	}
}

func (f *limitFlag) violation() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bad
}

// ProtocolError is a server that broke the JSON-RPC framing: a line that
// looks like a message but does not parse, or a response to an id mcpx
// never sent.
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return e.Msg }

// inflight is the set of request ids awaiting a response (as JSON text).
type inflight struct {
	mu  sync.Mutex
	ids map[string]int
}

func (f *inflight) add(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ids == nil {
		f.ids = map[string]int{}
	}
	f.ids[id]++
}

func (f *inflight) done(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ids[id]--; f.ids[id] <= 0 {
		delete(f.ids, id)
	}
}

func (f *inflight) has(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ids[id] > 0
}

// lineReader frames a stdio server's stdout: it passes JSON lines through,
// skips other lines (reporting them to onSkip), and refuses a line longer
// than max bytes (mcp-go's own reader has no bound). A long JSON line is
// streamed through, not buffered here, so memory stays with mcp-go's reader.
type lineReader struct {
	r        *bufio.Reader
	max      int64
	onSkip   func(string)
	limit    *limitFlag
	inflight *inflight // when set, responses must answer an id in it
	mask     func(string) string

	pending []byte // bytes ready for the caller
	mode    int    // between lines, passing a long JSON line, or skipping a long line
	n       int64  // bytes of the current line so far
	long    []byte // a long line so far, kept for the envelope check while it is under checkMax
	err     error
}

// checkMax is the longest line whose envelope is checked; longer ones are
// passed on unchecked (mcp-go still parses them), to keep memory bounded.
const checkMax = 4 << 20

// clip masks secrets, then shortens s to n characters: masking first, so a
// secret is never cut into a printable prefix.
func (l *lineReader) clip(s string, n int) string {
	if l.mask != nil {
		s = l.mask(s)
	}
	return truncate(s, n)
}

// check runs the envelope check on a whole line; on a violation it stops
// the reader. It reports whether the line should be passed on.
func (l *lineReader) check(line []byte) bool {
	skip, msg := l.judge(line)
	if msg != "" {
		l.limit.setViolation(msg)
		l.err = &ProtocolError{Msg: msg}
		l.pending = nil
		return false
	}
	if skip && l.onSkip != nil {
		l.onSkip(l.clip(string(line), 200))
	}
	return !skip
}

// judge decides what one complete line is: a JSON-RPC message to pass on
// (skip and msg empty), a line that is not a JSON-RPC message (skip: a log
// line, even one in braces or in JSON), or a broken message (msg says how).
func (l *lineReader) judge(line []byte) (skip bool, msg string) {
	if line[0] == '[' {
		if json.Valid(line) {
			return false, "the server sent a JSON-RPC batch, which MCP does not allow since 2025-06-18: " + l.clip(string(line), 80)
		}
		return true, ""
	}
	var env struct {
		JSONRPC json.RawMessage `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &env); err != nil {
		if bytes.Contains(line, []byte(`"jsonrpc"`)) {
			return false, fmt.Sprintf("the server sent a line that is not valid JSON-RPC (%v): %s", err, l.clip(string(line), 80))
		}
		return true, "" // a log line that happens to start with a brace
	}
	if env.JSONRPC == nil && env.ID == nil && env.Method == nil && env.Result == nil && env.Error == nil {
		return true, "" // JSON, but not JSON-RPC (a structured log line)
	}
	if env.Method != nil || l.inflight == nil {
		return false, "" // a request or a notification
	}
	if len(env.ID) == 0 || string(env.ID) == "null" {
		if len(env.Error) > 0 {
			return false, "" // an error about a request it could not parse: mcp-go reports the timeout
		}
		return false, fmt.Sprintf("the server sent a message with neither method nor id: %s", l.clip(string(line), 80))
	}
	if !l.inflight.has(string(env.ID)) {
		return false, fmt.Sprintf("the server answered request id %s, which mcpx never sent (or which was already answered)", l.clip(string(env.ID), 40))
	}
	return false, ""
}

const (
	atLineStart = iota
	passing
	skipping
)

func newLineReader(r io.Reader, max int64, limit *limitFlag, onSkip func(string)) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max, limit: limit, onSkip: onSkip}
}

func (l *lineReader) Read(p []byte) (int, error) {
	for len(l.pending) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		l.next()
	}
	n := copy(p, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}

// next reads the next chunk (at most a buffer) and decides what to do with it.
func (l *lineReader) next() {
	chunk, err := l.r.ReadSlice('\n')
	full := errors.Is(err, bufio.ErrBufferFull)
	if err != nil && !full {
		l.err = err
	}
	l.n += int64(len(chunk))
	if l.n > l.max {
		e := &LimitError{Limit: "message ceiling", Value: l.max, Msg: "the server sent a JSON-RPC message too large to accept"}
		l.limit.set(e)
		l.err = e
		l.pending = nil
		return
	}
	ended := !full // the chunk ends the line (or the stream)
	switch l.mode {
	case atLineStart:
		chunk = bytes.TrimPrefix(chunk, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
		trimmed := bytes.TrimSpace(chunk)
		switch {
		case len(trimmed) == 0 && ended:
			// a blank line
		case ended && (trimmed[0] == '{' || trimmed[0] == '['):
			if l.check(trimmed) {
				l.pending = chunk
				if err != nil && chunk[len(chunk)-1] != '\n' {
					l.pending = append(chunk[:len(chunk):len(chunk)], '\n') // a last line without newline
				}
			}
		case len(trimmed) > 0 && trimmed[0] == '{':
			l.mode = passing // a long line: passed on as it comes
			l.long = append(l.long[:0], chunk...)
			l.pending = chunk
		default:
			if l.onSkip != nil && len(trimmed) > 0 {
				l.onSkip(l.clip(string(trimmed), 200))
			}
			if !ended {
				l.mode = skipping
			}
		}
	case passing:
		if l.long != nil {
			if l.n <= checkMax {
				l.long = append(l.long, chunk...)
			} else {
				l.long = nil
			}
		}
		if ended && l.long != nil {
			// Already partly passed on: only a broken message can be caught.
			_, msg := l.judge(bytes.TrimSpace(l.long))
			l.long = l.long[:0]
			if msg != "" {
				l.limit.setViolation(msg)
				l.err = &ProtocolError{Msg: msg}
				l.pending = nil
				return
			}
		}
		l.pending = chunk
		if ended && err != nil && (len(chunk) == 0 || chunk[len(chunk)-1] != '\n') {
			l.pending = append(chunk[:len(chunk):len(chunk)], '\n')
		}
	case skipping:
	}
	if ended {
		l.mode, l.n = atLineStart, 0
	}
}
