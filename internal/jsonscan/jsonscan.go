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

// WalkObject calls fn for each member of the (valid) object starting at
// doc[at], in document order, repeated names included: the bytes [ks, ke)
// of its name (a JSON string, quotes included) and the start s of its
// value; fn returns the end of the value (SkipValue(doc, s) when it reads
// nothing of it). WalkObject returns the end of the object.
func WalkObject(doc []byte, at int, fn func(ks, ke, s int) int) int {
	i := SkipSpace(doc, at+1)
	for i < len(doc) && doc[i] == '"' {
		ke := SkipString(doc, i)
		s := SkipSpace(doc, SkipSpace(doc, ke)+1) // past the colon
		i = SkipSpace(doc, fn(i, ke, s))
		if i < len(doc) && doc[i] == ',' {
			i = SkipSpace(doc, i+1)
		}
	}
	if i < len(doc) { // the closing brace
		i++
	}
	return i
}

// WalkArray calls fn with the start of each element of the (valid) array
// starting at doc[at]; fn returns the element's end. WalkArray returns the
// end of the array.
func WalkArray(doc []byte, at int, fn func(s int) int) int {
	i := SkipSpace(doc, at+1)
	for i < len(doc) && doc[i] != ']' {
		i = SkipSpace(doc, fn(i))
		if i < len(doc) && doc[i] == ',' {
			i = SkipSpace(doc, i+1)
		}
	}
	if i < len(doc) {
		i++
	}
	return i
}

// NameIs reports whether the JSON string doc[ks:ke] (a member name) is
// name, without making a string of it unless it has an escape.
func NameIs(doc []byte, ks, ke int, name string) bool {
	raw := doc[ks+1 : ke-1]
	if string(raw) == name { // (no allocation: a comparison)
		return true
	}
	return HasEscape(raw) && Key(doc, ks, ke) == name
}

// EachMember calls fn for each member of the (valid) object starting at
// doc[at], in document order, repeated names included.
func EachMember(doc []byte, at int, fn func(key string, s, e int)) {
	WalkObject(doc, at, func(ks, ke, s int) int {
		e := SkipValue(doc, s)
		fn(Key(doc, ks, ke), s, e)
		return e
	})
}

// Members lists the members of the (valid) object starting at doc[at] as
// JSON.parse reads them: a name given twice keeps its first place and its
// last value. Every reader of a schema in mcpx reads objects this way.
func Members(doc []byte, at int) []Member {
	return AppendMembers(make([]Member, 0, 8), doc, at, nil)
}

// AppendMembers appends the members of the object at doc[at], read as
// Members reads them, to out: for a reading of many objects into one
// buffer. names, when not nil, holds the names read before (see Name).
func AppendMembers(out []Member, doc []byte, at int, names map[string]string) []Member {
	base := len(out)
	var index map[string]int
	WalkObject(doc, at, func(ks, ke, s int) int {
		e := SkipValue(doc, s)
		out, index = AddMember(out, base, index, Member{Name(doc, ks, ke, names), s, e})
		return e
	})
	return out
}

// AddMember adds m to the members out[base:] of one object, by the rule
// of Members (a name given twice keeps its first place and takes the new
// value); index is nil until the object has many names, then their places.
func AddMember(out []Member, base int, index map[string]int, m Member) ([]Member, map[string]int) {
	if i, ok := find(out[base:], index, m.Key); ok {
		out[base+i].S, out[base+i].E = m.S, m.E
		return out, index
	}
	out = append(out, m)
	if index != nil || len(out)-base > 16 {
		index = indexOf(out[base:], index)
	}
	return out, index
}

// MaxNames bounds the names Name keeps.
const MaxNames = 4096

// Name is Key(doc, ks, ke); names, when not nil, holds the names made
// before (up to MaxNames of them), so that a name met again is not made
// again.
func Name(doc []byte, ks, ke int, names map[string]string) string {
	raw := doc[ks+1 : ke-1]
	if names == nil || HasEscape(raw) {
		return Key(doc, ks, ke)
	}
	if k, ok := names[string(raw)]; ok { // (no allocation: a lookup)
		return k
	}
	k := string(raw)
	if len(names) < MaxNames {
		names[k] = k
	}
	return k
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
	WalkArray(doc, at, func(s int) int {
		e := SkipValue(doc, s)
		out = append(out, [2]int{s, e})
		return e
	})
	return out
}

// Find returns the bytes [s, e) of the value of member name of the
// (valid) object starting at doc[at] — of a name given twice, the last, as
// Members reads it — without making a string of any other name.
func Find(doc []byte, at int, name string) (s, e int, ok bool) {
	WalkObject(doc, at, func(ks, ke, vs int) int {
		ve := SkipValue(doc, vs)
		if NameIs(doc, ks, ke, name) {
			s, e, ok = vs, ve, true
		}
		return ve
	})
	return s, e, ok
}
