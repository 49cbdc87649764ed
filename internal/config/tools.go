package config

// Which tools of a server mcpx may show and call (see HEADLESS RUNS in
// mcpx(1)): a server entry's "tools": {"allow": [GLOB...], "deny":
// [GLOB...]} and "readOnly". The rules are read here; commands applies
// them.

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// ToolRules are a server entry's "tools": shell globs on tool names. A
// tool is shown and may be called when it matches no deny glob and, when
// "allow" is given, at least one allow glob ("allow": [] allows none).
// Deny wins.
type ToolRules struct {
	Allow    []string // the globs as written
	Deny     []string
	HasAllow bool   // "allow" was given (an empty list allows nothing)
	File     string // the file that defined them
	allow    []*regexp.Regexp
	deny     []*regexp.Regexp
}

// Rule is the rule that decides about one tool: Key is "allow" or
// "deny", Glob the deny glob that matched ("" for a tool no allow glob
// matched).
type Rule struct {
	Key  string
	Glob string
}

// Hidden reports whether the rules hide the tool name, and by which rule.
// Nil rules hide nothing.
func (r *ToolRules) Hidden(name string) (Rule, bool) {
	if r == nil {
		return Rule{}, false
	}
	for i, re := range r.deny {
		if re.MatchString(name) {
			return Rule{Key: "deny", Glob: r.Deny[i]}, true
		}
	}
	if !r.HasAllow {
		return Rule{}, false
	}
	for _, re := range r.allow {
		if re.MatchString(name) {
			return Rule{}, false
		}
	}
	return Rule{Key: "allow"}, true
}

// rawTools is the JSON of "tools".
type rawTools struct {
	Allow *[]string `json:"allow"`
	Deny  []string  `json:"deny"`
}

// parseToolRules reads "tools" (raw, when given); a malformed rule is the
// message of the entry's error.
func parseToolRules(raw json.RawMessage) (*ToolRules, string) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, ""
	}
	var rt rawTools
	if err := json.Unmarshal(raw, &rt); err != nil {
		return nil, `"tools" must be an object {"allow": [GLOB...], "deny": [GLOB...]} of arrays of strings`
	}
	r := &ToolRules{Deny: rt.Deny}
	if rt.Allow != nil {
		r.Allow, r.HasAllow = *rt.Allow, true
	}
	for _, list := range []struct {
		key   string
		globs []string
		res   *[]*regexp.Regexp
	}{{"allow", r.Allow, &r.allow}, {"deny", r.Deny, &r.deny}} {
		for i, g := range list.globs {
			re, err := CompileGlob(g)
			if err != nil {
				return nil, fmt.Sprintf("\"tools\".%s[%d] %q: %v", list.key, i, g, err)
			}
			*list.res = append(*list.res, re)
		}
	}
	return r, ""
}

// CompileGlob compiles a shell glob on tool names: * matches any run of
// characters, ? any one, [abc], [a-z] and [!abc] a class, and \ quotes
// the character after it. Unlike a path glob, * and ? match "/" too.
func CompileGlob(glob string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString(`^`)
	rs := []rune(glob)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '\\':
			if i+1 == len(rs) {
				return nil, fmt.Errorf("a trailing \\ quotes nothing")
			}
			i++
			b.WriteString(regexp.QuoteMeta(string(rs[i])))
		case '[':
			end, class, err := globClass(rs, i)
			if err != nil {
				return nil, err
			}
			b.WriteString(class)
			i = end
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`$`)
	return regexp.Compile(b.String())
}

// globClass reads the class that starts at rs[start] ('['): it returns
// the index of its ']' and the class as a regular expression.
func globClass(rs []rune, start int) (int, string, error) {
	var b strings.Builder
	b.WriteString(`[`)
	i := start + 1
	if i < len(rs) && (rs[i] == '!' || rs[i] == '^') {
		b.WriteString(`^`)
		i++
	}
	first := i
	for ; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == ']' && i > first:
			b.WriteString(`]`)
			return i, b.String(), nil
		case c == '\\' && i+1 < len(rs):
			i++
			b.WriteString(regexp.QuoteMeta(string(rs[i])))
		case c == '-' && i > first && i+1 < len(rs) && rs[i+1] != ']':
			b.WriteString(`-`)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return 0, "", fmt.Errorf("a [ opens a class that no ] closes")
}

// ParseToolRules reads the JSON of a "tools" entry (nil for none).
func ParseToolRules(raw json.RawMessage) (*ToolRules, error) {
	r, msg := parseToolRules(raw)
	if msg != "" {
		return nil, Invalid("", msg)
	}
	return r, nil
}
