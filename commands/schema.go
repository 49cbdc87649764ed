package commands

// What invoke and completion read of a tool's input schema: a property's
// type (a name, a union, the types its members allow), local $refs
// (resolved by render.SchemaDoc, never fetched), and the values an enum or
// const allows.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/secret"
	"github.com/mcpx-cli/mcpx/internal/text"
	"github.com/mcpx-cli/mcpx/render"
)

// maxAllowed bounds the values an enumeration may list and still be
// checked; a longer one (or a union adding up to more) is not checked.
const maxAllowed = 10000

// followRef is render.FollowRef for the JSON value of a "$ref" member: it
// reads the subschema a local JSON pointer names (once per document and
// reader); a remote or dangling $ref, or one that is not a string, is not
// followed (ok false).
func followRef[T any](doc *render.SchemaDoc, reader string, ref json.RawMessage, cycle T, read func(json.RawMessage) T) (T, bool) {
	var s string
	if json.Unmarshal(ref, &s) != nil {
		var zero T
		return zero, false
	}
	return render.FollowRef(doc, reader, s, cycle, read)
}

// keywords are the members of a (sub)schema that typing and enumeration
// read, as sent (nil when absent; of a repeated name, the last).
type keywords struct {
	typ, ref, enum, cnst, allOf, anyOf, oneOf json.RawMessage
}

// schemaKeywords reads the keywords of the schema object raw (ok false
// when raw is not an object).
func schemaKeywords(raw json.RawMessage) (kw keywords, ok bool) {
	members, ok := jsonObjectMembers(raw)
	for _, m := range members {
		switch m.key {
		case "type":
			kw.typ = m.raw
		case "$ref":
			kw.ref = m.raw
		case "enum":
			kw.enum = m.raw
		case "const":
			kw.cnst = m.raw
		case "allOf":
			kw.allOf = m.raw
		case "anyOf":
			kw.anyOf = m.raw
		case "oneOf":
			kw.oneOf = m.raw
		}
	}
	return kw, ok
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

// argType is how a KEY=VALUE value is sent: as the string itself, or
// parsed as JSON of one of kinds.
type argType struct {
	str   bool
	kinds []string // JSON kinds, in schema order: number, integer, boolean, null, array, object
	label string   // the declared type(s), "integer" or "integer|null"; "" when none
}

var jsonKinds = []string{"string", "number", "integer", "boolean", "null", "array", "object"}

// schemaType reads a property schema's type: "type" (a name or a union);
// else the type of what its local $ref names; else the union of its
// anyOf/oneOf members' types; else the types its allOf members agree on;
// else the kinds of its enum or const values. A remote $ref, a cycle, and
// anything untyped take the string.
func schemaType(doc *render.SchemaDoc, raw json.RawMessage) argType {
	return typeFromNames(schemaNames(doc, raw, 0))
}

// schemaNames returns the type names of a schema, and whether some part of
// it is untyped (which lets a string through).
func schemaNames(doc *render.SchemaDoc, raw json.RawMessage, depth int) ([]string, bool) {
	if !doc.Visit(depth, len(raw)) {
		return nil, true
	}
	kw, ok := schemaKeywords(raw)
	if !ok {
		return nil, true
	}
	switch {
	case kw.typ != nil:
		names, ok := typeNames(kw.typ)
		return names, !ok
	case kw.ref != nil:
		type found struct {
			names   []string
			untyped bool
		}
		f, ok := followRef(doc, "type", kw.ref, found{untyped: true}, func(target json.RawMessage) found {
			names, untyped := schemaNames(doc, target, depth+1)
			return found{names, untyped}
		})
		if !ok {
			return nil, true // remote, or naming nothing: never fetched
		}
		return f.names, f.untyped
	case kw.anyOf != nil || kw.oneOf != nil:
		var names []string
		sawUnion, untyped := false, false
		for _, list := range []json.RawMessage{kw.anyOf, kw.oneOf} {
			var subs []json.RawMessage
			if list == nil || json.Unmarshal(list, &subs) != nil {
				continue
			}
			for _, s := range subs {
				sawUnion = true
				ns, u := schemaNames(doc, s, depth+1)
				untyped = untyped || u
				names = append(names, ns...)
			}
		}
		return names, untyped || !sawUnion
	case kw.allOf != nil:
		// every member applies: the types they all allow (pydantic
		// wraps a lone $ref in allOf to give it a description)
		var subs []json.RawMessage
		_ = json.Unmarshal(kw.allOf, &subs)
		var agreed []string
		typed := false
		for _, s := range subs {
			ns, u := schemaNames(doc, s, depth+1)
			if u {
				continue
			}
			if !typed {
				agreed, typed = ns, true
			} else {
				agreed = intersectTypes(agreed, ns)
			}
		}
		if !typed || len(agreed) == 0 {
			return nil, true
		}
		return agreed, false
	case kw.enum != nil || kw.cnst != nil:
		var values []json.RawMessage
		if kw.enum != nil && json.Unmarshal(kw.enum, &values) != nil {
			return nil, true
		}
		if kw.cnst != nil {
			values = append(values, kw.cnst)
		}
		var names []string
		for _, v := range values {
			names = append(names, valueKind(bytes.TrimSpace(v)))
		}
		return names, false
	}
	return nil, true
}

// typeNames reads "type": a name or an array of names (other entries ignored).
func typeNames(raw json.RawMessage) ([]string, bool) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, true
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil, false
	}
	names := []string{}
	for _, r := range list {
		if json.Unmarshal(r, &one) == nil {
			names = append(names, one)
		}
	}
	return names, true
}

func typeFromNames(names []string, untyped bool) argType {
	var uniq []string
	for _, n := range names {
		if !slices.Contains(uniq, n) {
			uniq = append(uniq, n)
		}
	}
	t := argType{label: strings.Join(uniq, "|")}
	if untyped || slices.Contains(uniq, "string") {
		t.str = true
		return t
	}
	for _, n := range uniq {
		if slices.Contains(jsonKinds, n) {
			t.kinds = append(t.kinds, n)
		}
	}
	t.str = len(t.kinds) == 0 // only unknown type names: take the string
	return t
}

func (t argType) allows(kind string) bool {
	return slices.Contains(t.kinds, kind) || (kind == "integer" && slices.Contains(t.kinds, "number"))
}

func (t argType) expected() string {
	if len(t.kinds) == 1 {
		return t.kinds[0]
	}
	return "one of " + strings.Join(t.kinds, ", ")
}

// allowedSet is the finite set of values a schema allows, in schema order.
type allowedSet struct {
	values []json.RawMessage
	canon  map[string]bool
}

func newAllowedSet(values []json.RawMessage) *allowedSet {
	s := &allowedSet{canon: map[string]bool{}}
	s.add(values)
	return s
}

// add adds the values the set does not have yet.
func (s *allowedSet) add(values []json.RawMessage) {
	for _, v := range values {
		c, ok := canonJSON(v)
		if !ok || s.canon[c] {
			continue
		}
		s.canon[c] = true
		s.values = append(s.values, v)
	}
}

// has reports whether the JSON value v is one of the set, comparing JSON
// values (numbers by value, objects whatever their key order).
func (s *allowedSet) has(v json.RawMessage) bool {
	c, ok := canonJSON(v)
	return ok && s.canon[c]
}

// schemaAllowed returns the values a property allows when they are finitely
// many and an enum or const says which: its own, through local $refs and
// allOf, or a union of such (with "type": "null" members counting as null,
// as in Optional[Color]), each filtered by the types declared beside it.
// nil when any value of some type goes, or the list is empty or too long to
// check.
func schemaAllowed(doc *render.SchemaDoc, raw json.RawMessage) *allowedSet {
	values, enumerated, finite := allowedAt(doc, raw, 0)
	if !enumerated || !finite || len(values) == 0 || len(values) > maxAllowed {
		return nil
	}
	return newAllowedSet(values)
}

// allowedAt returns the values schema raw allows when finite: enumerated
// when an enum or const (not only "type": "null") made it so.
func allowedAt(doc *render.SchemaDoc, raw json.RawMessage, depth int) (values []json.RawMessage, enumerated, finite bool) {
	if !doc.Visit(depth, len(raw)) {
		return nil, false, false
	}
	kw, ok := schemaKeywords(raw)
	if !ok {
		return nil, false, false
	}
	var set []json.RawMessage
	restrict := func(vs []json.RawMessage, byEnum bool) {
		if len(vs) > maxAllowed {
			return // too many to check: no restriction
		}
		enumerated = enumerated || byEnum
		if !finite {
			set, finite = slices.Clone(vs), true // (vs may be kept for another property)
			return
		}
		other := newAllowedSet(vs)
		set = slices.DeleteFunc(set, func(v json.RawMessage) bool { return !other.has(v) })
	}
	var list []json.RawMessage
	if kw.enum != nil && json.Unmarshal(kw.enum, &list) == nil {
		restrict(list, true)
	}
	if kw.cnst != nil {
		restrict([]json.RawMessage{kw.cnst}, true)
	}
	if kw.ref != nil {
		type found struct {
			values             []json.RawMessage
			enumerated, finite bool
		}
		if f, _ := followRef(doc, "allowed", kw.ref, found{}, func(target json.RawMessage) found {
			vs, e, f := allowedAt(doc, target, depth+1)
			return found{vs, e, f}
		}); f.finite {
			restrict(f.values, f.enumerated)
		}
	}
	if kw.allOf != nil {
		var subs []json.RawMessage
		_ = json.Unmarshal(kw.allOf, &subs)
		for _, s := range subs {
			if vs, e, f := allowedAt(doc, s, depth+1); f {
				restrict(vs, e)
			}
		}
	}
	for _, l := range []json.RawMessage{kw.anyOf, kw.oneOf} {
		var subs []json.RawMessage
		if l == nil || json.Unmarshal(l, &subs) != nil || len(subs) == 0 {
			continue
		}
		all := newAllowedSet(nil)
		allFinite, anyEnum := true, false
		for _, s := range subs {
			vs, e, f := allowedAt(doc, s, depth+1)
			if !f || len(all.values)+len(vs) > maxAllowed {
				allFinite = false
				break
			}
			all.add(vs)
			anyEnum = anyEnum || e
		}
		if allFinite {
			restrict(all.values, anyEnum)
		}
	}
	if kw.typ != nil {
		names, ok := typeNames(kw.typ)
		switch {
		case !ok:
		case finite:
			set = slices.DeleteFunc(set, func(v json.RawMessage) bool { return !kindAllowed(names, v) })
		case len(names) == 1 && names[0] == "null":
			restrict([]json.RawMessage{json.RawMessage("null")}, false)
		}
	}
	return set, enumerated, finite
}

// kindAllowed reports whether a value's JSON kind is one of the type names.
func kindAllowed(names []string, v json.RawMessage) bool {
	k := valueKind(bytes.TrimSpace(v))
	if k == "integer" || k == "number" {
		return slices.Contains(names, "integer") || slices.Contains(names, "number")
	}
	return slices.Contains(names, k)
}

// enumValue types a KEY=VALUE pair whose property allows only the values
// of set: the value as typed when the set has it, else the string itself,
// else the value read as JSON (so Optional[Color] takes red and null). A
// value the set lacks is a usage error listing the allowed ones; a value
// read from a file is only ever the string.
func enumValue(p pair, set *allowedSet, typed json.RawMessage, typeErr error, sec *secret.Set) (json.RawMessage, error) {
	if typeErr == nil && set.has(typed) {
		return typed, nil
	}
	if s := jsonString(p.Value); set.has(s) {
		return s, nil
	}
	if p.File != "" && typeErr != nil {
		return nil, typeErr
	}
	if v := []byte(strings.TrimSpace(p.Value)); p.File == "" && json.Valid(v) && set.has(v) {
		var b bytes.Buffer
		if json.Compact(&b, v) == nil {
			return b.Bytes(), nil
		}
	}
	return nil, notAllowedError(p, set, sec)
}

// notAllowedError: a value the schema's enumeration lacks (exit 2), with
// the allowed values (Details "allowed", as JSON values), the schema's
// secrets masked before they are cut.
func notAllowedError(p pair, set *allowedSet, sec *secret.Set) error {
	shown := make([]string, 0, min(len(set.values), 50))
	for i, v := range set.values {
		if i == 50 {
			shown = append(shown, fmt.Sprintf("and %d more", len(set.values)-50))
			break
		}
		shown = append(shown, maskedClip(sec, text.CompactJSON(v), 60))
	}
	pairText := func(v string) string { return shellArg(argClip(p.Key, 100) + "=" + maskedClip(sec, v, 100)) }
	hint := fmt.Sprintf("e.g. %s; %s:=JSON sends any JSON value as is", pairText(lineForm(set.values[0])), p.Key)
	if p.File == "" && len(set.values) <= 1000 { // (argNearest costs a little per value)
		forms := make([]string, len(set.values))
		for i, v := range set.values {
			forms[i] = lineForm(v)
		}
		if n := argNearest(p.Value, forms); n != "" {
			hint = fmt.Sprintf("did you mean %s? %s:=JSON sends any JSON value as is", pairText(n), p.Key)
		}
	}
	return &fail.Error{
		Code:    fail.Usage,
		Message: fmt.Sprintf("argument %q: %s is not one of the allowed values: %s", p.Key, valueSource(p), strings.Join(shown, ", ")),
		Hints:   []string{hint},
		Details: map[string]any{"key": p.Key, "value": argClip(p.Value, valueClip), "allowed": set.values},
	}
}

// lineForm is a value as typed on the command line: a string as it is,
// anything else as its JSON.
func lineForm(v json.RawMessage) string {
	var s string
	if t := bytes.TrimSpace(v); len(t) > 0 && t[0] == '"' && json.Unmarshal(t, &s) == nil {
		return s
	}
	return text.CompactJSON(v)
}

// canonJSON is a canonical text of a JSON value, equal for equal values:
// object keys sorted (the last of repeated keys wins), numbers by value
// ("1.0", "1" and "10e-1" alike), strings decoded and re-encoded.
func canonJSON(v json.RawMessage) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var x any
	if dec.Decode(&x) != nil {
		return "", false
	}
	var b strings.Builder
	writeCanon(&b, x)
	return b.String(), true
}

func writeCanon(b *strings.Builder, x any) {
	switch x := x.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.Number:
		b.WriteString(canonNumber(string(x)))
	case string:
		b.Write(jsonString(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanon(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(jsonString(k))
			b.WriteByte(':')
			writeCanon(b, x[k])
		}
		b.WriteByte('}')
	}
}

// canonNumber writes a JSON number as sign, significant digits and
// exponent, without converting it (a schema's 1e400 stays exact): "-0" and
// "0.0" are "0", "1.50" is "15e-1", "100" is "1e2".
func canonNumber(n string) string {
	neg := strings.HasPrefix(n, "-")
	n = strings.TrimPrefix(n, "-")
	mant, expText, _ := strings.Cut(strings.ToLower(n), "e")
	exp := 0
	if expText != "" {
		e, err := strconv.Atoi(expText)
		if err != nil {
			return "n" + n // an exponent past int: compare the text
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= len(frac)
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	if trimmed == "" {
		return "0"
	}
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + trimmed + "e" + strconv.Itoa(exp)
}
