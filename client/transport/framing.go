package transport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/internal/secret"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// Limit records the first limit error of a connection, so that whatever
// error mcp-go reports afterwards can be classified as exit 8, and the
// first framing violation (exit 3).
type Limit struct {
	mu  sync.Mutex
	err *limits.Error
	bad string // a protocol framing violation (exit 3)
}

func (f *Limit) set(e *limits.Error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = e
	}
}

// Set records e as the connection's limit error, unless one is recorded
// (a warm connection: the daemon's framer met it).
func (f *Limit) Set(e *limits.Error) { f.set(e) }

// SetViolation records a framing violation, unless one is recorded (a warm
// connection: the daemon's framer met it).
func (f *Limit) SetViolation(msg string) { f.setViolation(msg) }

// Get is the first limit error, nil when none.
func (f *Limit) Get() *limits.Error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *Limit) setViolation(msg string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.bad == "" {
		f.bad = msg
	}
}

// Violation is the first framing violation, "" when none.
func (f *Limit) Violation() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bad
}

// inflight is the set of request ids awaiting a response (as JSON text).
// The framer takes an id out as it reads the response, before the response
// is handed on: a second answer to the same id, even one right behind the
// first, finds the id answered. An id whose call was abandoned (timeout,
// cancel) stays until it is answered: a late answer is legitimate.
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

func (f *inflight) has(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ids[id] > 0
}

// answer takes one request with id out of the set; false when none was in
// it (an id mcpx never sent, or one already answered).
func (f *inflight) answer(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ids[id] <= 0 {
		return false
	}
	if f.ids[id]--; f.ids[id] == 0 {
		delete(f.ids, id)
	}
	return true
}

// refusals are the ids (as JSON text) of the server's requests mcpx last
// answered with an error, at most refusalsKept of them. An mcp-go server
// takes an error answer to a request it no longer waits for (one it made
// for a call that was cancelled meanwhile) for a request of mcpx's, and
// answers it: an error response with that id, which mcpx never sent. Such
// an echo is dropped (see framer.judge), not taken for a broken framing,
// which would end the connection: a warm server would be lost to the
// next caller only because the last one left during a question.
type refusals struct {
	mu  sync.Mutex
	ids []string
}

const refusalsKept = 64

func (r *refusals) add(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.ids) == refusalsKept {
		r.ids = slices.Delete(r.ids, 0, 1)
	}
	r.ids = append(r.ids, id)
}

// take takes id out; false when it is not in.
func (r *refusals) take(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := slices.Index(r.ids, id)
	if i < 0 {
		return false
	}
	r.ids = slices.Delete(r.ids, i, i+1)
	return true
}

// framer splits a stdio server's stdout into JSON-RPC messages, one line
// each. A line that may be a message is read once into a fresh []byte of
// its own, never over the message ceiling; it is then judged, in the same
// pass that locates its members (see envelope). Lines that are not
// JSON-RPC messages are skipped and reported to onSkip; a line that breaks
// the framing ends the stream with an error that says the violation, and
// a line over the ceiling with a limits.Error (both also recorded in
// limit, for the connection to classify).
type framer struct {
	r        *bufio.Reader
	max      int64
	onSkip   func(string)
	limit    *Limit
	inflight *inflight       // when set, responses must answer an id in it
	refused  *refusals       // with inflight: the server's requests answered with an error
	secrets  *secret.Set     // masked in what a message quotes
	stop     <-chan struct{} // when closed, reading stops (the transport is closed)
	err      error           // sticky: what ended the stream
}

func newFramer(r io.Reader, max int64, limit *Limit, onSkip func(string)) *framer {
	return &framer{r: bufio.NewReaderSize(r, 64<<10), max: max, limit: limit, onSkip: onSkip}
}

// clip masks secrets, then shortens b to n characters: masking first, so a
// secret is never cut into a printable prefix. Its line breaks (a CR, a
// U+2028 in a line) are shown escaped: messages quote it as it is.
func (f *framer) clip(b []byte, n int) string {
	// (the window's string, and as much after it as a secret can span)
	s := string(b[:min(len(b), 2*text.ClipWindow)])
	return text.Escape(text.Truncate(f.secrets.Window(s, text.ClipWindow), n))
}

// envelope is where the top-level members of a message are in its line:
// each is the member's raw JSON value as a sub-slice of the line (capacity
// clipped, so an append never writes into the line), nil when the member is
// absent. As with encoding/json, names match case-insensitively and a
// repeated name counts with its last value.
type envelope struct {
	jsonrpc, id, method, result, rpcErr []byte
	echo                                bool // the server's answer to an answer of mcpx's, dropped (see refusals)
}

// hasMethod reports whether the message has a method (null is none).
func (e *envelope) hasMethod() bool { return len(e.method) > 0 && e.method[0] == '"' }

// locate finds the envelope of line, which must be a valid JSON object.
// gjson reads the line through a string view, without a copy: that is
// sound because the line is never modified afterwards (the framer hands it
// on whole and keeps no reference; mcp-go and the tap only read it). Every
// value gjson returns is a substring of that string, turned back into a
// sub-slice of the line by its offset, so nothing is copied either.
func locate(line []byte) envelope {
	var env envelope
	if len(line) == 0 {
		return env
	}
	gjson.Parse(text.StringView(line)).ForEach(func(key, value gjson.Result) bool {
		var dst *[]byte
		switch k := key.Str; {
		case strings.EqualFold(k, "jsonrpc"):
			dst = &env.jsonrpc
		case strings.EqualFold(k, "id"):
			dst = &env.id
		case strings.EqualFold(k, "method"):
			dst = &env.method
		case strings.EqualFold(k, "result"):
			dst = &env.result
		case strings.EqualFold(k, "error"):
			dst = &env.rpcErr
		default:
			return true
		}
		if value.Raw == "" {
			return true
		}
		*dst = text.SubSlice(line, value.Raw)
		return true
	})
	return env
}

// methodError decodes nothing but the method: the error json.Unmarshal gives
// for it is what judge quotes (a syntax error, or a method that is not a
// string), and it skips over everything else without keeping it.
func methodError(line []byte) error {
	var env struct {
		Method *string `json:"method"`
	}
	return json.Unmarshal(line, &env)
}

// judge decides what one complete, trimmed line starting with '{' or '['
// is: a JSON-RPC message to pass on (skip and msg empty, env locating its
// members), a line that is not a JSON-RPC message (skip: a log line, even
// one in braces or in JSON), or a broken message (msg says how).
func (f *framer) judge(line []byte) (env envelope, skip bool, msg string) {
	if line[0] == '[' {
		if json.Valid(line) {
			return env, false, "the server sent a JSON-RPC batch, which MCP does not allow since 2025-06-18: " + f.clip(line, 80)
		}
		return env, true, ""
	}
	broken := !json.Valid(line)
	if !broken {
		env = locate(line)
		// A method that is neither a string nor null does not decode.
		broken = env.method != nil && !env.hasMethod() && string(env.method) != "null"
	}
	if broken {
		if bytes.Contains(line, []byte(`"jsonrpc"`)) {
			return env, false, fmt.Sprintf("the server sent a line that is not valid JSON-RPC (%v): %s", methodError(line), f.clip(line, 80))
		}
		return env, true, "" // a log line that happens to start with a brace
	}
	if env.jsonrpc == nil && env.id == nil && !env.hasMethod() && env.result == nil && env.rpcErr == nil {
		return env, true, "" // JSON, but not JSON-RPC (a structured log line)
	}
	if env.hasMethod() || f.inflight == nil {
		return env, false, "" // a request or a notification
	}
	if len(env.id) == 0 || string(env.id) == "null" {
		if env.rpcErr != nil {
			return env, false, "" // an error about a request it could not parse: mcp-go reports the timeout
		}
		return env, false, fmt.Sprintf("the server sent a message with neither method nor id: %s", f.clip(line, 80))
	}
	if !f.inflight.answer(string(env.id)) {
		if env.rpcErr != nil && string(env.rpcErr) != "null" && f.refused != nil && f.refused.take(string(env.id)) {
			env.echo = true // of an error answer mcpx sent (see refusals)
			return env, true, ""
		}
		return env, false, fmt.Sprintf("the server answered request id %s, which mcpx never sent (or which was already answered)", f.clip(env.id, 40))
	}
	hasErr := env.rpcErr != nil && string(env.rpcErr) != "null"
	if hasErr && !validErrorObject(env.rpcErr) {
		return env, false, fmt.Sprintf("the server sent an error reply whose error is not an object with an integer code and a string message: %s", f.clip(line, 80))
	}
	if hasErr && env.result != nil && string(env.result) != "null" {
		return env, false, fmt.Sprintf("the server answered request id %s with both a result and an error: %s", f.clip(env.id, 40), f.clip(line, 80))
	}
	if !hasErr && env.result == nil {
		// Neither a result nor an error ("error": null is no error): mcp-go
		// would take it for an empty result.
		return env, false, fmt.Sprintf("the server answered request id %s with neither a result nor an error: %s", f.clip(env.id, 40), f.clip(line, 80))
	}
	return env, false, ""
}

// validErrorObject reports whether a JSON-RPC error is {"code": integer,
// "message": string, ...}; anything else would be dropped by the client,
// leaving the request to wait for its deadline.
func validErrorObject(raw []byte) bool {
	var e struct {
		Code    *int64  `json:"code"`
		Message *string `json:"message"`
	}
	return json.Unmarshal(raw, &e) == nil && e.Code != nil && e.Message != nil
}

// next returns the next JSON-RPC message: its line, trimmed, in a []byte
// of its own that the framer keeps no reference to, and its envelope.
// Anything else on stdout is skipped. An error ends the stream for good.
func (f *framer) next() ([]byte, envelope, error) {
	for {
		line, err := f.readLine()
		if err != nil {
			return nil, envelope{}, err
		}
		if line == nil {
			continue // a blank line, or one skipped already
		}
		env, skip, msg := f.judge(line)
		if msg == "" && !skip && f.answeredAgain(env) {
			msg = fmt.Sprintf("the server answered request id %s twice", f.clip(env.id, 40))
		}
		if msg != "" {
			// A server that broke the JSON-RPC framing (a line that looks
			// like a message but does not parse, a response to an id mcpx
			// never sent): the stream's error says the violation.
			f.limit.setViolation(msg)
			f.err = errors.New(msg)
			return nil, envelope{}, f.err
		}
		if skip {
			if f.onSkip != nil && !env.echo {
				f.onSkip(f.clip(line, 200))
			}
			continue
		}
		return line, env, nil
	}
}

// answeredAgain reports whether env, a response just judged, is followed
// right away by another answer to the same request, in a line already read
// whole into the buffer. That answer would be judged only after this one
// is handed on, and a one-shot mcpx may be done by then: so a server that
// answers twice back to back breaks the framing of the first answer (exit
// 3), rather than perhaps of nothing.
func (f *framer) answeredAgain(env envelope) bool {
	if f.inflight == nil || env.hasMethod() || len(env.id) == 0 || string(env.id) == "null" || f.inflight.has(string(env.id)) {
		return false
	}
	buf, _ := f.r.Peek(f.r.Buffered())
	i := bytes.IndexByte(buf, '\n')
	if i < 0 {
		return false
	}
	next := bytes.TrimSpace(buf[:i])
	if len(next) == 0 || next[0] != '{' || !json.Valid(next) {
		return false
	}
	again := locate(next)
	return !again.hasMethod() && bytes.Equal(bytes.TrimSpace(again.id), bytes.TrimSpace(env.id))
}

var byteOrderMark = []byte("\xef\xbb\xbf")

// collectAfter is the size from which a line's chunks, garbage once the
// line is joined, are collected at once (see readLine).
const collectAfter = 8 << 20

// readLine reads one line. A line that starts with '{' or '[' is returned
// trimmed, in a fresh slice of exactly its size; other lines are reported
// to onSkip (blank ones silently) and give nil, without being buffered. A
// line is counted against the message ceiling as it comes: past it,
// reading stops with a limits.Error, and the rest of the line is never read.
//
// A line longer than the reader's buffer is kept as copies of its chunks,
// joined into one slice at its end: twice the line at the join, and no
// more. Growing one slice instead (append) peaked higher and less
// predictably: for a 67 MiB line carrying a 50 MiB blob, which mcpx read
// then decodes, 190 to 260 MiB of peak RSS against 200 MiB. Once joined,
// the chunks of a big line are collected at once, so that what comes next
// (the decoded blob) reuses their memory instead of growing the heap: 150
// MiB. One collection per line of several MiB costs little: the line itself
// holds no pointers, so it is not scanned.
func (f *framer) readLine() ([]byte, error) {
	if f.err != nil {
		return nil, f.err
	}
	var (
		n      int64
		chunks [][]byte // copies of a long line's chunks so far
		first  = true
		keep   bool // the line may be a message
	)
	for {
		if f.stop != nil {
			select {
			case <-f.stop:
				f.err = errFramerStopped
				return nil, f.err
			default:
			}
		}
		chunk, err := f.r.ReadSlice('\n')
		full := errors.Is(err, bufio.ErrBufferFull)
		if err != nil && !full {
			f.err = err // EOF or a read error: this chunk ends the stream
		}
		n += int64(len(chunk))
		if n > f.max {
			e := &limits.Error{Limit: "message ceiling", Value: f.max, Msg: "the server sent a JSON-RPC message too large to accept"}
			f.limit.set(e)
			f.err = e
			return nil, e
		}
		ended := !full // the chunk ends the line (or the stream)
		if first {
			first = false
			chunk = bytes.TrimPrefix(chunk, byteOrderMark)
			trimmed := bytes.TrimSpace(chunk)
			switch {
			case len(trimmed) == 0 && ended:
				// a blank line
			case ended && (trimmed[0] == '{' || trimmed[0] == '['):
				return bytes.Clone(trimmed), nil // a short line: one copy
			case len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '['):
				keep = true // a long line: only its start is trimmed yet
				chunks = append(chunks, bytes.Clone(bytes.TrimLeftFunc(chunk, unicode.IsSpace)))
			default:
				if f.onSkip != nil && len(trimmed) > 0 {
					f.onSkip(f.clip(trimmed, 200))
				}
			}
		} else if keep {
			chunks = append(chunks, bytes.Clone(chunk))
		}
		if !ended {
			continue
		}
		if !keep {
			return nil, f.err // the line is skipped
		}
		size := 0
		for _, c := range chunks {
			size += len(c)
		}
		line := make([]byte, 0, size)
		for i, c := range chunks {
			line = append(line, c...)
			chunks[i] = nil
		}
		if size >= collectAfter {
			runtime.GC()
		}
		return bytes.TrimRightFunc(line, unicode.IsSpace), nil
	}
}

// errFramerStopped ends the stream of a closed transport.
var errFramerStopped = errors.New("the transport is closed")
