// Package schema is mcpx's one reader of JSON Schema: a tool's input and
// output schemas (describe, KEY=VALUE typing, completion, the snapshot
// diff) and an elicitation's requested schema (its form). It owns local
// "$ref"s, types, enums and consts, bounds and the elicitation fields.
//
// Every object of a schema is read by one rule, JSON.parse's: a member
// name given twice keeps its first place and its last value (see
// jsonscan.Members). A "$ref" is followed only within the document (see
// Doc); nothing is ever fetched.
package schema

// Local "$ref"s of a schema (see invoke and describe in mcpx(1)). A "$ref"
// whose value is a fragment of the same document — "#", "#/$defs/Model",
// "#/definitions/Model" or any other JSON pointer, with "~0", "~1" and
// percent-encoding — is followed; anything else (a URL, another file, an
// anchor name) is never fetched and leaves the schema unknown. Chains of
// $refs are bounded by MaxDepth, so a cycle ends.

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpx-cli/mcpx/internal/jsonscan"
)

// MaxDepth bounds how deep one reading of a schema goes through $refs and
// the subschemas of unions; past it the schema counts as unknown (a $ref
// cycle ends there).
const MaxDepth = 32

// The bytes of subschemas the readings of one document may visit:
// spendFactor times its size, plus spendFloor.
const (
	spendFactor = 8
	spendFloor  = 1 << 20
)

// maxPointerTokens bounds the reference tokens of one JSON pointer.
const maxPointerTokens = 64

// Doc is one JSON schema document whose local $refs can be resolved.
// Resolving never copies the document: containers on the way are indexed
// once and the results are slices of it. A nil *Doc resolves nothing.
type Doc struct {
	root    []byte
	objects map[int]map[string][2]int // members of the object starting at an offset
	arrays  map[int][][2]int          // elements of the array starting at an offset
	spent   int                       // bytes of subschemas visited (see Visit)
	limit   int
	memo    map[memoKey]any // see Follow
	cuts    int             // readings cut short by MaxDepth
}

type memoKey struct {
	reader string
	at     int
}

// inProgress marks a Follow result being computed.
type inProgress struct{}

// New returns the document of schema; nil (and so nothing resolves) when
// schema is not valid JSON.
func New(schema json.RawMessage) *Doc {
	if !json.Valid(schema) {
		return nil
	}
	return &Doc{root: schema, objects: map[int]map[string][2]int{}, arrays: map[int][][2]int{},
		limit: spendFactor*len(schema) + spendFloor, memo: map[memoKey]any{}}
}

// Root is the whole document (nil for a nil Doc).
func (d *Doc) Root() json.RawMessage {
	if d == nil {
		return nil
	}
	return d.value(jsonscan.SkipSpace(d.root, 0))
}

// Resolve returns the subschema a $ref value points to, when it is a local
// JSON pointer that names something in the document.
func (d *Doc) Resolve(ref string) (json.RawMessage, bool) {
	at, ok := d.resolve(ref)
	if !ok {
		return nil, false
	}
	return d.value(at), true
}

// Follow resolves the JSON value of a "$ref" member (ref) as Resolve does
// and returns what read finds in the subschema it names, calling read once
// per document, reader name and subschema: a property that names a model
// reuses what an earlier one found (unless MaxDepth cut that reading
// short). While read runs, following the same $ref again (a cycle) gives
// cycle. ok is false when ref is not a string or does not resolve (a
// remote $ref: never fetched).
func Follow[T any](d *Doc, reader string, ref json.RawMessage, cycle T, read func(json.RawMessage) T) (v T, ok bool) {
	s, isString := String(ref)
	if !isString {
		return v, false
	}
	return FollowString(d, reader, s, cycle, read)
}

// FollowString is Follow for a $ref already decoded.
func FollowString[T any](d *Doc, reader, ref string, cycle T, read func(json.RawMessage) T) (v T, ok bool) {
	at, ok := d.resolve(ref)
	if !ok {
		return v, false
	}
	key := memoKey{reader, at}
	switch m := d.memo[key].(type) {
	case inProgress:
		return cycle, true
	case T:
		return m, true
	}
	d.memo[key] = inProgress{}
	cuts := d.cuts
	v = read(d.value(at))
	if d.cuts == cuts {
		d.memo[key] = v
	} else {
		delete(d.memo, key) // cut short by MaxDepth: read again from nearer the top
	}
	return v, true
}

// resolve returns where in the document a local $ref points.
func (d *Doc) resolve(ref string) (int, bool) {
	if d == nil || !strings.HasPrefix(ref, "#") {
		return 0, false
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		frag = ref[1:] // a stray "%" left unencoded: take it as it is
	}
	at := jsonscan.SkipSpace(d.root, 0)
	if frag == "" {
		return at, true
	}
	if frag[0] != '/' {
		return 0, false // an anchor ("#name"), not a pointer
	}
	tokens := strings.Split(frag[1:], "/")
	if len(tokens) > maxPointerTokens {
		return 0, false
	}
	for _, tok := range tokens {
		tok, ok := unescapeToken(tok)
		if !ok {
			return 0, false
		}
		sp, ok := d.child(at, tok)
		if !ok {
			return 0, false
		}
		at = sp[0]
	}
	return at, true
}

// unescapeToken decodes "~1" to "/" and "~0" to "~"; any other "~" is an
// invalid pointer.
func unescapeToken(tok string) (string, bool) {
	if !strings.Contains(tok, "~") {
		return tok, true
	}
	var b strings.Builder
	for i := 0; i < len(tok); i++ {
		if tok[i] != '~' {
			b.WriteByte(tok[i])
			continue
		}
		if i+1 == len(tok) || (tok[i+1] != '0' && tok[i+1] != '1') {
			return "", false
		}
		if tok[i+1] == '0' {
			b.WriteByte('~')
		} else {
			b.WriteByte('/')
		}
		i++
	}
	return b.String(), true
}

func (d *Doc) value(at int) json.RawMessage {
	return json.RawMessage(d.root[at:jsonscan.SkipValue(d.root, at)])
}

// child finds member tok of the object, or element tok of the array,
// starting at d.root[at].
func (d *Doc) child(at int, tok string) ([2]int, bool) {
	switch d.root[at] {
	case '{':
		members, ok := d.objects[at]
		if !ok {
			members = map[string][2]int{}
			for _, m := range jsonscan.Members(d.root, at) {
				members[m.Key] = [2]int{m.S, m.E}
			}
			d.objects[at] = members
		}
		sp, ok := members[tok]
		return sp, ok
	case '[':
		elems, ok := d.arrays[at]
		if !ok {
			elems = jsonscan.Elements(d.root, at)
			d.arrays[at] = elems
		}
		if tok == "" || (len(tok) > 1 && tok[0] == '0') {
			return [2]int{}, false
		}
		n, err := strconv.Atoi(tok)
		if err != nil || n < 0 || n >= len(elems) {
			return [2]int{}, false
		}
		return elems[n], true
	}
	return [2]int{}, false
}

// Visit counts one subschema of size bytes, read at depth (the $refs and
// subschemas followed to reach it), and reports whether the reading may go
// on: false past MaxDepth, and once the readings of the document have
// visited more bytes than a few times its size, so that no schema (unions
// of $refs to unions, one big definition named by every property) costs
// more to read than a bounded multiple of its size. A reading told to stop
// takes the subschema as unknown.
func (d *Doc) Visit(depth, size int) bool {
	if depth > MaxDepth {
		if d != nil {
			d.cuts++
		}
		return false
	}
	if d == nil {
		return true // no document, no $refs: the schema's own size bounds the reading
	}
	d.spent += max(size, 16)
	return d.spent <= d.limit
}
