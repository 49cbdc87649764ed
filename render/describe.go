package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/tidwall/gjson"
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
			}
			b.WriteString("\n")
			writeAligned(&b, rows)
		} else {
			b.WriteString("\n  takes no parameters\n")
		}
		if len(d.OutputSchema) > 0 {
			fmt.Fprintf(&b, "\noutput schema: %s\n", compactJSON(d.OutputSchema))
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
				rows = append(rows, []string{k + ":", oneLine(*v)})
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
	if ann := compactJSON(d.Annotations); len(d.Annotations) > 0 && ann != "{}" {
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
			cells[i] = oneLine(c)
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

func oneLine(s string) string {
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

func compactJSON(raw json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}

// Param is one property of a tool's input schema.
type Param struct {
	Name        string
	Type        string
	Required    bool
	Description string
}

// SchemaParams reads the top-level properties of an input schema, in the
// order the server sent them.
func SchemaParams(schema json.RawMessage) []Param {
	if len(schema) == 0 {
		return nil
	}
	s := gjson.ParseBytes(schema)
	required := map[string]bool{}
	for _, r := range s.Get("required").Array() {
		if r.Type == gjson.String {
			required[r.Str] = true
		}
	}
	var params []Param
	props := s.Get("properties")
	if !props.IsObject() {
		return nil
	}
	props.ForEach(func(k, v gjson.Result) bool {
		params = append(params, Param{Name: k.String(), Type: SchemaType(v), Required: required[k.String()],
			Description: FirstLine(strPtr(v.Get("description").String()))})
		return true
	})
	return params
}

func strPtr(s string) *string { return &s }

// SchemaType describes a JSON schema's type in a few characters:
// "string", "integer", "string|null", "array<string>", "object", "any".
func SchemaType(v gjson.Result) string {
	if e := v.Get("enum"); e.IsArray() && len(e.Array()) > 0 {
		var parts []string
		for _, x := range e.Array() {
			parts = append(parts, x.Raw)
		}
		return strings.Join(parts, "|")
	}
	t := v.Get("type")
	switch {
	case t.Type == gjson.String:
		if t.Str == "array" {
			if it := v.Get("items"); it.IsObject() {
				return "array<" + SchemaType(it) + ">"
			}
		}
		return t.Str
	case t.IsArray():
		var parts []string
		for _, x := range t.Array() {
			parts = append(parts, x.String())
		}
		return strings.Join(parts, "|")
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts := v.Get(key); alts.IsArray() {
			var parts []string
			for _, a := range alts.Array() {
				parts = append(parts, SchemaType(a))
			}
			return strings.Join(parts, "|")
		}
	}
	if v.Get("$ref").Exists() {
		return "ref"
	}
	return "any"
}
