package schema

// The finite set of values a property allows: what an enum or const says,
// through local $refs, allOf and unions, filtered by the types declared
// beside it.

import (
	"bytes"
	"encoding/json"
	"slices"
)

// MaxAllowed bounds the values an enumeration may list and still be
// checked; a longer one (or a union adding up to more) is not checked.
const MaxAllowed = 10000

// Set is a finite set of JSON values, in schema order, compared as JSON
// values (numbers by value, objects whatever their key order).
type Set struct {
	Values []json.RawMessage
	canon  map[string]bool
}

// NewSet returns the set of values (each once).
func NewSet(values []json.RawMessage) *Set {
	s := &Set{canon: map[string]bool{}}
	s.Add(values)
	return s
}

// Add adds the values the set does not have yet.
func (s *Set) Add(values []json.RawMessage) {
	for _, v := range values {
		c, ok := Canon(v)
		if !ok || s.canon[c] {
			continue
		}
		s.canon[c] = true
		s.Values = append(s.Values, v)
	}
}

// Has reports whether the JSON value v is one of the set.
func (s *Set) Has(v json.RawMessage) bool {
	c, ok := Canon(v)
	return ok && s.canon[c]
}

// Allowed returns the values a property allows when they are finitely many
// and an enum or const says which: its own, through local $refs and allOf,
// or a union of such (with "type": "null" members counting as null, as in
// Optional[Color]), each filtered by the types declared beside it. nil
// when any value of some type goes, or the list is empty or too long to
// check.
func Allowed(d *Doc, raw json.RawMessage) *Set {
	a := allowedAt(d, raw, 0)
	if !a.enumerated || !a.finite || len(a.set) == 0 || len(a.set) > MaxAllowed {
		return nil
	}
	return NewSet(a.set)
}

// allowed is what allowedAt finds: the values, when finite; enumerated
// when an enum or const (not only "type": "null") made it so.
type allowed struct {
	set                []json.RawMessage
	enumerated, finite bool
}

// restrict narrows the set to vs (which byEnum says an enum gave).
func (a *allowed) restrict(vs []json.RawMessage, byEnum bool) {
	if len(vs) > MaxAllowed {
		return // too many to check: no restriction
	}
	a.enumerated = a.enumerated || byEnum
	if !a.finite {
		a.set, a.finite = slices.Clone(vs), true // (vs may be kept for another property)
		return
	}
	other := NewSet(vs)
	a.set = slices.DeleteFunc(a.set, func(v json.RawMessage) bool { return !other.Has(v) })
}

// allowedAt reads schema raw at depth (see Doc.Visit).
func allowedAt(d *Doc, raw json.RawMessage, depth int) allowed {
	var a allowed
	if !d.Visit(depth, len(raw)) {
		return a
	}
	kw, ok := readKeywords(raw)
	if !ok {
		return a
	}
	if kw.enum != nil {
		if list, ok := Array(kw.enum); ok || isNull(kw.enum) {
			a.restrict(list, true)
		}
	}
	if kw.cnst != nil {
		a.restrict([]json.RawMessage{kw.cnst}, true)
	}
	if kw.ref != nil {
		if f, _ := Follow(d, "allowed", kw.ref, allowed{}, func(target json.RawMessage) allowed {
			return allowedAt(d, target, depth+1)
		}); f.finite {
			a.restrict(f.set, f.enumerated)
		}
	}
	subs, _ := Array(kw.allOf)
	for _, s := range subs {
		if f := allowedAt(d, s, depth+1); f.finite {
			a.restrict(f.set, f.enumerated)
		}
	}
	a.union(d, kw.anyOf, depth)
	a.union(d, kw.oneOf, depth)
	a.typed(kw.typ)
	return a
}

// union restricts to the values of a union's members when each is finite.
func (a *allowed) union(d *Doc, list json.RawMessage, depth int) {
	subs, _ := Array(list)
	if len(subs) == 0 {
		return
	}
	all := NewSet(nil)
	anyEnum := false
	for _, s := range subs {
		f := allowedAt(d, s, depth+1)
		if !f.finite || len(all.Values)+len(f.set) > MaxAllowed {
			return
		}
		all.Add(f.set)
		anyEnum = anyEnum || f.enumerated
	}
	a.restrict(all.Values, anyEnum)
}

// typed filters the set by the type names beside it; a lone "null" type
// is the set of null.
func (a *allowed) typed(typ json.RawMessage) {
	if typ == nil {
		return
	}
	names, ok := TypeNames(typ)
	switch {
	case !ok:
	case a.finite:
		a.set = slices.DeleteFunc(a.set, func(v json.RawMessage) bool { return !kindAllowed(names, v) })
	case len(names) == 1 && names[0] == "null":
		a.restrict([]json.RawMessage{json.RawMessage("null")}, false)
	}
}

// kindAllowed reports whether a value's JSON kind is one of the type names.
func kindAllowed(names []string, v json.RawMessage) bool {
	k := ValueKind(bytes.TrimSpace(v))
	if k == "integer" || k == "number" {
		return slices.Contains(names, "integer") || slices.Contains(names, "number")
	}
	return slices.Contains(names, k)
}
