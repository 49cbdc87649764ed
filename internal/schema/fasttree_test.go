package schema

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// The fast tree and quoting are those of encoding/json, value for value.
func TestDecodeTreeAsEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, ` { "a" : [ 1 , 2.50 , -0 , 1e400 ] , "b" : { } } `, `"x"`, `true`, `false`, `null`, `-12.5E+3`,
		`{"a":1,"a":{"b":2}}`, `{"k\u00e9y":"v\n\"\\\/\u2028"}`, "\"bad \xff utf8\"", `{"":[{"":[]}]}`,
		`["é", "\ud83d\ude00", "\ud800"]`,
	} {
		dec := json.NewDecoder(bytes.NewReader([]byte(in)))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		got, err := DecodeTree(json.RawMessage(in))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("DecodeTree(%s) = %#v, %v; want %#v", in, got, err, want)
		}
	}
	if _, err := DecodeTree(json.RawMessage(`{"a":`)); err == nil {
		t.Error("DecodeTree of broken JSON: no error")
	}
}

func TestQuoteAsEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain text 123", `q"uote`, `back\slash`, "tab\t", "<&>", "é", "\u2028", "\x7f", "\xff"} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		if got, want := string(Quote(s)), string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))); got != want {
			t.Errorf("Quote(%q) = %s, want %s", s, got, want)
		}
	}
}
