// Command checkfork checks the patched module copies under third_party/
// (third_party/README.md), as `make check-third-party` runs it from the top
// of the repository:
//
//	go run ./scripts/checkfork
//
// third_party/copies.txt lists each copy with the module and version it is a
// copy of, and the files of that module it leaves out. checkfork downloads
// each module (go mod download) and fails unless
//
//   - go.work replaces exactly that module version with the copy, and go.mod
//     requires that version (else the copy is not what the build uses);
//   - every file of the module is in the copy or matches one of its omit
//     patterns, every file of the copy is in the module or is listed by an
//     add line, and every omit and add line is still needed;
//   - every change is marked: a file of the copy that differs from the
//     module's is diffed with it line by line (a shortest edit script,
//     diff.go), and each hunk, a run of consecutive removed and added lines
//     between common ones (what `diff -U0` prints), has the marker, a
//     "// mcpx:" comment, in one of its added lines.
//
// Each failure names the file and, for a hunk, the line of the copy where
// it is and the hunk.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
)

// Marker is what every change in a copy carries in one of its added lines.
const Marker = "// mcpx:"

// Manifest is the list of the copies, relative to the top of the repository.
const Manifest = "third_party/copies.txt"

func main() {
	problems, err := check(".", download)
	if err != nil {
		fmt.Fprintf(os.Stderr, "checkfork: %v\n", err)
		os.Exit(1)
	}
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "checkfork: %d problems with the copies in third_party/ (see third_party/README.md)\n", len(problems))
		os.Exit(1)
	}
}

// An entry of the manifest is one copy.
type entry struct {
	dir, module, version string // dir relative to third_party/
	omit                 []string
	add                  []string
	line                 int // of its copy line in the manifest
}

// check checks the copies of the repository at root, getting each module's
// directory from fetch. Problems are failures of the copies; an error means
// the check could not be done.
func check(root string, fetch func(root, module, version string) (string, error)) ([]string, error) {
	copies, err := readManifest(filepath.Join(root, Manifest))
	if err != nil {
		return nil, err
	}
	problems, err := checkWiring(root, copies)
	if err != nil {
		return nil, err
	}
	for _, c := range copies {
		up, err := fetch(root, c.module, c.version)
		if err != nil {
			return nil, err
		}
		p, err := compareTree(up, filepath.Join(root, "third_party", c.dir), c)
		if err != nil {
			return nil, err
		}
		problems = append(problems, p...)
	}
	return problems, nil
}

// readManifest parses the manifest: lines "copy DIR MODULE VERSION", each
// followed by its "omit PATTERN" and "add PATH" lines; # starts a comment.
func readManifest(name string) ([]entry, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var copies []entry
	for i, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, i+1, fmt.Sprintf(format, args...))
		}
		switch {
		case f[0] == "copy" && len(f) == 4:
			if strings.Contains(f[1], "/") {
				return nil, bad("copy %s: a directory directly under third_party/, without /", f[1])
			}
			copies = append(copies, entry{dir: f[1], module: f[2], version: f[3], line: i + 1})
		case (f[0] == "omit" || f[0] == "add") && len(f) == 2:
			if len(copies) == 0 {
				return nil, bad("%s before the first copy line", f[0])
			}
			c := &copies[len(copies)-1]
			if f[0] == "omit" {
				if _, err := path.Match(strings.TrimSuffix(f[1], "/"), ""); err != nil {
					return nil, bad("omit %s: %v", f[1], err)
				}
				c.omit = append(c.omit, f[1])
			} else {
				c.add = append(c.add, f[1])
			}
		default:
			return nil, bad("want copy DIR MODULE VERSION, omit PATTERN or add PATH, not %q", strings.TrimSpace(line))
		}
	}
	return copies, nil
}

// checkWiring checks that go.work replaces each module version with its copy
// and nothing else with a directory under third_party/, that go.mod requires
// that version, and that third_party/ holds no other directory.
func checkWiring(root string, copies []entry) ([]string, error) {
	workData, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		return nil, err
	}
	work, err := modfile.ParseWork("go.work", workData, nil)
	if err != nil {
		return nil, err
	}
	modData, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	mod, err := modfile.ParseLax("go.mod", modData, nil)
	if err != nil {
		return nil, err
	}
	var problems []string
	byModule := map[string]entry{}
	byDir := map[string]entry{}
	for _, c := range copies {
		if prev, ok := byDir[c.dir]; ok {
			problems = append(problems, fmt.Sprintf("%s:%d: third_party/%s is listed twice (and at line %d)", Manifest, c.line, c.dir, prev.line))
		}
		byDir[c.dir] = c
		byModule[c.module] = c
		replaced := false
		for _, r := range work.Replace {
			if r.Old.Path != c.module {
				continue
			}
			replaced = true
			if want := "./third_party/" + c.dir; r.Old.Version != c.version || r.New.Path != want || r.New.Version != "" {
				problems = append(problems, fmt.Sprintf("go.work:%d: replace %s %s => %s; want %s %s => %s, as %s:%d says the copy is",
					r.Syntax.Start.Line, r.Old.Path, r.Old.Version, strings.TrimSpace(r.New.Path+" "+r.New.Version), c.module, c.version, want, Manifest, c.line))
			}
		}
		if !replaced {
			problems = append(problems, fmt.Sprintf("go.work: no replace of %s %s => ./third_party/%s: the build does not use the copy", c.module, c.version, c.dir))
		}
		required := false
		for _, r := range mod.Require {
			if r.Mod.Path != c.module {
				continue
			}
			required = true
			if r.Mod.Version != c.version {
				problems = append(problems, fmt.Sprintf("go.mod:%d: requires %s %s, but third_party/%s is a copy of %s (%s:%d): update the copy (third_party/README.md) or drop it",
					r.Syntax.Start.Line, c.module, r.Mod.Version, c.dir, c.version, Manifest, c.line))
			}
		}
		if !required {
			problems = append(problems, fmt.Sprintf("go.mod: does not require %s: the copy third_party/%s is not used; drop it (third_party/README.md)", c.module, c.dir))
		}
	}
	for _, r := range work.Replace {
		if _, ok := byModule[r.Old.Path]; !ok && strings.HasPrefix(path.Clean(r.New.Path), "third_party/") {
			problems = append(problems, fmt.Sprintf("go.work:%d: replace %s => %s: not a copy listed in %s", r.Syntax.Start.Line, r.Old.Path, r.New.Path, Manifest))
		}
	}
	entries, err := os.ReadDir(filepath.Join(root, "third_party"))
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if _, ok := byDir[e.Name()]; e.IsDir() && !ok {
			problems = append(problems, fmt.Sprintf("third_party/%s: not a copy listed in %s", e.Name(), Manifest))
		}
	}
	return problems, nil
}

// download returns the directory of the module in the module cache,
// downloading it (and checking it against go.sum) first.
func download(root, module, version string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+version)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Error != "" || m.Dir == "" || runErr != nil {
		return "", fmt.Errorf("go mod download %s@%s: %v %s %s", module, version, runErr, m.Error, strings.TrimSpace(stderr.String()))
	}
	return m.Dir, nil
}

// compareTree compares the copy in dir with the module in up.
func compareTree(up, dir string, c entry) ([]string, error) {
	upFiles, err := files(up)
	if err != nil {
		return nil, err
	}
	ourFiles, err := files(dir)
	if err != nil {
		return nil, err
	}
	label := filepath.ToSlash(filepath.Join("third_party", c.dir))
	var problems []string
	usedOmit := map[string]bool{}
	for _, name := range upFiles {
		if _, ok := slices.BinarySearch(ourFiles, name); ok {
			continue
		}
		if pat := matchOmit(c.omit, name); pat != "" {
			usedOmit[pat] = true
			continue
		}
		problems = append(problems, fmt.Sprintf("%s/%s: in %s@%s but not in the copy: restore it, or list it with omit in %s", label, name, c.module, c.version, Manifest))
	}
	for _, pat := range c.omit {
		if !usedOmit[pat] {
			problems = append(problems, fmt.Sprintf("%s: omit %s (third_party/%s): no file of %s@%s left out of the copy matches it: remove the line", Manifest, pat, c.dir, c.module, c.version))
		}
	}
	for _, name := range ourFiles {
		if _, ok := slices.BinarySearch(upFiles, name); !ok && !slices.Contains(c.add, name) {
			problems = append(problems, fmt.Sprintf("%s/%s: not in %s@%s: remove it, or list it with add in %s", label, name, c.module, c.version, Manifest))
		}
	}
	for _, name := range c.add {
		_, inUp := slices.BinarySearch(upFiles, name)
		if _, ok := slices.BinarySearch(ourFiles, name); !ok || inUp {
			problems = append(problems, fmt.Sprintf("%s: add %s (third_party/%s): not a file the copy adds to %s@%s: remove the line", Manifest, name, c.dir, c.module, c.version))
		}
	}
	for _, name := range ourFiles {
		if _, ok := slices.BinarySearch(upFiles, name); !ok {
			continue
		}
		old, err := os.ReadFile(filepath.Join(up, filepath.FromSlash(name)))
		if err != nil {
			return nil, err
		}
		ours, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return nil, err
		}
		problems = append(problems, unmarked(label+"/"+name, old, ours)...)
	}
	return problems, nil
}

// files returns the slash paths, relative to dir and sorted, of the files in
// the tree at dir; anything but regular files and directories is an error.
func files(dir string) ([]string, error) {
	var names []string
	err := filepath.WalkDir(dir, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", name)
		}
		rel, err := filepath.Rel(dir, name)
		names = append(names, filepath.ToSlash(rel))
		return err
	})
	slices.Sort(names)
	return names, err
}

// matchOmit returns the first pattern that matches name: a pattern ending in
// / matches every file under that directory, another one is matched as
// path.Match matches it.
func matchOmit(patterns []string, name string) string {
	for _, pat := range patterns {
		if d, ok := strings.CutSuffix(pat, "/"); ok {
			if ok, _ := path.Match(d, name); ok || matchDir(d, name) {
				return pat
			}
		} else if ok, _ := path.Match(pat, name); ok {
			return pat
		}
	}
	return ""
}

// matchDir reports whether a directory matching pattern d holds name.
func matchDir(d, name string) bool {
	for i := range len(name) {
		if name[i] == '/' {
			if ok, _ := path.Match(d, name[:i]); ok {
				return true
			}
		}
	}
	return false
}

// unmarked returns a problem for each hunk of the line diff from old to
// ours that has no Marker in its added lines.
func unmarked(name string, old, ours []byte) []string {
	a, b := lines(old), lines(ours)
	hunks, ok := diff(a, b)
	if !ok {
		return []string{fmt.Sprintf("%s: more than %d lines differ from the module's file: too many to check", name, maxEdits)}
	}
	var problems []string
	for _, h := range hunks {
		if slices.ContainsFunc(b[h.B0:h.B1], func(l string) bool { return strings.Contains(l, Marker) }) {
			continue
		}
		var text []string
		show := func(prefix string, lines []string) {
			for _, l := range lines {
				l, ok := strings.CutSuffix(l, "\n")
				if !ok {
					l += " (no newline at end of file)"
				}
				text = append(text, prefix+l)
			}
		}
		show("-", a[h.A0:h.A1])
		show("+", b[h.B0:h.B1])
		problems = append(problems, fmt.Sprintf("%s:%d: hunk @@ -%s +%s @@ has no %q comment in its added lines:\n\t%s",
			name, h.B0+1, span(h.A0, h.A1), span(h.B0, h.B1), Marker, strings.Join(text, "\n\t")))
	}
	return problems
}

// lines splits data into lines, each with its newline but a last one
// without.
func lines(data []byte) []string {
	l := strings.SplitAfter(string(data), "\n")
	if l[len(l)-1] == "" {
		l = l[:len(l)-1]
	}
	return l
}

// span formats the lines i0 up to i1 as a unified diff's hunk header does:
// the first line (from 1) and the count, or the line before an empty span.
func span(i0, i1 int) string {
	if i0 == i1 {
		return fmt.Sprintf("%d,0", i0)
	}
	return fmt.Sprintf("%d,%d", i0+1, i1-i0)
}
