package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestChallengeParam(t *testing.T) {
	h := `Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://x/.well-known/oauth-protected-resource"`
	if got := ChallengeParam(h, "scope"); got != "files:read files:write" {
		t.Errorf("scope %q", got)
	}
	if got := ChallengeParam(h, "error"); got != "insufficient_scope" {
		t.Errorf("error %q", got)
	}
	if got := ChallengeParam(`Bearer realm="a,b", scope=x`, "scope"); got != "x" {
		t.Errorf("unquoted %q", got)
	}
}

// roundTrip is an http.RoundTripper made of a function.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestHTTPBearer(t *testing.T) {
	var sent string
	inner := roundTrip(func(r *http.Request) (*http.Response, error) {
		sent = r.Header.Get("Authorization")
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
	})
	tok := "tok1"
	lt := &HTTP{inner: inner, max: 1 << 20, limit: &Limit{}, bearer: func() string { return tok }, origin: originOf("https://RS.example/mcp")}
	for _, c := range []struct {
		url, preset, token, want string
	}{
		{"https://rs.example/mcp", "", "tok1", "Bearer tok1"},
		{"https://RS.EXAMPLE/messages?session=1", "", "tok1", "Bearer tok1"},
		{"https://rs.example/mcp", "Basic abc", "tok1", "Basic abc"}, // the user's header stays
		{"https://rs.example/mcp", "", "", ""},                       // no token
		{"http://rs.example/mcp", "", "tok1", "refused"},             // scheme
		{"https://rs.example:8443/mcp", "", "tok1", "refused"},       // port
		{"https://evil.example/mcp", "", "tok1", "refused"},
		{"https://rs.example.evil.example/mcp", "", "tok1", "refused"},
	} {
		tok = c.token
		req, _ := http.NewRequest(http.MethodGet, c.url, nil)
		if c.preset != "" {
			req.Header.Set("Authorization", c.preset)
		}
		sent = "none"
		resp, err := lt.RoundTrip(req)
		if c.want == "refused" {
			// Another origin gets no request at all (an SSE endpoint event
			// naming http for an https server, say).
			if err == nil || !strings.HasPrefix(err.Error(), "refusing to send a request to ") || sent != "none" {
				t.Errorf("%s: RoundTrip = %v, sent %q; want it refused, nothing sent", c.url, err, sent)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if sent != c.want {
			t.Errorf("%s (preset %q, token %q): sent Authorization %q, want %q", c.url, c.preset, c.token, sent, c.want)
		}
		if req.Header.Get("Authorization") != c.preset {
			t.Errorf("%s: the caller's request was changed", c.url)
		}
	}
	lt.bearer = nil
	req, _ := http.NewRequest(http.MethodGet, "https://rs.example/mcp", nil)
	if resp, err := lt.RoundTrip(req); err == nil {
		resp.Body.Close()
	}
	if sent != "" {
		t.Errorf("no bearer func: sent %q", sent)
	}
	for in, want := range map[string]string{
		"https://Example.COM:8443/x?y": "https://example.com:8443",
		"HTTP://a.example/b":           "http://a.example",
		"http://[::1]:9/":              "http://[::1]:9",
		"http://[::1":                  "",
	} {
		if got := originOf(in); got != want {
			t.Errorf("originOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLimitBodyScan: events are split into data lines correctly, an event
// too big to be an elicitation is not kept, and only elicitations are.
func TestLimitBodyScan(t *testing.T) {
	reqs := &rawRequests{}
	b := &limitBody{reqs: reqs}
	feed := func(s string) {
		for i := 0; i < len(s); i++ {
			b.scan(s[i])
		}
	}
	feed("data: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"elicitation/create\",\"params\":{\"message\":\"a\",\"requestedSchema\":{\"properties\":{\"y\":{},\"b\":{}}}}}\r\n\r\n")
	feed("data: {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"roots/list\",\"params\":{}}\n\n")
	feed("data: {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"elicitation/create\",\"params\":{\"message\":\"" + strings.Repeat("x", maxRawRequest) + "\"}}\n\n")
	feed("id: 7\nretry: 10\ndata: {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"elicitation/create\",\"params\":{\"message\":\"d\"}}\n\n")
	if len(reqs.m) != 2 || string(reqs.m[`"s1"`]) != `{"message":"a","requestedSchema":{"properties":{"y":{},"b":{}}}}` ||
		string(reqs.m["4"]) != `{"message":"d"}` {
		t.Errorf("kept %d: %s", len(reqs.m), bytes.Join(func() [][]byte {
			var out [][]byte
			for k, v := range reqs.m {
				out = append(out, []byte(k+"="+string(v)))
			}
			return out
		}(), []byte(", ")))
	}
}

// TestHTTPGate: the standalone GET stream waits for the gate
// (the handshake done); getSeen closes once a GET is answered or fails;
// POSTs never wait.
func TestHTTPGate(t *testing.T) {
	var mu sync.Mutex
	var sent []string
	fail := false
	inner := roundTrip(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		sent = append(sent, r.Method)
		if fail {
			return nil, errors.New("refused")
		}
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(""))}, nil
	})
	sentNow := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(sent, ",")
	}
	seen := func(rt *HTTP) bool {
		select {
		case <-rt.getSeen:
			return true
		default:
			return false
		}
	}
	req := func(ctx context.Context, method string) *http.Request {
		r, _ := http.NewRequestWithContext(ctx, method, "http://127.0.0.1:1/mcp", nil)
		return r
	}
	rt := &HTTP{inner: inner, max: 1 << 20, limit: &Limit{}, getSeen: make(chan struct{}), getGate: make(chan struct{})}

	got := make(chan error, 1)
	go func() {
		resp, err := rt.RoundTrip(req(context.Background(), http.MethodGet))
		if resp != nil {
			resp.Body.Close()
		}
		got <- err
	}()
	if resp, err := rt.RoundTrip(req(context.Background(), http.MethodPost)); err != nil {
		t.Fatalf("POST while the gate is shut: %v", err)
	} else {
		resp.Body.Close()
	}
	time.Sleep(30 * time.Millisecond)
	if s := sentNow(); s != "POST" || seen(rt) {
		t.Fatalf("before the gate opens: sent %s, seen %v", s, seen(rt))
	}
	rt.OpenGate()
	rt.OpenGate() // twice: no panic
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("GET: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the GET still waits after the gate opened")
	}
	if s := sentNow(); s != "POST,GET" || !seen(rt) {
		t.Errorf("after the gate: sent %s, seen %v", s, seen(rt))
	}
	if resp, err := rt.RoundTrip(req(context.Background(), http.MethodGet)); err != nil { // a second GET: getSeen closed once
		t.Errorf("second GET: %v", err)
	} else {
		resp.Body.Close()
	}

	// A GET given up while it waits: nothing sent, nothing seen.
	rt2 := &HTTP{inner: inner, max: 1 << 20, limit: &Limit{}, getSeen: make(chan struct{}), getGate: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	before := sentNow()
	if _, err := rt2.RoundTrip(req(ctx, http.MethodGet)); !errors.Is(err, context.Canceled) {
		t.Errorf("GET given up: %v", err)
	}
	if sentNow() != before || seen(rt2) {
		t.Errorf("GET given up: sent %s, seen %v", sentNow(), seen(rt2))
	}
	// A GET that fails still counts as answered.
	rt2.OpenGate()
	mu.Lock()
	fail = true
	mu.Unlock()
	if _, err := rt2.RoundTrip(req(context.Background(), http.MethodGet)); err == nil || !seen(rt2) {
		t.Errorf("failed GET: %v, seen %v", err, seen(rt2))
	}
	// No gate at all: GET goes at once.
	rt3 := &HTTP{inner: inner, max: 1 << 20, limit: &Limit{}}
	rt3.OpenGate()
	if _, err := rt3.RoundTrip(req(context.Background(), http.MethodGet)); err == nil || err.Error() != "refused" {
		t.Errorf("no gate: %v", err)
	}
}
