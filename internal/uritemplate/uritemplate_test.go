package uritemplate

import (
	"reflect"
	"testing"

	rfc6570 "github.com/yosida95/uritemplate/v3"
)

func TestVariables(t *testing.T) {
	for tpl, want := range map[string][]string{
		"file:///{path}":                 {"path"},
		"x://{+path}/{id}{?q,lang}":      {"path", "id", "q", "lang"},
		"x://{a}/{a}{#frag}{/seg*}{x:3}": {"a", "frag", "seg", "x"},
		"x://{=a}/{|b,c}":                {"a", "b", "c"}, // reserved operators
		"x:// {a} \"{b}\"":               {"a", "b"},      // literals RFC 6570 refuses
		"x://a}/{b}":                     {"b"},           // a stray "}" is literal
		"x://{a}/{b c}/{d:x}/{e}":        {"a", "e"},      // malformed expressions have none
		"no variables":                   nil,
		"x://{unterminated":              nil,
	} {
		if got := Variables(tpl); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %q, want %q", tpl, got, want)
		}
	}
}

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		tpl, uri string
		want     bool
	}{
		{"x://items/{id}", "x://items/42", true},
		{"x://items/{id}", "x://items/", true},
		{"x://items/{id}", "x://items/a%2Fb", true},
		{"x://items/{id}", "x://items/a b é", true}, // a value written by hand
		{"x://items/{id}", "x://items/a/b", false},  // a segment only
		{"x://items/{id}", "x://items/a?q", false},
		{"x://items/{id}", "x://items/a#f", false},
		{"x://items/{id}", "x://other/42", false},
		{"x://items/{id}.json", "x://items/42.json", true},
		{"x://items/{id}.json", "x://items/42.txt", false},
		{"x://{+path}", "x://a/b?c#d", true}, // an operator matches anything
		{"x://s{?q,lang}", "x://s?q=1&lang=en", true},
		{"x://{=a}/z", "x://anything/at/all/z", true},
		{"x://a.b/{id}", "x://aXb/1", false}, // literals are literal
		{"x://{a", "x://{a", true},           // malformed: read loosely
		{"x://{a", "x://b", false},
		{"x://a}/{b}", "x://a}/1", true},
		{"x://plain", "x://plain", true},
		{"x://plain", "x://plainer", false},
	} {
		if got := Matches(tc.tpl, tc.uri); got != tc.want {
			t.Errorf("Matches(%q, %q) = %v, want %v", tc.tpl, tc.uri, got, tc.want)
		}
	}
}

// TestLibraryExpansion pins why Expand encodes values itself: the
// library percent-encodes a character's code point, not its UTF-8 bytes,
// and refuses a value that is not UTF-8. Should an upgrade fix that, this
// fails, and the library's expansion can take over percentEncode's job.
func TestLibraryExpansion(t *testing.T) {
	tpl := rfc6570.MustNew("x://{a}")
	for v, want := range map[string]string{"é": "x://%E9", "世": "x://%4E%16"} {
		if got, err := tpl.Expand(rfc6570.Values{"a": rfc6570.String(v)}); err != nil || got != want {
			t.Errorf("library expansion of %q: %q, %v; want %q (it changed: see percentEncode)", v, got, err, want)
		}
	}
	if _, err := tpl.Expand(rfc6570.Values{"a": rfc6570.String("\xff")}); err == nil {
		t.Errorf("library expansion of a value that is not UTF-8 succeeds (it changed: see percentEncode)")
	}
	if _, err := rfc6570.New("x:// {a}"); err == nil {
		t.Errorf("the library takes a space in a literal (it changed: see scan)")
	}
}
