package client

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestLineReader(t *testing.T) {
	long := `{"a":"` + strings.Repeat("x", 200<<10) + `"}`
	in := "starting...\n{\"id\":1}\n\n   \n" + long + "\n" + strings.Repeat("y", 100<<10) + "\n{\"id\":2}"
	var skipped []string
	r := newLineReader(strings.NewReader(in), 1<<20, &limitFlag{}, func(s string) { skipped = append(skipped, s) })
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\"id\":1}\n" + long + "\n{\"id\":2}\n"; string(out) != want {
		t.Errorf("got %d bytes, want %d", len(out), len(want))
	}
	if len(skipped) != 2 || skipped[0] != "starting..." || !strings.HasSuffix(skipped[1], "...") {
		t.Errorf("skipped %q", skipped)
	}
}

func TestLineReaderLimit(t *testing.T) {
	lf := &limitFlag{}
	in := "{\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n{\"big\":\"" + strings.Repeat("z", 5000) + "\"}\n"
	r := newLineReader(strings.NewReader(in), 4096, lf, nil)
	out, err := io.ReadAll(r)
	var le *LimitError
	if !errors.As(err, &le) || lf.get() == nil {
		t.Fatalf("err %v", err)
	}
	if !strings.HasPrefix(string(out), "{\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n") || len(out) > 4096+40 {
		t.Errorf("passed %d bytes", len(out))
	}
	if !strings.Contains(le.Error(), "message ceiling of 4 KiB (4096 bytes)") {
		t.Errorf("message %q", le.Error())
	}
}

func TestChallengeParam(t *testing.T) {
	h := `Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://x/.well-known/oauth-protected-resource"`
	if got := challengeParam(h, "scope"); got != "files:read files:write" {
		t.Errorf("scope %q", got)
	}
	if got := challengeParam(h, "error"); got != "insufficient_scope" {
		t.Errorf("error %q", got)
	}
	if got := challengeParam(`Bearer realm="a,b", scope=x`, "scope"); got != "x" {
		t.Errorf("unquoted %q", got)
	}
}

func TestLineReaderChecksLongLines(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":5,"result":{"x":"` + strings.Repeat("a", 100<<10) + `"}}`
	ids := &inflight{}
	ids.add("5")
	r := newLineReader(strings.NewReader(long+"\n"), 1<<20, &limitFlag{}, nil)
	r.inflight = ids
	if out, err := io.ReadAll(r); err != nil || len(out) != len(long)+1 {
		t.Fatalf("a long valid answer: %d bytes, %v", len(out), err)
	}
	for name, line := range map[string]string{
		"unparseable": `{"jsonrpc":"2.0","id":5,"result":{"x":"` + strings.Repeat("a", 100<<10),
		"wrong id":    `{"jsonrpc":"2.0","id":6,"result":{"x":"` + strings.Repeat("a", 100<<10) + `"}}`,
	} {
		lf := &limitFlag{}
		r := newLineReader(strings.NewReader(line+"\n"), 1<<20, lf, nil)
		r.inflight = ids
		_, err := io.ReadAll(r)
		var pe *ProtocolError
		if !errors.As(err, &pe) || lf.violation() == "" {
			t.Errorf("%s: err %v", name, err)
		}
	}
}

func TestLineReaderJudges(t *testing.T) {
	ids := &inflight{}
	ids.add("1")
	in := "\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n" + // a BOM before the first line
		"{INFO} starting\n" + // a log line in braces
		"{\"level\":30,\"msg\":\"listening\"}\n" + // a JSON log line
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n"
	var skipped []string
	r := newLineReader(strings.NewReader(in), 1<<20, &limitFlag{}, func(s string) { skipped = append(skipped, s) })
	r.inflight = ids
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n"; string(out) != want {
		t.Errorf("passed %q", out)
	}
	if len(skipped) != 2 {
		t.Errorf("skipped %q", skipped)
	}
	for name, line := range map[string]string{
		"batch":      `[{"jsonrpc":"2.0","id":1,"result":{}}]`,
		"broken":     `{"jsonrpc":"2.0","id":1,"result":{`,
		"no id":      `{"jsonrpc":"2.0","result":{}}`,
		"unknown id": `{"jsonrpc":"2.0","id":7,"result":{}}`,
	} {
		r := newLineReader(strings.NewReader(line+"\n"), 1<<20, &limitFlag{}, nil)
		r.inflight = ids
		var pe *ProtocolError
		if _, err := io.ReadAll(r); !errors.As(err, &pe) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
