package schema

// A schema as a decoded tree (map[string]any, []any, json.Number, string,
// bool, nil), as the snapshot and its diff read it: local $refs expanded
// in place, and the annotations (descriptions, titles) that --no-descriptions
// leaves out.

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

// DecodeTree decodes a JSON value as a tree, numbers kept as sent
// (json.Number); of an object's repeated names the last value counts.
func DecodeTree(raw json.RawMessage) (any, error) {
	if json.Valid(raw) {
		return DecodeValidTree(raw), nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// DecodeValidTree is DecodeTree of raw known to be one valid JSON value
// (a slice of a document json.Valid accepted), without checking it again.
func DecodeValidTree(raw json.RawMessage) any {
	v, _ := fastTree(raw, 0)
	return v
}

// The keywords whose values are subschemas: one, a list of them, or an
// object of them by name.
var (
	oneSchema = map[string]bool{"items": true, "additionalProperties": true, "not": true, "if": true,
		"then": true, "else": true, "contains": true, "propertyNames": true, "additionalItems": true,
		"unevaluatedItems": true, "unevaluatedProperties": true, "contentSchema": true}
	listOfSchemas  = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true, "items": true}
	namedSchemas   = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}
	annotationKeys = map[string]bool{"description": true, "title": true}
)

// StripAnnotations returns schema tree v without the descriptions and
// titles of its schemas (a property named "title" stays).
func StripAnnotations(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		if annotationKeys[k] {
			continue
		}
		out[k] = mapSubschemas(k, x, StripAnnotations)
	}
	return out
}

// mapSubschemas applies f to the subschemas the value x of keyword k
// holds, leaving any other value as it is.
func mapSubschemas(k string, x any, f func(any) any) any {
	switch x := x.(type) {
	case map[string]any:
		if namedSchemas[k] {
			out := make(map[string]any, len(x))
			for name, s := range x {
				out[name] = f(s)
			}
			return out
		}
		if oneSchema[k] {
			return f(x)
		}
	case []any:
		if listOfSchemas[k] {
			out := make([]any, len(x))
			for i, s := range x {
				out[i] = f(s)
			}
			return out
		}
	}
	return x
}

// expandBudget bounds the schema nodes one expansion makes: a few times
// the document's, so that one model named by every property (or unions of
// $refs to unions) cannot make it grow without end. Past it, $refs are
// left as they are.
const expandBudget = 1 << 16

// Expand returns schema tree root with every local $ref (see Doc) replaced
// by what it names, expanded in turn; the $ref's sibling keywords are kept
// over the target's. A $ref met again inside its own expansion (a cycle),
// a remote one (never fetched), one that names nothing, and any past the
// budget or MaxDepth stay {"$ref": ...} as sent.
func Expand(root any) any {
	if !hasRef(root) {
		return root // nothing to expand: the tree as it is
	}
	e := &expander{root: root, budget: expandBudget}
	return e.expand(root, nil)
}

// hasRef reports whether tree v has a "$ref" member anywhere.
func hasRef(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["$ref"]; ok {
			return true
		}
		for _, x := range v {
			if hasRef(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if hasRef(x) {
				return true
			}
		}
	}
	return false
}

type expander struct {
	root   any
	budget int
}

func (e *expander) expand(v any, stack []string) any {
	e.budget--
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	if ref, ok := m["$ref"].(string); ok && e.budget > 0 && len(stack) < MaxDepth && !contains(stack, ref) {
		if target, ok := Pointer(e.root, ref); ok {
			return e.expandRef(m, target, append(stack, ref))
		}
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		if k == "$defs" || k == "definitions" {
			continue // read where they are named
		}
		out[k] = mapSubschemas(k, x, func(s any) any { return e.expand(s, stack) })
	}
	return out
}

// expandRef is the expansion of target with m's other keywords over it.
func (e *expander) expandRef(m map[string]any, target any, stack []string) any {
	t := e.expand(target, stack)
	tm, ok := t.(map[string]any)
	if !ok {
		if len(m) == 1 {
			return t // a boolean schema
		}
		tm = map[string]any{}
	}
	out := make(map[string]any, len(tm)+len(m))
	for k, x := range tm {
		out[k] = x
	}
	for k, x := range m {
		if k != "$ref" && k != "$defs" && k != "definitions" {
			out[k] = mapSubschemas(k, x, func(s any) any { return e.expand(s, stack) })
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Pointer resolves a local $ref ("#", "#/$defs/A", with "~0", "~1" and
// percent-encoding) in tree root; anything else resolves to nothing.
func Pointer(root any, ref string) (any, bool) {
	if !strings.HasPrefix(ref, "#") {
		return nil, false
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		frag = ref[1:]
	}
	if frag == "" {
		return root, true
	}
	if frag[0] != '/' {
		return nil, false
	}
	tokens := strings.Split(frag[1:], "/")
	if len(tokens) > maxPointerTokens {
		return nil, false
	}
	at := root
	for _, tok := range tokens {
		tok, ok := unescapeToken(tok)
		if !ok {
			return nil, false
		}
		if at, ok = treeChild(at, tok); !ok {
			return nil, false
		}
	}
	return at, true
}

func treeChild(at any, tok string) (any, bool) {
	switch at := at.(type) {
	case map[string]any:
		v, ok := at[tok]
		return v, ok
	case []any:
		if tok == "" || (len(tok) > 1 && tok[0] == '0') {
			return nil, false
		}
		n, err := strconv.Atoi(tok)
		if err != nil || n < 0 || n >= len(at) {
			return nil, false
		}
		return at[n], true
	}
	return nil, false
}

// TreeTypes are the type names of schema tree v ("type": a name or a
// list); nil when it declares none (any type goes).
func TreeTypes(v any) []string {
	m, _ := v.(map[string]any)
	switch t := m["type"].(type) {
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
