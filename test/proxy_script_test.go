//go:build unix

package test

// A forward HTTP proxy on loopback for the scripts (warm_ascaller.txtar):
// a warm http target reaches its server through its caller's HTTP_PROXY.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptProxy is a proxy of a script: every request, whatever its host,
// goes to the upstream; it records the tools/call POSTs and their session.
type scriptProxy struct {
	mu    sync.Mutex
	calls []string // the Mcp-Session-Id of each tools/call, in order
}

// proxies are the scripts' proxies, by script and VAR.
var proxies sync.Map

// fixture-proxy VAR UPSTREAM: start a forward HTTP proxy on loopback that
// sends every request to the URL UPSTREAM (a variable's value); VAR gets
// the proxy's URL (for HTTP_PROXY).
func cmdFixtureProxy(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: fixture-proxy VAR UPSTREAM")
	}
	up, err := url.Parse(args[1])
	ts.Check(err)
	p := &scriptProxy{}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host = up.Scheme, up.Host
			r.Out.Host = up.Host
		},
		FlushInterval: -1, // the server's event streams as they come
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var msg struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call" {
				p.mu.Lock()
				p.calls = append(p.calls, r.Header.Get("Mcp-Session-Id"))
				p.mu.Unlock()
			}
		}
		rp.ServeHTTP(w, r)
	})
	srv := serveFixture(ts, h, nil)
	proxies.Store(fixtureKey{ts, args[0]}, p)
	ts.Setenv(args[0], srv.URL)
}

// proxy-calls VAR: print what the proxy of VAR saw: "calls N sessions M"
// (tools/call POSTs, and their distinct Mcp-Session-Id).
func cmdProxyCalls(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: proxy-calls VAR")
	}
	v, ok := proxies.Load(fixtureKey{ts, args[0]})
	if !ok {
		ts.Fatalf("no proxy %s", args[0])
	}
	p := v.(*scriptProxy)
	p.mu.Lock()
	defer p.mu.Unlock()
	seen := map[string]bool{}
	for _, s := range p.calls {
		seen[s] = true
	}
	fmt.Fprintf(ts.Stdout(), "calls %d sessions %d\n", len(p.calls), len(seen))
}
