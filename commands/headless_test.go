package commands

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
)

func TestReadOnlyTool(t *testing.T) {
	for ann, want := range map[string]bool{
		`{"readOnlyHint":true}`:                          true,
		`{"readOnlyHint":true,"destructiveHint":false}`:  true,
		`{"readOnlyHint":true,"destructiveHint":true}`:   false,
		`{"readOnlyHint":false,"destructiveHint":false}`: false,
		`{"readOnlyHint":"true"}`:                        false,
		`{"destructiveHint":false}`:                      false,
		`{}`:                                             false,
		``:                                               false,
		`[true]`:                                         false,
		`{"readOnlyHint":tru`:                            false,
	} {
		if got := readOnlyTool(json.RawMessage(ann)); got != want {
			t.Errorf("readOnlyTool(%s) = %v, want %v", ann, got, want)
		}
	}
}

// TestGate: the rules first (whatever the listing said), then read-only by
// the annotations; a tool whose listing did not complete is not known to
// be read-only.
func TestGate(t *testing.T) {
	a, _ := testApp()
	rules, err := parseRulesForTest(`{"deny":["rm_*"]}`)
	if err != nil {
		t.Fatal(err)
	}
	tg := &config.Target{Name: "s", Tools: rules}
	ro := &client.Item{Annotations: json.RawMessage(`{"readOnlyHint":true}`)}
	rw := &client.Item{Annotations: json.RawMessage(`{"readOnlyHint":false}`)}
	notFound := errors.New("not found")
	if err := a.gate(tg, "rm_x", nil, notFound); !fail.Is(err, fail.Denied) || classify(err, nil).Details["glob"] != "rm_*" {
		t.Errorf("hidden and not listed: %v", err)
	}
	if err := a.gate(tg, "ls", nil, notFound); err != nil {
		t.Errorf("a lookup error stands: %v", err)
	}
	if err := a.gate(tg, "ls", rw, nil); err != nil {
		t.Errorf("not read-only, no --read-only: %v", err)
	}
	a.g.readOnly = true
	if err := a.gate(tg, "ls", ro, nil); err != nil {
		t.Errorf("read-only tool: %v", err)
	}
	if err := a.gate(tg, "ls", rw, nil); classify(err, nil).Details["read_only"] != "--read-only" {
		t.Errorf("read-write tool: %v", err)
	}
	if err := a.gate(tg, "ls", nil, nil); !fail.Is(err, fail.Denied) || !strings.Contains(err.Error(), "listing did not complete") {
		t.Errorf("unlisted tool: %v", err)
	} else if want := `server "s": --read-only: tool "ls" is not read-only by its annotations (the tool listing did not complete, so its annotations are not known); mcpx does not call it`; err.Error() != want {
		t.Errorf("message:\n got %s\nwant %s", err, want)
	}
	a.g.readOnly = false
	tg.ReadOnly, tg.Source = true, "/c.json"
	err = a.gate(tg, "ls", rw, nil)
	if classify(err, nil).Details["read_only"] != `"readOnly": true of server "s" in /c.json` {
		t.Errorf("entry's readOnly: %v", err)
	}
	if code := classify(err, nil); code.ExitCode != exitDenied || code.Code != "denied" {
		t.Errorf("classify: %+v", code)
	}
}

func parseRulesForTest(raw string) (*config.ToolRules, error) {
	return config.ParseToolRules(json.RawMessage(raw))
}

// TestAskFormAnswered: on a terminal, the fields the command line
// answered are not asked; the others are.
func TestAskFormAnswered(t *testing.T) {
	a, stderr := elApp(strings.NewReader("y\nalice\n"), true)
	a.g.answerPairs = []string{"password=hunter22"}
	if err := a.loadAnswers(); err != nil {
		t.Fatal(err)
	}
	ans := elAsk(t, a, client.Elicitation{Mode: "form", Message: "M",
		Schema: raw(`{"properties":{"username":{"type":"string"},"password":{"type":"string","minLength":8}},"required":["username","password"]}`)})
	if ans.Action != "accept" || string(ans.Content) != `{"username":"alice","password":"hunter22"}` {
		t.Errorf("answer %s %s", ans.Action, ans.Content)
	}
	want := "mcpx: server \"s\" asks: M\nanswer? [y]es / [n]o, decline / [c]ancel: username [string]: " +
		"mcpx: note: server \"s\": elicitation accepted with {\"username\":\"alice\",\"password\":\"***\"}\n"
	if stderr.String() != want {
		t.Errorf("stderr\n got %q\nwant %q", stderr, want)
	}
}

// TestHeadlessFail: --on-input fail ends the operation with a
// needs_input failure naming the fields, and answers cancel; a URL request too.
func TestHeadlessFail(t *testing.T) {
	a, _ := elApp(strings.NewReader(""), false)
	a.g.onInput = onInputFail
	ans := elAsk(t, a, client.Elicitation{Mode: "form", Message: "M",
		Schema: raw(`{"properties":{"a":{"type":"string"},"b":{"type":"string","default":"x"}},"required":["a","b"]}`)})
	ne, ok := fail.As(a.opFailed.get(), fail.NeedsInput)
	if ans.Action != "cancel" || !ans.Stop || !ok ||
		strings.Join(ne.Details["fields"].([]string), ",") != "a,b" || strings.Join(ne.Details["missing"].([]string), ",") != "a" {
		t.Fatalf("answer %+v, error %v", ans, a.opFailed.get())
	}
	if r := classify(ne, nil); r.ExitCode != exitNeedsInput || r.Code != "needs_input" {
		t.Errorf("classify: %+v", r)
	}
	a, _ = elApp(strings.NewReader(""), false)
	a.g.onInput = onInputFail
	ans = elAsk(t, a, client.Elicitation{Mode: "url", Message: "Connect", URL: "https://x.example/c", ID: "1"})
	if ans.Action != "cancel" || !ans.Stop || !fail.Is(a.opFailed.get(), fail.NeedsInput) || classify(a.opFailed.get(), nil).Details["url"] != "https://x.example/c" {
		t.Fatalf("url: answer %+v, error %v", ans, a.opFailed.get())
	}
}
