package render

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/internal/secret"
)

// secretsOf is a set of the given secrets.
func secretsOf(values ...string) *secret.Set {
	s := &secret.Set{}
	s.Add(values...)
	return s
}

// TestPagesMaskSplitSecrets: a page that starts or ends inside a secret
// shows *** for the part it holds, and offsets keep counting the server's
// bytes (the issue: --max-bytes 10, then --offset 10, printed a secret in
// two halves).
func TestPagesMaskSplitSecrets(t *testing.T) {
	text := "token: hunter2-hunter2 end"
	sec := secretsOf("hunter2-hunter2")
	for _, tc := range []struct {
		offset, max int
		want        string
		next        any
	}{
		{0, 10, "token: ***", 10},
		{10, 10, "***", 20},
		{20, 10, "*** end", nil},
		{0, 100, "token: *** end", nil},
		{5, 3, ": ***", 8}, // ": h", where the secret starts
	} {
		got, _, err := renderContents([]Content{{Text: text}}, Policy{Offset: tc.offset, Max: tc.max, Secrets: sec})
		if err != nil {
			t.Fatal(err)
		}
		it := got[0].(*TextItem)
		next := any(nil)
		if it.NextOffset != nil {
			next = *it.NextOffset
		}
		if it.Text != tc.want || next != tc.next || it.Offset != tc.offset || it.Bytes != min(tc.max, len(text)-tc.offset) {
			t.Errorf("offset %d max %d: %q next %v offset %d bytes %d, want %q next %v", tc.offset, tc.max, it.Text, next, it.Offset, it.Bytes, tc.want, tc.next)
		}
	}
	// with --pattern, pages of the filtered text
	got, _, err := renderContents([]Content{{Text: "a\nkey hunter2-hunter2\nb\n"}},
		Policy{Pattern: regexp.MustCompile("key"), Offset: 0, Max: 12, Secrets: sec})
	if err != nil {
		t.Fatal(err)
	}
	if it := got[0].(*TextItem); it.Text != "1-a\n2:key ***" || *it.NextOffset != 12 {
		t.Errorf("pattern page %q next %d", it.Text, *it.NextOffset)
	}
	got, _, _ = renderContents([]Content{{Text: "a\nkey hunter2-hunter2\nb\n"}},
		Policy{Pattern: regexp.MustCompile("key"), Offset: 12, Max: 100, Secrets: sec})
	if it := got[0].(*TextItem); it.Text != "***\n3-b\n" {
		t.Errorf("pattern page 2 %q", it.Text)
	}
}

// TestItemsMaskSplitSecrets: a secret split between two adjacent text
// items is masked on both sides, in a resource read and in a tool result;
// an item in between (a blob) separates them.
func TestItemsMaskSplitSecrets(t *testing.T) {
	sec := secretsOf("hunter2-hunter2")
	got, _, err := renderContents([]Content{{Text: "first hunter2"}, {Text: "-hunter2 second"}, {Text: "x"}}, Policy{Max: 100, Secrets: sec})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := got[0].(*TextItem).Text, got[1].(*TextItem).Text; a != "first ***" || b != "*** second" {
		t.Errorf("read items %q %q", a, b)
	}
	// the next item is known only when it is rendered: the first is masked again then
	raw := `{"contents":[{"uri":"x://a","text":"first hunt"},{"uri":"x://b","text":"er2-hunter2 second"}]}`
	got, _, err = RenderResourceRead([]byte(raw), Policy{Max: 100, Secrets: sec})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := got[0].(*TextItem).Text, got[1].(*TextItem).Text; a != "first ***" || b != "*** second" {
		t.Errorf("raw read items %q %q", a, b)
	}
	// pages that do not reach the seam are left alone
	got, _, _ = renderContents([]Content{{Text: "first hunter2"}, {Text: "-hunter2 second"}}, Policy{Max: 3, Secrets: sec})
	if a, b := got[0].(*TextItem).Text, got[1].(*TextItem).Text; a != "fir" || b != "***" {
		t.Errorf("short pages %q %q", a, b)
	}
	f := &fakeSpill{}
	got, _, _ = renderContents([]Content{{Text: "first hunter2"}, {IsBlob: true, Blob: []byte{0, 1}}, {Text: "-hunter2 second"}},
		Policy{Max: 100, Secrets: sec, Spill: f.spill})
	if a, b := got[0].(*TextItem).Text, got[2].(*TextItem).Text; a != "first hunter2" || b != "-hunter2 second" {
		t.Errorf("separated items %q %q", a, b)
	}

	tool := `{"content":[{"type":"text","text":"a hunter2-"},{"type":"text","text":"hunter2 b"},` +
		`{"type":"resource","resource":{"uri":"x://r","text":"c hunter2-hun"}},{"type":"text","text":"ter2"}]}`
	doc, _, err := RenderToolResult([]byte(tool), Policy{Secrets: sec})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range doc.Content {
		texts = append(texts, c.(*TextItem).Text)
	}
	if strings.Join(texts, "|") != "a ***|*** b|c ***|***" {
		t.Errorf("tool items %q", texts)
	}
}

// TestCeilingCutMasksSecret: text cut by the slice clamp or the response
// ceiling shows *** for the part of a secret it keeps.
func TestCeilingCutMasksSecret(t *testing.T) {
	secret := "s3cr3t-" + strings.Repeat("x", 20)
	sec := secretsOf(secret)
	text := strings.Repeat("a", limits.SliceClamp-10) + secret + " tail"
	tool := fmt.Sprintf(`{"content":[{"type":"text","text":%q}]}`, text)
	doc, _, err := RenderToolResult([]byte(tool), Policy{Secrets: sec})
	if err != nil {
		t.Fatal(err)
	}
	it := doc.Content[0].(*TextItem)
	if !it.Truncated || it.Bytes != limits.SliceClamp || !strings.HasSuffix(it.Text, "a***") || strings.Contains(it.Text, "s3cr") {
		t.Errorf("tool cut: truncated %v bytes %d, ends %q", it.Truncated, it.Bytes, it.Text[len(it.Text)-10:])
	}
	prompt := fmt.Sprintf(`{"messages":[{"role":"user","content":{"type":"text","text":%q}}]}`, strings.Repeat("a", limits.ResponseCeiling-20)+secret+" tail")
	pd, _, err := RenderPrompt([]byte(prompt), Policy{Secrets: sec})
	if err != nil {
		t.Fatal(err)
	}
	if !pd.Truncated || !strings.HasSuffix(pd.Text, "a***") || strings.Contains(pd.Text, "s3cr") {
		t.Errorf("prompt cut: truncated %v, ends %q", pd.Truncated, pd.Text[len(pd.Text)-10:])
	}
	b, _ := json.Marshal(pd.Messages[0].Content[0])
	if strings.Contains(string(b), "s3cr") {
		t.Errorf("prompt item keeps a piece of the secret")
	}
}

// TestCeilingSeamMasksOmittedItem: a text whose page ends exactly at the
// response ceiling is masked against the start of the next text item,
// which the ceiling leaves out: a secret split between them shows as ***
// on the side that is shown, in a resource read and in a tool result.
func TestCeilingSeamMasksOmittedItem(t *testing.T) {
	sec := secretsOf("hunter2-hunter2")
	first := strings.Repeat("a", limits.ResponseCeiling-len("hunter2")) + "hunter2"
	check := func(what string, text string, omitted int) {
		t.Helper()
		if omitted != 1 || len(text) > limits.ResponseCeiling || !strings.HasSuffix(text, "a***") || strings.Contains(text, "hunt") {
			t.Errorf("%s: omitted %d, text ends %q", what, omitted, text[max(0, len(text)-12):])
		}
	}
	got, omitted, err := renderContents([]Content{{Text: first}, {Text: "-hunter2 second"}}, Policy{Max: limits.SliceClamp, Secrets: sec})
	if err != nil {
		t.Fatal(err)
	}
	check("contents", got[0].(*TextItem).Text, omitted)
	// a blob that is text is a text
	got, omitted, _ = renderContents([]Content{{Text: first}, {IsBlob: true, Blob: []byte("-hunter2 second")}}, Policy{Max: limits.SliceClamp, Secrets: sec})
	check("text blob", got[0].(*TextItem).Text, omitted)
	raw := fmt.Sprintf(`{"contents":[{"uri":"x://a","text":%q},{"uri":"x://b","text":"-hunter2 second"},{"uri":"x://c","text":"x"}]}`, first)
	got, omitted, err = RenderResourceRead([]byte(raw), Policy{Max: limits.SliceClamp, Secrets: sec})
	if err != nil {
		t.Fatal(err)
	}
	check("read", got[0].(*TextItem).Text, omitted-1)
	// a tool's text counts the newline text output adds: one byte less
	tool := fmt.Sprintf(`{"content":[{"type":"text","text":%q},{"type":"resource","resource":{"uri":"x://r","text":"-hunter2 b"}}]}`, first[1:])
	doc, _, err := RenderToolResult([]byte(tool), Policy{Secrets: sec})
	if err != nil {
		t.Fatal(err)
	}
	check("tool", doc.Content[0].(*TextItem).Text, doc.Omitted)
	// the next item not a text: nothing joins, nothing is masked
	got, omitted, _ = renderContents([]Content{{Text: first}, {IsBlob: true, Blob: []byte{0, 1}}}, Policy{Max: limits.SliceClamp, Secrets: sec})
	if text := got[0].(*TextItem).Text; omitted != 1 || !strings.HasSuffix(text, "ahunter2") {
		t.Errorf("blob after: omitted %d, text ends %q", omitted, text[len(text)-12:])
	}
}
