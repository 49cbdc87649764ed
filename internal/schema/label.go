package schema

// What describe shows of a tool's input schema: each parameter's type in a
// few characters, its description and, for an object, its fields.

import (
	"encoding/json"
	"strings"
)

// Param is one property of a tool's input schema.
type Param struct {
	Name        string
	Type        string
	Required    bool
	Description string // its first line
	// Fields are the properties of an object parameter (or of the objects
	// of an array parameter), one level deep; nil for any other.
	Fields []Param
	// MoreFields counts the fields left out of Fields (see maxFields).
	MoreFields int
}

// Describe lists at most maxFields fields of one parameter and
// maxFieldRows in all, so a schema whose parameters all name one big model
// does not make a describe text many times its size.
const (
	maxFields    = 50
	maxFieldRows = 1000
)

// Params reads the top-level properties of an input schema, in the order
// the server sent them. Local $refs are followed (see Doc), and a
// parameter that holds an object, or an array of objects, lists that
// object's fields.
func Params(schema json.RawMessage) []Param {
	d := New(schema)
	if d == nil {
		return nil
	}
	top, _ := ReadObject(d.Root())
	props, ok := ReadObject(top.Get("properties"))
	if !ok {
		return nil
	}
	rows := maxFieldRows
	params, _ := d.params(props, top.Get("required"), &rows, -1)
	return params
}

// params reads the members of a "properties" object (at most max of them,
// when max >= 0; more counts the others), each with its type, whether
// "required" lists it, its description and, with fieldRows (the field rows
// left to list), the fields of an object it holds.
func (d *Doc) params(props Object, req json.RawMessage, fieldRows *int, max int) (params []Param, more int) {
	required := map[string]bool{}
	for _, r := range loneOrList(req) {
		if s, ok := String(r); ok {
			required[s] = true
		}
	}
	props.Each(func(k string, v json.RawMessage) {
		if max >= 0 && len(params) >= max {
			more++
			return
		}
		p := Param{Name: k, Type: Label(d, v), Required: required[k], Description: firstLine(d.description(v, 0))}
		if fieldRows != nil {
			if obj, ok := d.objectOf(v, 0, true); ok {
				o, _ := ReadObject(obj)
				fields, _ := ReadObject(o.Get("properties"))
				p.Fields, p.MoreFields = d.params(fields, o.Get("required"), nil, min(maxFields, *fieldRows))
				*fieldRows -= len(p.Fields)
			}
		}
		params = append(params, p)
	})
	return params, more
}

// firstLine is the first line of s that is not blank, trimmed.
func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return ""
}

// Label describes a JSON schema's type in a few characters: "string",
// "integer", "string|null", "array<string>", "object", an enum's values
// ("\"a\"|\"b\""), "any"; a $ref that d resolves reads as what it points
// to, one it cannot (a remote one) as "ref".
func Label(d *Doc, raw json.RawMessage) string {
	return d.label(raw, 0)
}

func (d *Doc) label(raw json.RawMessage, depth int) string {
	if !d.Visit(depth, len(raw)) {
		return "any"
	}
	o, _ := ReadObject(raw)
	if e, _ := Array(o.Get("enum")); len(e) > 0 {
		parts := make([]string, len(e))
		for i, x := range e {
			parts[i] = string(x)
		}
		return strings.Join(parts, "|")
	}
	if c := o.Get("const"); c != nil {
		return string(c)
	}
	if l, ok := d.typeLabel(o, depth); ok {
		return l
	}
	if l, ok := d.combinedLabel(o, depth); ok {
		return l
	}
	if ref := o.Get("$ref"); ref != nil {
		if l, ok := Follow(d, "label", ref, "any", func(t json.RawMessage) string {
			return d.label(t, depth+1)
		}); ok {
			return l
		}
		return "ref"
	}
	return "any"
}

// typeLabel labels "type": a name, or a union of them (a nullable type:
// the Go SDK's slices are ["null","array"]).
func (d *Doc) typeLabel(o Object, depth int) (string, bool) {
	t := o.Get("type")
	if s, ok := String(t); ok {
		return d.namedType(o, s, depth), true
	}
	list, ok := Array(t)
	if !ok {
		return "", false
	}
	parts := make([]string, len(list))
	for i, x := range list {
		parts[i] = d.namedType(o, Text(x), depth)
	}
	return strings.Join(parts, "|"), true
}

// combinedLabel labels anyOf or oneOf as a union of their members' labels,
// else allOf as the labels of its typed members joined by "&" (pydantic
// wraps a $ref in an allOf to give it a description).
func (d *Doc) combinedLabel(o Object, depth int) (string, bool) {
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := Array(o.Get(key)); ok {
			var parts []string
			for _, a := range alts {
				parts = appendNew(parts, d.label(a, depth+1))
			}
			return strings.Join(parts, "|"), true
		}
	}
	all, _ := Array(o.Get("allOf"))
	var parts []string
	for _, a := range all {
		if l := d.label(a, depth+1); l != "any" {
			parts = appendNew(parts, l)
		}
	}
	return strings.Join(parts, "&"), len(parts) > 0
}

// namedType labels one type name of schema o: an array with the type of
// its items ("array<string>"), any other name as it is.
func (d *Doc) namedType(o Object, name string, depth int) string {
	if name == "array" {
		if it := o.Get("items"); isObject(it) {
			return "array<" + d.label(it, depth+1) + ">"
		}
	}
	return name
}

func isObject(raw json.RawMessage) bool {
	_, ok := ReadObject(raw)
	return ok
}

// hasType reports whether schema o's "type" is name or a list naming it.
func hasType(o Object, name string) bool {
	names, _ := TypeNames(o.Get("type"))
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// Description is a property's description, else that of the schema its
// local $ref (or an allOf of one member) names ("" when none).
func Description(d *Doc, prop json.RawMessage) string {
	return d.description(prop, 0)
}

// description is Description of raw, read at depth (see Visit).
func (d *Doc) description(raw json.RawMessage, depth int) string {
	if !d.Visit(depth, len(raw)) {
		return ""
	}
	o, _ := ReadObject(raw)
	if s, ok := String(o.Get("description")); ok && strings.TrimSpace(s) != "" {
		return s
	}
	if ref := o.Get("$ref"); ref != nil {
		s, _ := Follow(d, "description", ref, "", func(t json.RawMessage) string {
			return d.description(t, depth+1)
		})
		return s
	}
	if all, _ := Array(o.Get("allOf")); len(all) == 1 {
		return d.description(all[0], depth+1)
	}
	return ""
}

// objectOf finds the object schema whose properties a parameter's value
// has: the schema itself, the one its $ref (or an allOf of one member)
// names, the only member of a union that is one (Optional[Model]), or
// (with arrays) the items of an array of them.
func (d *Doc) objectOf(raw json.RawMessage, depth int, arrays bool) (json.RawMessage, bool) {
	if !d.Visit(depth, len(raw)) {
		return nil, false
	}
	o, _ := ReadObject(raw)
	if ref := o.Get("$ref"); ref != nil {
		if _, isString := String(ref); isString {
			return d.refObject(ref, depth, arrays)
		}
	}
	if all, _ := Array(o.Get("allOf")); len(all) == 1 {
		return d.objectOf(all[0], depth+1, arrays)
	}
	if props, ok := ReadObject(o.Get("properties")); ok {
		return raw, props.Len() > 0
	}
	if it := o.Get("items"); arrays && isObject(it) && hasType(o, "array") {
		return d.objectOf(it, depth+1, false)
	}
	var found []json.RawMessage
	for _, key := range []string{"anyOf", "oneOf"} {
		alts, _ := Array(o.Get(key))
		for _, a := range alts {
			if obj, ok := d.objectOf(a, depth+1, arrays); ok {
				found = append(found, obj)
			}
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return nil, false
}

func (d *Doc) refObject(ref json.RawMessage, depth int, arrays bool) (json.RawMessage, bool) {
	type found struct {
		obj json.RawMessage
		ok  bool
	}
	reader := "object"
	if arrays {
		reader = "object or array"
	}
	f, _ := Follow(d, reader, ref, found{}, func(t json.RawMessage) found {
		obj, ok := d.objectOf(t, depth+1, arrays)
		return found{obj, ok}
	})
	return f.obj, f.ok
}
