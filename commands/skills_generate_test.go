package commands

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpx-cli/mcpx/client"
)

// Ten tools with two required keys each, before their descriptions, fit
// in 1.5 KB (see SKILLS in mcpx(1)); the document does not depend on the
// order the server listed them in.
func TestSkillBudget(t *testing.T) {
	a, _ := testApp()
	var items, reversed []*client.Item
	for i := range 10 {
		schema := fmt.Sprintf(`{"type":"object","properties":{"query":{"type":"string"},"limit%d":{"type":"integer"},"verbose":{"type":"boolean"}},"required":["query","limit%d"]}`, i, i)
		items = append(items, &client.Item{Kind: "tool", ID: fmt.Sprintf("search_tool_%d", i), InputSchema: json.RawMessage(schema)})
	}
	for i := range items {
		reversed = append(reversed, items[len(items)-1-i])
	}
	doc := a.skillDoc("my-server", "my-server", items)
	if n := len(doc); n > 1536 {
		t.Fatalf("SKILL.md of 10 tools is %d bytes, over 1.5 KB:\n%s", n, doc)
	}
	if again := a.skillDoc("my-server", "my-server", reversed); again != doc {
		t.Fatalf("the order of the listing changed the document:\n%s\n---\n%s", doc, again)
	}
	if !strings.Contains(doc, "- `mcpx invoke my-server search_tool_3 limit3='<integer>' query='<string>'` (optional: verbose)\n") {
		t.Fatalf("no invoke form for search_tool_3:\n%s", doc)
	}
}

// Names of skills: lower case, digits and hyphens, at most 64 bytes.
func TestSkillName(t *testing.T) {
	for in, want := range map[string]string{
		"demo":                        "mcpx-demo",
		"My Server@user":              "mcpx-my-server-user",
		"https://api.example.com/mcp": "mcpx-https-api-example-com-mcp",
		"!!!":                         "mcpx-server",
		strings.Repeat("a", 80):       "mcpx-" + strings.Repeat("a", 59),
	} {
		if got := skillName(in); got != want {
			t.Errorf("skillName(%q) = %q, want %q", in, got, want)
		}
	}
}
