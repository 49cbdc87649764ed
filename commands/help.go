package commands

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// newHelpCmd is "mcpx help [COMMAND...]", which people type out of habit:
// it prints what --help prints, for a command path too (help task get is
// task get --help). It is hidden, like --help is in the command list.
func (a *app) newHelpCmd() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Hidden:    true,
		Usage:     "show mcpx's help, or a command's",
		ArgsUsage: "[COMMAND [SUBCOMMAND]]",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			root := cmd.Root()
			args := cmd.Args().Slice()
			if len(args) == 0 {
				return cli.ShowRootCommandHelp(root)
			}
			parent := root
			for i, name := range args {
				c := parent.Command(name)
				if c == nil || c.Hidden {
					if parent == root {
						return unknownCommand(root, name)
					}
					return unknownSubcommand(parent, strings.Join(args[:i+1], " "), name)
				}
				if i == len(args)-1 {
					return cli.ShowCommandHelp(ctx, parent, name)
				}
				parent = c
			}
			return nil
		},
	}
}

// unknownCommand is the usage error for a command mcpx does not have.
func unknownCommand(root *cli.Command, name string) error {
	e := &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("unknown command %q (see mcpx --help)", name)}
	if near := nearest(name, visibleNames(root)); near != "" {
		e.Hints = []string{fmt.Sprintf("did you mean %q?", near)}
	}
	return e
}

// unknownSubcommand: help for a path whose last word names no command of
// parent (help task frob, help invoke x).
func unknownSubcommand(parent *cli.Command, path, name string) error {
	e := &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("unknown command %q (see %s --help)", path, parent.FullName())}
	names := visibleNames(parent)
	if near := nearest(name, names); near != "" {
		e.Hints = []string{fmt.Sprintf("did you mean %q?", parent.Name+" "+near)}
	} else if len(names) == 0 {
		e.Hints = []string{fmt.Sprintf("%s has no subcommands; its help: mcpx help %s", parent.FullName(), strings.TrimPrefix(parent.FullName(), "mcpx "))}
	}
	return e
}

// visibleNames are the names of cmd's commands that help lists.
func visibleNames(cmd *cli.Command) []string {
	var names []string
	for _, c := range cmd.Commands {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	return names
}

// usageError words the flag errors of the command line parser: an unknown
// flag with the dashes it was typed with (the parser always shows one), a
// hint to the command's flags, and the nearest flag when one is close.
func (a *app) usageError(cmd *cli.Command, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		e := &fail.Error{Code: fail.Usage, Message: "unknown flag " + a.typedFlag(name)}
		if near := nearest(name, flagNames(cmd)); near != "" {
			e.Hints = append(e.Hints, "did you mean "+dashed(near)+"?")
		}
		e.Hints = append(e.Hints, cmd.FullName()+" --help lists the flags")
		return e
	}
	if before, rest, ok := strings.Cut(msg, " for flag -"); ok && strings.HasPrefix(msg, "invalid value ") {
		name, why, _ := strings.Cut(rest, ": ")
		if isDurationFlag(cmd, name) {
			// time.ParseDuration's own words ("missing unit in duration")
			// show no example
			return &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("%s takes a duration such as 30s or 2m, not %s", a.typedFlag(name), strings.TrimPrefix(before, "invalid value "))}
		}
		return &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("%s for flag %s: %s", before, a.typedFlag(name), why)}
	}
	return &fail.Error{Code: fail.Usage, Message: msg}
}

// isDurationFlag reports whether the flag name of cmd (or of a command
// above it) takes a Go duration.
func isDurationFlag(cmd *cli.Command, name string) bool {
	for _, c := range cmd.Lineage() {
		for _, f := range c.Flags {
			if _, ok := f.(*cli.DurationFlag); ok && slices.Contains(f.Names(), name) {
				return true
			}
		}
	}
	return false
}

// typedFlag is flag name as the command line spells it: "--name" or
// "-name" (never with its "=value", which may be a secret).
func (a *app) typedFlag(name string) string {
	for _, arg := range a.args {
		if arg == "--" {
			break
		}
		word, _, _ := strings.Cut(arg, "=")
		if strings.HasPrefix(word, "-") && strings.TrimLeft(word, "-") == name {
			return word
		}
	}
	return dashed(name)
}

// dashed is a flag name as help shows it: -h, --json.
func dashed(name string) string {
	if len([]rune(name)) == 1 {
		return "-" + name
	}
	return "--" + name
}

// flagNames are the names of the flags cmd takes: its own and the global
// ones.
func flagNames(cmd *cli.Command) []string {
	var names []string
	for _, c := range cmd.Lineage() {
		for _, f := range c.Flags {
			names = append(names, f.Names()...)
		}
	}
	return append(names, "help")
}

// nearest is the name closest to s when it is close enough to be a likely
// typo: at most one edit for a short name, two for a longer one, or a
// prefix of at least three characters. "" when none is.
func nearest(s string, names []string) string {
	best, bestD := "", 3
	if len(s) > 64 {
		return ""
	}
	for _, n := range names {
		if len(n) < 2 {
			continue
		}
		d := editDistance(s, n)
		if len([]rune(n)) <= 4 && d > 1 {
			continue
		}
		if len([]rune(s)) >= 3 && strings.HasPrefix(n, s) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// count says n things with the right number: "1 argument", "2 arguments".
func count(n int, noun string) string {
	return fmt.Sprintf("%d %s", n, text.Plural(n, noun, noun+"s"))
}
