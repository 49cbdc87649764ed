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
// only scanned for its key (see jsonscan).
func Load(raw []byte) (*Doc, error) {
	if !json.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v)
		return nil, fmt.Errorf("not valid snapshot JSON: %w", err)
	}
	top, ok := schema.ReadObject(raw)
	if !ok {
		return nil, errors.New("not valid snapshot JSON: not an object")
	}
	var version int
	if v := top.Get("mcpx_snapshot"); v == nil || json.Unmarshal(v, &version) != nil {
		return nil, ErrNotSnapshot
	}
	if version != Version {
		return nil, fmt.Errorf("snapshot format %d, but this mcpx reads format %d", version, Version)
	}
	items, ok := schema.Array(top.Get("items"))
	if !ok {
		return nil, errors.New("\"items\" is not a list of items")
	}
	d := &Doc{Server: map[string]any{}, byKey: make(map[string]int, len(items)), Snapshot: version,
		Descriptions: string(bytes.TrimSpace(top.Get("descriptions"))) != "false"}
	server, _ := schema.ReadObject(top.Get("server"))
	d.Server["name"], d.Server["version"] = decoded(server.Get("name")), decoded(server.Get("version"))
	d.Server["protocol_version"] = decoded(top.Get("protocol_version"))
	caps, _ := decoded(top.Get("capabilities")).(map[string]any)
	d.Server["capabilities"] = capsTree(caps)
	for i, it := range items {
		key, ok := itemKey(it)
		if !ok {
			return nil, fmt.Errorf("item %d has no \"key\"", i)
		}
		if _, dup := d.byKey[key]; dup {
			return nil, fmt.Errorf("item %q is listed twice", key)
		}
		d.byKey[key] = len(d.Items)
		d.Items = append(d.Items, RawItem{key, it})
	}
	return d, nil
}

// itemKey is the "key" of an item.
func itemKey(it json.RawMessage) (string, bool) {
	at := jsonscan.SkipSpace(it, 0)
	if at >= len(it) || it[at] != '{' {
		return "", false
	}
	s, e, ok := jsonscan.Find(it, at, "key")
	if !ok {
		return "", false
	}
	return schema.String(it[s:e])
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
