package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/internal/snapshot"
)

// maxSnapshotFile bounds the snapshot file diff reads (see LIMITS in mcpx(1)).
const maxSnapshotFile = 256 << 20

// diffOptions are diff's arguments and flags, as given.
type diffOptions struct {
	Args   []string // OLD NEW
	FailOn string
}

func (a *app) newDiffCmd() *cli.Command {
	o := &diffOptions{}
	return &cli.Command{
		Name:      "diff",
		Usage:     "compare two catalogs, snapshot files or live servers, and classify each change",
		ArgsUsage: "OLD NEW",
		Description: "Each side is a snapshot file (a path: it names a file, contains a /, ends in .json, or is - for " +
			"stdin) or a server. Changes are breaking, risky, compatible or cosmetic (see SNAPSHOTS AND DRIFT); " +
			"text prints one a line, CLASS  KEY  WHAT, most severe first.\n\n" +
			"EXIT STATUS: 0, 1 a live listing was incomplete, 2 usage or an unreadable snapshot, 3 connection, " +
			"4 unknown server, 6 auth, 7 timeout, 12 a change of the --fail-on class or a more severe one.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "fail-on", Value: snapshot.Breaking, Usage: "exit 12 when a change of `CLASS` (breaking, risky, compatible, cosmetic) or a more severe one exists", Destination: &o.FailOn},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o.Args = cmd.Args().Slice()
			if err := o.validate(); err != nil {
				return err
			}
			return a.diff(ctx, o)
		},
	}
}

func (o *diffOptions) validate() error {
	if len(o.Args) != 2 {
		return usagef("diff takes OLD and NEW (each a snapshot file or a server), got %s", count(len(o.Args), "argument"))
	}
	if snapshot.Severity(o.FailOn) < 0 {
		return usagef("--fail-on %q: want one of %s", o.FailOn, strings.Join(snapshot.Classes, ", "))
	}
	if o.Args[0] == "-" && o.Args[1] == "-" {
		return usagef("diff can read only one side from stdin")
	}
	return nil
}

func (a *app) diff(ctx context.Context, o *diffOptions) error {
	sides := make([]*snapshot.Doc, 2)
	// files first: a bad file is found before any server is started, and a
	// live side is listed the way the file was made (--no-descriptions)
	descriptions := true
	for i, arg := range o.Args {
		if isSnapshotFile(arg) {
			d, err := a.loadSnapshot(arg)
			if err != nil {
				return err
			}
			sides[i], descriptions = d, descriptions && d.Descriptions
		}
	}
	for i, arg := range o.Args {
		if sides[i] != nil {
			continue
		}
		raw, err := a.snapshotOf(ctx, arg, !descriptions)
		if err != nil {
			return err
		}
		// masked as snapshot writes it, so that it compares with a file
		if sides[i], err = snapshot.Load(a.s.Secrets().MaskJSON(raw)); err != nil {
			return err // (a snapshot mcpx built always loads)
		}
	}
	changes := snapshot.Diff(sides[0], sides[1])
	if err := a.printChanges(changes, o); err != nil {
		return err
	}
	return driftOf(changes, o.FailOn)
}

// isSnapshotFile tells a side that is a file from one that is a server.
func isSnapshotFile(arg string) bool {
	if arg == "-" || strings.HasSuffix(arg, ".json") || (strings.ContainsRune(arg, '/') && !config.IsURL(arg)) {
		return true
	}
	fi, err := os.Stat(arg)
	return err == nil && !fi.IsDir()
}

// loadSnapshot reads a snapshot file (- is stdin); one that cannot be read
// or is not a snapshot is a usage error.
func (a *app) loadSnapshot(arg string) (*snapshot.Doc, error) {
	name := arg
	var raw []byte
	var err error
	if arg == "-" {
		name = "stdin"
		raw, err = io.ReadAll(io.LimitReader(a.s.In, maxSnapshotFile+1))
	} else {
		raw, err = readSnapshotFile(arg)
	}
	if err == nil && len(raw) > maxSnapshotFile {
		err = &limits.Error{Limit: "snapshot size", Value: maxSnapshotFile, Msg: "snapshot " + name}
	}
	var le *limits.Error
	switch {
	case errors.As(err, &le):
		return nil, err
	case err != nil:
		return nil, &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("cannot read snapshot %s: %v", name, unwrapPathErr(err)),
			Hints: []string{"make one with: mcpx snapshot SRV -o " + shellArg(arg)}}
	}
	d, err := snapshot.Load(raw)
	if err != nil {
		return nil, &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("snapshot %s: %v", name, err),
			Hints: []string{"a snapshot is what mcpx snapshot SRV writes"}}
	}
	return d, nil
}

func readSnapshotFile(name string) ([]byte, error) {
	fi, err := os.Stat(name)
	if err == nil && fi.IsDir() {
		return nil, errIsDir
	}
	if err == nil && fi.Size() > maxSnapshotFile {
		return nil, &limits.Error{Limit: "snapshot size", Value: maxSnapshotFile, Msg: "snapshot " + name}
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxSnapshotFile+1))
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// printChanges prints the changes: a line each, or the JSON document.
func (a *app) printChanges(changes []snapshot.Change, o *diffOptions) error {
	if a.asJSON() {
		if changes == nil {
			changes = []snapshot.Change{}
		}
		return a.writeDoc(map[string]any{"changes": changes, "counts": snapshot.Counts(changes)})
	}
	if len(changes) == 0 {
		a.log.Note("no changes between %s and %s", a.line(o.Args[0], 200), a.line(o.Args[1], 200))
		return nil
	}
	var b strings.Builder
	for _, c := range changes {
		fmt.Fprintf(&b, "%s  %s  %s\n", c.Class, a.line(c.Key, 300), a.line(c.What, 500))
	}
	_, err := io.WriteString(a.s.Out, b.String())
	return err
}

// driftOf is the exit of diff: a DriftError when a change is of class
// failOn or a more severe one.
func driftOf(changes []snapshot.Change, failOn string) error {
	limit := snapshot.Severity(failOn)
	counts := snapshot.Counts(changes)
	var worst []string
	for i, c := range snapshot.Classes {
		if i <= limit && counts[c] > 0 {
			worst = append(worst, fmt.Sprintf("%d %s", counts[c], c))
		}
	}
	if worst == nil {
		return nil
	}
	return drifted(counts, failOn, strings.Join(worst, ", "))
}

// drifted: diff found changes at or above --fail-on (exit 12): the counts
// of each class, and found them worded ("2 breaking, 1 risky").
func drifted(counts map[string]int, failOn, found string) error {
	return &fail.Error{Code: fail.Drift, Details: map[string]any{"counts": counts, "fail_on": failOn},
		Message: fmt.Sprintf("the catalog drifted: %s (--fail-on %s)", found, failOn)}
}
