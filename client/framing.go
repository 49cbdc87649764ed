package client

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
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

// lineReader frames a stdio server's stdout: it passes JSON lines through,
// skips other lines (reporting them to onSkip), and refuses a line longer
// than max bytes (mcp-go's own reader has no bound).
type lineReader struct {
	r       *bufio.Reader
	max     int64
	onSkip  func(string)
	limit   *limitFlag
	pending []byte
	line    []byte
	err     error
}

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

// next reads one line into pending, or sets err.
func (l *lineReader) next() {
	l.line = l.line[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		if int64(len(l.line)+len(chunk)) > l.max {
			e := &LimitError{Limit: "message ceiling", Value: l.max, Msg: "the server sent a JSON-RPC message too large to accept"}
			l.limit.set(e)
			l.err = e
			return
		}
		l.line = append(l.line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			l.err = err
			if len(bytes.TrimSpace(l.line)) == 0 {
				return
			}
			l.line = append(l.line, '\n') // a last line without newline
		}
		break
	}
	trimmed := bytes.TrimSpace(l.line)
	if len(trimmed) == 0 {
		return
	}
	if trimmed[0] != '{' {
		if l.onSkip != nil {
			s := string(trimmed)
			if len(s) > 200 {
				s = s[:200] + "..."
			}
			l.onSkip(s)
		}
		return
	}
	l.pending = l.line
}

// limitTransport bounds every HTTP response body: a JSON body by the message
// ceiling, an event stream by the size of each event.
type limitTransport struct {
	inner http.RoundTripper
	max   int64
	limit *limitFlag

	mu         sync.Mutex
	initStatus int // status of the first POST (initialize), for the SSE fallback
}

func (t *limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.inner.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if req.Method == http.MethodPost {
		t.mu.Lock()
		if t.initStatus == 0 {
			t.initStatus = resp.StatusCode
		}
		t.mu.Unlock()
	}
	events := strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/event-stream")
	resp.Body = &limitBody{rc: resp.Body, max: t.max, events: events, limit: t.limit}
	return resp, nil
}

func (t *limitTransport) firstPostStatus() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.initStatus
}

type limitBody struct {
	rc     io.ReadCloser
	max    int64
	events bool
	n      int64 // bytes of the current message (event stream: since the last blank line)
	last   byte
	limit  *limitFlag
}

func (b *limitBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	for _, c := range p[:n] {
		b.n++
		if b.events && c == '\n' && (b.last == '\n') {
			b.n = 0
		}
		if c != '\r' {
			b.last = c
		}
	}
	if b.n > b.max {
		e := &LimitError{Limit: "message ceiling", Value: b.max, Msg: "the server sent a JSON-RPC message too large to accept"}
		b.limit.set(e)
		return 0, e
	}
	return n, err
}

func (b *limitBody) Close() error { return b.rc.Close() }
