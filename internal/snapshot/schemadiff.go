package snapshot

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpx-cli/mcpx/internal/schema"
)

// The rules of a tool's input schema (what a caller may send): narrowing
// is breaking, widening compatible. Schemas are compared with their local
// $refs expanded (schema.Expand), so a model moved into $defs is no change.

// inputSchema compares two input schemas (nil: none, any input).
func (d *differ) inputSchema(old, new any) {
	if old == nil && new == nil {
		return
	}
	d.inSchema("/input_schema", "", schema.Expand(old), schema.Expand(new))
}

// schemaMap is a schema tree as an object: true (or none) is {}, false
// {"not": {}}.
func schemaMap(v any) map[string]any {
	switch v := v.(type) {
	case map[string]any:
		return v
	case bool:
		if !v {
			return map[string]any{"not": map[string]any{}}
		}
	}
	return map[string]any{}
}

// handled are the keywords the rules below read; any other that changes
// is risky (its effect is not known).
var handled = map[string]bool{
	"type": true, "enum": true, "const": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "anyOf": true, "oneOf": true, "allOf": true, "pattern": true, "format": true,
	"multipleOf": true, "uniqueItems": true, "$defs": true, "definitions": true,
	"description": true, "title": true, "default": true, "examples": true, "$comment": true,
	"deprecated": true, "$schema": true, "$id": true, "readOnly": true, "writeOnly": true,
}

// lowerBounds and upperBounds: raising a lower bound or lowering an upper
// one narrows what is accepted.
var (
	lowerBounds = []string{"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"}
	upperBounds = []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"}
)

func init() {
	for _, k := range append(slices.Clone(lowerBounds), upperBounds...) {
		handled[k] = true
	}
}

// inSchema compares two (expanded) input subschemas at path; prop names
// the property in words ("" for the whole input).
func (d *differ) inSchema(path, prop string, o, n any) {
	om, nm := schemaMap(o), schemaMap(n)
	d.types(path, prop, om, nm, true)
	d.enum(path, prop, om, nm)
	d.constant(path, prop, om, nm)
	for _, k := range lowerBounds {
		d.bound(path, prop, k, om[k], nm[k], true)
	}
	for _, k := range upperBounds {
		d.bound(path, prop, k, om[k], nm[k], false)
	}
	for _, k := range []string{"pattern", "format", "multipleOf"} {
		d.constraint(path, prop, k, om[k], nm[k])
	}
	if om["uniqueItems"] != nm["uniqueItems"] {
		d.constraint(path, prop, "uniqueItems", trueOrNil(om["uniqueItems"]), trueOrNil(nm["uniqueItems"]))
	}
	d.additional(path, prop, om["additionalProperties"], nm["additionalProperties"])
	d.properties(path, prop, om, nm)
	d.items(path, prop, om["items"], nm["items"])
	d.unions(path, prop, om, nm)
	d.words(path, prop, om, nm)
}

func trueOrNil(v any) any {
	if v == true {
		return true
	}
	return nil
}

// about prefixes words with the property they are about.
func about(prop, words string) string {
	if prop == "" {
		return "input: " + words
	}
	return fmt.Sprintf("property %q: %s", prop, words)
}

func child(prop, name string) string {
	if prop == "" {
		return name
	}
	return prop + "." + name
}

func typeWords(ts []string) string {
	if ts == nil {
		return "any"
	}
	return strings.Join(ts, "|")
}

// types: a type widened (integer to number, a type added, none) is
// compatible on input; any other change narrows (breaking). On output any
// change is breaking.
func (d *differ) types(path, prop string, om, nm map[string]any, input bool) {
	ot, nt := schema.TreeTypes(om), schema.TreeTypes(nm)
	if sameTypes(ot, nt) {
		return
	}
	what := fmt.Sprintf("type changed from %s to %s", typeWords(ot), typeWords(nt))
	class := Breaking
	if input && covers(nt, ot) {
		class, what = Compatible, fmt.Sprintf("type widened from %s to %s", typeWords(ot), typeWords(nt))
	}
	if input {
		what = about(prop, what)
	} else {
		what = outAbout(prop, what)
	}
	d.add(class, path+"/type", what, om["type"], nm["type"])
}

func sameTypes(a, b []string) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	return covers(a, b) && covers(b, a)
}

// covers reports whether types n allow every value types o do (nil: any).
func covers(n, o []string) bool {
	if n == nil {
		return true
	}
	if o == nil {
		return false
	}
	for _, t := range o {
		if !slices.Contains(n, t) && !(t == "integer" && slices.Contains(n, "number")) {
			return false
		}
	}
	return true
}

// enum: a value removed, or an enum where there was none, is breaking; a
// value added, or no enum any more, compatible; a new order cosmetic.
func (d *differ) enum(path, prop string, om, nm map[string]any) {
	oe, hadEnum := om["enum"].([]any)
	ne, hasEnum := nm["enum"].([]any)
	p := path + "/enum"
	switch {
	case !hadEnum && !hasEnum:
	case !hadEnum:
		d.add(Breaking, p, about(prop, "now limited to "+strconv.Itoa(len(ne))+" enum values"), nil, nm["enum"])
	case !hasEnum:
		d.add(Compatible, p, about(prop, "no longer limited to enum values"), om["enum"], nil)
	default:
		d.enumValues(p, prop, oe, ne)
	}
}

func (d *differ) enumValues(p, prop string, oe, ne []any) {
	oc, nc := canonSet(oe), canonSet(ne)
	changed := false
	for _, v := range oe {
		if !nc[canon(v)] {
			d.add(Breaking, p, about(prop, "enum value "+show(v)+" removed"), v, nil)
			changed = true
		}
	}
	for _, v := range ne {
		if !oc[canon(v)] {
			d.add(Compatible, p, about(prop, "enum value "+show(v)+" added"), nil, v)
			changed = true
		}
	}
	if !changed && !equal(oe, ne) {
		d.add(Cosmetic, p, about(prop, "enum order changed"), oe, ne)
	}
}

func canonSet(list []any) map[string]bool {
	s := make(map[string]bool, len(list))
	for _, v := range list {
		s[canon(v)] = true
	}
	return s
}

// constant: a const set or changed narrows; one removed widens.
func (d *differ) constant(path, prop string, om, nm map[string]any) {
	o, had := om["const"]
	n, has := nm["const"]
	switch {
	case had && has && equal(o, n), !had && !has:
	case has:
		d.add(Breaking, path+"/const", about(prop, "const set to "+show(n)), o, n)
	default:
		d.add(Compatible, path+"/const", about(prop, "const removed"), o, nil)
	}
}

// bound: a lower bound raised or set, or an upper one lowered or set, is
// breaking; the other way compatible.
func (d *differ) bound(path, prop, k string, o, n any, lower bool) {
	if equal(o, n) {
		return
	}
	p := path + "/" + k
	ox, oNum := number(o)
	nx, nNum := number(n)
	switch {
	case o == nil:
		d.add(Breaking, p, about(prop, fmt.Sprintf("%s %s set", k, show(n))), nil, n)
	case n == nil:
		d.add(Compatible, p, about(prop, k+" removed"), o, nil)
	case !oNum || !nNum:
		d.add(Breaking, p, about(prop, fmt.Sprintf("%s changed from %s to %s", k, show(o), show(n))), o, n)
	case (nx > ox) == lower:
		d.add(Breaking, p, about(prop, fmt.Sprintf("%s tightened from %s to %s", k, show(o), show(n))), o, n)
	default:
		d.add(Compatible, p, about(prop, fmt.Sprintf("%s loosened from %s to %s", k, show(o), show(n))), o, n)
	}
}

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	x, err := n.Float64()
	return x, err == nil
}

// constraint: a pattern, format, multipleOf or uniqueItems set or changed
// narrows; removed, it widens.
func (d *differ) constraint(path, prop, k string, o, n any) {
	switch {
	case equal(o, n):
	case n == nil:
		d.add(Compatible, path+"/"+k, about(prop, k+" removed"), o, nil)
	case o == nil:
		d.add(Breaking, path+"/"+k, about(prop, fmt.Sprintf("%s %s set", k, show(n))), nil, n)
	default:
		d.add(Breaking, path+"/"+k, about(prop, fmt.Sprintf("%s changed from %s to %s", k, show(o), show(n))), o, n)
	}
}

// additional: additionalProperties turned false (or to a schema) is
// breaking; from false to anything else compatible; two schemas are
// compared as any other.
func (d *differ) additional(path, prop string, o, n any) {
	p := path + "/additionalProperties"
	_, oSchema := o.(map[string]any)
	_, nSchema := n.(map[string]any)
	switch {
	case equal(o, n):
	case n == false:
		d.add(Breaking, p, about(prop, "additionalProperties turned false"), o, n)
	case o == false:
		d.add(Compatible, p, about(prop, "additionalProperties no longer false"), o, n)
	case oSchema && nSchema:
		d.inSchema(p, child(prop, "*"), o, n)
	case nSchema:
		d.add(Breaking, p, about(prop, "additional properties now constrained"), o, n)
	default:
		d.add(Compatible, p, about(prop, "additional properties no longer constrained"), o, n)
	}
}

// properties: one removed, a new required one, or one made required is
// breaking; a new optional one, or one made optional, compatible.
func (d *differ) properties(path, prop string, om, nm map[string]any) {
	op, np := asMap(om["properties"]), asMap(nm["properties"])
	oreq, nreq := requiredSet(om), requiredSet(nm)
	for _, name := range unionKeys(op, np) {
		o, had := op[name]
		n, has := np[name]
		p, label := path+"/properties/"+pointerToken(name), child(prop, name)
		switch {
		case !has:
			d.add(Breaking, p, fmt.Sprintf("property %q removed", label), o, nil)
		case !had && nreq[name]:
			d.add(Breaking, p, fmt.Sprintf("new required property %q", label), nil, n)
		case !had:
			d.add(Compatible, p, fmt.Sprintf("new optional property %q", label), nil, n)
		default:
			d.requiredness(path, label, oreq[name], nreq[name])
			if !equal(o, n) { // (equal subschemas have no change to find)
				d.inSchema(p, label, o, n)
			}
		}
	}
	d.undeclaredRequired(path, prop, op, np, oreq, nreq)
}

func (d *differ) requiredness(path, label string, was, is bool) {
	switch {
	case !was && is:
		d.add(Breaking, path+"/required", fmt.Sprintf("property %q made required", label), false, true)
	case was && !is:
		d.add(Compatible, path+"/required", fmt.Sprintf("property %q made optional", label), true, false)
	}
}

// undeclaredRequired: names required without a property schema.
func (d *differ) undeclaredRequired(path, prop string, op, np map[string]any, oreq, nreq map[string]bool) {
	for _, name := range unionKeys(boolKeys(oreq), boolKeys(nreq)) {
		_, inOld := op[name]
		_, inNew := np[name]
		if inOld || inNew {
			continue
		}
		d.requiredness(path, child(prop, name), oreq[name], nreq[name])
	}
}

func boolKeys(m map[string]bool) map[string]any {
	out := make(map[string]any, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

func requiredSet(m map[string]any) map[string]bool {
	out := map[string]bool{}
	list, _ := m["required"].([]any)
	for _, r := range list {
		if s, ok := r.(string); ok {
			out[s] = true
		}
	}
	return out
}

// items: the schemas of an array's items compared as any other; items
// constrained where they were not is breaking, the other way compatible.
func (d *differ) items(path, prop string, o, n any) {
	p := path + "/items"
	_, oSchema := o.(map[string]any)
	_, nSchema := n.(map[string]any)
	switch {
	case equal(o, n):
	case oSchema && nSchema:
		d.inSchema(p, prop+"[]", o, n)
	case o == nil:
		d.add(Breaking, p, about(prop, "items now constrained"), nil, n)
	case n == nil:
		d.add(Compatible, p, about(prop, "items no longer constrained"), o, nil)
	default:
		d.add(Breaking, p, about(prop, "items changed"), o, n)
	}
}

// unions: a member removed from anyOf or oneOf is breaking, one added
// compatible; allOf the other way round. A one-member union on both sides
// is compared as a schema.
func (d *differ) unions(path, prop string, om, nm map[string]any) {
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		ol, _ := om[k].([]any)
		nl, _ := nm[k].([]any)
		if equal(ol, nl) {
			continue
		}
		p := path + "/" + k
		if len(ol) == 1 && len(nl) == 1 {
			d.inSchema(p+"/0", prop, ol[0], nl[0])
			continue
		}
		gone, added := Breaking, Compatible
		if k == "allOf" {
			gone, added = Compatible, Breaking
		}
		oc, nc := canonSet(ol), canonSet(nl)
		for _, v := range ol {
			if !nc[canon(v)] {
				d.add(gone, p, about(prop, k+" member removed"), v, nil)
			}
		}
		for _, v := range nl {
			if !oc[canon(v)] {
				d.add(added, p, about(prop, k+" member added"), nil, v)
			}
		}
	}
}

// words: descriptions, titles and the other annotations are cosmetic, a
// new default compatible, any keyword the rules do not read risky.
func (d *differ) words(path, prop string, om, nm map[string]any) {
	for _, k := range unionKeys(om, nm) {
		o, n := om[k], nm[k]
		if equal(o, n) {
			continue
		}
		p := path + "/" + pointerToken(k)
		switch {
		case k == "default":
			d.add(Compatible, p, about(prop, "default changed from "+show(o)+" to "+show(n)), o, n)
		case k == "description", k == "title", k == "examples", k == "$comment", k == "deprecated",
			k == "$schema", k == "$id", k == "readOnly", k == "writeOnly":
			d.add(Cosmetic, p, about(prop, k+" changed"), o, n)
		case !handled[k]:
			d.add(Risky, p, about(prop, "keyword "+k+" changed"), o, n)
		}
	}
}

// The rules of an output schema (what a caller reads): a property removed
// or a type changed is breaking, a property no longer required risky (it
// may be missing), anything added compatible, words cosmetic.

func (d *differ) outputSchema(old, new any) {
	switch {
	case old == nil && new == nil:
	case new == nil:
		d.add(Breaking, "/output_schema", "output schema removed", old, nil)
	case old == nil:
		d.add(Compatible, "/output_schema", "output schema added", nil, new)
	default:
		d.outSchema("/output_schema", "", schema.Expand(old), schema.Expand(new))
	}
}

func outAbout(prop, words string) string {
	if prop == "" {
		return "output: " + words
	}
	return fmt.Sprintf("output property %q: %s", prop, words)
}

func (d *differ) outSchema(path, prop string, o, n any) {
	om, nm := schemaMap(o), schemaMap(n)
	d.types(path, prop, om, nm, false)
	op, np := asMap(om["properties"]), asMap(nm["properties"])
	oreq, nreq := requiredSet(om), requiredSet(nm)
	for _, name := range unionKeys(op, np) {
		o, had := op[name]
		n, has := np[name]
		p, label := path+"/properties/"+pointerToken(name), child(prop, name)
		switch {
		case !has:
			d.add(Breaking, p, fmt.Sprintf("output property %q removed", label), o, nil)
		case !had:
			d.add(Compatible, p, fmt.Sprintf("new output property %q", label), nil, n)
		default:
			if oreq[name] && !nreq[name] {
				d.add(Risky, path+"/required", fmt.Sprintf("output property %q no longer required", label), true, false)
			}
			d.outSchema(p, label, o, n)
		}
	}
	oi, _ := om["items"].(map[string]any)
	ni, _ := nm["items"].(map[string]any)
	if oi != nil && ni != nil && !equal(oi, ni) {
		d.outSchema(path+"/items", prop+"[]", oi, ni)
	}
	d.outWords(path, prop, om, nm, oi != nil && ni != nil)
}

// outWords: the other keywords of an output schema (items compared above
// when both are schemas).
func (d *differ) outWords(path, prop string, om, nm map[string]any, itemsDone bool) {
	for _, k := range unionKeys(om, nm) {
		o, n := om[k], nm[k]
		if k == "type" || k == "properties" || k == "required" || equal(o, n) {
			continue
		}
		if k == "items" && itemsDone {
			continue
		}
		class := Compatible
		if k == "description" || k == "title" || k == "examples" || k == "$comment" || k == "$schema" {
			class = Cosmetic
		}
		d.add(class, path+"/"+pointerToken(k), outAbout(prop, k+" changed"), o, n)
	}
}
