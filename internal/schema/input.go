package schema

import (
	"bytes"
	"encoding/json"
	"regexp"
)

// maxPatterns bounds the patternProperties read (a server's schema: no
// unbounded work).
const maxPatterns = 100

// Input is what KEY=VALUE typing and completion read of a tool's input
// schema at its top.
type Input struct {
	Doc      *Doc
	Props    Object   // properties, in schema order
	PropsOK  bool     // properties absent or an object (typing and the forbidden check apply)
	Required []string // each once, never ""
	Closed   bool     // additionalProperties: false
	Open     bool     // additionalProperties: true, or a schema: any key is welcome
	Extra    json.RawMessage
	Patterns []*regexp.Regexp // the keys of patternProperties (those Go's regexp reads)
}

// ReadInput returns nil when there is no usable schema (none, null, or not
// a JSON object).
func ReadInput(s json.RawMessage) *Input {
	d := New(s)
	top, ok := ReadObject(d.Root())
	if !ok {
		return nil
	}
	in := &Input{Doc: d, PropsOK: true}
	if p := top.Get("properties"); p != nil {
		in.Props, in.PropsOK = ReadObject(p)
	}
	in.Required = requiredNames(top.Get("required"))
	in.additional(top.Get("additionalProperties"))
	pats, _ := ReadObject(top.Get("patternProperties"))
	for _, p := range pats.Keys() {
		if len(in.Patterns) == maxPatterns {
			break
		}
		if re, err := regexp.Compile(p); err == nil {
			in.Patterns = append(in.Patterns, re)
		}
	}
	return in
}

// requiredNames reads "required": its strings, each once ("" cannot be
// given as a pair: it is not required of anyone).
func requiredNames(raw json.RawMessage) []string {
	list, _ := Array(raw)
	var out []string
	seen := map[string]bool{} // a set: a server's list can be long
	for _, r := range list {
		if name, ok := String(r); ok && name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

func (in *Input) additional(raw json.RawMessage) {
	switch v := string(bytes.TrimSpace(raw)); {
	case v == "false":
		in.Closed = true
	case v == "true":
		in.Open = true
	case isObject(raw):
		in.Extra, in.Open = raw, true
	}
}

// Prop returns the schema of a declared property.
func (in *Input) Prop(key string) (json.RawMessage, bool) {
	raw := in.Props.Get(key)
	return raw, raw != nil
}

// Declared are the names of the properties, in schema order.
func (in *Input) Declared() []string { return in.Props.Keys() }

// PropSchema is the schema a key's value must match: its property, else
// additionalProperties when that is a schema; nil when there is none.
func (in *Input) PropSchema(key string) json.RawMessage {
	if in == nil || !in.PropsOK {
		return nil
	}
	if raw, ok := in.Prop(key); ok {
		return raw
	}
	return in.Extra
}
