package main

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	for _, c := range []struct {
		a, b string // one line per character
		want []hunk
	}{
		{"", "", nil},
		{"abc", "abc", nil},
		{"", "ab", []hunk{{0, 0, 0, 2}}},
		{"ab", "", []hunk{{0, 2, 0, 0}}},
		{"abc", "aXc", []hunk{{1, 2, 1, 2}}},
		{"abcdef", "aXcdYf", []hunk{{1, 2, 1, 2}, {4, 5, 4, 5}}},
		{"abc", "abXc", []hunk{{2, 2, 2, 3}}},
		{"abcd", "ad", []hunk{{1, 3, 1, 1}}},
		{"abcd", "Xbcd", []hunk{{0, 1, 0, 1}}},
		{"abcd", "abcX", []hunk{{3, 4, 3, 4}}},
	} {
		got, ok := diff(chars(c.a), chars(c.b))
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("diff(%q, %q) = %v, %v; want %v", c.a, c.b, got, ok, c.want)
		}
	}
}

func chars(s string) []string {
	var l []string
	for _, r := range s {
		l = append(l, string(r))
	}
	return l
}

// TestDiffIsShortest checks on random texts that diff's hunks, in order and
// apart, turn a into b, with as few removed and added lines as a longest
// common subsequence leaves.
func TestDiffIsShortest(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for range 2000 {
		a, b := chars(random(r)), chars(random(r))
		hunks, ok := diff(a, b)
		if !ok {
			t.Fatalf("diff(%q, %q): too many edits", a, b)
		}
		var out []string
		i, edits := 0, 0
		for _, h := range hunks {
			apart := h.A0 > i || len(out) == 0 && h.A0 == 0 // a common line between two hunks
			if !apart || h.A1 < h.A0 || h.B1 < h.B0 || h.A0 == h.A1 && h.B0 == h.B1 || h.A0-i != h.B0-len(out) {
				t.Fatalf("diff(%q, %q): bad hunks %v", a, b, hunks)
			}
			out = append(append(out, a[i:h.A0]...), b[h.B0:h.B1]...)
			i = h.A1
			edits += h.A1 - h.A0 + h.B1 - h.B0
		}
		out = append(out, a[i:]...)
		if strings.Join(out, "") != strings.Join(b, "") {
			t.Fatalf("diff(%q, %q): the hunks %v give %q", a, b, hunks, out)
		}
		if want := len(a) + len(b) - 2*lcs(a, b); edits != want {
			t.Errorf("diff(%q, %q): %d lines removed and added, want %d", a, b, edits, want)
		}
	}
}

func random(r *rand.Rand) string {
	var s []byte
	for range r.Intn(12) {
		s = append(s, "abc"[r.Intn(3)])
	}
	return string(s)
}

// lcs returns the length of a longest common subsequence of a and b.
func lcs(a, b []string) int {
	l := make([][]int, len(a)+1)
	for i := range l {
		l[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	return l[0][0]
}

func TestDiffGivesUp(t *testing.T) {
	a := make([]string, maxEdits)
	b := make([]string, maxEdits)
	for i := range a {
		a[i], b[i] = "a", "b"
	}
	if _, ok := diff(a, b); ok {
		t.Errorf("diff of %d lines all different: ok, want giving up", maxEdits)
	}
	if _, ok := diff(a, nil); !ok {
		t.Errorf("diff of %d removed lines: gave up", maxEdits)
	}
}
