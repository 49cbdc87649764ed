package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// Item is one catalog entry, parsed defensively from what the server sent.
type Item struct {
	Server      string
	Kind        string
	ID          string  // tool name, resource URI, template string or prompt name
	Name        *string // nil when the server sent none
	Title       *string
	Description *string
	URI         *string
	URITemplate *string
	MimeType    *string
	Size        *json.Number
	Annotations json.RawMessage // the object the server sent, or nil
	Arguments   []PromptArgument
	// Tools only: the schemas exactly as sent.
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	// Icons and Meta (_meta) of any kind, and Execution of a tool, exactly
	// as sent (nil when absent or null).
	Icons     json.RawMessage
	Meta      json.RawMessage
	Execution json.RawMessage
	Raw       json.RawMessage
}

// Key is KIND:ID.
func (it *Item) Key() string { return it.Kind + ":" + it.ID }

// PromptArgument is one declared prompt argument (prompt arguments are
// strings; there is no schema).
type PromptArgument struct {
	Name        string
	Title       *string
	Description *string
	Required    bool
}

var idField = map[string]string{KindTool: "name", KindResource: "uri", KindTemplate: "uriTemplate", KindPrompt: "name"}

// itemFields are the members of a list entry that mcpx reads, as
// sub-slices of the entry (nil when absent). As when decoding into a map,
// names match exactly and a repeated name counts with its last value.
type itemFields struct {
	id, name, title, description, mimeType, size, annotations    []byte
	inputSchema, outputSchema, arguments, icons, meta, execution []byte
}

// readFields finds the members of the object raw; ok is false when raw is
// not a JSON object. valid says raw is known to be valid JSON (an item of
// listAll: its page was checked), which is otherwise checked first.
func readFields(kind string, raw []byte, valid bool) (f itemFields, ok bool) {
	idKey := idField[kind]
	ok = (valid || json.Valid(raw)) && members(raw, func(k string, v []byte) bool {
		if k == idKey {
			f.id = v
		}
		switch k {
		case "name":
			f.name = v
		case "title":
			f.title = v
		case "description":
			f.description = v
		case "mimeType":
			f.mimeType = v
		case "size":
			f.size = v
		case "annotations":
			f.annotations = v
		case "inputSchema":
			f.inputSchema = v
		case "outputSchema":
			f.outputSchema = v
		case "arguments":
			f.arguments = v
		case "icons":
			f.icons = v
		case "_meta":
			f.meta = v
		case "execution":
			f.execution = v
		}
		return true
	})
	return f, ok
}

// itemID returns the id of a raw list entry of a kind (a tool's name, a
// resource's URI, ...) as a JSON string value, a sub-slice of raw, without
// parsing the rest of the entry: ok is false when parseItem would skip the
// entry for want of an id (not an object; no id, or one that is not a
// non-empty string). raw must be valid JSON, as listAll's items are.
func itemID(kind string, raw json.RawMessage) (id []byte, ok bool) {
	idKey := idField[kind]
	if !members(raw, func(k string, v []byte) bool {
		if k == idKey {
			id = v
		}
		return true
	}) {
		return nil, false
	}
	return id, len(id) > 2 && id[0] == '"'
}

// parseItem parses one raw list entry. A fatal problem (not an object, no
// id) returns ok=false; lesser ones (a field of the wrong type) drop that
// field and are reported. The item's raw JSON values are sub-slices of raw.
// valid says raw is known to be valid JSON.
func parseItem(server, kind string, index int, raw json.RawMessage, valid bool) (it *Item, problems []Problem, ok bool) {
	label := func() string { return fmt.Sprintf("#%d", index) }
	bad := func(item, format string, args ...any) Problem {
		return Problem{Kind: kind, Item: item, Code: "bad_item",
			Message: fmt.Sprintf("server %q: %s %s: %s", server, kindLabel(kind), text.Escape(item), fmt.Sprintf(format, args...))}
	}
	f, ok := readFields(kind, raw, valid)
	if !ok {
		return nil, []Problem{bad(label(), "is not a JSON object; skipped")}, false
	}
	idKey := idField[kind]
	read := optString
	if valid {
		// An item of a listing: its id shares the page's memory (a listing
		// of millions keeps each id in its duplicate check).
		read = optStringView
	}
	id, present, err := read(f.id)
	if err != nil || !present || *id == "" {
		what := "has no"
		if present || err != nil {
			what = "has an invalid"
		}
		return nil, []Problem{bad(label(), "%s %q; skipped", what, idKey)}, false
	}
	it = &Item{Server: server, Kind: kind, ID: *id, Raw: raw}
	str := func(key string, v []byte) *string {
		s, _, err := optString(v)
		if err != nil {
			problems = append(problems, bad(it.ID, "%q is not a string; ignored", key))
			return nil
		}
		return s
	}
	if kind == KindTool || kind == KindPrompt {
		it.Name = &it.ID
	} else {
		it.Name = str("name", f.name)
	}
	it.Title = str("title", f.title)
	it.Description = str("description", f.description)
	if kind == KindResource || kind == KindTemplate {
		it.MimeType = str("mimeType", f.mimeType)
	}
	switch kind {
	case KindResource:
		it.URI = &it.ID
		if sz := f.size; sz != nil && string(sz) != "null" {
			if !isNonNegInt(string(sz)) {
				problems = append(problems, bad(it.ID, "\"size\" %s is not a whole number of bytes; ignored", text.Escape(text.Truncate(string(sz), 20))))
			} else {
				n := json.Number(sz)
				it.Size = &n
			}
		}
	case KindTemplate:
		it.URITemplate = &it.ID
	}
	if a := f.annotations; a != nil && string(a) != "null" {
		if isObject(a) {
			it.Annotations = a
		} else {
			problems = append(problems, bad(it.ID, "\"annotations\" is not an object; ignored"))
		}
	}
	it.Icons, it.Meta = asSent(f.icons), asSent(f.meta)
	if kind == KindTool {
		it.Execution = asSent(f.execution)
		if s := f.inputSchema; s != nil && string(s) != "null" {
			it.InputSchema = s
		}
		if s := f.outputSchema; s != nil && string(s) != "null" {
			it.OutputSchema = s
		}
	}
	if kind == KindPrompt {
		it.Arguments = []PromptArgument{}
		if a := f.arguments; a != nil && string(a) != "null" {
			if a[0] != '[' {
				problems = append(problems, bad(it.ID, "\"arguments\" is not an array; ignored"))
			}
			i := 0
			elements(a, func(ra []byte) bool {
				pa, ps, err := parsePromptArgument(ra)
				switch {
				case err != nil:
					problems = append(problems, bad(it.ID, "argument #%d %v; ignored", i, err))
				default:
					for _, p := range ps {
						problems = append(problems, bad(it.ID, "argument #%d %s", i, p))
					}
					it.Arguments = append(it.Arguments, pa)
				}
				i++
				return true
			})
		}
	}
	return it, problems, true
}

// parsePromptArgument parses one declared argument. No name drops it (err);
// a field of the wrong type drops that field only (problems).
func parsePromptArgument(raw []byte) (pa PromptArgument, problems []string, err error) {
	var name, title, description, required []byte
	if !members(raw, func(k string, v []byte) bool {
		switch k {
		case "name":
			name = v
		case "title":
			title = v
		case "description":
			description = v
		case "required":
			required = v
		}
		return true
	}) {
		return pa, nil, errors.New("is not an object")
	}
	n, present, err := optString(name)
	if err != nil || !present || *n == "" {
		return pa, nil, errors.New("has no name")
	}
	pa.Name = *n
	if pa.Title, _, err = optString(title); err != nil {
		problems = append(problems, fmt.Sprintf("%q: title is not a string", pa.Name))
	}
	if pa.Description, _, err = optString(description); err != nil {
		problems = append(problems, fmt.Sprintf("%q: description is not a string", pa.Name))
	}
	if r := required; r != nil && string(r) != "null" {
		switch string(r) {
		case "true":
			pa.Required = true
		case "false":
		default:
			problems = append(problems, fmt.Sprintf("%q: required is not a boolean; taken as false", pa.Name))
		}
	}
	return pa, problems, nil
}

// optString reads an optional string member (its raw value): absent or
// null is (nil, false, nil).
func optString(v []byte) (*string, bool, error) {
	if v == nil || string(v) == "null" {
		return nil, false, nil
	}
	s, ok := jsonString(v)
	if !ok {
		return nil, true, errors.New("not a string")
	}
	return &s, true, nil
}

// asSent is a member's raw value as the server sent it, nil when it is
// absent or null.
func asSent(v []byte) json.RawMessage {
	if v == nil || string(v) == "null" {
		return nil
	}
	return v
}

// optStringView is optString with the string sharing v's memory when it
// can (see jsonStringView): v must never be modified.
func optStringView(v []byte) (*string, bool, error) {
	if v == nil || string(v) == "null" {
		return nil, false, nil
	}
	s, ok := jsonStringView(v)
	if !ok {
		return nil, true, errors.New("not a string")
	}
	return &s, true, nil
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

func isNonNegInt(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func kindLabel(kind string) string {
	if kind == KindTemplate {
		return "resource template"
	}
	return kind
}

// List lists and parses one kind. Duplicate ids keep the first and are
// reported. A timeout, a dead connection or a limit is returned as is, with
// no items: nothing gathered is parsed then, and the context is checked as
// the items are parsed.
func (c *Conn) List(ctx context.Context, kind string) ([]*Item, []Problem, error) {
	raws, problems, failed, err := c.listed(ctx, kind)
	if err != nil {
		return nil, problems, err
	}
	items, problems, err := c.parseItems(ctx, kind, raws, problems)
	if err != nil {
		return nil, problems, err
	}
	if failed != nil {
		problems = append(problems, *failed)
	}
	return items, problems, nil
}

// parseItems parses the items of a listing, adding their problems to
// problems; the deadline passing is a timeout, with no items.
func (c *Conn) parseItems(ctx context.Context, kind string, raws []json.RawMessage, problems []Problem) ([]*Item, []Problem, error) {
	l := &Listing{Server: c.T.Name, kinds: []listedKind{{kind: kind, raws: raws}}}
	items := make([]*Item, 0, len(raws))
	err := l.Each(ctx, func(it *Item) error {
		items = append(items, it)
		return nil
	}, func(p Problem) { problems = append(problems, p) })
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, problems, c.classify(ctx, listSpecs[kind].method, err)
	}
	if len(items) == 0 {
		items = nil
	}
	return items, problems, nil
}

// Listing is one server's catalog as listed: each kind's items as the raw
// JSON the server sent (sub-slices of its pages), parsed one at a time
// only as Each walks them, so that what a listing holds is its pages,
// bounded by the message ceiling, whatever the number of items.
type Listing struct {
	Server string
	kinds  []listedKind
}

type listedKind struct {
	kind     string
	raws     []json.RawMessage
	problems []Problem // the listing's own, met before its items'
	failed   *Problem  // the listing failed (after the items before it)
}

// Each parses the listed items in catalog order (kind by kind, each in the
// order the server sent), calling item with each item kept and problem
// with each problem, in the order the listing meets them: a kind's listing
// problems (a repeated cursor, ...), its items' (an item skipped, a field
// of the wrong type dropped, a duplicate id: the first is kept), then the
// failure of its listing. It stops with the first error item returns, and
// with ctx's error when ctx ends (looked at every few thousand items).
// Each parses afresh every time it is called.
func (l *Listing) Each(ctx context.Context, item func(*Item) error, problem func(Problem)) error {
	for _, k := range l.kinds {
		for _, p := range k.problems {
			problem(p)
		}
		seen := make(map[string]struct{}, len(k.raws))
		for i, raw := range k.raws {
			if i%checkEvery == checkEvery-1 && ctx.Err() != nil {
				return ctx.Err()
			}
			it, ps, ok := parseItem(l.Server, k.kind, i, raw, true)
			for _, p := range ps {
				problem(p)
			}
			if !ok {
				continue
			}
			if _, dup := seen[it.ID]; dup {
				problem(Problem{Kind: k.kind, Item: it.ID, Code: "duplicate_item",
					Message: fmt.Sprintf("server %q: %s %s is listed twice; the first is kept", l.Server, kindLabel(k.kind), text.Escape(it.ID))})
				continue
			}
			seen[it.ID] = struct{}{}
			if err := item(it); err != nil {
				return err
			}
		}
		if k.failed != nil {
			problem(*k.failed)
		}
	}
	return nil
}

// listed is listAll with a failed listing (a *listError) turned into a
// Problem of its own (failed), which comes after the problems of the items
// gathered before the failure. Under the resources capability, a server
// that does not know resources/templates/list has no templates.
func (c *Conn) listed(ctx context.Context, kind string) (raws []json.RawMessage, problems []Problem, failed *Problem, err error) {
	raws, problems, err = c.listAll(ctx, kind)
	raws = c.visible(kind, raws)
	var le *listError
	switch {
	case err == nil:
	case !errors.As(err, &le):
		return nil, problems, nil, err
	case kind == KindTemplate && fail.Is(err, fail.Unsupported) && len(raws) == 0:
		// Many servers offer resources but not resources/templates/list:
		// under the resources capability, "method not found" means no templates.
		if c.debug != nil {
			c.debug("server %q does not know resources/templates/list: no resource templates", c.T.Name)
		}
	default:
		failed = &Problem{Kind: kind, Code: "list_failed", Err: le.Err,
			Message: fmt.Sprintf("%v; %s are not listed", le.Err, pluralKind(kind))}
	}
	return raws, problems, failed, nil
}

func pluralKind(kind string) string { return kindLabel(kind) + "s" }

// ListCatalog lists the given kinds (all when empty) that the server
// advertises, in catalog order, without parsing their items (see
// Listing.Each). A kind whose listing fails becomes a Problem there; a
// timeout, a dead connection or a limit is an error.
func (c *Conn) ListCatalog(ctx context.Context, kinds []string) (*Listing, error) {
	l := &Listing{Server: c.T.Name}
	for _, k := range Kinds {
		if len(kinds) > 0 && !slices.Contains(kinds, k) {
			continue
		}
		if !c.Advertised(k) {
			continue
		}
		raws, problems, failed, err := c.listed(ctx, k)
		if err != nil {
			return nil, err
		}
		l.kinds = append(l.kinds, listedKind{kind: k, raws: raws, problems: problems, failed: failed})
	}
	return l, nil
}

// Catalog is ListCatalog with every item parsed: the items and problems
// that Each meets.
func (c *Conn) Catalog(ctx context.Context, kinds []string) ([]*Item, []Problem, error) {
	l, err := c.ListCatalog(ctx, kinds)
	if err != nil {
		return nil, nil, err
	}
	var items []*Item
	var problems []Problem
	if err := l.Each(ctx, func(it *Item) error {
		items = append(items, it)
		return nil
	}, func(p Problem) { problems = append(problems, p) }); err != nil {
		return nil, problems, c.classify(ctx, "listing", err)
	}
	return items, problems, nil
}
