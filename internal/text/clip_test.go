package text

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain":             "plain",
		"  first \n second": `first \n second`,
		"a\u2028b":          `a\u2028b`,
		"a\u0085b":          `a\u0085b`,
		"a\rmcpx: forged":   `a\rmcpx: forged`,
		"a\vb":              `a\vb`,
		// a TypeScript server's validation error (a ZodError's message):
		// what explains it comes after the first line
		"[\n  {\n    \"message\": \"Invalid URL\"\n  }\n]": `[\n  {\n    "message": "Invalid URL"\n  }\n]`,
		strings.Repeat("x", MaxShown+1):                    strings.Repeat("x", MaxShown) + "...",
		strings.Repeat("é", MaxShown):                      strings.Repeat("é", MaxShown),
		strings.Repeat("y", 600) + "\nz":                   strings.Repeat("y", MaxShown) + "...",
		strings.Repeat("\n", MaxShown) + "z":               "z",
		"a" + strings.Repeat("\n", MaxShown):               "a",
		"a" + strings.Repeat("\nb", MaxShown):              "a" + strings.Repeat(`\nb`, (MaxShown-1)/3) + `\...`,
		strings.Repeat("y", MaxShown-1) + "\n\nz":          strings.Repeat("y", MaxShown-1) + `\...`,
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%.40q) = %.40q, want %.40q", in, got, want)
		}
	}
	if got := ClipBytes("aé", 2); got != "a..." {
		t.Errorf("ClipBytes cut a character: %q", got)
	}
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in         string
		n          int
		clip, trun string
	}{
		{"", 3, "", ""},
		{"abc", 3, "abc", "abc"},
		{"abcd", 3, "abc...", "abc..."},
		{"éüö", 2, "éü...", "éü..."},
		// A byte that is not UTF-8: kept by Clip, U+FFFD once Truncate cuts.
		{"\xffab", 2, "\xffa...", "\ufffda..."},
		{"\xffa", 2, "\xffa", "\xffa"},
	} {
		if got := Clip(tc.in, tc.n); got != tc.clip {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.clip)
		}
		if got := Truncate(tc.in, tc.n); got != tc.trun {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.trun)
		}
	}
	if head, cut := FirstChars("héllo", 2); head != "hé" || !cut {
		t.Errorf("FirstChars = %q, %v", head, cut)
	}
	if head, cut := FirstChars("hé", 2); head != "hé" || cut {
		t.Errorf("FirstChars = %q, %v", head, cut)
	}
}

func TestEscapeClip(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"}, {"abcd", 3, "abc..."}, {"", 0, ""}, {"a", 0, "..."},
		{"é世😀x", 3, "é世😀..."}, {"é世😀", 3, "é世😀"},
		// one line: a server's line breaks are shown escaped
		{"a\nmcpx: x", 20, `a\nmcpx: x`}, {"a\r\u0085\u2028\u2029b", 4, `a\r\u0085\u2028...`},
	} {
		if got := EscapeClip(tc.s, tc.n); got != tc.want {
			t.Errorf("EscapeClip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
	for s, want := range map[string]string{"abcd": `"abc..."`, "a\nb": `"a\nb"`, "é\u2028": `"é\u2028"`} {
		if got := QuoteClip(s, 3); got != want {
			t.Errorf("QuoteClip(%q, 3) = %s, want %s", s, got, want)
		}
	}
}

func TestFirstBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		head string
		cut  bool
	}{
		{"", 3, "", false},
		{"abc", 3, "abc", false},
		{"abcd", 3, "abc", true},
		{"aé", 2, "a", true},                 // not half of é
		{"aéb", 3, "aé", true},               // é is two bytes
		{"a\x80\x80b", 3, "a\x80\x80", true}, // a stray byte is a character of its own
		{"\xffab", 2, "\xffa", true},
	} {
		if head, cut := FirstBytes(tc.in, tc.n); head != tc.head || cut != tc.cut {
			t.Errorf("FirstBytes(%q, %d) = %q, %v, want %q, %v", tc.in, tc.n, head, cut, tc.head, tc.cut)
		}
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "pairs", 1: "pair", 2: "pairs"} {
		if got := Plural(n, "pair", "pairs"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSquash(t *testing.T) {
	if got := Squash("  a\n\tb  c\u2028d "); got != "a b c d" {
		t.Errorf("Squash = %q", got)
	}
}

func TestQuoteWord(t *testing.T) {
	for in, want := range map[string]string{
		"":           "''",
		"plain-1.0":  "plain-1.0",
		"a b":        "'a b'",
		"it's":       `'it'\''s'`,
		"$HOME":      "'$HOME'",
		"é":          "'é'",
		"x=y,z@w%+:": "x=y,z@w%+:",
	} {
		if got := QuoteWord(in, "-_./:=@%+,"); got != want {
			t.Errorf("QuoteWord(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0:        "0 bytes",
		1000:     "1000 bytes",
		1 << 10:  "1 KiB (1024 bytes)",
		50 << 20: "50 MiB (52428800 bytes)",
		3 << 9:   "1536 bytes",
	} {
		if got := HumanBytes(n); got != want {
			t.Errorf("HumanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCompactJSON(t *testing.T) {
	if got := CompactJSON(json.RawMessage("{ \"a\" : [1, 2] }")); got != `{"a":[1,2]}` {
		t.Errorf("CompactJSON = %q", got)
	}
	if got := CompactJSON(json.RawMessage("{not json")); got != "{not json" {
		t.Errorf("CompactJSON of bad JSON = %q", got)
	}
}

func TestANSIQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                         "plain",
		"a b":                           "a b", // no control character: not ANSI-quoted
		"t1\x1b[31m":                    `$'t1\x1b[31m'`,
		"a\nb\tc\rd":                    `$'a\nb\tc\rd'`,
		"it's \\ \x00":                  `$'it\'s \\ \x00'`,
		"del\x7f":                       `$'del\x7f'`,
		"c1\u0085 bidi\u202e sep\u2028": `$'c1\xc2\x85 bidi\xe2\x80\xae sep\xe2\x80\xa8'`,
		"bad\xff utf8 é":                `$'bad\xff utf8 é'`,
	} {
		got, ok := ANSIQuote(in)
		if got != want || ok != (got != in) {
			t.Errorf("ANSIQuote(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if got := QuoteWord("id-\x1b", "-"); got != `$'id-\x1b'` {
		t.Errorf("QuoteWord with a control character = %q", got)
	}
}
