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
type logger struct {
	mu sync.Mutex
	f  *os.File
}

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
	l.f = f
	return l
}

// restart empties the log; what follows is written at its start (a log
// not opened for appending, as on Windows, has its offset moved too).
func restart(f *os.File) {
	_ = f.Truncate(0)
	_, _ = f.Seek(0, io.SeekStart)
}

func (l *logger) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return
	}
	if st, err := l.f.Stat(); err == nil && st.Size() > maxLog {
		restart(l.f)
	}
	fmt.Fprintf(l.f, "%s %s\n", time.Now().UTC().Format(time.RFC3339), fmt.Sprintf(format, args...))
}

func (l *logger) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}
