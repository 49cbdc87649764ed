package client

import (
	"context"
	"encoding/json"
)

// SkillsExtension is the MCP extension of server-published skills
// (skills/list, and skill:// resources read with resources/read): see
// "mcpx skills" in mcpx(1).
const SkillsExtension = "io.modelcontextprotocol/skills"

// KindSkill is the listing of a server's skills (skills/list). It is no
// catalog kind: catalog neither lists nor counts it.
const KindSkill = "skill"

func init() {
	listSpecs[KindSkill] = listSpec{"skills/list", "skills"}
}

// hasSkills reports whether capabilities declare the skills extension.
func hasSkills(ext map[string]any) bool {
	v, ok := ext[SkillsExtension]
	return ok && v != nil && v != false
}

// ListSkills lists the server's skills (skills/list, every page), each
// entry's raw JSON as sent: nothing is read. A server that does not
// declare the extension is refused before any request (exit 5). Problems
// are what ended the listing early (as for a catalog kind); an error
// reply is the error.
func (c *Conn) ListSkills(ctx context.Context) ([]json.RawMessage, []Problem, error) {
	if !c.Caps.Skills {
		return nil, nil, Unsupported(c.T.Name, "skills (the extension "+SkillsExtension+")")
	}
	items, problems, err := c.listAll(ctx, KindSkill)
	if le, ok := err.(*listError); ok {
		return nil, problems, le.Err
	}
	return items, problems, err
}

// skillsCapability is what mcpx declares of the extension: that it reads
// skills (the 2026-07-28 era sends it in every request's _meta).
func skillsCapability() map[string]any {
	return map[string]any{SkillsExtension: map[string]any{}}
}
