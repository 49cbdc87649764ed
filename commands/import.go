package commands

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
)

type importOptions struct {
	Source string
	Names  []string
	Force  bool
	DryRun bool
}

// importResult is the JSON shape of mcpx import (see import in COMMANDS,
// mcpx(1)).
type importResult struct {
	Source  string         `json:"source"`
	Files   []string       `json:"files"`  // the source's files that were read
	Target  string         `json:"target"` // the mcpx config file written
	DryRun  bool           `json:"dry_run"`
	Servers []importedItem `json:"servers"`
}

type importedItem struct {
	Name   string            `json:"name"`
	Action string            `json:"action"` // added, replaced or skipped
	Reason *string           `json:"reason"` // why it was skipped, or a remark
	Entry  *config.MCPXEntry `json:"entry"`  // what is (or would be) written
}

func (a *app) newImportCmd() *cli.Command {
	o := &importOptions{}
	return &cli.Command{
		Name:      "import",
		Usage:     "copy servers from another MCP host's config into mcpx's",
		ArgsUsage: "SOURCE [NAME...]",
		Description: "Copies the entries of SOURCE (a host's source name as mcpx servers shows it: claude-desktop, " +
			"claude-code, cursor, vscode, windsurf, codex, gemini, zed, opencode, goose, cline, and the -local and " +
			"-project ones) into the user config file (the --config file when one is given), translated to mcpx's " +
			"format: ${VAR} references are kept, never expanded. NAME limits it to those entries. An entry the file " +
			"already has is skipped unless --force replaces it; everything else of the file is kept as it is. " +
			"The file is written through a temporary file and a rename, under a lock (a concurrent mcpx waits for it), and an edit " +
			"another program made meanwhile is kept, not overwritten. --dry-run shows what would be done.\n\n" +
			"EXIT STATUS: 0 done (skipped entries included), 1 the config file stayed locked or kept changing (nothing " +
			"written), 2 usage, an unknown SOURCE, a broken file or an untrusted project, 4 SOURCE has no config file here, " +
			"or does not define NAME.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Usage: "replace entries the config file already has", Destination: &o.Force},
			&cli.BoolFlag{Name: "dry-run", Usage: "show what would be imported; write nothing", Destination: &o.DryRun},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if !cmd.Args().Present() {
				return &fail.Error{Code: fail.Usage, Message: "import needs a SOURCE", Hints: []string{"sources: " + strings.Join(config.Sources()[2:], ", ")}}
			}
			o.Source, o.Names = cmd.Args().First(), cmd.Args().Tail()
			return a.importServers(o)
		},
	}
}

func (a *app) importServers(o *importOptions) error {
	if !config.IsHostSource(o.Source) {
		return &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("unknown source %q", o.Source),
			Hints: []string{"sources: " + strings.Join(config.Sources()[2:], ", ")}}
	}
	servers, files, err := config.ReadSource(o.Source, config.LoadOptions{Project: a.g.project, Cwd: a.cwd, Getenv: a.getenv})
	if err != nil {
		return err
	}
	// The entries to copy: NAME... in that order, else all; the first of a
	// name (as the source itself would use it).
	byName := map[string]*config.Server{}
	var order []string
	for _, s := range servers {
		if _, ok := byName[s.Name]; !ok {
			byName[s.Name] = s
			order = append(order, s.Name)
		}
	}
	if len(o.Names) > 0 {
		var missing []string
		order = order[:0]
		for _, n := range o.Names {
			if byName[n] == nil {
				missing = append(missing, n)
			} else if !slices.Contains(order, n) {
				order = append(order, n)
			}
		}
		if len(missing) > 0 {
			var have []string
			for n := range byName {
				have = append(have, n)
			}
			slices.Sort(have)
			e := fail.Unknown("server", missing[0], fmt.Sprintf("%s does not define it", o.Source))
			e.Candidates, e.Source = have, o.Source
			if len(have) > 0 {
				e.Hints = []string{fmt.Sprintf("%s defines: %s", o.Source, strings.Join(have, ", "))}
			}
			return e
		}
	}
	target := a.g.config
	if target == "" {
		target = config.UserConfigPath(a.getenv)
	}
	if target == "" {
		return &fail.Error{Code: fail.Usage, Message: "import has no user config file to write: no home directory is known",
			Hints: []string{"set HOME (or XDG_CONFIG_HOME), or give --config FILE"}}
	}
	res := importResult{Source: o.Source, Files: files, Target: target, DryRun: o.DryRun, Servers: []importedItem{}}
	// decide says what becomes of each entry, given the names the file
	// has: under the file's lock, and again if the file changed meanwhile.
	var write []config.NamedEntry
	decide := func(existing map[string]bool) ([]config.NamedEntry, error) {
		res.Servers, write = res.Servers[:0], nil
		for _, n := range order {
			s := byName[n]
			it := importedItem{Name: n}
			entry, err := s.ImportEntry()
			switch {
			case err != nil:
				it.Action, it.Reason = "skipped", ptr("cannot be imported: "+err.Error())
			case existing[n] && !o.Force:
				it.Action, it.Reason = "skipped", ptr("the config file has it (--force replaces it)")
			default:
				it.Action, it.Entry = "added", &entry
				if existing[n] {
					it.Action = "replaced"
				}
				if entry.Disabled {
					it.Reason = ptr("disabled in " + o.Source + ": imported as disabled")
				}
				a.s.Secrets().Add(config.ImportSecrets(entry)...)
				write = append(write, config.NamedEntry{Name: n, Entry: entry})
			}
			res.Servers = append(res.Servers, it)
		}
		return write, nil
	}
	if o.DryRun {
		existing, err := config.ServerNames(target)
		if err != nil {
			return err
		}
		_, _ = decide(existing)
	} else if err := config.EditServers(target, decide); err != nil {
		return err
	}
	switch {
	case len(order) == 0:
		a.log.Note("%s defines no servers", o.Source)
	case o.DryRun:
		a.log.Note("dry run: %s was not changed", target)
	case len(write) > 0:
		a.log.Note("wrote %s to %s", count(len(write), "server"), target)
	}
	if a.asJSON() {
		return a.writeDoc(res)
	}
	rows := make([][]string, len(res.Servers))
	for i, it := range res.Servers {
		rows[i] = []string{it.Name, it.Action, deref(it.Reason)}
	}
	return a.s.WriteTable([]string{"NAME", "ACTION", "REASON"}, rows)
}

func ptr(s string) *string { return &s }
