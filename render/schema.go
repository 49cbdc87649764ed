package render

// Local "$ref"s of a tool's input schema (see invoke and describe in
// mcpx(1)). A "$ref" whose value is a fragment of the same document — "#",
// "#/$defs/Model", "#/definitions/Model" or any other JSON pointer, with
// "~0", "~1" and percent-encoding — is followed; anything else (a URL,
// another file, an anchor name) is never fetched and leaves the schema
// unknown. Chains of $refs are bounded by MaxRefDepth, so a cycle ends.

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

// MaxRefDepth bounds how deep one reading of a schema goes through $refs
// and the subschemas of unions; past it the schema counts as unknown (a
// $ref cycle ends there).
const MaxRefDepth = 32

// The bytes of subschemas the readings of one document may visit:
// schemaSpendFactor times its size, plus schemaSpendFloor.
const (
	schemaSpendFactor = 8
	schemaSpendFloor  = 1 << 20
)

// maxPointerTokens bounds the reference tokens of one JSON pointer.
const maxPointerTokens = 64

// SchemaDoc is one JSON schema document, a tool's input schema, whose local
// $refs can be resolved. Resolving never copies the document: containers
// on the way are indexed once and the results are slices of it.
type SchemaDoc struct {
	root    []byte
	objects map[int]map[string]span // members of the object starting at an offset
	arrays  map[int][]span          // elements of the array starting at an offset
	spent   int                     // bytes of subschemas visited (see Visit)
	limit   int
	memo    map[memoKey]any // see FollowRef
	cuts    int             // readings cut short by MaxRefDepth
}

type memoKey struct {
	reader string
	at     int
}

// inProgress marks a FollowRef result being computed.
type inProgress struct{}

// NewSchemaDoc returns the document of schema; nil (and so nothing
// resolves) when schema is not valid JSON.
func NewSchemaDoc(schema json.RawMessage) *SchemaDoc {
	if !json.Valid(schema) {
		return nil
	}
	return &SchemaDoc{root: schema, objects: map[int]map[string]span{}, arrays: map[int][]span{},
		limit: schemaSpendFactor*len(schema) + schemaSpendFloor, memo: map[memoKey]any{}}
}

// Resolve returns the subschema a $ref value points to, when it is a local
// JSON pointer that names something in the document.
func (d *SchemaDoc) Resolve(ref string) (json.RawMessage, bool) {
	at, ok := d.resolve(ref)
	if !ok {
		return nil, false
	}
	return d.value(at), true
}

// FollowRef resolves ref as Resolve does and returns what read finds in the
// subschema it names, calling read once per document, reader name and
// subschema: a property that names a model reuses what an earlier one
// found (unless MaxRefDepth cut that reading short). While read runs,
// following the same $ref again (a cycle) gives cycle. ok is false when
// ref does not resolve.
func FollowRef[T any](d *SchemaDoc, reader, ref string, cycle T, read func(json.RawMessage) T) (v T, ok bool) {
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
		delete(d.memo, key) // cut short by MaxRefDepth: read again from nearer the top
	}
	return v, true
}

// resolve returns where in the document a local $ref points.
func (d *SchemaDoc) resolve(ref string) (int, bool) {
	if d == nil || !strings.HasPrefix(ref, "#") {
		return 0, false
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		frag = ref[1:] // a stray "%" left unencoded: take it as it is
	}
	at := skipSpace(d.root, 0)
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
		at = sp.s
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

func (d *SchemaDoc) value(at int) json.RawMessage {
	return json.RawMessage(d.root[at:skipValue(d.root, at)])
}

// child finds member tok of the object, or element tok of the array,
// starting at d.root[at].
func (d *SchemaDoc) child(at int, tok string) (span, bool) {
	switch d.root[at] {
	case '{':
		members, ok := d.objects[at]
		if !ok {
			members = d.indexObject(at)
			d.objects[at] = members
		}
		sp, ok := members[tok]
		return sp, ok
	case '[':
		elems, ok := d.arrays[at]
		if !ok {
			elems = d.indexArray(at)
			d.arrays[at] = elems
		}
		if tok == "" || (len(tok) > 1 && tok[0] == '0') {
			return span{}, false
		}
		n, err := strconv.Atoi(tok)
		if err != nil || n < 0 || n >= len(elems) {
			return span{}, false
		}
		return elems[n], true
	}
	return span{}, false
}

// indexObject maps the member names of the (valid) object at d.root[at] to
// their values; of repeated names the last wins, as in encoding/json.
func (d *SchemaDoc) indexObject(at int) map[string]span {
	doc := d.root
	out := map[string]span{}
	i := skipSpace(doc, at+1)
	for i < len(doc) && doc[i] == '"' {
		ke := skipValue(doc, i)
		key := string(doc[i+1 : ke-1])
		if containsByte(doc[i:ke], '\\') {
			_ = json.Unmarshal(doc[i:ke], &key)
		}
		i = skipSpace(doc, skipSpace(doc, ke)+1) // past the colon
		ve := skipValue(doc, i)
		out[key] = span{i, ve}
		i = skipSpace(doc, ve)
		if i < len(doc) && doc[i] == ',' {
			i = skipSpace(doc, i+1)
		}
	}
	return out
}

// indexArray lists the elements of the (valid) array at d.root[at].
func (d *SchemaDoc) indexArray(at int) []span {
	doc := d.root
	var out []span
	i := skipSpace(doc, at+1)
	for i < len(doc) && doc[i] != ']' {
		ve := skipValue(doc, i)
		out = append(out, span{i, ve})
		i = skipSpace(doc, ve)
		if i < len(doc) && doc[i] == ',' {
			i = skipSpace(doc, i+1)
		}
	}
	return out
}

// Visit counts one subschema of size bytes, read at depth (the $refs and
// subschemas followed to reach it), and reports whether the reading may go
// on: false past MaxRefDepth, and once the readings of the document have
// visited more bytes than a few times its size, so that no schema (unions
// of $refs to unions, one big definition named by every property) costs
// more to read than a bounded multiple of its size. A reading told to stop
// takes the subschema as unknown.
func (d *SchemaDoc) Visit(depth, size int) bool {
	if depth > MaxRefDepth {
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
