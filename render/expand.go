package render

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// tplLevelOne ends every refusal: what mcpx does expand.
const tplLevelOne = "mcpx expands level 1 only: {var} replaced by the percent-encoded value"

// tplOperators are the RFC 6570 expression tplOperators mcpx refuses, with what
// they are called and the level that brings them; level 0 marks the
// tplOperators the RFC reserves for future extensions.
var tplOperators = map[byte]struct {
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
// Every failure is a *TemplateError whose message teaches the fix. In this
// order: an unbalanced brace, an empty expression, an expression using a
// feature beyond level 1 (an operator, a modifier, several variables) and an
// invalid variable name are reported in template order; then pairs for a
// URI with no expression at all, no pairs for a template, pairs naming
// variables the template does not have (all of them, sorted), and
// variables left without a value (all of them, in template order).
func Expand(tpl string, vars map[string]string) (string, error) {
	type expr struct {
		start, end int // tpl[start:end] is "{name}"
		name       string
	}
	var exprs []expr
	for i := 0; i < len(tpl); {
		j := strings.IndexAny(tpl[i:], "{}")
		if j < 0 {
			break
		}
		i += j
		if tpl[i] == '}' {
			return "", &TemplateError{Msg: fmt.Sprintf(
				`the template has a "}" at byte %d with no "{" before it: %s`, i, tplQuoteRest(tpl[i:]))}
		}
		k := strings.IndexAny(tpl[i+1:], "{}")
		if k < 0 {
			return "", &TemplateError{Msg: fmt.Sprintf(
				`the template has a "{" at byte %d with no "}" to close it: %s`, i, tplQuoteRest(tpl[i:]))}
		}
		end := i + 1 + k + 1
		if tpl[end-1] == '{' {
			return "", &TemplateError{Msg: fmt.Sprintf(
				`the template has a "{" at byte %d that is not closed before the next "{": %s`, i, tplQuoteRest(tpl[i:]))}
		}
		if err := tplCheckExpression(tpl[i:end], i); err != nil {
			return "", err
		}
		exprs = append(exprs, expr{i, end, tpl[i+1 : end-1]})
		i = end
	}

	if len(exprs) == 0 {
		if len(vars) > 0 {
			given := tplSortedKeys(vars)
			return "", &TemplateError{Variables: given, Msg: fmt.Sprintf(
				"the URI %q is not a template, so it takes no VAR=VALUE pairs (given: %s)",
				tpl, tplQuoteList(given))}
		}
		return tpl, nil
	}

	var names []string
	has := map[string]bool{}
	for _, e := range exprs {
		if !has[e.name] {
			has[e.name] = true
			names = append(names, e.name)
		}
	}
	if len(vars) == 0 {
		pairs := make([]string, len(names))
		for i, n := range names {
			pairs[i] = n + "=VALUE"
		}
		return "", &TemplateError{Variables: names, Msg: fmt.Sprintf(
			"the URI %q is a template with %s %s: give %s as %s (%s)",
			tpl, tplPlural(len(names), "the variable", "variables"), strings.Join(names, ", "),
			tplPlural(len(names), "its value", "their values"),
			tplPlural(len(names), "a VAR=VALUE pair", "VAR=VALUE pairs"), strings.Join(pairs, " "))}
	}
	var unknown []string
	for _, k := range tplSortedKeys(vars) {
		if !has[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		return "", &TemplateError{Variables: unknown, Msg: fmt.Sprintf(
			"unknown template %s %s; %s %q %s %s",
			tplPlural(len(unknown), "variable", "variables"), tplQuoteList(unknown),
			tplPlural(len(names), "the only variable of", "the variables of"), tpl,
			tplPlural(len(names), "is", "are"), strings.Join(names, ", "))}
	}
	var missing, pairs []string
	for _, n := range names {
		if _, ok := vars[n]; !ok {
			missing = append(missing, n)
			pairs = append(pairs, n+"=VALUE")
		}
	}
	if len(missing) > 0 {
		return "", &TemplateError{Variables: missing, Msg: fmt.Sprintf(
			"no value for the template %s %s of %q: give %s as %s",
			tplPlural(len(missing), "variable", "variables"), strings.Join(missing, ", "), tpl,
			tplPlural(len(missing), "it", "them"), strings.Join(pairs, " "))}
	}

	var b strings.Builder
	last := 0
	for _, e := range exprs {
		b.WriteString(tpl[last:e.start])
		tplPercentEncode(&b, vars[e.name])
		last = e.end
	}
	b.WriteString(tpl[last:])
	return b.String(), nil
}

// tplCheckExpression refuses an expression, braces included, that is not a
// level-1 {name}; at is its byte offset in the template.
func tplCheckExpression(expr string, at int) error {
	body := expr[1 : len(expr)-1]
	if body == "" {
		return &TemplateError{Expression: expr, Msg: fmt.Sprintf(
			`the template has an empty expression "{}" at byte %d: a variable is written {name}`, at)}
	}
	refuse := func(what string) error {
		return &TemplateError{Expression: expr, Variables: tplExprVariables(body),
			Msg: fmt.Sprintf("the template uses %q, %s; %s", expr, what, tplLevelOne)}
	}
	if op, ok := tplOperators[body[0]]; ok {
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
	if !tplValidVarname(body) {
		return &TemplateError{Expression: expr, Msg: fmt.Sprintf(
			`the template has an invalid variable name in %q at byte %d: a name is letters, digits, "_" and %%XX escapes, with single dots between`,
			expr, at)}
	}
	return nil
}

// tplExprVariables returns the variable names of an expression's body,
// without operator and modifiers.
func tplExprVariables(body string) []string {
	if _, ok := tplOperators[body[0]]; ok {
		body = body[1:]
	}
	var names []string
	for _, v := range strings.Split(body, ",") {
		if k := strings.IndexByte(v, ':'); k >= 0 {
			v = v[:k]
		}
		if v = strings.TrimSuffix(v, "*"); v != "" {
			names = append(names, v)
		}
	}
	return names
}

// tplValidVarname reports whether s is an RFC 6570 varname: ALPHA, DIGIT, "_"
// and pct-encoded characters, with single dots between them.
func tplValidVarname(s string) bool {
	dot := true // a name may not start with a dot
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '.':
			if dot {
				return false
			}
			dot = true
			continue
		case c == '%':
			if i+2 >= len(s) || !tplIsHex(s[i+1]) || !tplIsHex(s[i+2]) {
				return false
			}
			i += 2
		case c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		default:
			return false
		}
		dot = false
	}
	return s != "" && !dot
}

func tplIsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// tplPercentEncode writes v with every byte but the unreserved characters
// A-Z a-z 0-9 - . _ ~ written as %XX.
func tplPercentEncode(b *strings.Builder, v string) {
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

// quoteRest quotes the rest of a template from a brace, shortened to about
// 40 bytes on a character boundary.
func tplQuoteRest(s string) string {
	if p := PageText(s, 0, 40); p.Truncated {
		return strconv.Quote(p.Text) + "..."
	}
	return strconv.Quote(s)
}

func tplSortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func tplQuoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

func tplPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
