package uritemplate

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// cannotExpand says why a template cannot be expanded from the pairs given: a
// usage *fail.Error whose message teaches the fix, its Name the offending
// {expression} (when one is; What "expression") and Known the variables
// concerned (missing, unknown, or all of the template's).
func cannotExpand(expression string, variables []string, msg string) *fail.Error {
	return &fail.Error{Code: fail.Usage, What: "expression", Name: expression, Known: variables, Message: msg}
}

// levelOne ends every refusal: what mcpx does expand.
const levelOne = "mcpx expands level 1 only: {var} replaced by the percent-encoded value"

// operators are the RFC 6570 expression operators mcpx refuses, with what
// they are called and the level that brings them; level 0 marks the
// operators the RFC reserves for future extensions.
var operators = map[byte]struct {
	feature string
	level   int
}{
	'+': {"a reserved expansion", 2},
	'#': {"a fragment expansion", 2},
	'.': {"a label expansion with dot prefix", 3},
	'/': {"a path segment expansion", 3},
	';': {"a path-style parameter expansion", 3},
	'?': {"a form-style query expansion", 3},
	'&': {"a form-style query continuation", 3},
	'=': {"", 0},
	',': {"", 0},
	'!': {"", 0},
	'@': {"", 0},
	'|': {"", 0},
}

// Expand expands a level-1 URI template from name=value pairs.
//
// Each {name} is replaced by its value, percent-encoded: the unreserved
// characters A-Z a-z 0-9 - . _ ~ are kept and every other byte of the value
// becomes %XX (uppercase hex). Text outside expressions is copied unchanged.
// A variable may appear several times.
//
// Every failure is a refusal (see cannotExpand) whose message teaches the fix. In this order:
// an unbalanced brace, an empty expression, an expression using a feature
// beyond level 1 (an operator, a modifier, several variables) and an
// invalid variable name are reported in template order; then pairs for a
// URI with no expression at all, no pairs for a template, pairs naming
// variables the template does not have (all of them, sorted), and
// variables left without a value (all of them, in template order).
func Expand(tpl string, vars map[string]string) (string, error) {
	exprs, err := scan(tpl)
	for _, e := range exprs { // they all come before the brace err is about
		if err := checkLevelOne(e); err != nil {
			return "", err
		}
	}
	if err != nil {
		return "", err
	}
	if len(exprs) == 0 {
		if len(vars) > 0 {
			given := slices.Sorted(maps.Keys(vars))
			return "", cannotExpand("", given, fmt.Sprintf(
				"the URI %q is not a template, so it takes no VAR=VALUE pairs (given: %s)",
				tpl, quoteList(given)))
		}
		return tpl, nil
	}
	if err := checkPairs(tpl, exprs, vars); err != nil {
		return "", err
	}
	var b strings.Builder
	last := 0
	for _, e := range exprs {
		b.WriteString(tpl[last:e.at])
		percentEncode(&b, vars[e.body()])
		last = e.at + len(e.text)
	}
	b.WriteString(tpl[last:])
	return b.String(), nil
}

// checkLevelOne refuses an expression that is not a level-1 {name}.
func checkLevelOne(e expression) error {
	body := e.body()
	if body == "" {
		return cannotExpand(e.text, nil, fmt.Sprintf(
			`the template has an empty expression "{}" at byte %d: a variable is written {name}`, e.at))
	}
	refuse := func(what string) error {
		return cannotExpand(e.text, e.vars, fmt.Sprintf("the template uses %q, %s; %s", e.text, what, levelOne))
	}
	if op, ok := operators[body[0]]; ok {
		if op.level == 0 {
			return refuse(fmt.Sprintf("whose operator %q RFC 6570 reserves for future extensions", body[:1]))
		}
		return refuse(fmt.Sprintf("%s (RFC 6570 level %d)", op.feature, op.level))
	}
	switch {
	case strings.Contains(body, ","):
		return refuse("an expression with several variables (RFC 6570 level 3)")
	case strings.Contains(body, ":"):
		return refuse(`a prefix modifier ":N" (RFC 6570 level 4)`)
	case strings.HasSuffix(body, "*"):
		return refuse(`an explode modifier "*" (RFC 6570 level 4)`)
	}
	if !validVarname(body) {
		return cannotExpand(e.text, nil, fmt.Sprintf(
			`the template has an invalid variable name in %q at byte %d: a name is letters, digits, "_" and %%XX escapes, with single dots between`,
			e.text, e.at))
	}
	return nil
}

// checkPairs checks the pairs against the template's variables (level-1
// expressions, each a name): some are given, none is unknown, none is
// missing.
func checkPairs(tpl string, exprs []expression, vars map[string]string) error {
	var names []string
	has := map[string]bool{}
	for _, e := range exprs {
		if n := e.body(); !has[n] {
			has[n] = true
			names = append(names, n)
		}
	}
	if len(vars) == 0 {
		pairs := make([]string, len(names))
		for i, n := range names {
			pairs[i] = n + "=VALUE"
		}
		return cannotExpand("", names, fmt.Sprintf(
			"the URI %q is a template with %s %s: give %s as %s (%s)",
			tpl, text.Plural(len(names), "the variable", "variables"), strings.Join(names, ", "),
			text.Plural(len(names), "its value", "their values"),
			text.Plural(len(names), "a VAR=VALUE pair", "VAR=VALUE pairs"), strings.Join(pairs, " ")))
	}
	var unknown []string
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		if !has[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		return cannotExpand("", unknown, fmt.Sprintf(
			"unknown template %s %s; %s %q %s %s",
			text.Plural(len(unknown), "variable", "variables"), quoteList(unknown),
			text.Plural(len(names), "the only variable of", "the variables of"), tpl,
			text.Plural(len(names), "is", "are"), strings.Join(names, ", ")))
	}
	var missing, pairs []string
	for _, n := range names {
		if _, ok := vars[n]; !ok {
			missing = append(missing, n)
			pairs = append(pairs, n+"=VALUE")
		}
	}
	if len(missing) > 0 {
		return cannotExpand("", missing, fmt.Sprintf(
			"no value for the template %s %s of %q: give %s as %s",
			text.Plural(len(missing), "variable", "variables"), strings.Join(missing, ", "), tpl,
			text.Plural(len(missing), "it", "them"), strings.Join(pairs, " ")))
	}
	return nil
}

// percentEncode writes v with every byte but the unreserved characters
// A-Z a-z 0-9 - . _ ~ written as %XX. (The library's own expansion
// encodes code points, not UTF-8 bytes: "é" would become %E9, and a
// value that is not UTF-8 an error.)
func percentEncode(b *strings.Builder, v string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
}

// braceError is an unbalanced brace at byte at of tpl; format shows at
// and the rest of the template from there.
func braceError(format string, at int, tpl string) *fail.Error {
	return cannotExpand("", nil, fmt.Sprintf(format, at, quoteRest(tpl[at:])))
}

// quoteRest quotes the rest of a template from a brace, shortened to at
// most 40 bytes on a character boundary (then "...").
func quoteRest(s string) string {
	head, cut := text.FirstBytes(s, 40)
	if cut {
		return strconv.Quote(head) + "..."
	}
	return strconv.Quote(head)
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
