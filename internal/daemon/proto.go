package daemon

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpx-cli/mcpx/internal/ascaller"
)

// Proto is the version of the private protocol; a hello of another
// version is answered as another build's. 2: a request to an HTTP server
// may be preceded by its headers (MethodHeaders). 3: each build listens
// on a socket of its own (socketPath); status is answered whatever the
// build; stop and exit are acted on only while their caller waits, and
// answered once the daemon no longer listens.
const Proto = 3

// Operations of a hello.
const (
	OpAttach = "attach" // bind this socket connection to a target, then JSON-RPC
	OpStatus = "status" // the targets held; answered whatever the build (since protocol 3)
	OpStop   = "stop"   // close targets (all, and exit, when none is named)
	// OpExit: close every target and exit, whatever the build: the one
	// operation every version honours (`daemon stop --all`).
	OpExit = "exit"
)

// Hello is the first line a caller writes on a socket connection.
type Hello struct {
	Proto int    `json:"proto"`
	Build string `json:"build"`
	Op    string `json:"op"`
	// Attach: the target, how long it stays idle, and whether cached
	// listings are ignored.
	Spec      *Spec         `json:"spec,omitempty"`
	KeepAlive time.Duration `json:"keep_alive,omitempty"`
	Refresh   bool          `json:"refresh,omitempty"`
	// MaxWarm is the user's bound on the targets the daemon holds (0:
	// DefaultMaxWarm): the latest attach's applies.
	MaxWarm int `json:"max_warm,omitempty"`
	// Bearer is the caller's current OAuth token for an http or sse
	// target (its credential identity is in the spec): the daemon sends
	// the latest one it was given.
	Bearer string `json:"bearer,omitempty"`
	// Existing: attach only to a target the daemon holds, alive; never
	// start one (a task command: a new server cannot know the task).
	// None is refused with ErrNoTarget, and no daemon is started for it.
	Existing bool `json:"existing,omitempty"`
	// Listings: the listing methods (tools/list, ...) whose pages the
	// caller will ask for: those cached go ahead in the reply (Ahead.Pages).
	Listings []string `json:"listings,omitempty"`
	// Stop: the server names (none: every target, and the daemon exits).
	Names []string `json:"names,omitempty"`
}

// Reply is the daemon's answer to a hello (one line).
type Reply struct {
	OK    bool   `json:"ok"`
	Build string `json:"build"`
	Pid   int    `json:"pid"`
	Err   string `json:"err,omitempty"`
	// Attach: a note for the caller (a warm server that died: its state
	// was lost), and whether the connection is new.
	Note string `json:"note,omitempty"`
	// Status: the targets, the executable the daemon runs, and whether it
	// is draining (that executable is no longer the one on disk: it takes
	// no new attach, and exits once no caller is attached).
	Status   []Target `json:"status,omitempty"`
	Exe      string   `json:"exe,omitempty"`
	Draining bool     `json:"draining,omitempty"`
	// Stop, exit: the targets closed, and the servers named that had none.
	Stopped int      `json:"stopped,omitempty"`
	Missed  []string `json:"missed,omitempty"`
	// Ahead is, on an attach, what the daemon would answer the caller's
	// handshake with from its own record (nil: nothing): the caller's end
	// answers it itself, without a round trip (see Ahead).
	Ahead *Ahead `json:"ahead,omitempty"`
}

// Ahead is what a target's session, alive, has recorded of its handshake
// as the attach was answered: what the daemon answers a caller's
// handshake requests with, whatever the caller (the target is the same
// for all its callers), without asking the server.
type Ahead struct {
	// Handshake: the server's answer (its result) to a handshake request,
	// by method (initialize, server/discover).
	Handshake map[string]json.RawMessage `json:"handshake,omitempty"`
	// Initialized: notifications/initialized was sent, and another is not
	// forwarded.
	Initialized bool `json:"initialized,omitempty"`
	// Level and LevelResult: the params and result of the server's last
	// logging/setLevel (see caller.setLevel), which a caller's with the
	// same params is answered with.
	Level       json.RawMessage `json:"level,omitempty"`
	LevelResult json.RawMessage `json:"level_result,omitempty"`
	// Pages: the cached pages of the listings the hello named (unless it
	// refreshes), each answered as the daemon answers it from its cache.
	Pages []AheadPage `json:"pages,omitempty"`
}

// AheadPage is a cached listing page: the result the daemon answers a
// request of Method for the page at Cursor with (see Cache.Get).
type AheadPage struct {
	Method string          `json:"method"`
	Cursor string          `json:"cursor,omitempty"`
	Result json.RawMessage `json:"result"`
}

// Bounds on the bytes of an Ahead: a handshake larger than maxAhead (long
// instructions) is answered by the daemon, as are the pages past
// maxAheadPages.
const (
	maxAhead      = 64 << 10
	maxAheadPages = 256 << 10
)

// ErrOtherBuild is a daemon of another build (or protocol).
var ErrOtherBuild = errors.New("the mcpx daemon is of another build")

// ErrDraining is the refusal of an attach by a daemon whose executable is
// no longer the one on disk (an upgrade or a rebuild since this mcpx
// started): the caller connects one-shot.
var ErrDraining = errors.New("the mcpx daemon of this build is draining: mcpx changed on disk since this command started")

// drainPrefix begins a reply's Err when the daemon is draining
// (ErrDraining, on the wire).
const drainPrefix = "draining: "

// Spec is a target: what the daemon needs to start and reach the server,
// every variable expanded. It carries secrets (env, args): it travels only
// over the socket and lives only in the daemon's memory.
type Spec struct {
	Name           string   `json:"name"`
	Transport      string   `json:"transport"`
	Command        string   `json:"command"`
	Argv0          string   `json:"argv0,omitempty"`
	Args           []string `json:"args,omitempty"`
	Env            []string `json:"env,omitempty"`
	Dir            string   `json:"dir,omitempty"`
	MessageCeiling int64    `json:"message_ceiling,omitempty"`
	// URL and Headers: an http or sse server's, every variable expanded.
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Identity is what else makes the connection what it is: the protocol
	// version asked for, the roots and capabilities offered, the
	// credential identity.
	Identity []string `json:"identity,omitempty"`
	// Secrets are the values the daemon's log masks.
	Secrets []string `json:"secrets,omitempty"`
	// AsCaller is a stdio server's umask and resource limits: its
	// caller's. Two callers that differ in them have two targets.
	AsCaller *ascaller.Attrs `json:"as_caller,omitempty"`
	// NetEnv is an http or sse target's proxy and CA variables (NAME=value,
	// those a one-shot connection obeys: see NetEnvNames), the caller's:
	// the daemon's connection uses them, never its own environment's.
	NetEnv []string `json:"net_env,omitempty"`
}

// Key is the target's identity: a hash of everything that makes the
// connection, so that any change makes a new target.
func (s *Spec) Key() string {
	h := sha256.New()
	w := func(parts ...string) {
		for _, p := range parts {
			h.Write([]byte(strconv.Itoa(len(p))))
			h.Write([]byte{':'})
			h.Write([]byte(p))
		}
		h.Write([]byte{'\n'})
	}
	w(s.Name, s.Transport, s.Command, s.Argv0, s.Dir, strconv.FormatInt(s.MessageCeiling, 10))
	w(s.Args...)
	env := slices.Clone(s.Env)
	slices.Sort(env)
	w(env...)
	w(s.Identity...)
	w(s.URL)
	hdr := make([]string, 0, len(s.Headers))
	for k, v := range s.Headers {
		hdr = append(hdr, k+"\x00"+v)
	}
	slices.Sort(hdr)
	w(hdr...)
	w(s.AsCaller.Key()...)
	netEnv := slices.Clone(s.NetEnv)
	slices.Sort(netEnv)
	w(netEnv...)
	return hex.EncodeToString(h.Sum(nil))
}

// Target is one target in `mcpx daemon status`.
type Target struct {
	Server    string    `json:"server"`
	Transport string    `json:"transport"`
	Pid       int       `json:"pid,omitempty"`
	Since     time.Time `json:"since"`
	LastUse   time.Time `json:"last_use"`
	Calls     int64     `json:"calls"`
	Callers   int       `json:"callers"`
	// IdleLeft is how long the connection stays once idle (it counts
	// down only when no caller is attached).
	IdleLeft time.Duration `json:"idle_left_ns"`
}

// maxLine bounds a hello or reply line.
const maxLine = 4 << 20

// writeLine writes v as one JSON line.
func writeLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// readLine reads one line, of at most maxLine bytes, without its newline.
// What follows it stays in r (on an attached connection, the JSON-RPC
// stream: see bufferedConn).
func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		part, err := r.ReadSlice('\n')
		if len(buf)+len(part) > maxLine+1 {
			return nil, errors.New("line too long")
		}
		if err == nil {
			// a copy: part is r's buffer, which the next read reuses
			return append(buf, part[:len(part)-1]...), nil
		}
		buf = append(buf, part...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(buf) == 0 {
			return nil, io.EOF
		}
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
}

// bufferedConn is a connection whose first bytes were read ahead into r:
// reads drain r before they reach the socket.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// endReader calls end once when its reader ends: a server's stdout, or
// either end of an attached socket. A connection closed by its own Close
// ends as at EOF.
type endReader struct {
	r    io.Reader
	once sync.Once
	end  func()
}

func (e *endReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(e.end)
		if errors.Is(err, net.ErrClosed) {
			err = io.EOF // closed by Close: the end of the stream
		}
	}
	return n, err
}

// readJSONLine reads a hello through a buffered reader (the daemon side: a
// status or stop conversation is one line each way; an attach is followed
// by JSON-RPC, which the caller sends only after the reply). A hello may
// be longer than the reader's buffer (a target's environment and
// arguments), up to maxLine.
func readJSONLine(r *bufio.Reader, v any) error {
	line, err := readLine(r)
	if err != nil {
		return err
	}
	return json.Unmarshal(line, v)
}

// buildIDs are the build identities computed, by version (one in mcpx;
// a test serves daemons of several).
var buildIDs sync.Map

// exeImage is an executable: the path it was started from and its file.
type exeImage struct {
	path string
	fi   os.FileInfo
}

// selfOnce reads this process's executable once (see selfImage).
var selfOnce = sync.OnceValues(func() (exeImage, error) {
	p, fi, err := selfImage()
	return exeImage{p, fi}, err
})

// image is this process's executable, as it was first read: its path and
// the file this process runs.
func image() (string, os.FileInfo, error) {
	im, err := selfOnce()
	return im.path, im.fi, err
}

// BuildID identifies this build of mcpx: its version and module build
// settings, and the executable's path and file (device and inode where
// the system has them, size, modification time: cheap to read, and
// changed by every install, rebuild or touch). The daemon's socket is
// named after it (socketPath): each build has a daemon of its own.
func BuildID(version string) string {
	if id, ok := buildIDs.Load(version); ok {
		return id.(string)
	}
	id := func() string {
		h := sha256.New()
		fmt.Fprintf(h, "proto %d\nversion %s\n", Proto, version)
		if bi, ok := debug.ReadBuildInfo(); ok {
			fmt.Fprintf(h, "go %s\nmain %s %s %s\n", bi.GoVersion, bi.Main.Path, bi.Main.Version, bi.Main.Sum)
			for _, s := range bi.Settings {
				fmt.Fprintf(h, "%s=%s\n", s.Key, s.Value)
			}
		}
		if exe, fi, err := image(); err == nil {
			fmt.Fprintf(h, "exe %s %s %d %d\n", exe, fileID(fi), fi.Size(), fi.ModTime().UnixNano())
		}
		return version + "+" + hex.EncodeToString(h.Sum(nil))[:16]
	}()
	buildIDs.Store(version, id)
	return id
}

// sameImage reports whether a and b describe the same executable: the
// same file, size and modification time (what BuildID hashes).
func sameImage(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// MethodOneShot is the daemon's notification to a caller whose HTTP or SSE
// connection failed its handshake: params.why, and params.first_post, the
// HTTP status of the first POST (for the SSE fallback). The caller connects
// again one-shot (or over SSE), for the error and the authentication flow a
// one-shot connection has.
const MethodOneShot = "notifications/mcpx/oneshot"

// MethodFailed is the daemon's notification to a caller whose request to an
// HTTP or SSE server failed without ending the session: params.id (the
// caller's), and params.message (the transport's error), params.broken
// (an answer that breaks JSON-RPC: how), params.auth_status and
// params.challenge (a 401 or 403: its WWW-Authenticate values). No answer
// follows.
const MethodFailed = "notifications/mcpx/failed"

// MethodHeaders is a caller's notification to the daemon, just before a
// request to an HTTP or SSE server: params.id (the request's id) and
// params.headers (name → values), the HTTP headers the caller's transport
// would have sent with it (in the 2026-07-28 era: Mcp-Method, Mcp-Name,
// Mcp-Param-*, Mcp-Protocol-Version). The daemon sends the request with
// them (those named Mcp-*, but Mcp-Session-Id), under the target's own
// headers; it never forwards the notification, and never logs them.
const MethodHeaders = "notifications/mcpx/headers"

// Methods of the daemon's own notifications to a caller.
const (
	MethodStderr = "notifications/mcpx/stderr" // params.line: a line of the server's stderr
	MethodLost   = "notifications/mcpx/lost"   // params.why: the server died (or the caller was cut off)
	// MethodNote: params.note, a note for the caller's stderr (its
	// target's server died: the session that replaced it knows nothing of
	// the caller's earlier calls)
	MethodNote  = "notifications/mcpx/note"
	MethodFlush = "mcpx/flush" // a caller's request: its server's stderr so far, then {}
	// MethodSkipped: params.line, a line on the server's stdout that is not JSON-RPC
	MethodSkipped = "notifications/mcpx/skipped"
)

// ErrStart is the daemon's refusal of an attach whose server it could not
// start (Attach wraps it with the daemon's message): the caller connects
// one-shot instead, for the error that connection gives.
var ErrStart = errors.New("the mcpx daemon could not start the server")

// startPrefix begins a reply's Err when the daemon could not start the
// server (ErrStart, on the wire).
const startPrefix = "start: "

// ErrNoTarget is the refusal of an attach of an existing target
// (Hello.Existing) when no daemon holds it, alive.
var ErrNoTarget = errors.New("no warm connection holds that target")

// noTargetPrefix begins a reply's Err for ErrNoTarget, on the wire.
const noTargetPrefix = "none: "

// mask hides the target's secrets in a log line.
func (s *Spec) mask(line string) string {
	for _, v := range s.Secrets {
		if len(v) >= 3 {
			line = strings.ReplaceAll(line, v, "***")
		}
	}
	return line
}
