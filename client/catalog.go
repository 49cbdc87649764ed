package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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
	Raw          json.RawMessage
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

// ParseItem parses one raw list entry. A fatal problem (not an object, no
// id) returns ok=false; lesser ones (a field of the wrong type) drop that
// field and are reported.
func ParseItem(server, kind string, index int, raw json.RawMessage) (it *Item, problems []Problem, ok bool) {
	label := fmt.Sprintf("#%d", index)
	bad := func(item, format string, args ...any) Problem {
		return Problem{Kind: kind, Item: item, Code: "bad_item",
			Message: fmt.Sprintf("server %q: %s %s: %s", server, kindLabel(kind), item, fmt.Sprintf(format, args...))}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, []Problem{bad(label, "is not a JSON object; skipped")}, false
	}
	idKey := idField[kind]
	id, present, err := optString(obj, idKey)
	if err != nil || !present || *id == "" {
		what := "has no"
		if present || err != nil {
			what = "has an invalid"
		}
		return nil, []Problem{bad(label, "%s %q; skipped", what, idKey)}, false
	}
	it = &Item{Server: server, Kind: kind, ID: *id, Raw: raw}
	str := func(key string) *string {
		v, _, err := optString(obj, key)
		if err != nil {
			problems = append(problems, bad(it.ID, "%q is not a string; ignored", key))
			return nil
		}
		return v
	}
	if kind == KindTool || kind == KindPrompt {
		it.Name = &it.ID
	} else {
		it.Name = str("name")
	}
	it.Title = str("title")
	it.Description = str("description")
	if kind == KindResource || kind == KindTemplate {
		it.MimeType = str("mimeType")
	}
	switch kind {
	case KindResource:
		it.URI = &it.ID
		if sz, ok := obj["size"]; ok && string(sz) != "null" {
			var n json.Number
			dec := json.NewDecoder(bytes.NewReader(sz))
			dec.UseNumber()
			if err := dec.Decode(&n); err != nil || !isNonNegInt(string(sz)) {
				problems = append(problems, bad(it.ID, "\"size\" %s is not a whole number of bytes; ignored", truncate(string(sz), 20)))
			} else {
				it.Size = &n
			}
		}
	case KindTemplate:
		it.URITemplate = &it.ID
	}
	if a, ok := obj["annotations"]; ok && string(a) != "null" {
		if isObject(a) {
			it.Annotations = a
		} else {
			problems = append(problems, bad(it.ID, "\"annotations\" is not an object; ignored"))
		}
	}
	if kind == KindTool {
		for key, dst := range map[string]*json.RawMessage{"inputSchema": &it.InputSchema, "outputSchema": &it.OutputSchema} {
			if s, ok := obj[key]; ok && string(s) != "null" {
				*dst = s
			}
		}
	}
	if kind == KindPrompt {
		it.Arguments = []PromptArgument{}
		if a, ok := obj["arguments"]; ok && string(a) != "null" {
			var args []json.RawMessage
			if err := json.Unmarshal(a, &args); err != nil {
				problems = append(problems, bad(it.ID, "\"arguments\" is not an array; ignored"))
			}
			for i, ra := range args {
				pa, ps, err := parsePromptArgument(ra)
				if err != nil {
					problems = append(problems, bad(it.ID, "argument #%d %v; ignored", i, err))
					continue
				}
				for _, p := range ps {
					problems = append(problems, bad(it.ID, "argument #%d %s", i, p))
				}
				it.Arguments = append(it.Arguments, pa)
			}
		}
	}
	return it, problems, true
}

// parsePromptArgument parses one declared argument. No name drops it (err);
// a field of the wrong type drops that field only (problems).
func parsePromptArgument(raw json.RawMessage) (pa PromptArgument, problems []string, err error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return pa, nil, errors.New("is not an object")
	}
	name, present, err := optString(obj, "name")
	if err != nil || !present || *name == "" {
		return pa, nil, errors.New("has no name")
	}
	pa.Name = *name
	if pa.Title, _, err = optString(obj, "title"); err != nil {
		problems = append(problems, fmt.Sprintf("%q: title is not a string", pa.Name))
	}
	if pa.Description, _, err = optString(obj, "description"); err != nil {
		problems = append(problems, fmt.Sprintf("%q: description is not a string", pa.Name))
	}
	if r, ok := obj["required"]; ok && string(r) != "null" {
		if err := json.Unmarshal(r, &pa.Required); err != nil {
			problems = append(problems, fmt.Sprintf("%q: required is not a boolean; taken as false", pa.Name))
		}
	}
	return pa, problems, nil
}

// optString reads an optional string field: absent or null is (nil, false, nil).
func optString(obj map[string]json.RawMessage, key string) (*string, bool, error) {
	v, ok := obj[key]
	if !ok || string(v) == "null" {
		return nil, false, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, true, err
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

// List lists and parses one kind. Duplicate ids keep the first and are reported.
func (c *Conn) List(ctx context.Context, kind string) ([]*Item, []Problem, error) {
	raws, problems, err := c.ListRaw(ctx, kind)
	var items []*Item
	seen := map[string]bool{}
	for i, raw := range raws {
		it, ps, ok := ParseItem(c.T.Name, kind, i, raw)
		problems = append(problems, ps...)
		if !ok {
			continue
		}
		if seen[it.ID] {
			problems = append(problems, Problem{Kind: kind, Item: it.ID, Code: "duplicate_item",
				Message: fmt.Sprintf("server %q: %s %s is listed twice; the first is kept", c.T.Name, kindLabel(kind), it.ID)})
			continue
		}
		seen[it.ID] = true
		items = append(items, it)
	}
	var le *ListError
	var unsup *UnsupportedError
	switch {
	case kind == KindTemplate && errors.As(err, &unsup) && len(raws) == 0:
		// Many servers offer resources but not resources/templates/list:
		// under the resources capability, "method not found" means no templates.
		if c.debug != nil {
			c.debug("server %q does not know resources/templates/list: no resource templates", c.T.Name)
		}
		err = nil
	case errors.As(err, &le):
		problems = append(problems, Problem{Kind: kind, Code: "list_failed", Err: le.Err,
			Message: fmt.Sprintf("%v; %s are not listed", le.Err, pluralKind(kind))})
		err = nil
	}
	return items, problems, err
}

func pluralKind(kind string) string { return kindLabel(kind) + "s" }

// Catalog lists the given kinds (all when empty) that the server advertises,
// in catalog order. A kind whose listing fails becomes a Problem; a timeout,
// a dead connection or a limit is an error.
func (c *Conn) Catalog(ctx context.Context, kinds []string) ([]*Item, []Problem, error) {
	var items []*Item
	var problems []Problem
	for _, k := range Kinds {
		if len(kinds) > 0 && !slices.Contains(kinds, k) {
			continue
		}
		if !c.Advertised(k) {
			continue
		}
		its, ps, err := c.List(ctx, k)
		problems = append(problems, ps...)
		if err != nil {
			return items, problems, err
		}
		items = append(items, its...)
	}
	return items, problems, nil
}
