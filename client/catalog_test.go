package client

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseItem(t *testing.T) {
	for _, tc := range []struct {
		kind, raw string
		ok        bool
		id        string
		problems  []string
	}{
		{KindTool, `{"name":"t","description":"d","inputSchema":{"type":["object","null"]}}`, true, "t", nil},
		{KindTool, `{"description":"no name"}`, false, "", []string{`tool #0: has no "name"; skipped`}},
		{KindTool, `{"name":7}`, false, "", []string{`tool #0: has an invalid "name"; skipped`}},
		{KindTool, `42`, false, "", []string{"tool #0: is not a JSON object; skipped"}},
		{KindTool, `{"name":"t","title":7,"annotations":[]}`, true, "t", []string{`"title" is not a string`, `"annotations" is not an object`}},
		{KindResource, `{"uri":"x://a","size":1.5}`, true, "x://a", []string{`"size" 1.5 is not a whole number`}},
		{KindResource, `{"uri":"x://a","size":"12"}`, true, "x://a", []string{`"size" "12" is not a whole number`}},
		{KindResource, `{"uri":"x://a","size":12,"name":"a","mimeType":"text/plain"}`, true, "x://a", nil},
		{KindTemplate, `{"uriTemplate":"x://{a","name":"broken"}`, true, "x://{a", nil},
		{KindPrompt, `{"name":"p","arguments":[{"name":"x","required":"yes"},{"name":"y","required":true},{"description":"nameless"}]}`, true, "p",
			[]string{`argument #0 "x": required is not a boolean; taken as false`, "argument #2 has no name"}},
		{KindPrompt, `{"name":"p","arguments":{"x":1}}`, true, "p", []string{`"arguments" is not an array`}},
	} {
		it, problems, ok := parseItem("s", tc.kind, 0, json.RawMessage(tc.raw), false)
		if ok != tc.ok || (ok && it.ID != tc.id) {
			t.Errorf("%s %s: ok=%v item=%+v", tc.kind, tc.raw, ok, it)
		}
		if len(problems) != len(tc.problems) {
			t.Errorf("%s %s: problems %v, want %v", tc.kind, tc.raw, problems, tc.problems)
			continue
		}
		for i, p := range problems {
			if !strings.Contains(p.Message, tc.problems[i]) || p.Code != "bad_item" || p.Kind != tc.kind {
				t.Errorf("%s %s: problem %+v, want %q", tc.kind, tc.raw, p, tc.problems[i])
			}
		}
	}
	it, _, _ := parseItem("s", KindResource, 0, json.RawMessage(`{"uri":"x://a","size":12}`), false)
	if it.Size == nil || it.Size.String() != "12" || it.URI == nil || *it.URI != "x://a" || it.Key() != "resource:x://a" {
		t.Errorf("resource fields: %+v", it)
	}
	it, _, _ = parseItem("s", KindPrompt, 0, json.RawMessage(`{"name":"p"}`), false)
	if it.Arguments == nil || len(it.Arguments) != 0 {
		t.Errorf("a prompt without arguments has an empty list: %#v", it.Arguments)
	}
	it, _, _ = parseItem("s", KindTool, 0, json.RawMessage(`{"name":"t","inputSchema":{"$schema":"x","anyOf":[]}}`), false)
	if string(it.InputSchema) != `{"$schema":"x","anyOf":[]}` || it.Arguments != nil {
		t.Errorf("tool schema kept as sent: %s", it.InputSchema)
	}
}
