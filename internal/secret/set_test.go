package secret

import (
	"strings"
	"testing"
)

// TestMaskJSONKeys: a key is never rewritten, even when a secret occurs in
// it (the issue: MCP_LOG_LEVEL=error turned "is_error" into "is_***"); only
// string values are masked, and the document keeps its structure.
func TestMaskJSONKeys(t *testing.T) {
	m := &Set{}
	m.Add("error", "s3cr3t-value")
	for in, want := range map[string]string{
		`{"is_error":true,"msg":"an error"}`:                     `{"is_error":true,"msg":"an ***"}`,
		`{"is_error" : "error", "list": ["error", {"error":1}]}`: `{"is_error" : "***", "list": ["***", {"error":1}]}`,
		"{\n  \"s3cr3t-value\":\n  \"s3cr3t-value\"\n}":          "{\n  \"s3cr3t-value\":\n  \"***\"\n}",
		`{"a\"error":"x\"error"}`:                                `{"a\"error":"x\"***"}`,
		`["is_error",":"]`:                                       `["is_***",":"]`,
	} {
		if got := string(m.MaskJSON([]byte(in))); got != want {
			t.Errorf("MaskJSON(%s)\n got %s\nwant %s", in, got, want)
		}
	}
}

// TestMaskIn: a piece cut from a text shows *** for the part of a secret
// it holds, whichever side the cut is on, and a piece that lies inside a
// secret is *** alone.
func TestMaskIn(t *testing.T) {
	m := &Set{}
	if got := m.MaskIn("hunt", "er2-hunter2 x", ""); got != "er2-hunter2 x" {
		t.Errorf("no secrets: %q", got)
	}
	m.Add("hunter2-hunter2", "tok-9999")
	whole := "the key is hunter2-hunter2, and tok-9999 too"
	if m.Longest() != len("hunter2-hunter2") {
		t.Errorf("Longest %d", m.Longest())
	}
	for _, tc := range []struct {
		start, end int
		want       string
	}{
		{0, len(whole), "the key is ***, and *** too"},
		{0, 15, "the key is ***"}, // ends inside the first secret
		{15, 35, "***, and ***"},  // starts inside one, ends inside the other
		{13, 20, "***"},           // inside one secret
		{30, 44, "d *** too"},
		{34, 44, "*** too"},
		{0, 11, "the key is "},
		{26, 32, ", and "},
		{25, 33, "***, and ***"},
	} {
		got := m.MaskIn(whole[:tc.start], whole[tc.start:tc.end], whole[tc.end:])
		if got != tc.want {
			t.Errorf("[%d:%d] %q: got %q, want %q", tc.start, tc.end, whole[tc.start:tc.end], got, tc.want)
		}
	}
	// across items: the end of one text and the start of the next
	if got := m.MaskIn("", "a value: hunter2-", "hunter2 and more"); got != "a value: ***" {
		t.Errorf("item end: %q", got)
	}
	if got := m.MaskIn("a value: hunter2-", "hunter2 and more", ""); got != "*** and more" {
		t.Errorf("item start: %q", got)
	}
}

// TestMaskOverlapping: secrets that overlap (the end of one is the start
// of another, as a hostile server can arrange) are masked whole, in Mask
// and in MaskIn: masking one must not leave the rest of the other in clear.
func TestMaskOverlapping(t *testing.T) {
	m := &Set{}
	m.Add("tok-AAAA-BBBB", "BBBB-CCCC-key")
	for in, want := range map[string]string{
		"x tok-AAAA-BBBB-CCCC-key y":      "x *** y", // one run
		"x tok-AAAA-BBBB tok-AAAA-BBBB y": "x *** *** y",
		"BBBB-CCCC-keyBBBB-CCCC-key":      "******", // adjacent: two runs
		"tok-AAAA-BBBB-CCCC-ke":           "***-CCCC-ke",
	} {
		if got := m.Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
	whole := "x tok-AAAA-BBBB-CCCC-key y"
	for i := 0; i <= len(whole); i++ {
		got := m.MaskIn(whole[:i], whole[i:], "") + "|" + m.MaskIn("", whole[:i], whole[i:])
		if strings.Contains(got, "CCCC") || strings.Contains(got, "AAAA") || strings.Contains(got, "-key") {
			t.Errorf("split at %d: %q", i, got)
		}
	}
}
