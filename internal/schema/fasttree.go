package schema

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/mcpx-cli/mcpx/internal/jsonscan"
)

// fastTree decodes valid JSON (checked by the caller) into the tree
// DecodeTree returns, without encoding/json's reflection and buffering:
// objects as maps (a repeated name: the last wins), arrays, numbers as
// their text, strings (any with an escape or invalid UTF-8 handed to
// encoding/json, for its exact unquoting), true, false and null.
func fastTree(b []byte, i int) (any, int) {
	i = jsonscan.SkipSpace(b, i)
	switch b[i] {
	case '{':
		return fastObject(b, i)
	case '[':
		return fastArray(b, i)
	case '"':
		e := jsonscan.SkipString(b, i)
		return fastString(b[i:e]), e
	case 't':
		return true, i + 4
	case 'f':
		return false, i + 5
	case 'n':
		return nil, i + 4
	}
	e := jsonscan.SkipValue(b, i)
	return json.Number(b[i:e]), e
}

func fastObject(b []byte, i int) (any, int) {
	m := map[string]any{}
	i = jsonscan.SkipSpace(b, i+1)
	if b[i] == '}' {
		return m, i + 1
	}
	for {
		i = jsonscan.SkipSpace(b, i)
		e := jsonscan.SkipString(b, i)
		k := fastString(b[i:e])
		i = jsonscan.SkipSpace(b, e) + 1 // the colon
		var v any
		v, i = fastTree(b, i)
		m[k] = v
		i = jsonscan.SkipSpace(b, i)
		if b[i] == '}' {
			return m, i + 1
		}
		i++ // the comma
	}
}

func fastArray(b []byte, i int) (any, int) {
	list := []any{}
	i = jsonscan.SkipSpace(b, i+1)
	if b[i] == ']' {
		return list, i + 1
	}
	for {
		var v any
		v, i = fastTree(b, i)
		list = append(list, v)
		i = jsonscan.SkipSpace(b, i)
		if b[i] == ']' {
			return list, i + 1
		}
		i++ // the comma
	}
}

// fastString unquotes a JSON string (its quotes included).
func fastString(q []byte) string {
	in := q[1 : len(q)-1]
	if !jsonscan.HasEscape(in) && utf8.Valid(in) {
		return string(in)
	}
	var s string
	_ = json.Unmarshal(q, &s)
	return s
}
