package render

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/internal/schema"
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
		params := schema.Params(d.InputSchema)
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
