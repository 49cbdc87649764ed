package demo

// The fixed content behind the demo server: the log, the images, the notes and
// the documents. Everything here is a pure function of constants — no clock,
// no randomness, no files — so every run of the demo serves the same bytes.

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"sync"
	"time"
)

// content is everything the demo serves that is worth building only once.
type content struct {
	log         string // demo://logs/app.log
	logExcerpt  string // the lines embedded by the explain_log prompt
	excerptFrom int    // first line number (1-based) of logExcerpt
	excerptTo   int    // last line number (1-based) of logExcerpt
	logoPNG     []byte // demo://images/logo.png
	logoB64     string
	chartPNG    []byte // the image returned by the render_chart tool
	chartB64    string
}

// getContent builds the content on first use (not at package init, so mcpx
// commands that never serve the demo pay nothing for it).
var getContent = sync.OnceValue(func() *content {
	c := &content{}
	var lines []string
	lines, c.excerptFrom, c.excerptTo = buildLogLines()
	c.log = strings.Join(lines, "")
	c.logExcerpt = strings.Join(lines[c.excerptFrom-1:c.excerptTo], "")
	c.logoPNG = encodePNG(drawLogo())
	c.logoB64 = base64.StdEncoding.EncodeToString(c.logoPNG)
	c.chartPNG = encodePNG(drawChart())
	c.chartB64 = base64.StdEncoding.EncodeToString(c.chartPNG)
	return c
})

// mix is splitmix64: a fixed, stateless scramble of a counter. It stands in
// for randomness while staying a pure function of its input.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// fnv64 is FNV-1a, used to derive fake-but-stable values from a string.
func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// logBase is the fixed time of the first log line.
var logBase = time.Date(2025, time.March, 14, 9, 0, 0, 0, time.UTC)

const (
	logTarget     = 200 * 1024 // the log grows until it is at least this long
	incidentStart = 1400       // line index where the database incident begins
	incidentLen   = 40         // lines the incident lasts
)

var (
	logUsers  = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"}
	logTables = []string{"users", "orders", "invoices", "sessions", "products"}
	logJobs   = []string{"send_invoice", "resize_image", "sync_inventory", "nightly_report", "expire_sessions"}
	logPaths  = []string{"/api/v1/users/%d", "/api/v1/orders/%d", "/api/v1/products/%d", "/api/v1/invoices/%d"}
	logSearch = []string{"shoes", "red+dress", "usb-c+cable", "coffee", "desk+lamp"}
)

// buildLogLines returns the lines of demo://logs/app.log (each ending in
// "\n") and the 1-based inclusive line range used as the explain_log excerpt.
func buildLogLines() (lines []string, excerptFrom, excerptTo int) {
	t := logBase
	size := 0
	add := func(level, component, msg string) {
		line := fmt.Sprintf("%s %-5s [%s] %s\n", t.Format("2006-01-02T15:04:05.000Z"), level, component, msg)
		lines = append(lines, line)
		size += len(line)
	}
	add("INFO", "main", "starting shop-api version=2.4.1 pid=4242 env=production")
	add("INFO", "main", "config loaded from /etc/shop-api/config.yaml (17 keys)")
	add("INFO", "db", "connected to postgres://db-primary:5432/shop pool_size=50")
	add("INFO", "http", "listening on :8080")
	for i := uint64(0); size < logTarget; i++ {
		h := mix(i)
		t = t.Add(time.Duration(40+(h>>40)%1400) * time.Millisecond)
		level, component, msg := logEntry(int(i), h)
		add(level, component, msg)
	}
	// The excerpt: a few lines of calm before the incident, then its start.
	excerptFrom = 4 + incidentStart - 3 + 1
	excerptTo = excerptFrom + 11
	return lines, excerptFrom, excerptTo
}

// logEntry picks the level, component and message of generated line i.
func logEntry(i int, h uint64) (level, component, msg string) {
	a := h >> 8 // independent-looking bits for the message parameters
	b := h >> 24
	user := logUsers[a%uint64(len(logUsers))]
	req := uint32(h >> 16)
	if i >= incidentStart && i < incidentStart+incidentLen {
		return incidentEntry(i-incidentStart, a, b, req)
	}
	switch r := h % 48; {
	case r == 0:
		return errorEntry(a, b, req, user)
	case r <= 2:
		return warnEntry(a, b, user)
	case r <= 10:
		return debugEntry(a, b)
	}
	return infoEntry(a, b, req, user)
}

// incidentEntry is line n of the incident: the pool exhausted.
func incidentEntry(n int, a, b uint64, req uint32) (level, component, msg string) {
	if n%4 == 0 {
		return "ERROR", "db", fmt.Sprintf("connection pool exhausted (50/50 in use): request req=%08x rejected after 5000ms wait", req)
	}
	if n%8 == 2 {
		return "ERROR", "http", fmt.Sprintf("GET /api/v1/orders/%d 503 5004ms req=%08x: database unavailable", 1000+b%9000, req)
	}
	return "WARN", "db", fmt.Sprintf("slow query table=orders took=%dms (threshold 250ms)", 900+a%4000)
}

func errorEntry(a, b uint64, req uint32, user string) (level, component, msg string) {
	switch a % 5 {
	case 0:
		return "ERROR", "db", fmt.Sprintf("query failed table=%s: pq: canceling statement due to statement timeout (took=5000ms)", logTables[b%uint64(len(logTables))])
	case 1:
		return "ERROR", "payments", fmt.Sprintf("charge failed order=%d: upstream gateway returned 502 Bad Gateway", 10000+b%90000)
	case 2:
		return "ERROR", "worker", fmt.Sprintf("job %d (%s) panicked: runtime error: index out of range [3] with length 3", 5000+b%5000, logJobs[b%uint64(len(logJobs))])
	case 3:
		return "ERROR", "http", fmt.Sprintf("GET /api/v1/reports/%d 500 %dms req=%08x: nil pointer dereference in reports.Render", 1+b%500, 20+b%300, req)
	}
	return "ERROR", "mail", fmt.Sprintf("send failed to=%s@example.com: dial tcp 10.0.4.12:587: i/o timeout", user)
}

func warnEntry(a, b uint64, user string) (level, component, msg string) {
	switch a % 4 {
	case 0:
		return "WARN", "http", fmt.Sprintf("slow request GET /api/v1/search?q=%s took %dms (threshold 500ms)", logSearch[b%uint64(len(logSearch))], 500+b%2500)
	case 1:
		return "WARN", "db", fmt.Sprintf("connection pool at %d%% capacity (%d/50 in use)", 70+b%25, 35+b%12)
	case 2:
		return "WARN", "auth", fmt.Sprintf("failed login user=%s from 10.0.%d.%d (attempt %d of 5)", user, b%8, 2+b%250, 1+b%4)
	}
	return "WARN", "worker", fmt.Sprintf("job %d (%s) retry %d/5 after timeout", 5000+b%5000, logJobs[b%uint64(len(logJobs))], 1+b%4)
}

func debugEntry(a, b uint64) (level, component, msg string) {
	switch a % 3 {
	case 0:
		return "DEBUG", "db", fmt.Sprintf("query ok table=%s rows=%d took=%dms", logTables[b%uint64(len(logTables))], b%200, 1+b%40)
	case 1:
		return "DEBUG", "cache", fmt.Sprintf("miss key=user:%d, loading from db", 1+b%5000)
	}
	return "DEBUG", "http", fmt.Sprintf("keep-alive connection reused conn=%d", 1+b%64)
}

func infoEntry(a, b uint64, req uint32, user string) (level, component, msg string) {
	switch a % 6 {
	case 0, 1:
		path := fmt.Sprintf(logPaths[b%uint64(len(logPaths))], 1+(b>>8)%5000)
		return "INFO", "http", fmt.Sprintf("GET %s 200 %dms req=%08x", path, 2+b%120, req)
	case 2:
		return "INFO", "http", fmt.Sprintf("POST /api/v1/orders 201 %dms req=%08x user=%s", 15+b%200, req, user)
	case 3:
		return "INFO", "auth", fmt.Sprintf("login ok user=%s method=password mfa=%t", user, b%3 == 0)
	case 4:
		return "INFO", "worker", fmt.Sprintf("job %d (%s) completed in %dms", 5000+b%5000, logJobs[b%uint64(len(logJobs))], 10+b%3000)
	}
	return "INFO", "cache", fmt.Sprintf("hit ratio %d.%d%% over the last 1000 lookups", 80+b%19, (b>>8)%10)
}

// encodePNG encodes img with fixed settings; the result is the same bytes on
// every run.
func encodePNG(img image.Image) []byte {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, img); err != nil {
		panic("demo: encoding a PNG: " + err.Error()) // cannot happen for an in-memory image
	}
	return buf.Bytes()
}

// insideRounded reports whether pixel (x, y) lies in a w by h square with
// corners rounded to radius r.
func insideRounded(x, y, w, h, r int) bool {
	cx, cy := min(max(x, r), w-1-r), min(max(y, r), h-1-r)
	dx, dy := x-cx, y-cy
	return dx*dx+dy*dy <= r*r
}

// drawLogo draws a 64x64 terminal icon: a dark rounded square with a green
// ">_" prompt.
func drawLogo() image.Image {
	const w, h = 64, 64
	pal := color.Palette{
		color.NRGBA{0, 0, 0, 0},            // 0 transparent
		color.NRGBA{0x1e, 0x29, 0x3b, 255}, // 1 slate
		color.NRGBA{0x22, 0xc5, 0x5e, 255}, // 2 green
		color.NRGBA{0x33, 0x41, 0x55, 255}, // 3 title bar
		color.NRGBA{0xef, 0x44, 0x44, 255}, // 4 red dot
		color.NRGBA{0xea, 0xb3, 0x08, 255}, // 5 yellow dot
	}
	img := image.NewPaletted(image.Rect(0, 0, w, h), pal)
	inside := func(x, y int) bool { return insideRounded(x, y, w, h, 8) }
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			switch {
			case !inside(x, y):
				img.SetColorIndex(x, y, 0)
			case y < 12:
				img.SetColorIndex(x, y, 3)
			default:
				img.SetColorIndex(x, y, 1)
			}
		}
	}
	dot := func(cx, cy int, c uint8) {
		for y := cy - 2; y <= cy+2; y++ {
			for x := cx - 2; x <= cx+2; x++ {
				if (x-cx)*(x-cx)+(y-cy)*(y-cy) <= 4 {
					img.SetColorIndex(x, y, c)
				}
			}
		}
	}
	dot(9, 6, 4)
	dot(17, 6, 5)
	dot(25, 6, 2)
	// ">" : two thick diagonal strokes meeting at (26, 36).
	for k := 0; k <= 12; k++ {
		for t := 0; t < 4; t++ {
			img.SetColorIndex(14+k+t, 24+k, 2)
			img.SetColorIndex(14+k+t, 48-k, 2)
		}
	}
	// "_" : a bar under the cursor position.
	for y := 45; y < 49; y++ {
		for x := 32; x < 50; x++ {
			img.SetColorIndex(x, y, 2)
		}
	}
	return img
}

// chartValues are the bars of the render_chart tool (weekly signups).
var chartValues = []int{12, 19, 7, 24, 16, 28, 21}

var chartDays = []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

// drawChart draws a 64x32 bar chart of chartValues on white, with an axis.
func drawChart() image.Image {
	const w, h = 64, 32
	pal := color.Palette{
		color.NRGBA{255, 255, 255, 255},    // 0 background
		color.NRGBA{0x33, 0x41, 0x55, 255}, // 1 axis
		color.NRGBA{0x3b, 0x82, 0xf6, 255}, // 2 bar
		color.NRGBA{0xf9, 0x73, 0x16, 255}, // 3 highest bar
	}
	img := image.NewPaletted(image.Rect(0, 0, w, h), pal)
	maxV := 0
	for _, v := range chartValues {
		maxV = max(maxV, v)
	}
	const base = h - 3 // the axis row
	for x := 2; x < w-2; x++ {
		img.SetColorIndex(x, base, 1)
	}
	for y := 2; y <= base; y++ {
		img.SetColorIndex(2, y, 1)
	}
	for i, v := range chartValues {
		c := uint8(2)
		if v == maxV {
			c = 3
		}
		height := v * (base - 3) / maxV
		x0 := 5 + i*8
		for x := x0; x < x0+6; x++ {
			for y := base - height; y < base; y++ {
				img.SetColorIndex(x, y, c)
			}
		}
	}
	return img
}

// readme is demo://readme.
const readme = `# The mcpx demo server

**mcpx** is a one-shot command-line client for the Model Context Protocol (MCP).
Each command connects to a server, does one thing — list, read, prompt, invoke —
prints the result, and exits. Output is plain text in a pipe, aligned on a
terminal, and JSON with ` + "`--json`" + `.

This server is built into mcpx (` + "`mcpx serve-demo`" + `). It needs no configuration and
no network, and it serves the same content on every run, so it is a safe place to
try things.

## Things to try

    mcpx catalog demo                                  # everything this server offers
    mcpx catalog demo note                             # ... filtered by a query
    mcpx describe demo add                             # a tool's signature and parameters
    mcpx read demo demo://readme                       # this file
    mcpx read demo demo://logs/app.log --pattern ERROR # grep a 200 KiB log
    mcpx read demo demo://logs/app.log --offset 51200  # the next page of it
    mcpx read demo demo://notes/{id} id=3              # expand a resource template
    mcpx read demo demo://images/logo.png              # binary content is saved to a file
    mcpx prompt demo summarize topic=outage style=bullet
    mcpx prompt demo code_review code=@main.go language=go
    mcpx prompt demo explain_log | llm                 # prompts are text, ready for a pipe
    mcpx invoke demo add a=2 b=3
    mcpx invoke demo echo text=hello upper=true
    mcpx invoke demo weather city=Oslo units=imperial
    mcpx invoke demo tag_items 'items=["red apple","Banana"]'
    mcpx invoke demo render_chart                      # images are saved to a file
    mcpx invoke demo fail                              # a tool error: exit code 1

Add ` + "`--json`" + ` to any command for machine-readable output, and press TAB after
` + "`mcpx completion bash`" + ` is installed: names, arguments and even argument values
(` + "`style=`, `language=`, `id=`" + `) are completed live from the server.
`

// usersJSON is demo://data/users.json.
const usersJSON = `{
  "users": [
    {"id": 1, "name": "Alice Martin", "email": "alice@example.com", "role": "admin", "active": true},
    {"id": 2, "name": "Bob Chen", "email": "bob@example.com", "role": "developer", "active": true},
    {"id": 3, "name": "Carol Okafor", "email": "carol@example.com", "role": "developer", "active": false},
    {"id": 4, "name": "Dave Silva", "email": "dave@example.com", "role": "support", "active": true},
    {"id": 5, "name": "Erin Novak", "email": "erin@example.com", "role": "viewer", "active": true}
  ],
  "total": 5
}
`

// note is one of the small text notes behind demo://data/notes/N and the
// demo://notes/{id} template.
type note struct {
	title string
	body  string
}

var notes = []note{
	{"Welcome", "This is note 1 of 8. Notes are small plain-text resources.\nRead any of them by URI, or through the template demo://notes/{id}."},
	{"Shopping list", "- coffee beans\n- oat milk\n- a new USB-C cable\n- batteries (AA)"},
	{"Meeting notes", "Weekly sync, Thursday.\n- Release 2.4.1 shipped on Monday.\n- Database pool alarms: raise the pool size, add a dashboard.\n- Next: on-call handover."},
	{"Recipe", "Pancakes: 200 g flour, 2 eggs, 300 ml milk, a pinch of salt.\nWhisk, rest 10 minutes, fry in butter."},
	{"Quote", "\"Simplicity is prerequisite for reliability.\" - Edsger W. Dijkstra"},
	{"Todo", "[x] write the demo server\n[ ] add shell completion\n[ ] publish the man page"},
	{"Ideas", "A prompt that turns a log excerpt into a timeline.\nA tool that diff-checks two JSON documents."},
	{"Goodbye", "This is the last note (8 of 8). Try demo://notes/9 to see a not-found error."},
}

// noteText is the text of note id (1-based).
func noteText(id int) string {
	n := notes[id-1]
	return fmt.Sprintf("# Note %d: %s\n\n%s\n", id, n.title, n.body)
}
