package schema

import (
	"encoding/json"
	"testing"
)

// TestAnswerTyping: answers typed by the field, as --answer text and as
// --answers JSON.
func TestAnswerTyping(t *testing.T) {
	schema := json.RawMessage(`{"properties":{
		"s":{"type":"string","minLength":2},
		"n":{"type":"integer","minimum":1},
		"x":{"type":"number"},
		"b":{"type":"boolean"},
		"e":{"type":"string","enum":["1","2","red"]},
		"m":{"type":"array","items":{"enum":["a","b","c"]},"maxItems":2},
		"r":{"$ref":"#/x"}}}`)
	fields := Fields(schema)
	byName := map[string]*Field{}
	for i := range fields {
		byName[fields[i].Name] = &fields[i]
	}
	text := []struct{ f, in, want, bad string }{
		{"s", "hi", `"hi"`, ""},
		{"s", "h", "", "at least 2 characters"},
		{"n", "12345678901234567890", "12345678901234567890", ""},
		{"n", "0", "", "at least 1"},
		{"n", "1.5", "", "a whole number"},
		{"x", "2.50", "2.5", ""},
		{"b", "yes", "true", ""},
		{"b", "false", "false", ""},
		{"e", "2", `"2"`, ""}, // a value, never a choice's number
		{"e", "3", "", `one of "1", "2", "red"`},
		{"m", "a, c,a", `["a","c"]`, ""},
		{"m", `["b"]`, `["b"]`, ""},
		{"m", "a,b,c", "", "at most 2 choices"},
		{"m", "d", "", `choices among "a", "b", "c" ("d" is not one)`},
		{"r", "x", "", "a value mcpx cannot type (its schema is of no kind an elicitation form has)"},
	}
	for _, c := range text {
		v, err := byName[c.f].AnswerText(c.in)
		checkAnswer(t, "answerText "+c.f+"="+c.in, v, err, c.want, c.bad)
	}
	js := []struct{ f, in, want, bad string }{
		{"s", `"hey"`, `"hey"`, ""},
		{"s", `3`, "", "a string"},
		{"n", `7`, "7", ""},
		{"n", `"7"`, "", "a number"},
		{"b", `true`, "true", ""},
		{"b", `"yes"`, "", "true or false"},
		{"e", `"red"`, `"red"`, ""},
		{"e", `1`, "", `one of "1", "2", "red"`},
		{"m", `["c","a"]`, `["c","a"]`, ""},
		{"m", `"a,b"`, `["a","b"]`, ""},
		{"m", `[1]`, "", `an array of choices among "a", "b", "c"`},
	}
	for _, c := range js {
		v, err := byName[c.f].AnswerJSON(json.RawMessage(c.in))
		checkAnswer(t, "answerJSON "+c.f+"="+c.in, v, err, c.want, c.bad)
	}
}

func checkAnswer(t *testing.T, what string, v json.RawMessage, err error, want, bad string) {
	t.Helper()
	switch {
	case bad != "" && (err == nil || err.Error() != bad):
		t.Errorf("%s: got %s, %v; want the error %q", what, v, err, bad)
	case bad == "" && (err != nil || string(v) != want):
		t.Errorf("%s: got %s, %v; want %s", what, v, err, want)
	}
}
