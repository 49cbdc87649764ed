package config

import (
	"encoding/json"
	"testing"
)

func TestCompileGlob(t *testing.T) {
	cases := []struct {
		glob  string
		match []string
		miss  []string
	}{
		{"delete_*", []string{"delete_", "delete_repo", "delete_a/b"}, []string{"undelete_x", "delete"}},
		{"*", []string{"", "x", "a/b"}, nil},
		{"get_?", []string{"get_a", "get_/"}, []string{"get_", "get_ab"}},
		{"[ab]x", []string{"ax", "bx"}, []string{"cx", "x"}},
		{"[!ab]x", []string{"cx", "/x"}, []string{"ax", "bx"}},
		{"[^a-c]*", []string{"d", "z9"}, []string{"a", "cz"}},
		{"[a-c]*", []string{"a", "b1", "c"}, []string{"d", "-"}},
		{"[]]x", []string{"]x"}, []string{"x"}},
		{"[a-]", []string{"a", "-"}, []string{"b"}},
		{`admin\*`, []string{"admin*"}, []string{"admin", "adminx"}},
		{"a.b", []string{"a.b"}, []string{"axb"}},
		{"a+(b)|c$", []string{"a+(b)|c$"}, []string{"aab"}},
		{"écrire_*", []string{"écrire_x"}, []string{"ecrire_x"}},
	}
	for _, c := range cases {
		re, err := CompileGlob(c.glob)
		if err != nil {
			t.Fatalf("%q: %v", c.glob, err)
		}
		for _, m := range c.match {
			if !re.MatchString(m) {
				t.Errorf("%q should match %q", c.glob, m)
			}
		}
		for _, m := range c.miss {
			if re.MatchString(m) {
				t.Errorf("%q should not match %q", c.glob, m)
			}
		}
	}
	for _, bad := range []string{"[abc", `x\`, "[", "[!"} {
		if _, err := CompileGlob(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestToolRules(t *testing.T) {
	r, msg := parseToolRules(json.RawMessage(`{"allow":["list_*","get_*"],"deny":["get_secret*"]}`))
	if msg != "" {
		t.Fatal(msg)
	}
	for name, want := range map[string]Rule{
		"list_items": {}, "get_item": {},
		"get_secret": {Key: "deny", Glob: "get_secret*"},
		"delete":     {Key: "allow"},
	} {
		got, hidden := r.Hidden(name)
		if got != want || hidden != (want.Key != "") {
			t.Errorf("%s: got %+v %v, want %+v", name, got, hidden, want)
		}
	}
	// "allow": [] allows nothing; no "allow" allows what deny does not hide.
	none, _ := parseToolRules(json.RawMessage(`{"allow":[]}`))
	if _, hidden := none.Hidden("x"); !hidden {
		t.Error(`"allow": [] should hide every tool`)
	}
	denyOnly, _ := parseToolRules(json.RawMessage(`{"deny":["x"]}`))
	if _, hidden := denyOnly.Hidden("y"); hidden {
		t.Error("a deny-only rule hid a tool it does not name")
	}
	var nilRules *ToolRules
	if _, hidden := nilRules.Hidden("x"); hidden {
		t.Error("nil rules hid a tool")
	}
	for raw, want := range map[string]string{
		`null`:                  "",
		`{"deny":"x"}`:          `"tools" must be an object {"allow": [GLOB...], "deny": [GLOB...]} of arrays of strings`,
		`["x"]`:                 `"tools" must be an object {"allow": [GLOB...], "deny": [GLOB...]} of arrays of strings`,
		`{"allow":["ok","[x"]}`: `"tools".allow[1] "[x": a [ opens a class that no ] closes`,
	} {
		if _, msg := parseToolRules(json.RawMessage(raw)); msg != want {
			t.Errorf("%s: got %q, want %q", raw, msg, want)
		}
	}
}

func TestToolRulesFromFile(t *testing.T) {
	s := parseEntry("x", json.RawMessage(`{"command":"c","tools":{"deny":["[z"]}}`))
	if s.Problem() == nil || s.Problem().Error() != `server "x": "tools".deny[0] "[z": a [ opens a class that no ] closes` {
		t.Fatalf("problem: %v", s.Problem())
	}
	s = parseEntry("x", json.RawMessage(`{"command":"c","readOnly":true,"tools":{"deny":["a*"]}}`))
	if s.Problem() != nil || !s.ReadOnly || s.Tools == nil || s.Tools.Deny[0] != "a*" {
		t.Fatalf("entry: %+v", s)
	}
}
