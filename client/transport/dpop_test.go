package transport

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// fakeProver numbers its proofs and keeps the nonces it was given.
type fakeProver struct {
	n      int
	nonces []string
}

func (p *fakeProver) Proof(method, url, token string) (string, error) {
	p.n++
	nonce := ""
	if len(p.nonces) > 0 {
		nonce = p.nonces[len(p.nonces)-1]
	}
	return fmt.Sprintf("proof-%d %s %s %s nonce=%s", p.n, method, url, token, nonce), nil
}

func (p *fakeProver) SetNonce(url, nonce string) bool {
	if nonce == "" || slices.Contains(p.nonces, nonce) {
		return false
	}
	p.nonces = append(p.nonces, nonce)
	return true
}

// A DPoP token: the DPoP scheme and a fresh proof on each request; a 401
// use_dpop_nonce with a new nonce is retried once, the body sent again.
func TestHTTPDPoP(t *testing.T) {
	type sent struct{ auth, proof, body string }
	var got []sent
	demand := "rs-nonce"
	inner := roundTrip(func(r *http.Request) (*http.Response, error) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, sent{r.Header.Get("Authorization"), r.Header.Get("DPoP"), string(b)})
		h := http.Header{}
		if !strings.HasSuffix(r.Header.Get("DPoP"), "nonce="+demand) {
			h.Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", resource_metadata="https://rs.example/prm"`)
			h.Set("DPoP-Nonce", demand)
			return &http.Response{StatusCode: 401, Header: h, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
		}
		return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
	})
	p := &fakeProver{}
	lt := NewHTTP(HTTPOptions{URL: "https://rs.example/mcp", Inner: inner, MessageCeiling: 1 << 20,
		Bearer: func() string { return "at-1" }, DPoP: func() Prover { return p }})
	post := func() int {
		req, _ := http.NewRequest(http.MethodPost, "https://rs.example/mcp?x=1", strings.NewReader(`{"id":1}`))
		resp, err := lt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := post(); st != 200 {
		t.Fatalf("status %d", st)
	}
	want := []sent{
		{"DPoP at-1", "proof-1 POST https://rs.example/mcp?x=1 at-1 nonce=", `{"id":1}`},
		{"DPoP at-1", "proof-2 POST https://rs.example/mcp?x=1 at-1 nonce=rs-nonce", `{"id":1}`},
	}
	if !slices.Equal(got, want) {
		t.Errorf("sent %q\nwant %q", got, want)
	}
	// The nonce is kept: the next request pays no extra round trip.
	got = nil
	if st := post(); st != 200 || len(got) != 1 {
		t.Errorf("status %d, sent %q", st, got)
	}
	// The server changes its nonce: one retry with the new one.
	got, demand = nil, "rs-nonce-2"
	if st := post(); st != 200 || len(got) != 2 {
		t.Errorf("a new nonce: status %d, sent %d requests", st, len(got))
	}
	got = nil
	if st := post(); st != 200 || len(got) != 1 {
		t.Errorf("status %d, sent %d", st, len(got))
	}
	// A nonce it gave before is not new: no second retry (no loop).
	got, demand = nil, "rs-nonce"
	if st := post(); st != 401 || len(got) != 1 {
		t.Errorf("an old nonce: status %d, sent %d requests, want one 401", st, len(got))
	}
	// Without a prover: Bearer, no proof.
	lt.dpop = func() Prover { return nil }
	got, demand = nil, ""
	post()
	if len(got) != 1 || got[0].auth != "Bearer at-1" || got[0].proof != "" {
		t.Errorf("bearer: sent %q", got)
	}
}
