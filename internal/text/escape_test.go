package text

import "testing"

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"":                       "",
		"plain text, tabs\tkept": "plain text, tabs\tkept",
		"a\nmcpx: error: x":      `a\nmcpx: error: x`,
		"a\r\nb\rc":              `a\r\nb\rc`,
		"a\u0085b\u2028c\u2029d": `a\u0085b\u2028c\u2029d`,
		"a\vb\fc\x1cd\x1de\x1ef": `a\vb\fc\x1cd\x1de\x1ef`,
		"é\u2027ü":               "é\u2027ü",
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}
