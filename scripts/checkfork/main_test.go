package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// upstream is the fake module the copies below are checked against.
var upstream = map[string]string{
	"go.mod":       "module example.com/lib\n\ngo 1.16\n",
	"lib.go":       "package lib\n\nimport (\n\t\"regexp\"\n)\n\n// re is compiled in init.\nvar re = regexp.MustCompile(`a+`)\n\nfunc Match(s string) bool {\n\treturn re.MatchString(s)\n}\n\nfunc Other() int {\n\treturn 1\n}\n",
	"lib_test.go":  "package lib\n",
	"testdata/x":   "x\n",
	"testdata/y/z": "z\n",
	"README.md":    "lib\n",
}

// marked is lib.go patched with every change marked.
const marked = "package lib\n\nimport (\n\t\"regexp\"\n\t\"sync\" // mcpx: re is compiled on first use\n)\n\n// re is compiled on first use. mcpx: not a marker\n// mcpx: marked.\nvar re = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`a+`) })\n\nfunc Match(s string) bool {\n\treturn re().MatchString(s) // mcpx: a function now\n}\n\nfunc Other() int {\n\treturn 1\n}\n"

const (
	manifest = "copy lib example.com/lib v1.2.3\nomit *_test.go\nomit testdata/\n"
	goWork   = "go 1.25\n\nuse .\n\nreplace example.com/lib v1.2.3 => ./third_party/lib\n"
	goMod    = "module example.com/app\n\ngo 1.25\n\nrequire example.com/lib v1.2.3\n"
)

// repo writes a repository holding the copy (upstream with the changes in
// copyFiles, "" deleting a file) and returns what check finds in it.
func repo(t *testing.T, man, work, mod string, copyFiles map[string]string) []string {
	t.Helper()
	root := t.TempDir()
	up := filepath.Join(t.TempDir(), "lib@v1.2.3")
	files := map[string]string{Manifest: man, "go.work": work, "go.mod": mod}
	for name, data := range upstream {
		files[filepath.Join(up, name)] = data
		if !strings.HasSuffix(name, "_test.go") && !strings.HasPrefix(name, "testdata/") {
			files["third_party/lib/"+name] = data
		}
	}
	for name, data := range copyFiles {
		files["third_party/lib/"+name] = data
	}
	for name, data := range files {
		if !filepath.IsAbs(name) {
			name = filepath.Join(root, name)
		}
		if data == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	problems, err := check(root, func(_, module, version string) (string, error) {
		if module != "example.com/lib" || version != "v1.2.3" {
			t.Errorf("fetched %s@%s, want example.com/lib@v1.2.3", module, version)
		}
		return up, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return problems
}

// want checks that problems are one per entry of want, each containing it.
func want(t *testing.T, problems []string, want ...string) {
	t.Helper()
	ok := len(problems) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = strings.Contains(problems[i], want[i])
	}
	if !ok {
		t.Errorf("got problems:\n%s\nwant, in this order, ones containing:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
}

func TestMarkedChangesPass(t *testing.T) {
	want(t, repo(t, manifest, goWork, goMod, map[string]string{"lib.go": marked}))
}

func TestUnmarkedHunkFails(t *testing.T) {
	// the marker dropped from the import: that hunk fails, named by file, line and hunk
	p := repo(t, manifest, goWork, goMod, map[string]string{"lib.go": strings.Replace(marked, `"sync" // mcpx: re is compiled on first use`, `"sync"`, 1)})
	want(t, p, "third_party/lib/lib.go:5: hunk @@ -4,0 +5,1 @@ has no \"// mcpx:\" comment in its added lines:\n\t+\t\"sync\"")
}

func TestEveryHunkNeedsItsMarker(t *testing.T) {
	// the marked hunks and two more: a changed line and a removed one
	patched := strings.Replace(marked, "package lib\n", "package lib2\n", 1)
	patched = strings.Replace(patched, "\treturn 1\n", "", 1)
	want(t, repo(t, manifest, goWork, goMod, map[string]string{"lib.go": patched}),
		"third_party/lib/lib.go:1: hunk @@ -1,1 +1,1 @@ has no \"// mcpx:\" comment in its added lines:\n\t-package lib\n\t+package lib2",
		"third_party/lib/lib.go:17: hunk @@ -15,1 +16,0 @@ has no \"// mcpx:\" comment in its added lines:\n\t-\treturn 1")
	// a change a brace and a blank line below a marked one is a hunk of its own
	patched = strings.Replace(marked, "func Other() int {", "func Other() int { // changed", 1)
	want(t, repo(t, manifest, goWork, goMod, map[string]string{"lib.go": patched}),
		"third_party/lib/lib.go:16: hunk @@ -14,1 +16,1 @@ has no \"// mcpx:\" comment in its added lines:\n\t-func Other() int {\n\t+func Other() int { // changed")
	// a line changed next to a marked one is in its hunk
	patched = strings.Replace(marked, "func Match(s string) bool {", "func Match(s string) bool { // changed", 1)
	want(t, repo(t, manifest, goWork, goMod, map[string]string{"lib.go": patched}))
}

func TestMarkerInARemovedLineDoesNotCount(t *testing.T) {
	want(t, unmarked("f.go", []byte("a\nb // mcpx: old\nc\n"), []byte("a\nB\nc\n")),
		"f.go:2: hunk @@ -2,1 +2,1 @@ has no \"// mcpx:\" comment in its added lines:\n\t-b // mcpx: old\n\t+B")
}

func TestNoNewlineAtEnd(t *testing.T) {
	want(t, unmarked("f.go", []byte("a\nb"), []byte("a\nb // mcpx: ok")))
	want(t, unmarked("f.go", []byte("a\nb"), []byte("a\nb\n")),
		"f.go:2: hunk @@ -2,1 +2,1 @@ has no \"// mcpx:\" comment in its added lines:\n\t-b (no newline at end of file)\n\t+b")
}

func TestFilesAddedOrRemoved(t *testing.T) {
	files := map[string]string{"lib.go": marked, "extra.go": "package lib\n", "README.md": ""}
	want(t, repo(t, manifest, goWork, goMod, files),
		"third_party/lib/README.md: in example.com/lib@v1.2.3 but not in the copy: restore it, or list it with omit",
		"third_party/lib/extra.go: not in example.com/lib@v1.2.3: remove it, or list it with add")
	want(t, repo(t, manifest+"add extra.go\nomit README.md\n", goWork, goMod, files))
	// an omitted file the copy has is compared with the module's
	want(t, repo(t, manifest, goWork, goMod, map[string]string{"lib.go": marked, "testdata/x": "y\n"}),
		"third_party/lib/testdata/x:1: hunk")
}

func TestStaleManifestLines(t *testing.T) {
	want(t, repo(t, manifest+"omit docs/\nadd lib.go\nadd gone.go\n", goWork, goMod, map[string]string{"lib.go": marked}),
		"omit docs/ (third_party/lib): no file of example.com/lib@v1.2.3 left out of the copy matches it",
		"add lib.go (third_party/lib): not a file the copy adds",
		"add gone.go (third_party/lib): not a file the copy adds")
}

func TestVersions(t *testing.T) {
	files := map[string]string{"lib.go": marked}
	want(t, repo(t, manifest, strings.Replace(goWork, "v1.2.3", "v1.2.4", 1), goMod, files),
		"go.work:5: replace example.com/lib v1.2.4 => ./third_party/lib; want example.com/lib v1.2.3 => ./third_party/lib, as third_party/copies.txt:1 says the copy is")
	want(t, repo(t, manifest, goWork, strings.Replace(goMod, "v1.2.3", "v1.3.0", 1), files),
		"go.mod:5: requires example.com/lib v1.3.0, but third_party/lib is a copy of v1.2.3")
	want(t, repo(t, manifest, "go 1.25\n\nuse .\n", goMod, files),
		"go.work: no replace of example.com/lib v1.2.3 => ./third_party/lib")
	want(t, repo(t, manifest, goWork, "module example.com/app\n", files),
		"go.mod: does not require example.com/lib")
	want(t, repo(t, manifest, goWork+"replace example.com/other v1.0.0 => ./third_party/other\n", goMod, map[string]string{"lib.go": marked, "../other/go.mod": "module example.com/other\n"}),
		"go.work:6: replace example.com/other => ./third_party/other: not a copy listed in third_party/copies.txt",
		"third_party/other: not a copy listed in third_party/copies.txt")
}

func TestBadManifest(t *testing.T) {
	for _, m := range []string{"omit x\n", "copy a/b m v1\n", "copy lib example.com/lib\n", "include x\n", "copy lib m v1\nomit [\n"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "copies.txt"), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readManifest(filepath.Join(dir, "copies.txt")); err == nil || !strings.Contains(err.Error(), "copies.txt:") {
			t.Errorf("readManifest of %q: %v, want an error naming the line", m, err)
		}
	}
}
