package render

import "strings"

// TemplateVariables returns the variable names of an RFC 6570 URI template,
// in template order, each once. Operators (+ # . / ; ? &) and modifiers
// (* and :N) are understood, so "{+path}{?q,lang}" gives path, q, lang.
func TemplateVariables(tpl string) []string {
	var vars []string
	seen := map[string]bool{}
	for {
		i := strings.IndexByte(tpl, '{')
		if i < 0 {
			return vars
		}
		j := strings.IndexByte(tpl[i:], '}')
		if j < 0 {
			return vars
		}
		expr := tpl[i+1 : i+j]
		tpl = tpl[i+j+1:]
		if expr != "" && strings.ContainsRune("+#./;?&=,!@|", rune(expr[0])) {
			expr = expr[1:]
		}
		for _, v := range strings.Split(expr, ",") {
			if k := strings.IndexByte(v, ':'); k >= 0 {
				v = v[:k]
			}
			v = strings.TrimSuffix(strings.TrimSpace(v), "*")
			if v != "" && !seen[v] {
				seen[v] = true
				vars = append(vars, v)
			}
		}
	}
}
