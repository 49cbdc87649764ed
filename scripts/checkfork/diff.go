package main

// Why a diff of its own: Go's standard library has none, golang.org/x/tools
// has one only as an internal package, and github.com/rogpeppe/go-internal/diff
// (a dependency already) is an anchored diff, which matches only lines that
// are unique in both files and those next to them: a change two lines from a
// marked one, with a blank line and a brace between, would share its hunk
// and pass unmarked. A shortest edit script splits them.

import "slices"

// A hunk is one change of a line diff: the lines a[A0:A1] replaced by
// b[B0:B1], with no common line between them (the hunks `diff -U0`
// prints).
type hunk struct{ A0, A1, B0, B1 int }

// maxEdits bounds the edits diff looks for; its memory grows with their
// square.
const maxEdits = 2000

// diff returns the hunks of a shortest edit script from a to b (Myers,
// "An O(ND) Difference Algorithm and Its Variations", 1986), or false when
// it takes more than maxEdits removed and added lines.
func diff(a, b []string) ([]hunk, bool) {
	// The common prefix and suffix are no part of the search.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	x0, y0 := a[pre:len(a)-suf], b[pre:len(b)-suf]
	n, m := len(x0), len(y0)
	// v[off+k]: the furthest x reached on diagonal k = x-y; trace[d]: v for
	// k in -d..d after d edits.
	off := n + m + 1
	v := make([]int, 2*off+1)
	var trace [][]int
	// down reports whether the path to diagonal k after d edits comes from
	// k+1 (an added line) rather than k-1 (a removed one).
	down := func(v []int, o, d, k int) bool { return k == -d || k != d && v[o+k-1] < v[o+k+1] }
	for d := 0; ; d++ {
		if d > maxEdits {
			return nil, false
		}
		done := false
		for k := -d; k <= d && !done; k += 2 {
			x := v[off+k-1] + 1
			if down(v, off, d, k) {
				x = v[off+k+1]
			}
			y := x - k
			for x < n && y < m && x0[x] == y0[y] {
				x++
				y++
			}
			v[off+k] = x
			done = x >= n && y >= m
		}
		trace = append(trace, slices.Clone(v[off-d:off+d+1]))
		if done {
			break
		}
	}
	// Walk back from (n, m): each edit comes after the common lines
	// (a diagonal) that end at (x, y), from (px, py) on diagonal pk.
	type edit struct {
		x, y    int // where it starts: removes a line of x0 or adds one of y0 there
		removes bool
	}
	var edits []edit
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		k := x - y
		prev := trace[d-1]
		pk := k - 1
		if down(prev, d-1, d, k) {
			pk = k + 1
		}
		px := prev[d-1+pk]
		edits = append(edits, edit{px, px - pk, pk == k-1})
		x, y = px, px-pk
	}
	// Group the edits, first to last, into hunks: edits with no common line
	// between them, where one ends where the next starts.
	var hunks []hunk
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		if j := len(hunks) - 1; j < 0 || hunks[j].A1 != pre+e.x || hunks[j].B1 != pre+e.y {
			hunks = append(hunks, hunk{pre + e.x, pre + e.x, pre + e.y, pre + e.y})
		}
		if h := &hunks[len(hunks)-1]; e.removes {
			h.A1++
		} else {
			h.B1++
		}
	}
	return hunks, true
}
