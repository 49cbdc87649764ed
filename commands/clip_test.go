package commands

import "testing"

func TestArgsClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"ééé", 3, "ééé"},
		{"éééé", 3, "éé…"},
		{"", 3, ""},
	} {
		if got := argClip(tc.in, tc.n); got != tc.want {
			t.Errorf("argClip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
