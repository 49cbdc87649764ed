package uritemplate

import (
	"regexp"
	"strings"

	rfc6570 "github.com/yosida95/uritemplate/v3"
)

// expression is one "{...}" of a template.
type expression struct {
	text string   // braces included
	at   int      // its byte offset in the template
	vars []string // its variables, in order, each once; nil when RFC 6570 cannot parse it
}

func (e expression) body() string { return e.text[1 : len(e.text)-1] }

// operated reports whether the expression starts with an operator, one
// RFC 6570 defines or one it reserves.
func (e expression) operated() bool {
	_, ok := operators[e.text[1]]
	return ok
}

// scan returns the expressions of a template the user gives, in template
// order, up to the first brace that neither opens nor closes one; that
// brace is err (see cannotExpand). Literal text is never looked at: it is copied
// as it is.
func scan(tpl string) (exprs []expression, err error) {
	for i := 0; i < len(tpl); {
		j := strings.IndexAny(tpl[i:], "{}")
		if j < 0 {
			break
		}
		i += j
		if tpl[i] == '}' {
			return exprs, braceError(`the template has a "}" at byte %d with no "{" before it: %s`, i, tpl)
		}
		k := strings.IndexAny(tpl[i+1:], "{}")
		if k < 0 {
			return exprs, braceError(`the template has a "{" at byte %d with no "}" to close it: %s`, i, tpl)
		}
		end := i + 1 + k + 1
		if tpl[end-1] == '{' {
			return exprs, braceError(`the template has a "{" at byte %d that is not closed before the next "{": %s`, i, tpl)
		}
		exprs = append(exprs, parseExpression(tpl[i:end], i))
		i = end
	}
	return exprs, nil
}

// scanLoose returns the expressions of a template a server lists, read
// as loosely as a server may write it: an expression runs from a "{" to
// the next "}", a "}" before any "{" is literal text, and so is a "{"
// that is never closed.
func scanLoose(tpl string) []expression {
	var exprs []expression
	for at := 0; ; {
		i := strings.IndexByte(tpl[at:], '{')
		if i < 0 {
			return exprs
		}
		j := strings.IndexByte(tpl[at+i:], '}')
		if j < 0 {
			return exprs
		}
		exprs = append(exprs, parseExpression(tpl[at+i:at+i+j+1], at+i))
		at += i + j + 1
	}
}

// parseExpression reads one expression, braces included, with the
// library's grammar. An operator RFC 6570 reserves for future extensions
// ("=" "," "!" "@" "|") is refused by the library; the variables of such
// an expression are those it has without it.
func parseExpression(text string, at int) expression {
	e := expression{text: text, at: at}
	t, err := rfc6570.New(text)
	if op, ok := operators[text[1]]; err != nil && ok && op.level == 0 {
		t, err = rfc6570.New("{" + text[2:])
	}
	if err == nil {
		e.vars = t.Varnames()
	}
	return e
}

// validVarname reports whether s is an RFC 6570 varname: ALPHA, DIGIT, "_"
// and pct-encoded characters, with single dots between them.
func validVarname(s string) bool {
	t, err := rfc6570.New("{" + s + "}")
	return err == nil && len(t.Varnames()) == 1 && t.Varnames()[0] == s
}

// Variables returns the variable names of a template, in template order,
// each once: those of every expression RFC 6570 can parse (see
// scanLoose). Operators and modifiers are understood, so
// "{+path}{?q,lang}" gives path, q, lang.
func Variables(tpl string) []string {
	exprs := scanLoose(tpl)
	var names []string
	seen := map[string]bool{}
	for _, e := range exprs {
		for _, v := range e.vars {
			if !seen[v] {
				seen[v] = true
				names = append(names, v)
			}
		}
	}
	return names
}

// Matches reports whether uri could be an expansion of the template tpl:
// the literal parts match exactly, a simple {var} matches within one path
// segment (a level-1 value is percent-encoded, so it has no / ? #), and an
// expression with an operator matches anything. It is looser than an
// exact RFC 6570 match on purpose: it decides whether a server's "invalid
// params" can mean "not found", and a URI written by hand (a value left
// unencoded) must not be called unknown. A malformed template is read as
// scanLoose reads it.
func Matches(tpl, uri string) bool {
	exprs := scanLoose(tpl)
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, e := range exprs {
		b.WriteString(regexp.QuoteMeta(tpl[last:e.at]))
		if e.operated() {
			b.WriteString(".*")
		} else {
			b.WriteString("[^/?#]*")
		}
		last = e.at + len(e.text)
	}
	b.WriteString(regexp.QuoteMeta(tpl[last:]))
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(uri)
}
