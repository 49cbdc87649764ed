package schema

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/mcpx-cli/mcpx/internal/jsonscan"
)

// Object is one JSON object of a schema, its members read by the
// JSON.parse rule (a name given twice: first place, last value). The zero
// Object has no members.
type Object struct {
	raw     []byte
	members []jsonscan.Member
}

// ReadObject reads raw (valid JSON: a slice of a document) as an object;
// ok is false when it is something else.
func ReadObject(raw json.RawMessage) (Object, bool) {
	at := jsonscan.SkipSpace(raw, 0)
	if at >= len(raw) || raw[at] != '{' {
		return Object{}, false
	}
	return Object{raw: raw, members: jsonscan.Members(raw, at)}, true
}

// Get is the value of member key, nil when absent.
func (o Object) Get(key string) json.RawMessage {
	for _, m := range o.members {
		if m.Key == key {
			return json.RawMessage(o.raw[m.S:m.E])
		}
	}
	return nil
}

// Len is the number of members.
func (o Object) Len() int { return len(o.members) }

// Keys are the member names, in document order.
func (o Object) Keys() []string {
	keys := make([]string, len(o.members))
	for i, m := range o.members {
		keys[i] = m.Key
	}
	return keys
}

// Each calls fn for each member, in document order.
func (o Object) Each(fn func(key string, v json.RawMessage)) {
	for _, m := range o.members {
		fn(m.Key, json.RawMessage(o.raw[m.S:m.E]))
	}
}

// Array reads raw (valid JSON or nil) as an array: its elements, slices of
// raw; ok is false when raw is something else.
func Array(raw json.RawMessage) ([]json.RawMessage, bool) {
	at := jsonscan.SkipSpace(raw, 0)
	if at >= len(raw) || raw[at] != '[' {
		return nil, false
	}
	els := jsonscan.Elements(raw, at)
	out := make([]json.RawMessage, len(els))
	for i, e := range els {
		out[i] = json.RawMessage(raw[e[0]:e[1]])
	}
	return out, true
}

// String decodes raw when it is a JSON string.
func String(raw json.RawMessage) (string, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '"' {
		return "", false
	}
	if !jsonscan.HasEscape(t) {
		return string(t[1 : len(t)-1]), true
	}
	var s string
	return s, json.Unmarshal(t, &s) == nil
}

// Text is a value as a short text: a string decoded, null or absent "",
// anything else its JSON as sent.
func Text(raw json.RawMessage) string {
	if s, ok := String(raw); ok {
		return s
	}
	if t := bytes.TrimSpace(raw); string(t) != "null" {
		return string(t)
	}
	return ""
}

// Number reads raw when it is a JSON number.
func Number(raw json.RawMessage) (float64, bool) {
	t := bytes.TrimSpace(raw)
	if k := ValueKind(t); k != "integer" && k != "number" {
		return 0, false
	}
	x, err := strconv.ParseFloat(string(t), 64)
	return x, err == nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// ValueKind is the JSON kind of a valid JSON value (no surrounding space):
// a number without fraction or exponent is "integer"; "" for nothing.
func ValueKind(v []byte) string {
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if bytes.ContainsAny(v, ".eE") {
		return "number"
	}
	return "integer"
}
