package commands

// mcpx skills generate (see SKILLS in mcpx(1)): a SKILL.md that teaches an
// agent to use one server through mcpx, written from its live catalog.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/output"
)

// skillOptions are skills generate's arguments and flags.
type skillOptions struct {
	Server string
	Dir    string // -o
	To     string // --to
}

// Bounds of a generated skill: the resources and templates listed (the
// rest are counted, for mcpx catalog), and the clip of each description.
const (
	skillResources   = 10
	skillDescription = 100
)

func (a *app) newSkillsGenerateCmd() *cli.Command {
	o := &skillOptions{}
	return &cli.Command{
		Name:      "generate",
		Usage:     "write a SKILL.md that teaches an agent to use a server through mcpx",
		ArgsUsage: "SRV [-o DIR | --to claude]",
		Description: "Lists the server and writes a SKILL.md (YAML frontmatter name and description) with one short line " +
			"per tool, its exact mcpx invoke form with a <placeholder> for each required key, the resources, templates " +
			"and prompts, and mcpx describe for the rest. Items are sorted, so an unchanged server gives the same file. " +
			"Without -o or --to it is printed; -o DIR writes DIR/SKILL.md, --to claude writes " +
			"~/.claude/skills/mcpx-SRV/SKILL.md, and the path written is printed.\n\n" +
			"EXIT STATUS: 0, 1 a failed write, 2 usage, 3 connection, 4 no such server, 6 authentication, 7 timeout.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write `DIR`/SKILL.md", Destination: &o.Dir},
			&cli.StringFlag{Name: "to", Usage: "install for `AGENT` (claude: ~/.claude/skills/mcpx-SRV/)", Destination: &o.To},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			args := cmd.Args().Slice()
			switch {
			case len(args) != 1:
				return usagef("skills generate takes SRV, got %s", count(len(args), "argument"))
			case o.Dir != "" && o.To != "":
				return usagef("-o and --to cannot be combined: each names where SKILL.md goes")
			case cmd.IsSet("output") && o.Dir == "":
				return usagef("-o needs a directory")
			case cmd.IsSet("to") && o.To != "claude":
				return &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("--to %s: unknown agent", shellArg(o.To)), Hints: []string{"--to takes claude"}}
			}
			o.Server = args[0]
			return a.skillsGenerate(ctx, o)
		},
	}
}

func (a *app) skillsGenerate(ctx context.Context, o *skillOptions) error {
	t, err := a.target(o.Server)
	if err != nil {
		return err
	}
	s, err := a.connect(ctx, t, connectOptions{})
	if err != nil {
		return err
	}
	defer s.close()
	items, problems, err := s.conn.Catalog(s.ctx, nil)
	if err != nil {
		return err
	}
	w := &warner{a: a}
	for _, p := range problems {
		w.warn(warningOf(t.Name, p))
	}
	doc := a.skillDoc(o.Server, s.conn.ServerName, items)
	path, err := a.skillPath(o)
	if err != nil || path == "" {
		if err == nil {
			_, err = fmt.Fprint(a.s.Out, doc)
		}
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := output.WriteFileAtomic(path, [][]byte{[]byte(doc)}); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	_, err = fmt.Fprintln(a.s.Out, path)
	return err
}

// skillPath is where SKILL.md goes ("" for stdout).
func (a *app) skillPath(o *skillOptions) (string, error) {
	switch {
	case o.Dir != "":
		return filepath.Join(o.Dir, "SKILL.md"), nil
	case o.To == "claude":
		home := a.getenv("HOME")
		if home == "" && runtime.GOOS == "windows" {
			home = a.getenv("USERPROFILE")
		}
		if home == "" {
			return "", usagef("--to claude: no home directory is known: set HOME, or give -o DIR")
		}
		return filepath.Join(home, ".claude", "skills", skillName(o.Server), "SKILL.md"), nil
	}
	return "", nil
}

var notSlug = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9]+`) })

// skillName is the skill's name: mcpx-SRV, in lower-case letters, digits
// and hyphens (at most 64 characters).
func skillName(server string) string {
	slug := strings.Trim(notSlug().ReplaceAllString(strings.ToLower(server), "-"), "-")
	if slug == "" {
		slug = "server"
	}
	name := "mcpx-" + slug
	if len(name) > 64 {
		name = strings.TrimRight(name[:64], "-")
	}
	return name
}

// skillDoc is the SKILL.md of a server's catalog.
func (a *app) skillDoc(srv, serverName string, items []*client.Item) string {
	by := map[string][]*client.Item{}
	for _, it := range items {
		by[it.Kind] = append(by[it.Kind], it)
	}
	for _, list := range by {
		slices.SortFunc(list, func(x, y *client.Item) int { return strings.Compare(x.ID, y.ID) })
	}
	q := shellArg(srv)
	who := a.line(serverName, 80)
	desc := fmt.Sprintf("Use the MCP server %s (%s) from the shell through mcpx: %s, %s, %s.", srv, who,
		count(len(by["tool"]), "tool"), count(len(by["resource"])+len(by["resource_template"]), "resource"), count(len(by["prompt"]), "prompt"))
	descJSON, _ := json.Marshal(a.line(desc, 900))
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\n---\n\n", skillName(srv), descJSON)
	fmt.Fprintf(&b, "# %s through mcpx\n\n", a.line(srv, 200))
	fmt.Fprintf(&b, "Replace each <placeholder> with a value. `mcpx describe %s NAME` shows an item in full; "+
		"add --json for JSON output; exit status 0 is success.\n", q)
	if tools := by["tool"]; len(tools) > 0 {
		b.WriteString("\n## Tools\n\n")
		for _, it := range tools {
			keys, optional := toolKeys(it.InputSchema)
			fmt.Fprintf(&b, "- `mcpx invoke %s %s%s`%s%s\n", q, shellArg(it.ID), keys, optional, a.skillDesc(it))
		}
	}
	a.skillResources(&b, q, by["resource"], by["resource_template"])
	if prompts := by["prompt"]; len(prompts) > 0 {
		b.WriteString("\n## Prompts\n\n")
		for _, it := range prompts {
			keys, optional := promptKeys(it.Arguments)
			fmt.Fprintf(&b, "- `mcpx prompt %s %s%s`%s%s\n", q, shellArg(it.ID), keys, optional, a.skillDesc(it))
		}
	}
	return b.String()
}

// skillResources writes the resources and templates, at most
// skillResources of each.
func (a *app) skillResources(b *strings.Builder, q string, resources, templates []*client.Item) {
	if len(resources)+len(templates) == 0 {
		return
	}
	b.WriteString("\n## Resources\n\n")
	for i, it := range resources {
		if i == skillResources {
			fmt.Fprintf(b, "- and %d more: `mcpx catalog %s --kind resource`\n", len(resources)-i, q)
			break
		}
		fmt.Fprintf(b, "- `mcpx read %s %s`%s\n", q, shellArg(it.ID), a.skillDesc(it))
	}
	for i, it := range templates {
		if i == skillResources {
			fmt.Fprintf(b, "- and %d more templates: `mcpx catalog %s --kind resource_template`\n", len(templates)-i, q)
			break
		}
		if !levelOne(it.ID) {
			// mcpx read expands {var} only: the agent builds the URI.
			fmt.Fprintf(b, "- `mcpx read %s URI` for a URI of %s%s\n", q, strings.ReplaceAll(it.ID, "`", "'"), a.skillDesc(it))
			continue
		}
		fmt.Fprintf(b, "- `mcpx read %s %s%s`%s\n", q, shellArg(it.ID), templateKeys(it.ID), a.skillDesc(it))
	}
}

// skillDesc is " — " and the first sentence of an item's description,
// clipped, on one line ("" when it has none).
func (a *app) skillDesc(it *client.Item) string {
	if it.Description == nil {
		return ""
	}
	d := strings.TrimSpace(*it.Description)
	d, _, _ = strings.Cut(d, "\n")
	if i := strings.Index(d, ". "); i >= 0 {
		d = d[:i+1]
	}
	d = strings.ReplaceAll(a.line(d, skillDescription), "`", "'")
	if d == "" {
		return ""
	}
	return " — " + d
}

// toolKeys are the required keys of a tool's input schema, each KEY=
// with a placeholder of its type, and the optional ones, named.
func toolKeys(schema json.RawMessage) (keys, optional string) {
	props := gjson.GetBytes(schema, "properties")
	var required []string
	for _, r := range gjson.GetBytes(schema, "required").Array() {
		if props.Get(gjson.Escape(r.String())).Exists() || !props.Exists() {
			required = append(required, r.String())
		}
	}
	slices.Sort(required)
	var b strings.Builder
	for _, k := range required {
		fmt.Fprintf(&b, " %s=%s", shellArg(k), shellArg("<"+placeholder(props.Get(gjson.Escape(k)))+">"))
	}
	var opt []string
	props.ForEach(func(k, _ gjson.Result) bool {
		if !slices.Contains(required, k.String()) {
			opt = append(opt, k.String())
		}
		return true
	})
	slices.Sort(opt)
	return b.String(), optionalKeys(opt)
}

// optionalKeys names the optional keys after a form.
func optionalKeys(keys []string) string {
	if len(keys) == 0 {
		return ""
	}
	return " (optional: " + strings.ReplaceAll(strings.Join(keys, ", "), "`", "'") + ")"
}

// placeholder names what a property takes: its enum values, else its type.
func placeholder(p gjson.Result) string {
	if e := p.Get("enum").Array(); len(e) > 0 && len(e) <= 6 {
		vals := make([]string, len(e))
		for i, v := range e {
			vals[i] = v.String()
		}
		return strings.Join(vals, "|")
	}
	t := p.Get("type")
	if !t.Exists() {
		t = p.Get("anyOf.#.type")
		if len(t.Array()) == 0 {
			t = p.Get("oneOf.#.type")
		}
	}
	switch {
	case t.IsArray() && len(t.Array()) > 0:
		var ts []string
		for _, x := range t.Array() {
			ts = append(ts, x.String())
		}
		return strings.Join(ts, "|")
	case t.String() != "":
		return t.String()
	}
	return "value"
}

// promptKeys are a prompt's required arguments as KEY=<KEY>, and the
// optional ones, named.
func promptKeys(args []client.PromptArgument) (keys, optional string) {
	var b strings.Builder
	var opt []string
	for _, p := range args {
		if p.Required {
			fmt.Fprintf(&b, " %s=%s", shellArg(p.Name), shellArg("<"+p.Name+">"))
		} else {
			opt = append(opt, p.Name)
		}
	}
	return b.String(), optionalKeys(opt)
}

var templateExpr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([^}]*)\}`) })

// levelOne reports whether every expression of a template is a plain
// {var} (RFC 6570 level 1), the templates mcpx read expands.
func levelOne(tmpl string) bool {
	for _, m := range templateExpr().FindAllStringSubmatch(tmpl, -1) {
		if strings.ContainsAny(m[1], "+#./;?&,*:=") {
			return false
		}
	}
	return true
}

// templateKeys are a template's variables as VAR=<VAR> (RFC 6570: each
// expression's comma-separated names, without operator or modifier).
func templateKeys(tmpl string) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, m := range templateExpr().FindAllStringSubmatch(tmpl, -1) {
		for _, v := range strings.Split(strings.TrimLeft(m[1], "+#./;?&"), ",") {
			v, _, _ = strings.Cut(strings.TrimSuffix(v, "*"), ":")
			if v != "" && !seen[v] {
				seen[v] = true
				fmt.Fprintf(&b, " %s=%s", shellArg(v), shellArg("<"+v+">"))
			}
		}
	}
	return b.String()
}
