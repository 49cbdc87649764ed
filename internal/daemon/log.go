package daemon

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// maxLog bounds the daemon's log: past it, the log starts again empty.
const maxLog = 1 << 20

// logger is the daemon's bounded log. It records events (starts, stops,
// deaths, refusals) and server names, never a server's environment,
// arguments or traffic; error text is masked with the target's secrets.
// Lines are written by a goroutine of its own: a slow disk (a state
// directory on a network file system) holds up no target; past logQueue
// lines waiting, lines are dropped, and their number logged.
type logger struct {
	mu      sync.Mutex // guards lines and closed: no I/O under it
	lines   chan string
	closed  bool
	dropped int
	done    chan struct{}
	f       *os.File
}

// logQueue bounds the lines waiting to be written.
const logQueue = 256

func openLog(path string) *logger {
	l := &logger{}
	if path == "" {
		return l
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return l
	}
	if CheckStateDir(dir) != nil {
		return l
	}
	f, err := openLogFile(path)
	if err != nil {
		return l
	}
	if st, err := f.Stat(); err == nil && st.Size() > maxLog {
		restart(f)
	}
	l.f, l.lines, l.done = f, make(chan string, logQueue), make(chan struct{})
	go l.write()
	return l
}

// restart empties the log; what follows is written at its start (a log
// not opened for appending, as on Windows, has its offset moved too).
func restart(f *os.File) {
	_ = f.Truncate(0)
	_, _ = f.Seek(0, io.SeekStart)
}

func (l *logger) write() {
	defer close(l.done)
	for line := range l.lines {
		if st, err := l.f.Stat(); err == nil && st.Size() > maxLog {
			restart(l.f)
		}
		_, _ = io.WriteString(l.f, line)
	}
}

func (l *logger) printf(format string, args ...any) {
	if l.lines == nil {
		return
	}
	now := time.Now().UTC().Format(time.RFC3339)
	line := fmt.Sprintf("%s %s\n", now, fmt.Sprintf(format, args...))
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	if l.dropped > 0 {
		select {
		case l.lines <- fmt.Sprintf("%s (%d lines dropped: the log was slow)\n", now, l.dropped):
			l.dropped = 0
		default:
		}
	}
	select {
	case l.lines <- line:
	default:
		l.dropped++
	}
}

// close writes what waits, and closes the log.
func (l *logger) close() {
	if l.lines == nil {
		return
	}
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.lines)
	}
	l.mu.Unlock()
	<-l.done
	l.f.Close()
}
