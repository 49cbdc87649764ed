package commands

// The form of an elicitation (see REQUESTS FROM SERVERS in mcpx(1)): the
// fields read from its requested schema, the check of an answer typed for
// one of them, and the answers as one JSON object. Nothing here asks
// anything or does IO.

import (
	"bytes"
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

	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/internal/text"
)

// field is one property of an elicitation's requested schema.
type field struct {
	Name, Title, Desc string
	Kind              string // string, number, integer, boolean, enum, multi; "" when mcpx cannot ask for it
	Default           json.RawMessage
	Required          bool
	Choices           []choice
	values            map[string]bool // the choices' values, for lookups
	Min, Max          *float64
	MinLen, MaxLen    *int
	Format            string
}

type choice struct{ Value, Title string }

// formFields reads the requested schema's properties in the order sent.
// A $ref is never followed (nothing is fetched): such a field has no kind.
func formFields(schema json.RawMessage) []field {
	s := gjson.ParseBytes(schema)
	required := map[string]bool{}
	for _, r := range s.Get("required").Array() {
		required[r.String()] = true
	}
	var fields []field
	s.Get("properties").ForEach(func(k, p gjson.Result) bool {
		f := field{Name: k.String(), Title: p.Get("title").String(), Desc: p.Get("description").String(),
			Required: required[k.String()], Format: p.Get("format").String()}
		if d := p.Get("default"); d.Exists() {
			f.Default = json.RawMessage(d.Raw)
		}
		num := func(key string) *float64 {
			if v := p.Get(key); v.Type == gjson.Number {
				x := v.Float()
				return &x
			}
			return nil
		}
		count := func(key string) *int {
			if v := p.Get(key); v.Type == gjson.Number && v.Int() >= 0 {
				x := int(v.Int())
				return &x
			}
			return nil
		}
		f.Min, f.Max = num("minimum"), num("maximum")
		switch t := p.Get("type").String(); {
		case p.Get("$ref").Exists():
		case t == "string" && p.Get("enum").IsArray():
			f.Kind = "enum"
			names := p.Get("enumNames").Array()
			for i, v := range p.Get("enum").Array() {
				c := choice{Value: v.String()}
				if i < len(names) {
					c.Title = names[i].String()
				}
				f.Choices = append(f.Choices, c)
			}
		case (t == "string" || t == "") && p.Get("oneOf").IsArray():
			f.Kind = "enum"
			f.Choices = titled(p.Get("oneOf"))
		case t == "array":
			items := p.Get("items")
			switch {
			case items.Get("enum").IsArray():
				for _, v := range items.Get("enum").Array() {
					f.Choices = append(f.Choices, choice{Value: v.String()})
				}
			case items.Get("anyOf").IsArray():
				f.Choices = titled(items.Get("anyOf"))
			case items.Get("oneOf").IsArray():
				f.Choices = titled(items.Get("oneOf"))
			}
			if len(f.Choices) > 0 {
				f.Kind = "multi"
				f.MinLen, f.MaxLen = count("minItems"), count("maxItems")
			}
		case t == "string":
			f.Kind = "string"
			f.MinLen, f.MaxLen = count("minLength"), count("maxLength")
		case t == "number", t == "integer", t == "boolean":
			f.Kind = t
		}
		fields = append(fields, f)
		return true
	})
	return fields
}

func titled(list gjson.Result) []choice {
	var cs []choice
	for _, m := range list.Array() {
		if c := m.Get("const"); c.Exists() {
			cs = append(cs, choice{Value: c.String(), Title: m.Get("title").String()})
		}
	}
	return cs
}

// check parses a typed answer (the JSON value) or says what is wrong.
func (f *field) check(in string) (json.RawMessage, string) {
	switch f.Kind {
	case "string":
		n := len([]rune(in))
		if f.MinLen != nil && n < *f.MinLen {
			return nil, fmt.Sprintf("at least %d %s", *f.MinLen, text.Plural(*f.MinLen, "character", "characters"))
		}
		if f.MaxLen != nil && n > *f.MaxLen {
			return nil, fmt.Sprintf("at most %d %s", *f.MaxLen, text.Plural(*f.MaxLen, "character", "characters"))
		}
		if msg := checkFormat(f.Format, in); msg != "" {
			return nil, msg
		}
		b, _ := json.Marshal(in)
		return b, ""
	case "number", "integer":
		in = strings.TrimSpace(in)
		x, err := strconv.ParseFloat(in, 64)
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, "a number"
		}
		if f.Kind == "integer" && wholeDigits().MatchString(in) {
			// The digits as typed: a float would lose those past 2^53.
			if f.Min != nil && x < *f.Min {
				return nil, fmt.Sprintf("at least %s", fmtNum(*f.Min))
			}
			if f.Max != nil && x > *f.Max {
				return nil, fmt.Sprintf("at most %s", fmtNum(*f.Max))
			}
			return json.RawMessage(strings.TrimPrefix(in, "+")), ""
		}
		if f.Kind == "integer" && x != math.Trunc(x) {
			return nil, "a whole number"
		}
		if f.Min != nil && x < *f.Min {
			return nil, fmt.Sprintf("at least %s", fmtNum(*f.Min))
		}
		if f.Max != nil && x > *f.Max {
			return nil, fmt.Sprintf("at most %s", fmtNum(*f.Max))
		}
		return json.RawMessage(fmtNum(x)), ""
	case "boolean":
		switch strings.ToLower(strings.TrimSpace(in)) {
		case "y", "yes", "true":
			return json.RawMessage("true"), ""
		case "n", "no", "false":
			return json.RawMessage("false"), ""
		}
		return nil, "yes or no"
	case "enum":
		if v, ok := f.pick(in); ok {
			b, _ := json.Marshal(v)
			return b, ""
		}
		return nil, "one of the choices (its number or its value)"
	case "multi":
		var vals []string
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
		if f.MinLen != nil && len(vals) < *f.MinLen {
			return nil, fmt.Sprintf("at least %d %s", *f.MinLen, text.Plural(*f.MinLen, "choice", "choices"))
		}
		if f.MaxLen != nil && len(vals) > *f.MaxLen {
			return nil, fmt.Sprintf("at most %d %s", *f.MaxLen, text.Plural(*f.MaxLen, "choice", "choices"))
		}
		if vals == nil {
			vals = []string{}
		}
		b, _ := json.Marshal(vals)
		return b, ""
	}
	return nil, "a value mcpx cannot ask for"
}

// pick finds a choice by its number (from 1) or its value.
func (f *field) pick(in string) (string, bool) {
	in = strings.TrimSpace(in)
	if n, err := strconv.Atoi(in); err == nil && n >= 1 && n <= len(f.Choices) {
		return f.Choices[n-1].Value, true
	}
	if f.isChoice(in) {
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

// defaultOK reports whether the field's default is a valid value of it.
func (f *field) defaultOK() bool {
	if f.Default == nil || f.Kind == "" {
		return false
	}
	d := gjson.ParseBytes(f.Default)
	switch f.Kind {
	case "enum":
		return d.Type == gjson.String && f.isChoice(d.String())
	case "string":
		if d.Type != gjson.String {
			return false
		}
		_, msg := f.check(d.String())
		return msg == ""
	case "number", "integer":
		if d.Type != gjson.Number {
			return false
		}
		_, msg := f.check(d.Raw)
		return msg == ""
	case "boolean":
		return d.IsBool()
	case "multi":
		if !d.IsArray() {
			return false
		}
		n := 0
		seen := map[string]bool{}
		for _, v := range d.Array() {
			if v.Type != gjson.String || !f.isChoice(v.String()) || seen[v.String()] {
				return false
			}
			seen[v.String()] = true
			n++
		}
		return (f.MinLen == nil || n >= *f.MinLen) && (f.MaxLen == nil || n <= *f.MaxLen)
	}
	return false
}

// isChoice reports whether v is one of the field's choice values exactly.
func (f *field) isChoice(v string) bool {
	if f.values == nil {
		f.values = make(map[string]bool, len(f.Choices))
		for _, c := range f.Choices {
			f.values[c.Value] = true
		}
	}
	return f.values[v]
}

// object writes the answers as one JSON object, in the schema's order.
func object(fields []field, values map[string]json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for _, f := range fields {
		v, ok := values[f.Name]
		if !ok {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Name)
		b.Write(k)
		b.WriteByte(':')
		b.WriteString(text.CompactJSON(v))
	}
	b.WriteByte('}')
	return b.Bytes()
}
