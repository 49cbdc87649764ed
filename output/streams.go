package output

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/mattn/go-isatty"

	"github.com/mcpx-cli/mcpx/internal/secret"
)

// Streams are the three standard streams plus the facts about them that are
// decided once, at start-up. Nothing below cmd/mcpx touches os.Stdout.
type Streams struct {
	In     io.Reader
	Out    io.Writer // masked, and escaped when OutTTY
	Err    io.Writer // masked, and escaped when ErrTTY
	RawOut io.Writer // masked only: for text that must pass unescaped (help, completion answers)
	// Data is stdout as it is, neither masked nor escaped: for --raw data
	// written to a pipe or a file, which is written byte for byte.
	Data io.Writer

	// outJSON and errJSON are escaped on a terminal but not masked: JSON
	// documents are masked value by value (MaskJSON), so that masking never
	// breaks the JSON.
	outJSON io.Writer
	errJSON io.Writer
	errRaw  io.Writer // stderr itself: the progress line's control sequences

	InTTY  bool
	OutTTY bool // chooses layout (aligned tables, indented JSON), never which data is printed
	ErrTTY bool
	// OutWidth is the width in columns of the terminal on stdout, 0 when
	// it is unknown or stdout is not a terminal.
	OutWidth int

	out     io.Writer // stdout itself (broken pipes marked): under stream's buffer
	secrets *secret.Set
}

// System returns the process's streams. MCPX_FORCE_TTY makes streams count as
// terminals (a testing aid): "1" or "stdout" for stdout, "stderr" for
// stderr, "all" for both.
func System() *Streams {
	isTTY := func(f *os.File) bool {
		return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
	}
	outTTY, errTTY := isTTY(os.Stdout), isTTY(os.Stderr)
	switch os.Getenv("MCPX_FORCE_TTY") {
	case "1", "stdout":
		outTTY = true
	case "stderr":
		errTTY = true
	case "all":
		outTTY, errTTY = true, true
	}
	s := New(os.Stdin, os.Stdout, os.Stderr, isTTY(os.Stdin), outTTY, errTTY)
	if outTTY {
		s.OutWidth = outWidth(os.Stdout, os.Getenv("COLUMNS"))
	}
	return s
}

// outWidth is the width of the terminal f, else $COLUMNS (a terminal
// whose size the system does not tell, or MCPX_FORCE_TTY), else 0.
func outWidth(f *os.File, columns string) int {
	if w := termWidth(f); w > 0 {
		return w
	}
	if n, err := strconv.Atoi(strings.TrimSpace(columns)); err == nil && n > 0 {
		return n
	}
	return 0
}

// New wraps the given writers: secrets are masked on both, and a stream that is
// a terminal escapes control characters (see sanitize).
func New(in io.Reader, out, errw io.Writer, inTTY, outTTY, errTTY bool) *Streams {
	m := &secret.Set{}
	s := &Streams{In: in, InTTY: inTTY, OutTTY: outTTY, ErrTTY: errTTY, secrets: m}
	out = &stdoutWriter{w: out}
	s.out = out
	s.RawOut = &maskWriter{m: m, w: out}
	s.Data = out
	s.outJSON, s.errJSON, s.errRaw = out, errw, errw
	s.Out, s.Err = &maskWriter{m: m, w: out}, &maskWriter{m: m, w: errw}
	if outTTY {
		s.outJSON = &safeWriter{w: out, json: true}
		s.Out = &maskWriter{m: m, w: &safeWriter{w: out}}
	}
	if errTTY {
		s.errJSON = &safeWriter{w: errw, json: true}
		s.Err = &maskWriter{m: m, w: &safeWriter{w: errw}}
	}
	return s
}

// ErrStdoutClosed is returned by writes to stdout once its reader has gone
// (EPIPE: `mcpx ... | head`). mcpx then exits 141 and prints nothing.
var ErrStdoutClosed = errors.New("stdout is closed")

// stdoutWriter marks a broken pipe on stdout, and only there: a server whose
// stdin pipe breaks is a connection problem, not a closed stdout.
type stdoutWriter struct{ w io.Writer }

func (sw *stdoutWriter) Write(p []byte) (int, error) {
	n, err := sw.w.Write(p)
	if err != nil && errors.Is(err, syscall.EPIPE) {
		return n, fmt.Errorf("%w: %w", ErrStdoutClosed, err)
	}
	return n, err
}

// Discard returns streams that read nothing and drop everything written
// to them, none a terminal: for what must never write, such as the notes
// of a TAB's completion, without buffers that grow while it runs.
func Discard() *Streams {
	return New(bytes.NewReader(nil), io.Discard, io.Discard, false, false, false)
}

// ForTest returns streams over buffers; tty sets all three terminal flags.
func ForTest(tty bool) (*Streams, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return New(bytes.NewReader(nil), &out, &errb, tty, tty, tty), &out, &errb
}

// Secrets is the set of secrets the streams mask: what is added to it
// is never printed from then on; it shows as ***.
func (s *Streams) Secrets() *secret.Set { return s.secrets }

// maskWriter masks secrets in each Write. Callers write whole documents or
// whole lines, so a secret is never split across two writes.
type maskWriter struct {
	m *secret.Set
	w io.Writer
}

func (mw *maskWriter) Write(p []byte) (int, error) {
	if !mw.m.Active() {
		return mw.w.Write(p)
	}
	if _, err := io.WriteString(mw.w, mw.m.Mask(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
