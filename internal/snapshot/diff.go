package snapshot

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpx-cli/mcpx/internal/schema"
)

// The classes of a change, most severe first (see SNAPSHOTS AND DRIFT in
// mcpx(1)).
const (
	Breaking   = "breaking"
	Risky      = "risky"
	Compatible = "compatible"
	Cosmetic   = "cosmetic"
)

// Classes lists the classes, most severe first.
var Classes = []string{Breaking, Risky, Compatible, Cosmetic}

// Severity is a class's place in Classes (0 the most severe); -1 for an
// unknown class.
func Severity(class string) int {
	for i, c := range Classes {
		if c == class {
			return i
		}
	}
	return -1
}

// Change is one difference between two snapshots: its class, the item's
// key ("server" for the server's own part), a JSON pointer into the item,
// what changed in words, and the old and new values (nil when absent).
type Change struct {
	Class string `json:"class"`
	Key   string `json:"key"`
	Path  string `json:"path"`
	What  string `json:"what"`
	Old   any    `json:"old"`
	New   any    `json:"new"`
}

// Counts are the changes of each class.
func Counts(changes []Change) map[string]int {
	c := map[string]int{Breaking: 0, Risky: 0, Compatible: 0, Cosmetic: 0}
	for _, ch := range changes {
		c[ch.Class]++
	}
	return c
}

// Diff compares two snapshots: every change, classified, grouped by class
// (most severe first), then by key, path and words.
func Diff(old, new *Doc) []Change {
	d := &differ{}
	d.server(old.Server, new.Server)
	for _, it := range old.Items {
		n, ok := new.item(it.Key)
		if !ok {
			d.itemGone(it)
			continue
		}
		if !bytes.Equal(it.Raw, n.Raw) {
			d.item(it, n)
		}
	}
	for _, it := range new.Items {
		if _, ok := old.item(it.Key); !ok {
			d.itemAdded(it)
		}
	}
	slices.SortStableFunc(d.changes, func(a, b Change) int {
		if sa, sb := Severity(a.Class), Severity(b.Class); sa != sb {
			return cmp.Compare(sa, sb)
		}
		if c := strings.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.What, b.What)
	})
	return d.changes
}

type differ struct {
	changes []Change
	key     string        // the item compared
	rd      schema.Reader // the objects of the item compared
}

// object reads raw as an object (the zero Object when it is not one),
// valid until the next item.
func (d *differ) object(raw json.RawMessage) schema.Object {
	o, _ := d.rd.Object(raw)
	return o
}

func (d *differ) add(class, path, what string, old, new any) {
	d.changes = append(d.changes, Change{Class: class, Key: d.key, Path: path, What: what, Old: old, New: new})
}

// server compares the server's own part: capabilities removed are
// breaking, added compatible; its name, version and protocol cosmetic.
func (d *differ) server(old, new map[string]any) {
	d.key = "server"
	oc, _ := old["capabilities"].(map[string]any)
	nc, _ := new["capabilities"].(map[string]any)
	for _, k := range unionKeys(oc, nc) {
		was, is := oc[k] == true, nc[k] == true
		switch {
		case was && !is:
			d.add(Breaking, "/capabilities/"+pointerToken(k), fmt.Sprintf("capability %q removed", k), true, nc[k])
		case !was && is:
			d.add(Compatible, "/capabilities/"+pointerToken(k), fmt.Sprintf("capability %q added", k), oc[k], true)
		}
	}
	for _, k := range []string{"name", "version", "protocol_version"} {
		if !equal(old[k], new[k]) {
			d.add(Cosmetic, "/"+k, fmt.Sprintf("server %s changed from %s to %s", k, show(old[k]), show(new[k])), old[k], new[k])
		}
	}
}

func (d *differ) itemGone(it RawItem) {
	d.key = it.Key
	v, _ := schema.DecodeTree(it.Raw)
	d.add(Breaking, "", kindOf(v)+" removed", v, nil)
}

func (d *differ) itemAdded(it RawItem) {
	d.key = it.Key
	v, _ := schema.DecodeTree(it.Raw)
	d.add(Compatible, "", kindOf(v)+" added", nil, v)
}

// kindOf names an item's kind in words.
func kindOf(v any) string {
	m, _ := v.(map[string]any)
	switch k, _ := m["kind"].(string); k {
	case "resource_template":
		return "resource template"
	case "":
		return "item"
	default:
		return k
	}
}

// item compares one item present on both sides: only the members whose
// bytes differ are decoded and compared (and the kind, which says how).
func (d *differ) item(old, new RawItem) {
	d.key = old.Key
	d.rd.Reset()
	d.rd.Index(old.Raw)
	d.rd.Index(new.Raw)
	om, nm, ok := d.memberTrees(old.Raw, new.Raw)
	if !ok {
		ov, _ := schema.DecodeTree(old.Raw)
		nv, _ := schema.DecodeTree(new.Raw)
		d.add(Breaking, "", "item is not an object", ov, nv)
		return
	}
	for _, k := range []string{"title", "description"} {
		if !equal(om[k], nm[k]) {
			d.add(Cosmetic, "/"+k, k+" changed", om[k], nm[k])
		}
	}
	switch om["kind"] {
	case "tool":
		d.tool(om, nm)
	case "prompt":
		d.prompt(om, nm)
	default:
		d.resource(om, nm)
	}
}

// memberTrees reads the members of the two sides of an item (objects, or
// ok is false): a member whose bytes are the same on both sides is left
// out of both (no change to find there); the others are decoded, a member
// one side lacks standing as nil on that side. A tool's schemas stay JSON
// (json.RawMessage), which their rules read as it is.
func (d *differ) memberTrees(oldRaw, newRaw json.RawMessage) (om, nm map[string]any, ok bool) {
	o, ok1 := d.rd.Object(oldRaw)
	n, ok2 := d.rd.Object(newRaw)
	if !ok1 || !ok2 {
		return nil, nil, false
	}
	tool := decoded(o.Get("kind")) == "tool"
	member := func(k string, raw json.RawMessage) any {
		if tool && raw != nil && (k == "input_schema" || k == "output_schema") {
			return raw
		}
		return decoded(raw)
	}
	om, nm = make(map[string]any, o.Len()), make(map[string]any, n.Len())
	o.Each(func(k string, v json.RawMessage) {
		w := n.Get(k)
		if k != "kind" && w != nil && bytes.Equal(v, w) {
			return
		}
		om[k], nm[k] = member(k, v), member(k, w)
	})
	n.Each(func(k string, w json.RawMessage) {
		if o.Get(k) == nil {
			om[k], nm[k] = nil, member(k, w)
		}
	})
	return om, nm, true
}

// decoded is a member's tree (nil when absent); raw is a slice of a
// document Load found valid.
func decoded(raw json.RawMessage) any {
	if raw == nil {
		return nil
	}
	return schema.DecodeValidTree(raw)
}

// resource compares a resource or template: its name is cosmetic, its
// MIME type risky (what a reader gets changes), the rest cosmetic.
func (d *differ) resource(om, nm map[string]any) {
	for _, k := range unionKeys(om, nm) {
		switch k {
		case "key", "kind", "title", "description", "uri", "uri_template":
		case "mime_type":
			if !equal(om[k], nm[k]) {
				d.add(Risky, "/mime_type", fmt.Sprintf("MIME type changed from %s to %s", show(om[k]), show(nm[k])), om[k], nm[k])
			}
		default:
			if !equal(om[k], nm[k]) {
				d.add(Cosmetic, "/"+pointerToken(k), k+" changed", om[k], nm[k])
			}
		}
	}
}

// prompt compares a prompt's arguments: one removed, or a new or newly
// required one, is breaking; a new optional one, or one made optional,
// compatible; their words cosmetic.
func (d *differ) prompt(om, nm map[string]any) {
	oa, na := argsByName(om["arguments"]), argsByName(nm["arguments"])
	d.argumentOrder(om["arguments"], nm["arguments"], oa, na)
	for _, name := range unionKeys(oa, na) {
		o, had := oa[name].(map[string]any)
		n, has := na[name].(map[string]any)
		p := "/arguments/" + pointerToken(name)
		switch {
		case had && !has:
			d.add(Breaking, p, fmt.Sprintf("argument %q removed", name), o, nil)
		case !had && n["required"] == true:
			d.add(Breaking, p, fmt.Sprintf("new required argument %q", name), nil, n)
		case !had:
			d.add(Compatible, p, fmt.Sprintf("new optional argument %q", name), nil, n)
		case o["required"] != true && n["required"] == true:
			d.add(Breaking, p+"/required", fmt.Sprintf("argument %q made required", name), false, true)
		case o["required"] == true && n["required"] != true:
			d.add(Compatible, p+"/required", fmt.Sprintf("argument %q made optional", name), true, n["required"])
		}
		if had && has {
			d.argumentWords(p, name, o, n)
		}
	}
}

// argumentWords: an argument's title and description are cosmetic.
func (d *differ) argumentWords(p, name string, o, n map[string]any) {
	for _, k := range []string{"title", "description"} {
		if !equal(o[k], n[k]) {
			d.add(Cosmetic, p+"/"+k, fmt.Sprintf("argument %q %s changed", name, k), o[k], n[k])
		}
	}
}

// argumentOrder: the same arguments in another order is cosmetic.
func (d *differ) argumentOrder(o, n any, oa, na map[string]any) {
	on, nn := argNames(o), argNames(n)
	if !slices.Equal(on, nn) && sameNames(oa, na) {
		d.add(Cosmetic, "/arguments", "argument order changed", on, nn)
	}
}

// argNames are the names of a prompt's arguments, in order.
func argNames(v any) []any {
	var out []any
	list, _ := v.([]any)
	for _, a := range list {
		if m, ok := a.(map[string]any); ok {
			if name, ok := m["name"].(string); ok {
				out = append(out, name)
			}
		}
	}
	return out
}

// sameNames reports whether a and b have the same keys.
func sameNames(a, b map[string]any) bool {
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return len(a) == len(b)
}

func argsByName(v any) map[string]any {
	out := map[string]any{}
	list, _ := v.([]any)
	for _, a := range list {
		if m, ok := a.(map[string]any); ok {
			if name, ok := m["name"].(string); ok {
				out[name] = m
			}
		}
	}
	return out
}

// tool compares a tool: its input and output schemas, annotations and
// execution.
func (d *differ) tool(om, nm map[string]any) {
	d.inputSchema(schemaMember(om), schemaMember(nm))
	d.outputSchema(outputMember(om), outputMember(nm))
	d.annotations(asMap(om["annotations"]), asMap(nm["annotations"]))
	oe, ne := asMap(om["execution"]), asMap(nm["execution"])
	if !equal(oe["taskSupport"], ne["taskSupport"]) {
		class := Compatible
		if ne["taskSupport"] == "required" {
			class = Risky
		}
		d.add(class, "/execution/taskSupport", fmt.Sprintf("task support changed from %s to %s", show(oe["taskSupport"]), show(ne["taskSupport"])),
			oe["taskSupport"], ne["taskSupport"])
	}
	for _, k := range unionKeys(oe, ne) {
		if k != "taskSupport" && !equal(oe[k], ne[k]) {
			d.add(Compatible, "/execution/"+pointerToken(k), "execution "+k+" changed", oe[k], ne[k])
		}
	}
}

// schemaMember and outputMember are a tool's schemas as memberTrees left
// them (nil: absent, or the same on both sides).
func schemaMember(m map[string]any) json.RawMessage {
	raw, _ := m["input_schema"].(json.RawMessage)
	return raw
}

func outputMember(m map[string]any) json.RawMessage {
	raw, _ := m["output_schema"].(json.RawMessage)
	return raw
}

// hintDefaults are the MCP defaults of the tool annotations, and the value
// that is the safe one.
var hintDefaults = []struct {
	name       string
	def, safer bool
}{
	{"readOnlyHint", false, true},
	{"destructiveHint", true, false},
	{"idempotentHint", false, true},
	{"openWorldHint", true, false},
}

// annotations: a hint turned less safe (readOnlyHint true to false,
// destructiveHint or openWorldHint false to true, idempotentHint true to
// false; an absent hint is its default) is risky, one turned safer
// compatible; anything else cosmetic.
func (d *differ) annotations(oa, na map[string]any) {
	known := map[string]bool{}
	for _, h := range hintDefaults {
		known[h.name] = true
		was, is := hint(oa, h.name, h.def), hint(na, h.name, h.def)
		switch {
		case was == is:
			if !equal(oa[h.name], na[h.name]) {
				d.add(Cosmetic, "/annotations/"+h.name, h.name+" now given as its default", oa[h.name], na[h.name])
			}
		case was == h.safer:
			d.add(Risky, "/annotations/"+h.name, fmt.Sprintf("%s turned %v (less safe)", h.name, is), oa[h.name], na[h.name])
		default:
			d.add(Compatible, "/annotations/"+h.name, fmt.Sprintf("%s turned %v (safer)", h.name, is), oa[h.name], na[h.name])
		}
	}
	for _, k := range unionKeys(oa, na) {
		if !known[k] && !equal(oa[k], na[k]) {
			d.add(Cosmetic, "/annotations/"+pointerToken(k), "annotation "+k+" changed", oa[k], na[k])
		}
	}
}

func hint(m map[string]any, name string, def bool) bool {
	if b, ok := m[name].(bool); ok {
		return b
	}
	return def
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// unionKeys are the keys of a and b, sorted.
func unionKeys(a, b map[string]any) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// equal compares two trees as JSON values (numbers by value).
func equal(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, x := range a {
			if y, ok := bm[k]; !ok || !equal(x, y) {
				return false
			}
		}
		return true
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !equal(a[i], bl[i]) {
				return false
			}
		}
		return true
	case json.Number:
		bn, ok := b.(json.Number)
		return ok && (a == bn || numberText(a) == numberText(bn))
	}
	return a == b
}

// numberText is a number's canonical text (1, 1.0 and 10e-1 alike); n
// comes from a decoded tree, so is valid JSON.
func numberText(n json.Number) string {
	return schema.CanonTree(n)
}

// canon is a tree's canonical text, for sets of values.
func canon(v any) string { return schema.CanonTree(v) }

// show is a value in words: its compact JSON, or "none" when absent.
func show(v any) string {
	switch v := v.(type) {
	case nil:
		return "none"
	case string:
		return string(schema.Quote(v))
	case json.Number:
		return string(v) // (from a decoded tree: valid, encoded as it is)
	case bool:
		return strconv.FormatBool(v)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return string(bytes.TrimSpace(b.Bytes()))
}

// pointerToken escapes a name for a JSON pointer.
func pointerToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	var b bytes.Buffer
	for _, r := range s {
		switch r {
		case '~':
			b.WriteString("~0")
		case '/':
			b.WriteString("~1")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
