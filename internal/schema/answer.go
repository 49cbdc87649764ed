package schema

// Answers given for a form's fields without asking (--answer, --answers;
// see HEADLESS RUNS in mcpx(1)), typed by the requested schema as a
// person's answer at the question is.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpx-cli/mcpx/internal/text"
)

// wantError says what an answer must be ("a number", "one of ..."): a
// plain error, whose type nothing reads.
func wantError(want string) error { return errors.New(want) }

// AnswerText types a --answer VALUE for the field: as a person would type
// it at the question, except that a choice is its value (never its
// number), and several choices are separated by commas or given as a JSON
// array.
func (f *Field) AnswerText(in string) (json.RawMessage, error) {
	switch f.Kind {
	case "enum":
		if f.IsChoice(in) {
			b, _ := json.Marshal(in)
			return b, nil
		}
		return nil, wantError("one of " + f.ChoiceList())
	case "multi":
		if t := strings.TrimSpace(in); strings.HasPrefix(t, "[") && json.Valid([]byte(t)) {
			return f.AnswerJSON(json.RawMessage(t))
		}
		var vals []string
		for _, part := range strings.Split(in, ",") {
			if part = strings.TrimSpace(part); part != "" {
				vals = append(vals, part)
			}
		}
		return f.multiAnswer(vals)
	case "":
		return nil, wantError("a value mcpx cannot type (its schema is of no kind an elicitation form has)")
	}
	v, want := f.Check(in)
	if want != "" {
		return nil, wantError(want)
	}
	return v, nil
}

// AnswerJSON types an --answers value (valid JSON) for the field.
func (f *Field) AnswerJSON(raw json.RawMessage) (json.RawMessage, error) {
	v := json.RawMessage(bytes.TrimSpace(raw))
	kind := ValueKind(v)
	switch f.Kind {
	case "string", "enum":
		if kind != "string" {
			return nil, wantError(map[bool]string{true: "one of " + f.ChoiceList(), false: "a string"}[f.Kind == "enum"])
		}
		return f.AnswerText(Text(v))
	case "number", "integer":
		if kind != "integer" && kind != "number" {
			return nil, wantError("a number")
		}
		return f.AnswerText(string(v))
	case "boolean":
		if kind != "boolean" {
			return nil, wantError("true or false")
		}
		return v, nil
	case "multi":
		return f.multiJSON(v, kind)
	}
	return f.AnswerText(Text(v))
}

// multiJSON types an --answers value of a multi-select field: a string of
// comma-separated choices, or an array of them.
func (f *Field) multiJSON(v json.RawMessage, kind string) (json.RawMessage, error) {
	if kind == "string" {
		return f.AnswerText(Text(v))
	}
	list, ok := Array(v)
	if !ok {
		return nil, wantError("an array of choices among " + f.ChoiceList())
	}
	vals := make([]string, 0, len(list))
	for _, el := range list {
		s, ok := String(el)
		if !ok {
			return nil, wantError("an array of choices among " + f.ChoiceList())
		}
		vals = append(vals, s)
	}
	return f.multiAnswer(vals)
}

// multiAnswer checks the choices of a multi-select answer.
func (f *Field) multiAnswer(vals []string) (json.RawMessage, error) {
	seen := map[string]bool{}
	out := []string{}
	for _, v := range vals {
		if !f.IsChoice(v) {
			return nil, wantError(fmt.Sprintf("choices among %s (%q is not one)", f.ChoiceList(), v))
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	if msg := lengthBounds(len(out), f.MinLen, f.MaxLen, "choice", "choices"); msg != "" {
		return nil, wantError(msg)
	}
	b, _ := json.Marshal(out)
	return b, nil
}

// ChoiceList names the field's choice values.
func (f *Field) ChoiceList() string {
	var cs []string
	for _, c := range f.Choices {
		cs = append(cs, strconv.Quote(text.ClipBytes(c.Value, 80)))
	}
	if len(cs) == 0 {
		return "no choices"
	}
	return strings.Join(cs, ", ")
}
