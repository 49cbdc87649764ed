package schema

// The fields of an elicitation's requested schema (see REQUESTS FROM
// SERVERS in mcpx(1)) and the check of an answer typed for one of them.
// Nothing here asks anything or does IO.

import (
	"encoding/json"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpx-cli/mcpx/internal/text"
)

// Field is one property of an elicitation's requested schema.
type Field struct {
	Name, Title, Desc string
	Kind              string // string, number, integer, boolean, enum, multi; "" when mcpx cannot ask for it
	Default           json.RawMessage
	Required          bool
	Choices           []Choice
	values            map[string]bool // the choices' values, for lookups
	Min, Max          *float64
	MinLen, MaxLen    *int
	Format            string
}

// Choice is one value of an enum or multi field, with its title.
type Choice struct{ Value, Title string }

// Fields reads the requested schema's properties in the order sent (nil
// when it is not a JSON object). A $ref is never followed (nothing is
// fetched): such a field has no kind.
func Fields(schema json.RawMessage) []Field {
	if !json.Valid(schema) {
		return nil
	}
	s, _ := ReadObject(schema)
	required := map[string]bool{}
	for _, r := range loneOrList(s.Get("required")) {
		required[Text(r)] = true
	}
	props, _ := ReadObject(s.Get("properties"))
	var fields []Field
	props.Each(func(k string, raw json.RawMessage) {
		p, _ := ReadObject(raw)
		f := Field{Name: k, Title: Text(p.Get("title")), Desc: Text(p.Get("description")),
			Required: required[k], Format: Text(p.Get("format")), Default: p.Get("default")}
		f.Min, f.Max = number(p, "minimum"), number(p, "maximum")
		f.kind(p)
		fields = append(fields, f)
	})
	return fields
}

// kind sets the field's kind, choices and bounds from its schema p.
func (f *Field) kind(p Object) {
	switch t := Text(p.Get("type")); {
	case p.Get("$ref") != nil:
	case t == "string" && isArray(p.Get("enum")):
		f.Kind = "enum"
		names := loneOrList(p.Get("enumNames"))
		values, _ := Array(p.Get("enum"))
		for i, v := range values {
			c := Choice{Value: Text(v)}
			if i < len(names) {
				c.Title = Text(names[i])
			}
			f.Choices = append(f.Choices, c)
		}
	case (t == "string" || t == "") && isArray(p.Get("oneOf")):
		f.Kind = "enum"
		f.Choices = titled(p.Get("oneOf"))
	case t == "array":
		f.multi(p)
	case t == "string":
		f.Kind = "string"
		f.MinLen, f.MaxLen = count(p, "minLength"), count(p, "maxLength")
	case t == "number", t == "integer", t == "boolean":
		f.Kind = t
	}
}

// multi reads an array of choices: its items' enum, anyOf or oneOf.
func (f *Field) multi(p Object) {
	items, _ := ReadObject(p.Get("items"))
	switch {
	case isArray(items.Get("enum")):
		values, _ := Array(items.Get("enum"))
		for _, v := range values {
			f.Choices = append(f.Choices, Choice{Value: Text(v)})
		}
	case isArray(items.Get("anyOf")):
		f.Choices = titled(items.Get("anyOf"))
	case isArray(items.Get("oneOf")):
		f.Choices = titled(items.Get("oneOf"))
	}
	if len(f.Choices) > 0 {
		f.Kind = "multi"
		f.MinLen, f.MaxLen = count(p, "minItems"), count(p, "maxItems")
	}
}

// loneOrList is an array's elements, or a value that is not one as its
// only element ("required": "a" names a).
func loneOrList(raw json.RawMessage) []json.RawMessage {
	if list, ok := Array(raw); ok {
		return list
	}
	if raw == nil || isNull(raw) {
		return nil
	}
	return []json.RawMessage{raw}
}

func isArray(raw json.RawMessage) bool {
	_, ok := Array(raw)
	return ok
}

// number is a bound of p, nil when absent or not a number.
func number(p Object, key string) *float64 {
	if x, ok := Number(p.Get(key)); ok {
		return &x
	}
	return nil
}

// count is a count bound of p, nil when absent, not a number or negative.
func count(p Object, key string) *int {
	x, ok := Number(p.Get(key))
	if !ok || math.Trunc(x) < 0 {
		return nil
	}
	n := int(min(x, math.MaxInt32))
	return &n
}

func titled(list json.RawMessage) []Choice {
	var cs []Choice
	members, _ := Array(list)
	for _, raw := range members {
		m, _ := ReadObject(raw)
		if c := m.Get("const"); c != nil {
			cs = append(cs, Choice{Value: Text(c), Title: Text(m.Get("title"))})
		}
	}
	return cs
}

// Check parses a typed answer (the JSON value) or says what is wrong.
func (f *Field) Check(in string) (json.RawMessage, string) {
	switch f.Kind {
	case "string":
		return f.checkString(in)
	case "number", "integer":
		return f.checkNumber(in)
	case "boolean":
		return checkBoolean(in)
	case "enum":
		if v, ok := f.pick(in); ok {
			b, _ := json.Marshal(v)
			return b, ""
		}
		return nil, "one of the choices (its number or its value)"
	case "multi":
		return f.checkMulti(in)
	}
	return nil, "a value mcpx cannot ask for"
}

func (f *Field) checkString(in string) (json.RawMessage, string) {
	if msg := lengthBounds(len([]rune(in)), f.MinLen, f.MaxLen, "character", "characters"); msg != "" {
		return nil, msg
	}
	if msg := checkFormat(f.Format, in); msg != "" {
		return nil, msg
	}
	b, _ := json.Marshal(in)
	return b, ""
}

// lengthBounds says what is wrong with a count n (of characters or
// choices) against its bounds.
func lengthBounds(n int, lo, hi *int, one, many string) string {
	if lo != nil && n < *lo {
		return fmt.Sprintf("at least %d %s", *lo, text.Plural(*lo, one, many))
	}
	if hi != nil && n > *hi {
		return fmt.Sprintf("at most %d %s", *hi, text.Plural(*hi, one, many))
	}
	return ""
}

// numberBounds says what is wrong with x against the field's bounds.
func (f *Field) numberBounds(x float64) string {
	if f.Min != nil && x < *f.Min {
		return fmt.Sprintf("at least %s", fmtNum(*f.Min))
	}
	if f.Max != nil && x > *f.Max {
		return fmt.Sprintf("at most %s", fmtNum(*f.Max))
	}
	return ""
}

func (f *Field) checkNumber(in string) (json.RawMessage, string) {
	in = strings.TrimSpace(in)
	x, err := strconv.ParseFloat(in, 64)
	switch {
	case err != nil || math.IsInf(x, 0) || math.IsNaN(x):
		return nil, "a number"
	case f.Kind == "integer" && wholeDigits().MatchString(in):
		// The digits as typed: a float would lose those past 2^53.
		if msg := f.numberBounds(x); msg != "" {
			return nil, msg
		}
		return json.RawMessage(strings.TrimPrefix(in, "+")), ""
	case f.Kind == "integer" && x != math.Trunc(x):
		return nil, "a whole number"
	}
	if msg := f.numberBounds(x); msg != "" {
		return nil, msg
	}
	return json.RawMessage(fmtNum(x)), ""
}

func checkBoolean(in string) (json.RawMessage, string) {
	switch strings.ToLower(strings.TrimSpace(in)) {
	case "y", "yes", "true":
		return json.RawMessage("true"), ""
	case "n", "no", "false":
		return json.RawMessage("false"), ""
	}
	return nil, "yes or no"
}

func (f *Field) checkMulti(in string) (json.RawMessage, string) {
	vals := []string{}
	seen := map[string]bool{}
	for _, part := range strings.Split(in, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		v, ok := f.pick(part)
		if !ok {
			return nil, fmt.Sprintf("choices separated by commas (%q is not one)", part)
		}
		if !seen[v] { // a choice given twice counts once
			seen[v] = true
			vals = append(vals, v)
		}
	}
	if msg := lengthBounds(len(vals), f.MinLen, f.MaxLen, "choice", "choices"); msg != "" {
		return nil, msg
	}
	b, _ := json.Marshal(vals)
	return b, ""
}

// pick finds a choice by its number (from 1) or its value.
func (f *Field) pick(in string) (string, bool) {
	in = strings.TrimSpace(in)
	if n, err := strconv.Atoi(in); err == nil && n >= 1 && n <= len(f.Choices) {
		return f.Choices[n-1].Value, true
	}
	if f.IsChoice(in) {
		return in, true
	}
	return "", false
}

// wholeDigits is an integer as JSON writes it (a sign allowed, no leading zero).
var wholeDigits = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[-+]?(0|[1-9][0-9]*)$`) })

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// checkFormat checks the string formats of the elicitation schema.
func checkFormat(format, in string) string {
	switch format {
	case "email":
		if a, err := mail.ParseAddress(in); err != nil || a.Address != in {
			return "an email address"
		}
	case "uri":
		if u, err := url.Parse(in); err != nil || u.Scheme == "" {
			return "an absolute URI"
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, in); err != nil {
			return "a date (YYYY-MM-DD)"
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, in); err != nil {
			return "a date and time (RFC 3339)"
		}
	}
	return ""
}

// DefaultOK reports whether the field's default is a valid value of it.
func (f *Field) DefaultOK() bool {
	if f.Default == nil || f.Kind == "" {
		return false
	}
	d := json.RawMessage(strings.TrimSpace(string(f.Default)))
	kind := ValueKind(d)
	switch f.Kind {
	case "enum":
		s, ok := String(d)
		return ok && f.IsChoice(s)
	case "string":
		s, ok := String(d)
		return ok && f.valid(s)
	case "number", "integer":
		return (kind == "integer" || kind == "number") && f.valid(string(d))
	case "boolean":
		return kind == "boolean"
	case "multi":
		return f.multiDefaultOK(d)
	}
	return false
}

// valid reports whether Check takes in.
func (f *Field) valid(in string) bool {
	_, msg := f.Check(in)
	return msg == ""
}

// multiDefaultOK: an array of distinct choices, as many as the bounds allow.
func (f *Field) multiDefaultOK(d json.RawMessage) bool {
	list, ok := Array(d)
	if !ok {
		return false
	}
	seen := map[string]bool{}
	for _, v := range list {
		s, ok := String(v)
		if !ok || !f.IsChoice(s) || seen[s] {
			return false
		}
		seen[s] = true
	}
	return lengthBounds(len(list), f.MinLen, f.MaxLen, "", "") == ""
}

// IsChoice reports whether v is one of the field's choice values exactly.
func (f *Field) IsChoice(v string) bool {
	if f.values == nil {
		f.values = make(map[string]bool, len(f.Choices))
		for _, c := range f.Choices {
			f.values[c.Value] = true
		}
	}
	return f.values[v]
}
