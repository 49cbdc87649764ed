package render

import (
	"os"
	"path/filepath"
	"testing"
)

// One Spiller walks the tree at its first spill and then only when what it
// wrote since would take the tree over the budget.
func TestSpillWalksOnlyWhenNeeded(t *testing.T) {
	root := t.TempDir()
	walks := 0
	testOnlyHook = func(event, path string) {
		if event == "walk" && filepath.Base(path) == spillSubdir {
			walks++
		}
	}
	t.Cleanup(func() { testOnlyHook = nil })
	s := &Spiller{Root: root, Budget: 10 << 10}
	blob := func(i int) []byte {
		b := make([]byte, 1<<10)
		b[0], b[1] = 0xff, byte(i)
		return b
	}
	for i := range 9 { // 9 KiB: under the budget
		if _, err := s.Spill("srv", blob(i), "application/octet-stream"); err != nil {
			t.Fatal(err)
		}
	}
	if walks != 1 {
		t.Fatalf("%d walks for 9 spills under the budget, want 1", walks)
	}
	if _, err := s.Spill("srv", blob(0), "application/octet-stream"); err != nil { // a reuse
		t.Fatal(err)
	}
	if walks != 1 {
		t.Fatalf("a reuse walked the tree (%d walks)", walks)
	}
	for i := 9; i < 12; i++ { // over the budget: each write walks and evicts
		if _, err := s.Spill("srv", blob(i), "application/octet-stream"); err != nil {
			t.Fatal(err)
		}
	}
	if walks != 3 {
		t.Fatalf("%d walks, want 3 (the first, then the 11th and 12th KiB)", walks)
	}
	var total int64
	entries, _ := os.ReadDir(filepath.Join(root, spillSubdir, "srv"))
	for _, e := range entries {
		fi, _ := e.Info()
		total += fi.Size()
	}
	if total > 10<<10 {
		t.Fatalf("tree holds %d bytes, over the budget", total)
	}
}
