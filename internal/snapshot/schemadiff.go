package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpx-cli/mcpx/internal/jsonscan"
	"github.com/mcpx-cli/mcpx/internal/schema"
)

// The rules of a tool's input schema (what a caller may send): narrowing
// is breaking, widening compatible. Schemas are compared with their local
// $refs expanded (schema.Expand), so a model moved into $defs is no change.
//
// The rules read the schemas as JSON, not as decoded trees: a subschema
// or keyword whose bytes are the same on both sides has no change to find
// and is never decoded; only the values that differ are (to compare them
// as JSON values, and to report them). A schema with a $ref is expanded as
// a tree first and read from that tree's JSON.

// sch is one side of a subschema as the rules read it: an object's
// members (true, an absent schema or anything not an object reads as {},
// false as {"not": {}}).
type sch struct{ obj schema.Object }

var notSchema = json.RawMessage(`{"not":{}}`)

func (d *differ) readSch(raw json.RawMessage) sch {
	if isFalse(raw) {
		raw = notSchema
	}
	return sch{d.object(raw)}
}

// get is the value of keyword k, nil when absent.
func (s sch) get(k string) json.RawMessage { return s.obj.Get(k) }

// isFalse reports whether raw is the JSON literal false.
func isFalse(raw json.RawMessage) bool { return string(raw) == "false" }

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '{' }

// same reports whether two values are the same JSON value: the same
// bytes, or equal decoded (numbers by value, names in any order; absent
// and null alike).
func same(a, b json.RawMessage) bool {
	return bytes.Equal(a, b) || equal(decoded(a), decoded(b))
}

// none reports whether a value is absent or null.
func none(raw json.RawMessage) bool { return raw == nil || string(raw) == "null" }

// schemaJSON is a tool's schema member as the rules read it: nil when
// absent or null, its local $refs expanded when it may have any.
func schemaJSON(raw json.RawMessage) json.RawMessage {
	if raw == nil || string(raw) == "null" {
		return nil
	}
	if !mayRef(raw) {
		return raw
	}
	x, err := json.Marshal(schema.Expand(decoded(raw)))
	if err != nil {
		return raw
	}
	return x
}

// mayRef reports whether raw could hold a "$ref" name: every spelling of
// it has `ref"` or an escape \u in it.
func mayRef(raw json.RawMessage) bool {
	return bytes.Contains(raw, []byte(`ref"`)) || bytes.Contains(raw, []byte(`\u`))
}

// keys are the names of the members of a and b, sorted, each once.
func keys(a, b schema.Object) []string {
	out := make([]string, 0, a.Len()+b.Len())
	a.Each(func(k string, _ json.RawMessage) { out = append(out, k) })
	b.Each(func(k string, _ json.RawMessage) {
		if a.Get(k) == nil {
			out = append(out, k)
		}
	})
	sort.Strings(out)
	return out
}

// inputSchema compares two input schemas (nil: none, any input).
func (d *differ) inputSchema(old, new json.RawMessage) {
	old, new = schemaJSON(old), schemaJSON(new)
	if old == nil && new == nil {
		return
	}
	d.inSchema("/input_schema", "", old, new)
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
func (d *differ) inSchema(path, prop string, oRaw, nRaw json.RawMessage) {
	o, n := d.readSch(oRaw), d.readSch(nRaw)
	d.types(path, prop, o, n, true)
	d.enum(path, prop, o, n)
	d.constant(path, prop, o, n)
	for _, k := range lowerBounds {
		d.bound(path, prop, k, o.get(k), n.get(k), true)
	}
	for _, k := range upperBounds {
		d.bound(path, prop, k, o.get(k), n.get(k), false)
	}
	for _, k := range []string{"pattern", "format", "multipleOf"} {
		d.constraint(path, prop, k, o.get(k), n.get(k))
	}
	if ou, nu := o.get("uniqueItems"), n.get("uniqueItems"); !same(ou, nu) {
		d.constraint(path, prop, "uniqueItems", trueOnly(ou), trueOnly(nu))
	}
	d.additional(path, prop, o.get("additionalProperties"), n.get("additionalProperties"))
	d.properties(path, prop, o, n)
	d.items(path, prop, o.get("items"), n.get("items"))
	d.unions(path, prop, o, n)
	d.words(path, prop, o, n)
}

// trueOnly is raw when it is true, else nil (uniqueItems false or absent
// constrains nothing).
func trueOnly(raw json.RawMessage) json.RawMessage {
	if string(raw) == "true" {
		return raw
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

// typeNames are the names a "type" keyword gives (a name or a list); nil
// when there is none (any type goes).
func typeNames(raw json.RawMessage) []string {
	switch t := decoded(raw).(type) {
	case string:
		return []string{t}
	case []any:
		out := []string{}
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// types: a type widened (integer to number, a type added, none) is
// compatible on input; any other change narrows (breaking). On output any
// change is breaking.
func (d *differ) types(path, prop string, o, n sch, input bool) {
	oRaw, nRaw := o.get("type"), n.get("type")
	if bytes.Equal(oRaw, nRaw) {
		return
	}
	ot, nt := typeNames(oRaw), typeNames(nRaw)
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
	d.add(class, path+"/type", what, decoded(oRaw), decoded(nRaw))
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
func (d *differ) enum(path, prop string, o, n sch) {
	oRaw, nRaw := o.get("enum"), n.get("enum")
	if bytes.Equal(oRaw, nRaw) {
		return
	}
	oe, hadEnum := decoded(oRaw).([]any)
	ne, hasEnum := decoded(nRaw).([]any)
	p := path + "/enum"
	switch {
	case !hadEnum && !hasEnum:
	case !hadEnum:
		d.add(Breaking, p, about(prop, "now limited to "+strconv.Itoa(len(ne))+" enum values"), nil, ne)
	case !hasEnum:
		d.add(Compatible, p, about(prop, "no longer limited to enum values"), oe, nil)
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
func (d *differ) constant(path, prop string, o, n sch) {
	oRaw, nRaw := o.get("const"), n.get("const")
	switch {
	case oRaw == nil && nRaw == nil, oRaw != nil && nRaw != nil && same(oRaw, nRaw):
	case nRaw != nil:
		d.add(Breaking, path+"/const", about(prop, "const set to "+show(decoded(nRaw))), decoded(oRaw), decoded(nRaw))
	default:
		d.add(Compatible, path+"/const", about(prop, "const removed"), decoded(oRaw), nil)
	}
}

// bound: a lower bound raised or set, or an upper one lowered or set, is
// breaking; the other way compatible.
func (d *differ) bound(path, prop, k string, oRaw, nRaw json.RawMessage, lower bool) {
	if bytes.Equal(oRaw, nRaw) {
		return
	}
	o, n := decoded(oRaw), decoded(nRaw)
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
func (d *differ) constraint(path, prop, k string, oRaw, nRaw json.RawMessage) {
	if bytes.Equal(oRaw, nRaw) {
		return
	}
	o, n := decoded(oRaw), decoded(nRaw)
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
func (d *differ) additional(path, prop string, oRaw, nRaw json.RawMessage) {
	if same(oRaw, nRaw) {
		return
	}
	p := path + "/additionalProperties"
	o, n := decoded(oRaw), decoded(nRaw)
	switch {
	case isFalse(nRaw):
		d.add(Breaking, p, about(prop, "additionalProperties turned false"), o, n)
	case isFalse(oRaw):
		d.add(Compatible, p, about(prop, "additionalProperties no longer false"), o, n)
	case isObject(oRaw) && isObject(nRaw):
		d.inSchema(p, child(prop, "*"), oRaw, nRaw)
	case isObject(nRaw):
		d.add(Breaking, p, about(prop, "additional properties now constrained"), o, n)
	default:
		d.add(Compatible, p, about(prop, "additional properties no longer constrained"), o, n)
	}
}

// properties: one removed, a new required one, or one made required is
// breaking; a new optional one, or one made optional, compatible.
func (d *differ) properties(path, prop string, o, n sch) {
	opRaw, npRaw := o.get("properties"), n.get("properties")
	oRq, nRq := o.get("required"), n.get("required")
	if bytes.Equal(opRaw, npRaw) && bytes.Equal(oRq, nRq) {
		return
	}
	op, np := d.object(opRaw), d.object(npRaw)
	oreq, nreq := requiredSet(oRq), requiredSet(nRq)
	for _, name := range keys(op, np) {
		ov, nv := op.Get(name), np.Get(name)
		p, label := path+"/properties/"+pointerToken(name), child(prop, name)
		switch {
		case nv == nil:
			d.add(Breaking, p, fmt.Sprintf("property %q removed", label), decoded(ov), nil)
		case ov == nil && nreq[name]:
			d.add(Breaking, p, fmt.Sprintf("new required property %q", label), nil, decoded(nv))
		case ov == nil:
			d.add(Compatible, p, fmt.Sprintf("new optional property %q", label), nil, decoded(nv))
		default:
			d.requiredness(path, label, oreq[name], nreq[name])
			if !bytes.Equal(ov, nv) { // (equal subschemas have no change to find)
				d.inSchema(p, label, ov, nv)
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
func (d *differ) undeclaredRequired(path, prop string, op, np schema.Object, oreq, nreq map[string]bool) {
	var names []string
	for _, req := range []map[string]bool{oreq, nreq} {
		for name := range req {
			if op.Get(name) == nil && np.Get(name) == nil {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		d.requiredness(path, child(prop, name), oreq[name], nreq[name])
	}
}

// requiredSet are the names a "required" keyword lists (nil: none).
func requiredSet(raw json.RawMessage) map[string]bool {
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	out := map[string]bool{}
	jsonscan.WalkArray(raw, 0, func(s int) int {
		e := jsonscan.SkipValue(raw, s)
		if name, ok := schema.String(raw[s:e]); ok {
			out[name] = true
		}
		return e
	})
	return out
}

// items: the schemas of an array's items compared as any other; items
// constrained where they were not is breaking, the other way compatible.
func (d *differ) items(path, prop string, oRaw, nRaw json.RawMessage) {
	if same(oRaw, nRaw) {
		return
	}
	p := path + "/items"
	switch {
	case isObject(oRaw) && isObject(nRaw):
		d.inSchema(p, prop+"[]", oRaw, nRaw)
	case none(oRaw):
		d.add(Breaking, p, about(prop, "items now constrained"), nil, decoded(nRaw))
	case none(nRaw):
		d.add(Compatible, p, about(prop, "items no longer constrained"), decoded(oRaw), nil)
	default:
		d.add(Breaking, p, about(prop, "items changed"), decoded(oRaw), decoded(nRaw))
	}
}

// list is the elements of raw when it is an array, nil otherwise.
func list(raw json.RawMessage) []json.RawMessage {
	l, _ := schema.Array(raw)
	return l
}

// unions: a member removed from anyOf or oneOf is breaking, one added
// compatible; allOf the other way round. A one-member union on both sides
// is compared as a schema.
func (d *differ) unions(path, prop string, o, n sch) {
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		oRaw, nRaw := o.get(k), n.get(k)
		if bytes.Equal(oRaw, nRaw) {
			continue
		}
		ol, nl := list(oRaw), list(nRaw)
		if len(ol) == 0 && len(nl) == 0 {
			continue
		}
		p := path + "/" + k
		if len(ol) == 1 && len(nl) == 1 {
			if !bytes.Equal(ol[0], nl[0]) {
				d.inSchema(p+"/0", prop, ol[0], nl[0])
			}
			continue
		}
		if len(ol) == len(nl) && same(oRaw, nRaw) {
			continue
		}
		gone, added := Breaking, Compatible
		if k == "allOf" {
			gone, added = Compatible, Breaking
		}
		ot, nt := trees(ol), trees(nl)
		oc, nc := canonSet(ot), canonSet(nt)
		for _, v := range ot {
			if !nc[canon(v)] {
				d.add(gone, p, about(prop, k+" member removed"), v, nil)
			}
		}
		for _, v := range nt {
			if !oc[canon(v)] {
				d.add(added, p, about(prop, k+" member added"), nil, v)
			}
		}
	}
}

// trees decodes each of a list of values.
func trees(l []json.RawMessage) []any {
	out := make([]any, len(l))
	for i, v := range l {
		out[i] = decoded(v)
	}
	return out
}

// words: descriptions, titles and the other annotations are cosmetic, a
// new default compatible, any keyword the rules do not read risky.
func (d *differ) words(path, prop string, o, n sch) {
	for _, k := range keys(o.obj, n.obj) {
		word := k == "description" || k == "title" || k == "examples" || k == "$comment" || k == "deprecated" ||
			k == "$schema" || k == "$id" || k == "readOnly" || k == "writeOnly"
		if !word && k != "default" && handled[k] {
			continue // (read by the rules above)
		}
		oRaw, nRaw := o.get(k), n.get(k)
		if same(oRaw, nRaw) {
			continue
		}
		ov, nv := decoded(oRaw), decoded(nRaw)
		p := path + "/" + pointerToken(k)
		switch {
		case k == "default":
			d.add(Compatible, p, about(prop, "default changed from "+show(ov)+" to "+show(nv)), ov, nv)
		case word:
			d.add(Cosmetic, p, about(prop, k+" changed"), ov, nv)
		default:
			d.add(Risky, p, about(prop, "keyword "+k+" changed"), ov, nv)
		}
	}
}

// The rules of an output schema (what a caller reads): a property removed
// or a type changed is breaking, a property no longer required risky (it
// may be missing), anything added compatible, words cosmetic.

func (d *differ) outputSchema(old, new json.RawMessage) {
	switch {
	case none(old) && none(new):
	case none(new):
		d.add(Breaking, "/output_schema", "output schema removed", decoded(old), nil)
	case none(old):
		d.add(Compatible, "/output_schema", "output schema added", nil, decoded(new))
	default:
		d.outSchema("/output_schema", "", schemaJSON(old), schemaJSON(new))
	}
}

func outAbout(prop, words string) string {
	if prop == "" {
		return "output: " + words
	}
	return fmt.Sprintf("output property %q: %s", prop, words)
}

func (d *differ) outSchema(path, prop string, oRaw, nRaw json.RawMessage) {
	if bytes.Equal(oRaw, nRaw) {
		return // (no change to find)
	}
	o, n := d.readSch(oRaw), d.readSch(nRaw)
	d.types(path, prop, o, n, false)
	op, np := d.object(o.get("properties")), d.object(n.get("properties"))
	oreq, nreq := requiredSet(o.get("required")), requiredSet(n.get("required"))
	for _, name := range keys(op, np) {
		ov, nv := op.Get(name), np.Get(name)
		p, label := path+"/properties/"+pointerToken(name), child(prop, name)
		switch {
		case nv == nil:
			d.add(Breaking, p, fmt.Sprintf("output property %q removed", label), decoded(ov), nil)
		case ov == nil:
			d.add(Compatible, p, fmt.Sprintf("new output property %q", label), nil, decoded(nv))
		default:
			if oreq[name] && !nreq[name] {
				d.add(Risky, path+"/required", fmt.Sprintf("output property %q no longer required", label), true, false)
			}
			d.outSchema(p, label, ov, nv)
		}
	}
	oi, ni := o.get("items"), n.get("items")
	bothItems := isObject(oi) && isObject(ni)
	if bothItems {
		d.outSchema(path+"/items", prop+"[]", oi, ni)
	}
	d.outWords(path, prop, o, n, bothItems)
}

// outWords: the other keywords of an output schema (items compared above
// when both are schemas).
func (d *differ) outWords(path, prop string, o, n sch, itemsDone bool) {
	for _, k := range keys(o.obj, n.obj) {
		if k == "type" || k == "properties" || k == "required" || (k == "items" && itemsDone) {
			continue
		}
		oRaw, nRaw := o.get(k), n.get(k)
		if same(oRaw, nRaw) {
			continue
		}
		class := Compatible
		if k == "description" || k == "title" || k == "examples" || k == "$comment" || k == "$schema" {
			class = Cosmetic
		}
		d.add(class, path+"/"+pointerToken(k), outAbout(prop, k+" changed"), decoded(oRaw), decoded(nRaw))
	}
}
