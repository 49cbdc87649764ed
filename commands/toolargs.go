package commands

// The arguments object of tools/call: --args, then the pairs, each value
// typed by the tool's input schema, and the checks of required and
// forbidden keys, all before anything is sent. Nothing here talks to a
// server or does IO. Values keep their bytes: numbers are never converted
// through float64, strings are never HTML-escaped, JSON is only compacted.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/schema"
	"github.com/mcpx-cli/mcpx/internal/secret"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// valueClip bounds the "value" detail of an error (in characters).
const valueClip = 200

// toolArgs builds the tools/call arguments object: base (from --args: nil, or the
// JSON text given inline, from @FILE or stdin) overlaid by pairs, each value typed
// by schema (the tool's inputSchema, nil when none could be had: then every
// value is a string and no checks run). It returns compact JSON object bytes,
// and the keys the schema does not declare (sent all the same: the caller
// warns, or refuses them under --strict). A key that is a near miss of a
// declared one not given (see nearMiss) is refused. Messages mask sec's
// secrets in what they quote of the schema.
func toolArgs(tool string, base []byte, pairs []pair, schema json.RawMessage, sec *secret.Set) (json.RawMessage, []string, error) {
	sc := parseToolSchema(schema)
	if sc != nil {
		sc.secrets = sec
	}
	var keys []string
	vals := map[string][]byte{}
	set := func(k string, v []byte) {
		if _, ok := vals[k]; !ok {
			keys = append(keys, k)
		}
		vals[k] = v
	}
	if base != nil {
		members, err := argsObject(base)
		if err != nil {
			return nil, nil, err
		}
		for _, m := range members {
			var b bytes.Buffer
			if err := json.Compact(&b, m.raw); err != nil {
				return nil, nil, &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("--args must be a JSON object: %v", err)}
			}
			set(m.key, b.Bytes())
		}
	}
	for _, p := range pairs {
		v, err := typePair(p, sc)
		if err != nil {
			return nil, nil, err
		}
		set(p.Key, v)
	}
	var undeclared []string
	if sc != nil {
		var err error
		if undeclared, err = sc.check(tool, keys); err != nil {
			return nil, nil, err
		}
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(jsonString(k))
		out.WriteByte(':')
		out.Write(vals[k])
	}
	out.WriteByte('}')
	return out.Bytes(), undeclared, nil
}

// argsObject parses --args: a JSON object, its members in order (a key given
// twice keeps its first place and its last value, as JSON.parse does).
func argsObject(base []byte) ([]argMember, error) {
	hint := []string{`e.g. --args '{"path":"/tmp/notes.txt","limit":10}'`}
	if !utf8.Valid(base) {
		return nil, &fail.Error{Code: fail.Usage, Message: "--args is not valid UTF-8", Hints: []string{"values are sent as JSON strings; encode binary data (e.g. base64) first"}}
	}
	if err := json.Unmarshal(base, new(json.RawMessage)); err != nil {
		return nil, &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("--args must be a JSON object: %v", err), Hints: hint}
	}
	members, ok := jsonObjectMembers(base)
	if !ok {
		return nil, &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("--args must be a JSON object, not %s", kindPhrase(schema.ValueKind(bytes.TrimSpace(base)))), Hints: hint}
	}
	return members, nil
}

// argMember is one member of a JSON object, in document order.
type argMember struct {
	key string
	raw json.RawMessage
}

// jsonObjectMembers returns the members of a JSON object in document order,
// or ok=false when data is not exactly one JSON object.
func jsonObjectMembers(data []byte) (members []argMember, ok bool) {
	if !json.Valid(data) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if d, isDelim := tok.(json.Delim); err != nil || !isDelim || d != '{' {
		return nil, false
	}
	members = []argMember{}
	for dec.More() {
		tok, err := dec.Token()
		key, isString := tok.(string)
		if err != nil || !isString {
			return nil, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		members = append(members, argMember{key, raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	return members, true
}

// toolSchema is what toolArgs uses of a tool's inputSchema.
type toolSchema struct {
	*schema.Input
	secrets *secret.Set // masked in what messages quote of the schema (nil: none)
}

// parseToolSchema returns nil when there is no usable schema (none, null, or
// not a JSON object).
func parseToolSchema(s json.RawMessage) *toolSchema {
	in := schema.ReadInput(s)
	if in == nil {
		return nil
	}
	return &toolSchema{Input: in}
}

// propSchema is the schema a key's value must match (see
// schema.Input.PropSchema).
func (sc *toolSchema) propSchema(key string) json.RawMessage {
	if sc == nil {
		return nil
	}
	return sc.PropSchema(key)
}

// typeOf is the type a KEY=VALUE value takes.
func (sc *toolSchema) typeOf(key string) schema.Type {
	if raw := sc.propSchema(key); raw != nil {
		return schema.TypeOf(sc.Doc, raw)
	}
	return schema.Type{Str: true}
}

// check applies required and additionalProperties: false to the merged
// keys, and refuses a key that is a near miss of a declared one not given
// (haed for head). It returns the other keys the schema does not declare
// (nor allow through additionalProperties or patternProperties).
func (sc *toolSchema) check(tool string, keys []string) ([]string, error) {
	missing := without(sc.Required, keys)
	declared := sc.Declared()
	var undeclared []string
	if sc.PropsOK {
		undeclared = without(keys, declared)
	}
	if sc.Closed && len(undeclared) > 0 {
		return nil, undeclaredError("tool", tool, "does not accept", "forbidden", undeclared, declared, declared, missing)
	}
	notGiven := without(declared, keys)
	var near, other []string
	for _, k := range undeclared {
		switch {
		case nearMiss(k, notGiven) != "":
			near = append(near, k)
		case !sc.Open && !sc.patterned(k):
			other = append(other, k)
		}
	}
	if len(near) > 0 {
		return nil, undeclaredError("tool", tool, "does not declare", "unknown", near, declared, notGiven, missing)
	}
	if len(missing) > 0 {
		return nil, sc.missingError(tool, missing)
	}
	return other, nil
}

// without is list less the names in drop, in list's order.
func without(list, drop []string) []string {
	var out []string
	for _, n := range list {
		if !slices.Contains(drop, n) {
			out = append(out, n)
		}
	}
	return out
}

// missingError: required keys not given (exit 2), each with its type and
// description.
func (sc *toolSchema) missingError(tool string, missing []string) error {
	items := make([]string, 0, len(missing))
	pairs := make([]string, 0, len(missing))
	for _, name := range missing {
		var about []string
		if raw, ok := sc.Prop(name); ok {
			if t := schema.TypeOf(sc.Doc, raw).Label; t != "" {
				about = append(about, t)
			}
			if d := sc.description(raw); d != "" {
				about = append(about, d)
			}
		}
		item := name
		if len(about) > 0 {
			item += " (" + strings.Join(about, ", ") + ")"
		}
		items = append(items, item)
		pairs = append(pairs, shellArg(maskedClip(sc.secrets, name, 100)+"=VALUE")) // a server's name, pasted into a shell
	}
	return &fail.Error{Code: fail.Usage,
		Message: fmt.Sprintf("tool %q is missing required %s: %s", tool, text.Plural(len(missing), "argument", "arguments"), strings.Join(items, ", ")),
		Hints:   []string{"add " + strings.Join(pairs, " ") + ", or put them in --args"},
		Details: map[string]any{"missing": missing},
	}
}

// declaredKeys are the properties a tool's input schema declares.
func declaredKeys(s json.RawMessage) []string {
	if sc := parseToolSchema(s); sc != nil {
		return sc.Declared()
	}
	return []string{}
}

// patterned reports whether a key matches one of the patternProperties.
func (sc *toolSchema) patterned(key string) bool {
	for _, re := range sc.Patterns {
		if re.MatchString(key) {
			return true
		}
	}
	return false
}

// description is a property's description (its first 80 characters, on
// one line, secrets masked), else that of the schema its local $ref (or an
// allOf of one member) names.
func (sc *toolSchema) description(raw json.RawMessage) string {
	return maskedLine(sc.secrets, schema.Description(sc.Doc, raw), 80)
}

// typePair returns the JSON of one pair's value.
func typePair(p pair, sc *toolSchema) (json.RawMessage, error) {
	if !utf8.ValidString(p.Key) || !utf8.ValidString(p.Value) {
		return nil, notUTF8(fmt.Sprintf("argument %q", p.Key), p.Key, p.File)
	}
	if p.Raw {
		return rawPairJSON(p)
	}
	v, err := typeValue(p, sc.typeOf(p.Key))
	if raw := sc.propSchema(p.Key); raw != nil {
		if set := schema.Allowed(sc.Doc, raw); set != nil {
			return enumValue(p, set, v, err, sc.secrets)
		}
	}
	return v, err
}

// typeValue returns the JSON of a pair's value typed as t.
func typeValue(p pair, t schema.Type) (json.RawMessage, error) {
	if t.Str {
		return jsonString(p.Value), nil
	}
	if p.File != "" {
		// KEY=@FILE and KEY=@- read a string, verbatim (invoke in COMMANDS,
		// mcpx(1)), as httpie's field=@file does; KEY:=@FILE reads JSON. A
		// string where the schema wants something else is a bad value, never
		// coerced.
		exp, what := t.Expected(), t.Expected()
		if len(t.Kinds) == 1 {
			what = kindPhrase(t.Kinds[0])
		}
		return nil, &fail.Error{
			Code:    fail.Usage,
			Message: fmt.Sprintf("argument %q: %s is a string (KEY=@FILE reads text, verbatim), and %q takes %s", p.Key, valueSource(p), p.Key, what),
			Hints:   []string{fmt.Sprintf("%s:=@%s reads a JSON value from the file instead", p.Key, p.File)},
			Details: map[string]any{"key": p.Key, "value": argClip(p.Value, valueClip), "expected": exp},
		}
	}
	v := []byte(strings.TrimSpace(p.Value))
	if json.Valid(v) && t.Allows(schema.ValueKind(v)) {
		var b bytes.Buffer
		if err := json.Compact(&b, v); err == nil {
			return b.Bytes(), nil
		}
	}
	exp := t.Expected()
	var what string
	if len(t.Kinds) == 1 {
		what = kindPhrase(t.Kinds[0])
	} else {
		what = exp
	}
	return nil, &fail.Error{
		Code:    fail.Usage,
		Message: fmt.Sprintf("argument %q: %s is not %s", p.Key, valueSource(p), what),
		Hints: []string{fmt.Sprintf("%q takes %s, e.g. %s=%s; %s:=JSON sends any JSON value as is",
			p.Key, what, p.Key, kindExample[t.Kinds[0]], p.Key)},
		Details: map[string]any{"key": p.Key, "value": argClip(p.Value, valueClip), "expected": exp},
	}
}

// rawPairJSON checks and compacts the JSON of a KEY:=JSON pair.
func rawPairJSON(p pair) (json.RawMessage, error) {
	err := json.Unmarshal([]byte(p.Value), new(json.RawMessage))
	if err == nil {
		var b bytes.Buffer
		if err = json.Compact(&b, []byte(p.Value)); err == nil {
			return b.Bytes(), nil
		}
	}
	src := valueSource(p)
	if p.File == "" {
		src = fmt.Sprintf("%s:=%s", p.Key, argClip(p.Value, 60))
	}
	return nil, &fail.Error{
		Code:    fail.Usage,
		Message: fmt.Sprintf("argument %q: %s is not valid JSON (%v)", p.Key, src, err),
		Hints: []string{fmt.Sprintf(`quote JSON for the shell, e.g. %s:='{"a":[1,2]}'; to send text, write %s=TEXT`,
			p.Key, p.Key)},
		Details: map[string]any{"key": p.Key, "value": argClip(p.Value, valueClip), "expected": "JSON"},
	}
}

// valueSource describes a pair's value in messages.
func valueSource(p pair) string {
	switch p.File {
	case "":
		return fmt.Sprintf("%q", argClip(p.Value, 60))
	case "-":
		return "the value read from stdin"
	}
	return "the content of " + p.File
}

func kindPhrase(kind string) string {
	switch kind {
	case "integer":
		return "an integer"
	case "number":
		return "a number"
	case "boolean":
		return "a boolean (true or false)"
	case "null":
		return "null"
	case "array":
		return "a JSON array"
	case "object":
		return "a JSON object"
	case "string":
		return "a string"
	}
	return "valid JSON"
}

var kindExample = map[string]string{
	"integer": "42",
	"number":  "3.14",
	"boolean": "true",
	"null":    "null",
	"array":   `'["a","b"]'`,
	"object":  `'{"k":"v"}'`,
}

// jsonString encodes s as a JSON string, without HTML escaping.
func jsonString(s string) []byte { return schema.Quote(s) }
