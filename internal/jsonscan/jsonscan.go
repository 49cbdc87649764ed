// Package jsonscan walks valid JSON without decoding it: the ends of
// values, and the members of an object by the one rule mcpx reads every
// object with (see Members). A leaf: it imports nothing of mcpx's.
package jsonscan

import (
	"bytes"
	"encoding/json"
)

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// SkipValue returns the end of the JSON value starting at b[i].
func SkipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		return skipContainer(b, i)
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

func skipContainer(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = SkipString(b, i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return i
}

// SkipString returns the end of the JSON string starting at b[i] (its
// opening quote).
func SkipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// HasEscape reports whether b holds a backslash (a JSON string with an
// escape must be decoded to be compared).
func HasEscape(b []byte) bool { return bytes.IndexByte(b, '\\') >= 0 }

// Key decodes the JSON string doc[s:e] (a member name).
func Key(doc []byte, s, e int) string {
	key := string(doc[s+1 : e-1])
	if HasEscape(doc[s:e]) {
		_ = json.Unmarshal(doc[s:e], &key)
	}
	return key
}

// Member is one member of a JSON object: its name and the bytes [S, E) of
// its value in the document.
type Member struct {
	Key  string
	S, E int
}

// EachMember calls fn for each member of the (valid) object starting at
// doc[at], in document order, repeated names included.
func EachMember(doc []byte, at int, fn func(key string, s, e int)) {
	i := SkipSpace(doc, at+1)
	for i < len(doc) && doc[i] == '"' {
		ke := SkipValue(doc, i)
		key := Key(doc, i, ke)
		i = SkipSpace(doc, SkipSpace(doc, ke)+1) // past the colon
		ve := SkipValue(doc, i)
		fn(key, i, ve)
		i = SkipSpace(doc, ve)
		if i < len(doc) && doc[i] == ',' {
			i = SkipSpace(doc, i+1)
		}
	}
}

// Members lists the members of the (valid) object starting at doc[at] as
// JSON.parse reads them: a name given twice keeps its first place and its
// last value. Every reader of a schema in mcpx reads objects this way.
func Members(doc []byte, at int) []Member {
	out := make([]Member, 0, 8)
	var index map[string]int
	EachMember(doc, at, func(key string, s, e int) {
		if i, ok := find(out, index, key); ok {
			out[i].S, out[i].E = s, e
			return
		}
		out = append(out, Member{key, s, e})
		if index != nil || len(out) > 16 {
			index = indexOf(out, index)
		}
	})
	return out
}

// find looks key up in members, through index when there is one.
func find(members []Member, index map[string]int, key string) (int, bool) {
	if index != nil {
		i, ok := index[key]
		return i, ok
	}
	for i, m := range members {
		if m.Key == key {
			return i, true
		}
	}
	return 0, false
}

// indexOf adds the last of members to index (making it when nil).
func indexOf(members []Member, index map[string]int) map[string]int {
	if index == nil {
		index = make(map[string]int, 2*len(members))
		for i, m := range members {
			index[m.Key] = i
		}
		return index
	}
	index[members[len(members)-1].Key] = len(members) - 1
	return index
}

// Elements lists the bytes [s, e) of the elements of the (valid) array
// starting at doc[at].
func Elements(doc []byte, at int) [][2]int {
	var out [][2]int
	i := SkipSpace(doc, at+1)
	for i < len(doc) && doc[i] != ']' {
		ve := SkipValue(doc, i)
		out = append(out, [2]int{i, ve})
		i = SkipSpace(doc, ve)
		if i < len(doc) && doc[i] == ',' {
			i = SkipSpace(doc, i+1)
		}
	}
	return out
}

// Find returns the bytes [s, e) of the value of member name of the
// (valid) object starting at doc[at] — of a name given twice, the last, as
// Members reads it — without making a string of any other name.
func Find(doc []byte, at int, name string) (s, e int, ok bool) {
	i := SkipSpace(doc, at+1)
	for i < len(doc) && doc[i] == '"' {
		ke := SkipValue(doc, i)
		raw := doc[i+1 : ke-1]
		match := string(raw) == name // (no allocation: a comparison)
		if !match && HasEscape(raw) {
			match = Key(doc, i, ke) == name
		}
		i = SkipSpace(doc, SkipSpace(doc, ke)+1) // past the colon
		ve := SkipValue(doc, i)
		if match {
			s, e, ok = i, ve, true
		}
		i = SkipSpace(doc, ve)
		if i < len(doc) && doc[i] == ',' {
			i = SkipSpace(doc, i+1)
		}
	}
	return s, e, ok
}
