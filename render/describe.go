package render

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/internal/text"
)

// DescribeText renders a describe document for people: a tool reads like a
// signature plus a parameter table, a prompt like its arguments table, a
// resource or template like a list of its fields.
func DescribeText(d *Describe) string {
	var b strings.Builder
	head := d.Kind + " " + d.ID
	if d.Title != nil && *d.Title != "" {
		head += " (" + *d.Title + ")"
	}
	b.WriteString(head + "\n")
	switch d.Kind {
	case "tool":
		params := SchemaParams(d.InputSchema)
		sig := make([]string, len(params))
		for i, p := range params {
			opt := "?"
			if p.Required {
				opt = ""
			}
			sig[i] = p.Name + opt + ": " + p.Type
		}
		fmt.Fprintf(&b, "\n  %s(%s)\n", d.ID, strings.Join(sig, ", "))
		writeDescription(&b, d.Description)
		if len(params) > 0 {
			rows := [][]string{{"PARAMETER", "TYPE", "REQUIRED", "DESCRIPTION"}}
			for _, p := range params {
				rows = append(rows, []string{p.Name, p.Type, yesNo(p.Required), p.Description})
				for _, f := range p.Fields {
					rows = append(rows, []string{"  " + f.Name, f.Type, yesNo(f.Required), f.Description})
				}
				if p.MoreFields > 0 {
					rows = append(rows, []string{"  …", fmt.Sprintf("(%d more)", p.MoreFields), "", ""})
				}
			}
			b.WriteString("\n")
			writeAligned(&b, rows)
		} else {
			b.WriteString("\n  takes no parameters\n")
		}
		if len(d.OutputSchema) > 0 {
			fmt.Fprintf(&b, "\noutput schema: %s\n", text.CompactJSON(d.OutputSchema))
		}
		if ts := gjson.GetBytes(d.Execution, "taskSupport"); ts.Type == gjson.String {
			// How invoke calls it: as a task when "required" (see TASKS in mcpx(1)).
			fmt.Fprintf(&b, "\ntask support: %s\n", text.OneLine(ts.String()))
		}
	case "prompt":
		writeDescription(&b, d.Description)
		if len(d.Arguments) > 0 {
			rows := [][]string{{"ARGUMENT", "REQUIRED", "DESCRIPTION"}}
			for _, a := range d.Arguments {
				rows = append(rows, []string{a.Name, yesNo(a.Required), FirstLine(a.Description)})
			}
			b.WriteString("\n")
			writeAligned(&b, rows)
		} else {
			b.WriteString("\n  takes no arguments\n")
		}
	default:
		b.WriteString("\n")
		rows := [][]string{}
		add := func(k string, v *string) {
			if v != nil && *v != "" {
				rows = append(rows, []string{k + ":", tableCell(*v)})
			}
		}
		add("name", d.Name)
		add("title", d.Title)
		if d.Kind == "resource_template" {
			vars := strings.Join(d.Variables, ", ")
			add("variables", &vars)
		}
		add("mime type", d.MimeType)
		if d.Size != nil {
			s := d.Size.String() + " bytes"
			add("size", &s)
		}
		writeAligned(&b, rows)
		writeDescription(&b, d.Description)
	}
	if ann := text.CompactJSON(d.Annotations); len(d.Annotations) > 0 && ann != "{}" {
		fmt.Fprintf(&b, "\nannotations: %s\n", ann)
	}
	return b.String()
}

func writeDescription(b *strings.Builder, desc *string) {
	if desc == nil || strings.TrimSpace(*desc) == "" {
		return
	}
	b.WriteString("\n")
	for _, line := range strings.Split(strings.TrimRight(*desc, "\n"), "\n") {
		b.WriteString("  " + strings.TrimRight(line, " \r") + "\n")
	}
}

func writeAligned(b *strings.Builder, rows [][]string) {
	var buf strings.Builder
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = tableCell(c)
		}
		fmt.Fprintln(tw, "  "+strings.Join(cells, "\t"))
	}
	_ = tw.Flush()
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if line != "" {
			b.WriteString(strings.TrimRight(line, " \n") + "\n")
		}
	}
}

// tableCell keeps a cell on one line of its table: a tab, LF or CR
// becomes a space. Runs of spaces stay (unlike text.Squash): the cell
// shows what the server wrote, one character for one.
func tableCell(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

// Param is one property of a tool's input schema.
type Param struct {
	Name        string
	Type        string
	Required    bool
	Description string
	// Fields are the properties of an object parameter (or of the objects
	// of an array parameter), one level deep; nil for any other.
	Fields []Param
	// MoreFields counts the fields left out of Fields (see maxFields).
	MoreFields int
}

// Describe lists at most maxFields fields of one parameter and
// maxFieldRows in all, so a schema whose parameters all name one big model
// does not make a describe text many times its size.
const (
	maxFields    = 50
	maxFieldRows = 1000
)

// SchemaParams reads the top-level properties of an input schema, in the
// order the server sent them. Local $refs are followed (see SchemaDoc), and
// a parameter that holds an object, or an array of objects, lists that
// object's fields.
func SchemaParams(schema json.RawMessage) []Param {
	if len(schema) == 0 {
		return nil
	}
	doc := NewSchemaDoc(schema)
	s := gjson.ParseBytes(schema)
	props := s.Get("properties")
	if !props.IsObject() {
		return nil
	}
	rows := maxFieldRows
	params, _ := doc.params(props, s.Get("required"), &rows, -1)
	return params
}

// params reads the members of a "properties" object (at most max of them,
// when max >= 0; more counts the others), each with its type, whether
// "required" lists it, its description and, with fieldRows (the field rows
// left to list), the fields of an object it holds.
func (d *SchemaDoc) params(props, req gjson.Result, fieldRows *int, max int) (params []Param, more int) {
	required := map[string]bool{}
	for _, r := range req.Array() {
		if r.Type == gjson.String {
			required[r.Str] = true
		}
	}
	props.ForEach(func(k, v gjson.Result) bool {
		if max >= 0 && len(params) >= max {
			more++
			return true
		}
		p := Param{Name: k.String(), Type: SchemaType(d, v), Required: required[k.String()],
			Description: FirstLine(strPtr(d.description(v, 0)))}
		if fieldRows != nil {
			if obj, ok := d.objectOf(v, 0, true); ok {
				p.Fields, p.MoreFields = d.params(obj.Get("properties"), obj.Get("required"), nil, min(maxFields, *fieldRows))
				*fieldRows -= len(p.Fields)
			}
		}
		params = append(params, p)
		return true
	})
	return params, more
}

func strPtr(s string) *string { return &s }

// SchemaType describes a JSON schema's type in a few characters:
// "string", "integer", "string|null", "array<string>", "object", an enum's
// values ("\"a\"|\"b\""), "any"; a $ref that doc resolves reads as what
// it points to, one it cannot (a remote one) as "ref".
func SchemaType(doc *SchemaDoc, v gjson.Result) string {
	return doc.typeLabel(v, 0)
}

func (d *SchemaDoc) typeLabel(v gjson.Result, depth int) string {
	if !d.Visit(depth, len(v.Raw)) {
		return "any"
	}
	if e := v.Get("enum"); e.IsArray() && len(e.Array()) > 0 {
		var parts []string
		for _, x := range e.Array() {
			parts = append(parts, x.Raw)
		}
		return strings.Join(parts, "|")
	}
	if c := v.Get("const"); c.Exists() {
		return c.Raw
	}
	t := v.Get("type")
	switch {
	case t.Type == gjson.String:
		return d.namedType(v, t.Str, depth)
	case t.IsArray():
		// a nullable type (the Go SDK's slices are ["null","array"])
		var parts []string
		for _, x := range t.Array() {
			parts = append(parts, d.namedType(v, x.String(), depth))
		}
		return strings.Join(parts, "|")
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts := v.Get(key); alts.IsArray() {
			var parts []string
			for _, a := range alts.Array() {
				parts = appendNew(parts, d.typeLabel(a, depth+1))
			}
			return strings.Join(parts, "|")
		}
	}
	if all := v.Get("allOf"); all.IsArray() {
		// pydantic wraps a $ref in an allOf to give it a description
		var parts []string
		for _, a := range all.Array() {
			if l := d.typeLabel(a, depth+1); l != "any" {
				parts = appendNew(parts, l)
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "&")
		}
	}
	if ref := v.Get("$ref"); ref.Exists() {
		if ref.Type == gjson.String {
			if l, ok := FollowRef(d, "label", ref.Str, "any", func(t json.RawMessage) string {
				return d.typeLabel(gjson.ParseBytes(t), depth+1)
			}); ok {
				return l
			}
		}
		return "ref"
	}
	return "any"
}

// namedType labels one type name of schema v: an array with the type of
// its items ("array<string>"), any other name as it is.
func (d *SchemaDoc) namedType(v gjson.Result, name string, depth int) string {
	if name == "array" {
		if it := v.Get("items"); it.IsObject() {
			return "array<" + d.typeLabel(it, depth+1) + ">"
		}
	}
	return name
}

// hasType reports whether schema v's "type" is name or a list naming it.
func hasType(v gjson.Result, name string) bool {
	t := v.Get("type")
	if t.IsArray() {
		for _, x := range t.Array() {
			if x.Type == gjson.String && x.Str == name {
				return true
			}
		}
		return false
	}
	return t.Type == gjson.String && t.Str == name
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// Description is a property's description, else that of the schema its
// local $ref (or an allOf of one member) names ("" when none).
func (d *SchemaDoc) Description(prop json.RawMessage) string {
	return d.description(gjson.ParseBytes(prop), 0)
}

// description is Description of v, read at depth (see Visit).
func (d *SchemaDoc) description(v gjson.Result, depth int) string {
	if !d.Visit(depth, len(v.Raw)) {
		return ""
	}
	if s := v.Get("description"); s.Type == gjson.String && strings.TrimSpace(s.Str) != "" {
		return s.Str
	}
	if ref := v.Get("$ref"); ref.Type == gjson.String {
		s, _ := FollowRef(d, "description", ref.Str, "", func(t json.RawMessage) string {
			return d.description(gjson.ParseBytes(t), depth+1)
		})
		return s
	}
	if all := v.Get("allOf").Array(); len(all) == 1 {
		return d.description(all[0], depth+1)
	}
	return ""
}

// objectOf finds the object schema whose properties a parameter's value
// has: the schema itself, the one its $ref (or an allOf of one member)
// names, the only member of a union that is one (Optional[Model]), or
// (with arrays) the items of an array of them.
func (d *SchemaDoc) objectOf(v gjson.Result, depth int, arrays bool) (gjson.Result, bool) {
	if !d.Visit(depth, len(v.Raw)) {
		return gjson.Result{}, false
	}
	if ref := v.Get("$ref"); ref.Type == gjson.String {
		type found struct {
			obj gjson.Result
			ok  bool
		}
		reader := "object"
		if arrays {
			reader = "object or array"
		}
		f, _ := FollowRef(d, reader, ref.Str, found{}, func(t json.RawMessage) found {
			obj, ok := d.objectOf(gjson.ParseBytes(t), depth+1, arrays)
			return found{obj, ok}
		})
		return f.obj, f.ok
	}
	if all := v.Get("allOf").Array(); len(all) == 1 {
		return d.objectOf(all[0], depth+1, arrays)
	}
	if props := v.Get("properties"); props.IsObject() {
		n := 0
		props.ForEach(func(_, _ gjson.Result) bool { n++; return false })
		return v, n > 0
	}
	if it := v.Get("items"); arrays && it.IsObject() && hasType(v, "array") {
		return d.objectOf(it, depth+1, false)
	}
	var found []gjson.Result
	for _, key := range []string{"anyOf", "oneOf"} {
		for _, a := range v.Get(key).Array() {
			if obj, ok := d.objectOf(a, depth+1, arrays); ok {
				found = append(found, obj)
			}
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return gjson.Result{}, false
}
