package render

import "testing"

func TestIsText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"", true},
		{"hello\n", true},
		{"tab\tcr\r\nesc\x1b", true},
		{"é", true},
		{"世界", true},
		{"😀", true},
		{"\x00", false},
		{"text\x00more", false},
		{"\xff", false},
		{"caf\xc3", false},          // truncated 2-byte character
		{"\xe4\xb8", false},         // truncated 3-byte character
		{"\xf0\x9f\x98", false},     // truncated 4-byte character
		{"\xed\xa0\x80", false},     // UTF-16 surrogate
		{"\xc0\x80", false},         // overlong NUL
		{"\xf4\x90\x80\x80", false}, // past U+10FFFF
		{"%PDF-1.7\n\xe2\xe3\xcf\xd3", false},
		{"\x89PNG\r\n\x1a\n", false},
	} {
		if got := isText([]byte(tc.in)); got != tc.want {
			t.Errorf("IsText(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
