package schema

import (
	"encoding/json"
	"sort"

	"github.com/mcpx-cli/mcpx/internal/jsonscan"
)

// A Reader reads objects as ReadObject does, for a reading of many small
// objects: their members go into one buffer it reuses after Reset, a name
// met again is not made again, and the objects of a document it indexed
// are read once, in one pass, however deep they lie. An Object it read
// must not be used after its next Reset.
type Reader struct {
	buf     []jsonscan.Member
	names   map[string]string
	scratch []jsonscan.Member // the members of the objects being indexed
	docs    []indexed
}

// indexed is a document Index read: each of its objects by where it
// starts (in that order), its members buf[s:e] (offsets into doc).
type indexed struct {
	doc  []byte
	objs []objectAt
}

type objectAt struct{ at, s, e int }

// Reset lets the reader reuse its buffer, and forgets what it indexed.
func (r *Reader) Reset() {
	r.buf, r.docs = r.buf[:0], r.docs[:0]
}

// Index reads every object of doc (one valid JSON value, as json.Valid
// bounds its depth) in one pass, for Object to find.
func (r *Reader) Index(doc json.RawMessage) {
	if r.names == nil {
		r.names = map[string]string{}
	}
	if len(r.docs) < cap(r.docs) { // (its list of objects reused)
		r.docs = r.docs[:len(r.docs)+1]
	} else {
		r.docs = append(r.docs, indexed{})
	}
	d := &r.docs[len(r.docs)-1]
	d.doc, d.objs = doc, d.objs[:0]
	if at := jsonscan.SkipSpace(doc, 0); at < len(doc) {
		r.walk(doc, at, d)
	}
}

// walk indexes the objects of the value at doc[at]; it returns its end.
func (r *Reader) walk(doc []byte, at int, d *indexed) int {
	switch doc[at] {
	case '{':
		d.objs = append(d.objs, objectAt{at: at}) // (in the order objects start)
		slot := len(d.objs) - 1
		base := len(r.scratch)
		var index map[string]int
		end := jsonscan.WalkObject(doc, at, func(ks, ke, s int) int {
			e := r.walk(doc, s, d)
			r.scratch, index = jsonscan.AddMember(r.scratch, base, index, jsonscan.Member{Key: jsonscan.Name(doc, ks, ke, r.names), S: s, E: e})
			return e
		})
		s := len(r.buf)
		r.buf = append(r.buf, r.scratch[base:]...)
		r.scratch = r.scratch[:base]
		d.objs[slot].s, d.objs[slot].e = s, len(r.buf)
		return end
	case '[':
		return jsonscan.WalkArray(doc, at, func(s int) int { return r.walk(doc, s, d) })
	}
	return jsonscan.SkipValue(doc, at)
}

// Object reads raw as ReadObject does: from the index when raw lies in a
// document Index read.
func (r *Reader) Object(raw json.RawMessage) (Object, bool) {
	at := jsonscan.SkipSpace(raw, 0)
	if at >= len(raw) || raw[at] != '{' {
		return Object{}, false
	}
	for _, d := range r.docs {
		if off, ok := offsetIn(d.doc, raw); ok {
			i := sort.Search(len(d.objs), func(i int) bool { return d.objs[i].at >= off+at })
			if i < len(d.objs) && d.objs[i].at == off+at {
				o := d.objs[i]
				return Object{raw: d.doc, members: r.buf[o.s:o.e:o.e]}, true
			}
		}
	}
	if r.names == nil {
		r.names = map[string]string{}
	}
	start := len(r.buf)
	r.buf = jsonscan.AppendMembers(r.buf, raw, at, r.names)
	return Object{raw: raw, members: r.buf[start:len(r.buf):len(r.buf)]}, true
}

// offsetIn is where sub starts in doc, when sub is a slice of doc's bytes
// (the same memory, not a copy).
func offsetIn(doc, sub []byte) (int, bool) {
	if len(sub) == 0 || cap(sub) > cap(doc) {
		return 0, false
	}
	off := cap(doc) - cap(sub)
	if off >= len(doc) || &doc[off] != &sub[0] {
		return 0, false
	}
	return off, true
}
