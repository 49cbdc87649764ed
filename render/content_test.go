package render

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/internal/text"
)

func TestParseResourceContents(t *testing.T) {
	png := []byte{0x89, 'P', 'N', 'G', 0, 1, 2}
	b64 := base64.StdEncoding.EncodeToString(png)
	tests := []struct {
		name string
		raw  string
		want []Content
		bad  string // the BadContentError's message, when the parse fails
		item int
	}{
		{name: "text", raw: `{"contents":[{"uri":"x://a","mimeType":"text/plain","text":"héllo\n"}]}`,
			want: []Content{{URI: "x://a", MimeType: "text/plain", Text: "héllo\n"}}},
		{name: "blob", raw: `{"contents":[{"uri":"x://b","mimeType":"image/png","blob":"` + b64 + `"}]}`,
			want: []Content{{URI: "x://b", MimeType: "image/png", IsBlob: true, Blob: png}}},
		{name: "blob without padding", raw: `{"contents":[{"uri":"x://b","blob":"` + strings.TrimRight(b64, "=") + `"}]}`,
			want: []Content{{URI: "x://b", IsBlob: true, Blob: png}}},
		{name: "blob with escaped line breaks and slash", raw: `{"contents":[{"uri":"x://b","blob":"` + "iVBO\\nRw0K\\/w==" + `"}]}`,
			want: []Content{{URI: "x://b", IsBlob: true, Blob: []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0xff}}}},
		{name: "empty blob", raw: `{"contents":[{"uri":"x://e","blob":""}]}`,
			want: []Content{{URI: "x://e", IsBlob: true, Blob: []byte{}}}},
		{name: "null text is absent", raw: `{"contents":[{"uri":"x://b","text":null,"blob":"QQ=="}]}`,
			want: []Content{{URI: "x://b", IsBlob: true, Blob: []byte("A")}}},
		{name: "annotations kept", raw: `{"contents":[{"uri":"x://a","text":"t","annotations":{"audience":["user"],"priority":0.5}}]}`,
			want: []Content{{URI: "x://a", Text: "t", Annotations: json.RawMessage(`{"audience":["user"],"priority":0.5}`)}}},
		{name: "annotations not an object dropped", raw: `{"contents":[{"uri":"x://a","text":"t","annotations":[1]}]}`,
			want: []Content{{URI: "x://a", Text: "t"}}},
		{name: "odd uri and mime ignored", raw: `{"contents":[{"uri":7,"mimeType":{},"text":"t"}]}`,
			want: []Content{{Text: "t"}}},
		{name: "several, in order", raw: `{"contents":[{"uri":"1","text":"a"},{"uri":"2","blob":"Yg=="},{"uri":"3","text":""}]}`,
			want: []Content{{URI: "1", Text: "a"}, {Index: 1, URI: "2", IsBlob: true, Blob: []byte("b")}, {Index: 2, URI: "3"}}},
		{name: "empty", raw: `{"contents":[]}`},
		{name: "unknown fields", raw: `{"contents":[{"uri":"x","text":"t","extra":{"a":1}}],"_meta":{},"more":1}`,
			want: []Content{{URI: "x", Text: "t"}}},

		{name: "both", raw: `{"contents":[{"uri":"x://both","text":"t","blob":"QQ=="}]}`,
			bad: "item #0 (x://both): the item has both text and blob"},
		{name: "neither", raw: `{"contents":[{"uri":"x://n","mimeType":"text/plain"}]}`,
			bad: "item #0 (x://n): the item has neither text nor blob"},
		{name: "second bad", raw: `{"contents":[{"uri":"x://g","text":"good"},{"text":1}]}`,
			bad: "item #1: its text is not a string", item: 1},
		{name: "blob not a string", raw: `{"contents":[{"uri":"x","blob":["QQ=="]}]}`,
			bad: "item #0 (x): its blob is not a string"},
		{name: "invalid base64", raw: `{"contents":[{"uri":"x","blob":"not base64!!"}]}`,
			bad: "item #0 (x): its blob is not valid base64: illegal base64 data at input byte 3"},
		{name: "item not an object", raw: `{"contents":["text"]}`,
			bad: "item #0: the item is not a JSON object"},
		{name: "contents null", raw: `{"contents":null}`, bad: "the result has no contents array", item: -1},
		{name: "contents missing", raw: `{}`, bad: "the result has no contents array", item: -1},
		{name: "not an object", raw: `"a string"`, bad: "the result is not a JSON object", item: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseResourceContents([]byte(tc.raw))
			if tc.bad != "" {
				var bc *BadContentError
				if !errors.As(err, &bc) {
					t.Fatalf("err = %v (%T), want a BadContentError", err, err)
				}
				if bc.Error() != tc.bad || bc.Item != tc.item {
					t.Fatalf("err = %q (item %d), want %q (item %d)", bc.Error(), bc.Item, tc.bad, tc.item)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d items, want %d: %+v", len(got), len(tc.want), got)
			}
			for i := range got {
				g, w := got[i], tc.want[i]
				if g.Index != w.Index || g.URI != w.URI || g.MimeType != w.MimeType || g.IsBlob != w.IsBlob ||
					g.Text != w.Text || !bytes.Equal(g.Blob, w.Blob) || string(g.Annotations) != string(w.Annotations) {
					t.Errorf("item %d:\n got %+v\nwant %+v", i, g, w)
				}
			}
		})
	}
}

func TestDecodeBase64Ceiling(t *testing.T) {
	src := []byte(base64.StdEncoding.EncodeToString(make([]byte, 30)))
	if b, err := decodeBase64(src, 30); err != nil || len(b) != 30 {
		t.Fatalf("30 bytes within 30: %d, %v", len(b), err)
	}
	for _, left := range []int64{29, 0} {
		_, err := decodeBase64(src, left)
		var le *limits.Error
		if !errors.As(err, &le) || le.Limit != "decode ceiling" || le.Value != limits.DecodeCeiling {
			t.Fatalf("left %d: err = %v, want the decode ceiling", left, err)
		}
		if want := "the blobs of this response are too large to decode: over the decode ceiling of 50 MiB (52428800 bytes)"; le.Error() != want {
			t.Fatalf("message %q, want %q", le.Error(), want)
		}
	}
	// padding: 31 bytes encode to 44 characters with one '='
	src = []byte(base64.StdEncoding.EncodeToString(make([]byte, 31)))
	if b, err := decodeBase64(src, 31); err != nil || len(b) != 31 {
		t.Fatalf("31 bytes within 31: %d, %v", len(b), err)
	}
	if _, err := decodeBase64(src, 30); err == nil {
		t.Fatal("31 bytes within 30: no error")
	}
}

// The decode ceiling counts every blob of a response together.
func TestParseResourceContentsDecodeCeilingSum(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 70 MB reply")
	}
	half := base64.StdEncoding.EncodeToString(make([]byte, limits.DecodeCeiling/2))
	raw := `{"contents":[{"uri":"a","blob":"` + half + `"},{"uri":"b","blob":"` + half + `"}]}`
	if items, err := ParseResourceContents([]byte(raw)); err != nil || len(items) != 2 {
		t.Fatalf("exactly the ceiling: %d items, %v", len(items), err)
	}
	raw = `{"contents":[{"uri":"a","blob":"` + half + `"},{"uri":"b","blob":"` + half + `"},{"uri":"c","blob":"QQ=="}]}`
	_, err := ParseResourceContents([]byte(raw))
	var le *limits.Error
	if !errors.As(err, &le) || le.Limit != "decode ceiling" {
		t.Fatalf("one byte over: err = %v, want the decode ceiling", err)
	}
}

// A blob without escapes is decoded straight from the reply, without a copy of its base64.
func TestParseResourceContentsNoCopy(t *testing.T) {
	raw := []byte(`{"contents":[{"uri":"a","blob":"` + base64.StdEncoding.EncodeToString(make([]byte, 3<<20)) + `"}]}`)
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := ParseResourceContents(raw); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 20 {
		t.Errorf("%v allocations for one blob", allocs)
	}
	var ms1, ms2 runtimeMem
	ms1.read()
	if _, err := ParseResourceContents(raw); err != nil {
		t.Fatal(err)
	}
	ms2.read()
	if d := ms2.total - ms1.total; d > 4<<20 { // the 3 MiB decoded, plus little
		t.Errorf("parsing a 3 MiB blob allocated %d bytes", d)
	}
}

func FuzzParseResourceContents(f *testing.F) {
	f.Add([]byte(`{"contents":[{"uri":"x://a","mimeType":"text/plain","text":"hello"}]}`))
	f.Add([]byte(`{"contents":[{"uri":"x://b","blob":"QUJD"},{"uri":"c","text":"t","annotations":{"priority":1}}]}`))
	f.Add([]byte(`{"contents":[{"uri":"x","text":"t","blob":"QQ=="}]}`))
	f.Add([]byte(`{"contents":[{"uri":"x","blob":"QQ\\u003d\\u003d"}]}`))
	f.Add([]byte(`{"contents":[{"blob":"not base64"}]}`))
	f.Add([]byte(`{"contents":null}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return // the transport hands on valid JSON only
		}
		items, err := ParseResourceContents(bytes.Clone(raw)) // it decodes escapes in place
		if err != nil {
			var bc *BadContentError
			var le *limits.Error
			if !errors.As(err, &bc) && !errors.As(err, &le) {
				t.Fatalf("err %v (%T) is neither bad content nor a limit", err, err)
			}
			return
		}
		// Every item agrees with an independent decoding of the same JSON.
		var doc struct {
			Contents []map[string]any `json:"contents"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("parsed, but encoding/json fails: %v", err)
		}
		if len(doc.Contents) != len(items) {
			t.Fatalf("%d items, encoding/json sees %d", len(items), len(doc.Contents))
		}
		for i, it := range items {
			m := doc.Contents[i]
			if it.IsBlob {
				b, err := base64.StdEncoding.DecodeString(strings.NewReplacer("\n", "", "\r", "").Replace(m["blob"].(string)))
				if err != nil {
					b, err = base64.RawStdEncoding.DecodeString(strings.NewReplacer("\n", "", "\r", "").Replace(m["blob"].(string)))
				}
				if err != nil || !bytes.Equal(b, it.Blob) {
					t.Fatalf("item %d: blob %q, encoding/base64 says %q (%v)", i, it.Blob, b, err)
				}
			} else if s, _ := m["text"].(string); s != it.Text {
				t.Fatalf("item %d: text %q, encoding/json says %q", i, it.Text, s)
			}
		}
	})
}

// Escapes are decoded in place exactly as encoding/json decodes them.
func TestTextEscapesInPlace(t *testing.T) {
	for _, esc := range []string{
		`plain`, `a\nb\tc\r\\d\"e\/f\bg\fh`, `\u00e9\u4e16`, `\ud83d\ude00 emoji`, `lone \ud83d high`, `lone \ude00 low`,
		`\ud83d\u0041 high then A`, `\u0000nul`, `\\u00e9 not an escape`, `end\\`, `caf\u00E9 upper hex`,
	} {
		raw := []byte(`{"contents":[{"uri":"x","text":"` + esc + `"}]}`)
		var want struct {
			Contents []struct{ Text string }
		}
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("%s: %v", esc, err)
		}
		items, err := ParseResourceContents(raw)
		if err != nil || len(items) != 1 {
			t.Fatalf("%s: %v", esc, err)
		}
		if items[0].Text != want.Contents[0].Text {
			t.Errorf("%s: got %q, want %q", esc, items[0].Text, want.Contents[0].Text)
		}
	}
}

// A text, escaped or not, is decoded where it stands in the reply: no copy.
func TestParseResourceContentsTextInPlace(t *testing.T) {
	for _, body := range []string{strings.Repeat("plain ", 1<<18), strings.Repeat("line\\n\\u00e9 ", 1<<18)} {
		raw := []byte(`{"contents":[{"uri":"a","text":"` + body + `"}]}`)
		var ms1, ms2 runtimeMem
		ms1.read()
		items, err := ParseResourceContents(raw)
		ms2.read()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := text.Within(raw, items[0].Text); !ok {
			t.Errorf("the text (%d bytes) is a copy, not in the reply", len(items[0].Text))
		}
		if d := ms2.total - ms1.total; d > 64<<10 {
			t.Errorf("parsing a %d-byte text allocated %d bytes", len(body), d)
		}
	}
}

func TestDecodedSize(t *testing.T) {
	for n := range 40 {
		b := make([]byte, n)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
			src := enc.EncodeToString(b)
			if got := decodedSize([]byte(src)); got != int64(n) {
				t.Errorf("%q: %d, want %d", src, got, n)
			}
			if n > 8 {
				wrapped := src[:4] + "\r\n" + src[4:] + "\n"
				if got := decodedSize([]byte(wrapped)); got != int64(n) {
					t.Errorf("%q: %d, want %d", wrapped, got, n)
				}
			}
		}
	}
}
