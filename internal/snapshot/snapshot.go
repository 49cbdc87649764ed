// Package snapshot is the catalog snapshot of a server (see SNAPSHOTS AND
// DRIFT in mcpx(1)) and the classifying diff of two of them: one JSON
// document, every object's keys sorted, nothing volatile, so that two
// snapshots of an unchanged server are byte-identical. It reads schemas
// through internal/schema ($refs resolved within the document, never
// fetched) and knows nothing of connections: commands builds the Items.
package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/mcpx-cli/mcpx/internal/jsonscan"
	"github.com/mcpx-cli/mcpx/internal/schema"
)

// Version is the snapshot format, the document's "mcpx_snapshot" member.
const Version = 1

// Info is what a snapshot records of the server itself.
type Info struct {
	Name, Version, Protocol string
	Capabilities            map[string]bool
}

// Item is one catalog item as listed (nil pointers: the server sent none).
type Item struct {
	Kind, ID                                     string
	Name, Title, Description, URI, URITemplate   *string
	MimeType                                     *string
	Size                                         *json.Number
	Annotations, InputSchema, OutputSchema, Exec json.RawMessage
	Arguments                                    []Argument
}

// Argument is one declared prompt argument.
type Argument struct {
	Name               string
	Title, Description *string
	Required           bool
}

// Key is the item's catalog key, KIND:ID.
func (it *Item) Key() string { return it.Kind + ":" + it.ID }

// Build makes the snapshot document of a server and its items (sorted by
// key here); noDescriptions leaves out every description and title, the
// schemas' included. An item whose JSON members are not valid JSON is an
// error (the client hands over only valid JSON).
func Build(info Info, items []Item, noDescriptions bool) ([]byte, error) {
	sorted := make([]*Item, len(items))
	for i := range items {
		sorted[i] = &items[i]
	}
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Key() < sorted[j].Key() })
	list := make([]any, 0, len(sorted))
	for _, it := range sorted {
		m, err := itemTree(it, noDescriptions)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", it.Key(), err)
		}
		list = append(list, m)
	}
	caps := map[string]any{}
	for k, v := range info.Capabilities {
		caps[k] = v
	}
	doc := map[string]any{
		"mcpx_snapshot":    Version,
		"server":           map[string]any{"name": info.Name, "version": info.Version},
		"protocol_version": info.Protocol,
		"capabilities":     caps,
		"items":            list,
		"descriptions":     !noDescriptions,
	}
	return Encode(doc), nil
}

// itemTree is one item's object in the document.
func itemTree(it *Item, noDesc bool) (object, error) {
	m := make(object, 0, 10)
	if !noDesc {
		m = append(m, field{"title", str(it.Title)}, field{"description", str(it.Description)})
	}
	m = append(m, field{"key", it.Key()}, field{"kind", it.Kind})
	var err error
	switch it.Kind {
	case "tool":
		m = append(m, field{"name", it.ID})
		for _, f := range []struct {
			key   string
			raw   json.RawMessage
			strip bool
		}{{"input_schema", it.InputSchema, true}, {"output_schema", it.OutputSchema, true},
			{"annotations", it.Annotations, false}, {"execution", it.Exec, false}} {
			// decoded only to take out descriptions and titles
			decode := noDesc && f.key != "execution"
			v, err := tree(f.raw, decode, decode && f.strip)
			if err != nil {
				return nil, err
			}
			m = append(m, field{f.key, v})
		}
	case "prompt":
		m = append(m, field{"name", it.ID}, field{"arguments", arguments(it.Arguments, noDesc)})
	default:
		if m, err = resourceFields(m, it, noDesc); err != nil {
			return nil, err
		}
	}
	if noDesc {
		for _, f := range m {
			if a, ok := f.v.(map[string]any); ok && f.key == "annotations" {
				delete(a, "title")
			}
		}
	}
	return m, err
}

// resourceFields adds the fields of a resource or a template.
func resourceFields(m object, it *Item, noDesc bool) (object, error) {
	m = append(m, field{"name", str(it.Name)}, field{"mime_type", str(it.MimeType)})
	if it.Kind == "resource" {
		var size any
		if it.Size != nil {
			size = *it.Size
		}
		m = append(m, field{"uri", it.ID}, field{"size", size})
	} else {
		m = append(m, field{"uri_template", it.ID})
	}
	v, err := tree(it.Annotations, noDesc, false)
	if err != nil {
		return nil, err
	}
	return append(m, field{"annotations", v}), nil
}

// tree is a member's value (nil: null): its bytes, which Encode writes
// canonically, or with decode its tree (to take annotations out of; strip:
// those of a schema).
func tree(raw json.RawMessage, decode, strip bool) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	if !decode {
		if !json.Valid(raw) {
			return nil, errors.New("not valid JSON")
		}
		return raw, nil
	}
	v, err := schema.DecodeTree(raw)
	if err != nil {
		return nil, err
	}
	if strip {
		v = schema.StripAnnotations(v)
	}
	return v, nil
}

func arguments(args []Argument, noDesc bool) any {
	if args == nil {
		return nil
	}
	out := make([]any, 0, len(args))
	for _, a := range args {
		m := map[string]any{"name": a.Name, "required": a.Required}
		if !noDesc {
			m["title"], m["description"] = str(a.Title), str(a.Description)
		}
		out = append(out, m)
	}
	return out
}

func str(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// Doc is a snapshot read back: the server's part as a tree, and each item
// as its bytes (compared before anything is decoded).
type Doc struct {
	Server   map[string]any // name, version, protocol_version, capabilities
	Items    []RawItem      // in key order
	byKey    map[string]int
	Snapshot int
	// Descriptions is false for a snapshot made with --no-descriptions.
	Descriptions bool
}

// RawItem is one item of a Doc.
type RawItem struct {
	Key string
	Raw json.RawMessage
}

// ErrNotSnapshot: the document is JSON but not a snapshot.
var ErrNotSnapshot = errors.New("not an mcpx snapshot (no \"mcpx_snapshot\" member)")

// Load reads a snapshot document: the server's part decoded, each item
// only scanned for its key (see jsonscan), in one pass over the document
// once it is found valid.
func Load(raw []byte) (*Doc, error) {
	if !json.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v)
		return nil, fmt.Errorf("not valid snapshot JSON: %w", err)
	}
	at := jsonscan.SkipSpace(raw, 0)
	if raw[at] != '{' {
		return nil, errors.New("not valid snapshot JSON: not an object")
	}
	// The top members, of a name given twice the last; the items are read
	// as the walk passes them.
	top := map[string]json.RawMessage{}
	var items []RawItem
	var itemsErr error
	jsonscan.WalkObject(raw, at, func(ks, ke, s int) int {
		if !jsonscan.NameIs(raw, ks, ke, "items") || raw[s] != '[' {
			e := jsonscan.SkipValue(raw, s)
			top[jsonscan.Key(raw, ks, ke)] = raw[s:e]
			return e
		}
		items, itemsErr = items[:0], nil
		e := jsonscan.WalkArray(raw, s, func(s int) int {
			it, err := readItem(raw, s, len(items))
			if err != nil && itemsErr == nil {
				itemsErr = err
			}
			items = append(items, it)
			return s + len(it.Raw)
		})
		top["items"] = raw[s:e]
		return e
	})
	var version int
	if v := top["mcpx_snapshot"]; v == nil || json.Unmarshal(v, &version) != nil {
		return nil, ErrNotSnapshot
	}
	if version != Version {
		return nil, fmt.Errorf("snapshot format %d, but this mcpx reads format %d", version, Version)
	}
	if v := top["items"]; v == nil || v[0] != '[' {
		return nil, errors.New("\"items\" is not a list of items")
	}
	if itemsErr != nil {
		return nil, itemsErr
	}
	d := &Doc{Server: map[string]any{}, Items: items, byKey: make(map[string]int, len(items)),
		Snapshot: version, Descriptions: string(top["descriptions"]) != "false"}
	server, _ := schema.ReadObject(top["server"])
	d.Server["name"], d.Server["version"] = decoded(server.Get("name")), decoded(server.Get("version"))
	d.Server["protocol_version"] = decoded(top["protocol_version"])
	caps, _ := decoded(top["capabilities"]).(map[string]any)
	d.Server["capabilities"] = capsTree(caps)
	for i, it := range items {
		if _, dup := d.byKey[it.Key]; dup {
			return nil, fmt.Errorf("item %q is listed twice", it.Key)
		}
		d.byKey[it.Key] = i
	}
	return d, nil
}

// readItem reads item i, starting at raw[s]: its bytes, and its "key" (of
// a name given twice the last, as Members reads it).
func readItem(raw []byte, s, i int) (RawItem, error) {
	noKey := func() error { return fmt.Errorf("item %d has no \"key\"", i) }
	if raw[s] != '{' {
		return RawItem{Raw: raw[s:jsonscan.SkipValue(raw, s)]}, noKey()
	}
	var key json.RawMessage
	e := jsonscan.WalkObject(raw, s, func(ks, ke, vs int) int {
		ve := jsonscan.SkipValue(raw, vs)
		if jsonscan.NameIs(raw, ks, ke, "key") {
			key = raw[vs:ve]
		}
		return ve
	})
	it := RawItem{Raw: raw[s:e]}
	k, ok := schema.String(key)
	if !ok {
		return it, noKey()
	}
	it.Key = k
	return it, nil
}

func capsTree(m map[string]any) any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// item returns the item of key.
func (d *Doc) item(key string) (RawItem, bool) {
	i, ok := d.byKey[key]
	if !ok {
		return RawItem{}, false
	}
	return d.Items[i], true
}
