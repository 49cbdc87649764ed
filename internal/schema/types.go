package schema

// The type of a property as KEY=VALUE typing and completion read it: a
// name, a union, the types its members allow, through local $refs.

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// Type is how a KEY=VALUE value is sent: as the string itself, or parsed
// as JSON of one of Kinds.
type Type struct {
	Str   bool
	Kinds []string // JSON kinds, in schema order: number, integer, boolean, null, array, object
	Label string   // the declared type(s), "integer" or "integer|null"; "" when none
}

var jsonKinds = []string{"string", "number", "integer", "boolean", "null", "array", "object"}

// TypeOf reads a property schema's type: "type" (a name or a union); else
// the type of what its local $ref names; else the union of its
// anyOf/oneOf members' types; else the types its allOf members agree on;
// else the kinds of its enum or const values. A remote $ref, a cycle, and
// anything untyped take the string.
func TypeOf(d *Doc, raw json.RawMessage) Type {
	return typeFromNames(names(d, raw, 0))
}

// Allows reports whether a value of JSON kind kind goes (an integer where
// a number does).
func (t Type) Allows(kind string) bool {
	return slices.Contains(t.Kinds, kind) || (kind == "integer" && slices.Contains(t.Kinds, "number"))
}

// Expected names the kinds in a message: "integer", "one of integer, null".
func (t Type) Expected() string {
	if len(t.Kinds) == 1 {
		return t.Kinds[0]
	}
	return "one of " + strings.Join(t.Kinds, ", ")
}

// keywords are the members of a (sub)schema that typing and enumeration
// read, as sent (nil when absent).
type keywords struct {
	typ, ref, enum, cnst, allOf, anyOf, oneOf json.RawMessage
}

// readKeywords reads the keywords of the schema object raw (ok false when
// raw is not an object).
func readKeywords(raw json.RawMessage) (keywords, bool) {
	o, ok := ReadObject(raw)
	return keywords{typ: o.Get("type"), ref: o.Get("$ref"), enum: o.Get("enum"), cnst: o.Get("const"),
		allOf: o.Get("allOf"), anyOf: o.Get("anyOf"), oneOf: o.Get("oneOf")}, ok
}

// names returns the type names of a schema, and whether some part of it
// is untyped (which lets a string through).
func names(d *Doc, raw json.RawMessage, depth int) ([]string, bool) {
	if !d.Visit(depth, len(raw)) {
		return nil, true
	}
	kw, ok := readKeywords(raw)
	switch {
	case !ok:
		return nil, true
	case kw.typ != nil:
		ns, ok := TypeNames(kw.typ)
		return ns, !ok
	case kw.ref != nil:
		return refNames(d, kw.ref, depth)
	case kw.anyOf != nil || kw.oneOf != nil:
		return unionNames(d, kw, depth)
	case kw.allOf != nil:
		return allOfNames(d, kw.allOf, depth)
	case kw.enum != nil || kw.cnst != nil:
		return enumNames(kw)
	}
	return nil, true
}

func refNames(d *Doc, ref json.RawMessage, depth int) ([]string, bool) {
	type found struct {
		names   []string
		untyped bool
	}
	f, ok := Follow(d, "type", ref, found{untyped: true}, func(target json.RawMessage) found {
		ns, untyped := names(d, target, depth+1)
		return found{ns, untyped}
	})
	if !ok {
		return nil, true // remote, or naming nothing: never fetched
	}
	return f.names, f.untyped
}

// unionNames: the types of every member of anyOf and oneOf.
func unionNames(d *Doc, kw keywords, depth int) ([]string, bool) {
	var out []string
	sawUnion, untyped := false, false
	for _, list := range []json.RawMessage{kw.anyOf, kw.oneOf} {
		subs, _ := Array(list)
		for _, s := range subs {
			sawUnion = true
			ns, u := names(d, s, depth+1)
			untyped = untyped || u
			out = append(out, ns...)
		}
	}
	return out, untyped || !sawUnion
}

// allOfNames: every member applies, so the types they all allow (pydantic
// wraps a lone $ref in allOf to give it a description).
func allOfNames(d *Doc, allOf json.RawMessage, depth int) ([]string, bool) {
	subs, _ := Array(allOf)
	var agreed []string
	typed := false
	for _, s := range subs {
		ns, u := names(d, s, depth+1)
		switch {
		case u:
		case !typed:
			agreed, typed = ns, true
		default:
			agreed = intersectTypes(agreed, ns)
		}
	}
	if !typed || len(agreed) == 0 {
		return nil, true
	}
	return agreed, false
}

func enumNames(kw keywords) ([]string, bool) {
	var values []json.RawMessage
	if kw.enum != nil && !isNull(kw.enum) {
		var ok bool
		if values, ok = Array(kw.enum); !ok {
			return nil, true
		}
	}
	if kw.cnst != nil {
		values = append(values, kw.cnst)
	}
	out := make([]string, 0, len(values))
	for _, v := range values {
		out = append(out, ValueKind(bytes.TrimSpace(v)))
	}
	return out, false
}

// intersectTypes keeps the type names of a that b allows too ("integer"
// when one says integer and the other number).
func intersectTypes(a, b []string) []string {
	var out []string
	for _, n := range a {
		switch {
		case slices.Contains(b, n):
			out = append(out, n)
		case n == "integer" && slices.Contains(b, "number"), n == "number" && slices.Contains(b, "integer"):
			out = append(out, "integer")
		}
	}
	return out
}

// TypeNames reads "type": a name or an array of names (other entries
// ignored); ok is false when it is neither.
func TypeNames(raw json.RawMessage) ([]string, bool) {
	if one, ok := String(raw); ok {
		return []string{one}, true
	}
	list, ok := Array(raw)
	if !ok {
		return nil, false
	}
	out := []string{}
	for _, r := range list {
		if one, ok := String(r); ok {
			out = append(out, one)
		}
	}
	return out, true
}

func typeFromNames(names []string, untyped bool) Type {
	var uniq []string
	for _, n := range names {
		if !slices.Contains(uniq, n) {
			uniq = append(uniq, n)
		}
	}
	t := Type{Label: strings.Join(uniq, "|")}
	if untyped || slices.Contains(uniq, "string") {
		t.Str = true
		return t
	}
	for _, n := range uniq {
		if slices.Contains(jsonKinds, n) {
			t.Kinds = append(t.Kinds, n)
		}
	}
	t.Str = len(t.Kinds) == 0 // only unknown type names: take the string
	return t
}
