package daemon

import (
	"encoding/json"
	"testing"
	"time"
)

func TestCacheRules(t *testing.T) {
	now := time.Unix(1000, 0)
	c := NewCache(json.RawMessage(`{"capabilities":{"tools":{"listChanged":true},"prompts":{}}}`))
	c.now = func() time.Time { return now }
	p1 := json.RawMessage(`{}`)
	p2 := json.RawMessage(`{"cursor":"2"}`)
	c.Put("tools/list", p1, json.RawMessage(`{"tools":[1]}`), c.Gen("tools/list"))
	c.Put("tools/list", p2, json.RawMessage(`{"tools":[2]}`), c.Gen("tools/list"))
	c.Put("prompts/list", p1, json.RawMessage(`{"prompts":[]}`), c.Gen("prompts/list"))
	c.Put("resources/list", p1, json.RawMessage(`{"resources":[],"ttlMs":500}`), c.Gen("resources/list"))
	if r, ok := c.Get("tools/list", p2); !ok || string(r) != `{"tools":[2]}` {
		t.Fatalf("page 2: %s %v", r, ok)
	}
	now = now.Add(time.Second) // past the ttlMs
	if _, ok := c.Get("resources/list", p1); ok {
		t.Fatal("a page past its ttlMs was kept")
	}
	now = now.Add(DefaultListTTL) // past 60 s: prompts (no listChanged) go
	if _, ok := c.Get("prompts/list", p1); ok {
		t.Fatal("a listing without listChanged nor ttlMs was kept past 60 s")
	}
	if _, ok := c.Get("tools/list", p1); !ok {
		t.Fatal("a listChanged listing was dropped without a notification")
	}
	if !c.Changed("notifications/tools/list_changed") {
		t.Fatal("list_changed not recognised")
	}
	if _, ok := c.Get("tools/list", p2); ok {
		t.Fatal("list_changed kept a page")
	}
	// A listing sent before a list_changed and answered after it may be
	// the old one: it is not kept.
	gen := c.Gen("tools/list")
	c.Changed("notifications/tools/list_changed")
	c.Put("tools/list", p1, json.RawMessage(`{"tools":[1]}`), gen)
	if _, ok := c.Get("tools/list", p1); ok {
		t.Fatal("a listing in flight across a list_changed was kept")
	}
	c.Put("tools/list", p1, json.RawMessage(`{"tools":[2]}`), c.Gen("tools/list"))
	if r, ok := c.Get("tools/list", p1); !ok || string(r) != `{"tools":[2]}` {
		t.Fatalf("a listing sent after the list_changed: %s %v", r, ok)
	}
	if c.Changed("notifications/message") || !Cacheable("resources/templates/list") || Cacheable("tools/call") {
		t.Fatal("classification")
	}
}

func TestSpecKey(t *testing.T) {
	a := &Spec{Name: "s", Transport: "stdio", Command: "x", Args: []string{"a b"}, Env: []string{"A=1", "B=2"}}
	b := &Spec{Name: "s", Transport: "stdio", Command: "x", Args: []string{"a", "b"}, Env: []string{"B=2", "A=1"}}
	if a.Key() == b.Key() {
		t.Fatal("args split differently hash the same")
	}
	c := *a
	c.Env = []string{"B=2", "A=1"}
	if a.Key() != c.Key() {
		t.Fatal("env order changed the key")
	}
	for _, change := range []func(s *Spec){
		func(s *Spec) { s.Env = append(s.Env, "TOKEN=x") },
		func(s *Spec) { s.Dir = "/tmp" },
		func(s *Spec) { s.Identity = []string{"protocol 2025-06-18"} },
		func(s *Spec) { s.Command = "y" },
	} {
		d := *a
		d.Args, d.Env = append([]string(nil), a.Args...), append([]string(nil), a.Env...)
		change(&d)
		if d.Key() == a.Key() {
			t.Fatalf("a change kept the key: %+v", d)
		}
	}
}

// A forwarded message gets its own fields: the original keeps its value.
func TestWithField(t *testing.T) {
	orig := map[string]any{"progressToken": 7, "progress": 1}
	got := withField(orig, "progressToken", "d-1")
	if got["progressToken"] != "d-1" || got["progress"] != 1 || len(got) != 2 {
		t.Errorf("withField = %v", got)
	}
	if orig["progressToken"] != 7 {
		t.Errorf("the original changed: %v", orig)
	}
	if got := withField(nil, "requestId", 3); len(got) != 1 || got["requestId"] != 3 {
		t.Errorf("withField(nil) = %v", got)
	}
}

// A page is reused only in the authorization context it was listed in,
// unless its cacheScope is "public" (SEP-2549).
func TestCacheScope(t *testing.T) {
	c := NewCache(nil)
	p := json.RawMessage(`{}`)
	alice, bob := AuthContext("token-a"), AuthContext("token-b")
	if alice == bob || alice == "" || AuthContext("") != "" {
		t.Fatalf("AuthContext: %q, %q, %q", alice, bob, AuthContext(""))
	}
	c.PutIn(alice, "tools/list", p, json.RawMessage(`{"tools":["a"],"ttlMs":60000,"cacheScope":"private"}`), c.Gen("tools/list"))
	c.PutIn(alice, "prompts/list", p, json.RawMessage(`{"prompts":["a"],"ttlMs":60000}`), c.Gen("prompts/list"))
	c.PutIn(alice, "resources/list", p, json.RawMessage(`{"resources":["a"],"ttlMs":60000,"cacheScope":"public"}`), c.Gen("resources/list"))
	for _, m := range []string{"tools/list", "prompts/list", "resources/list"} {
		if _, ok := c.GetIn(alice, m, p); !ok {
			t.Errorf("%s: the page is not reused in the context it was listed in", m)
		}
	}
	for _, who := range []string{bob, ""} {
		if r, ok := c.GetIn(who, "tools/list", p); ok {
			t.Errorf("a private page was reused in another context: %s", r)
		}
		if r, ok := c.GetIn(who, "prompts/list", p); ok {
			t.Errorf("a page with no cacheScope was reused in another context: %s", r)
		}
		if _, ok := c.GetIn(who, "resources/list", p); !ok {
			t.Errorf("a public page was not reused in another context")
		}
	}
	c.PutIn(bob, "tools/list", p, json.RawMessage(`{"tools":["b"],"ttlMs":60000,"cacheScope":"private"}`), c.Gen("tools/list"))
	if r, _ := c.GetIn(alice, "tools/list", p); string(r) != `{"tools":["a"],"ttlMs":60000,"cacheScope":"private"}` {
		t.Errorf("alice's page: %s", r)
	}
	if r, _ := c.GetIn(bob, "tools/list", p); string(r) != `{"tools":["b"],"ttlMs":60000,"cacheScope":"private"}` {
		t.Errorf("bob's page: %s", r)
	}
	c.Changed("notifications/tools/list_changed")
	if _, ok := c.GetIn(bob, "tools/list", p); ok {
		t.Error("list_changed left a context's page")
	}
}
