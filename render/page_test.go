package render

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func pageNextAt(n int) *int { return &n }

func TestPageText(t *testing.T) {
	for _, tc := range []struct {
		name        string
		text        string
		offset, max int
		want        page
	}{
		{"empty text", "", 0, 10, page{}},
		{"empty text, offset past end", "", 5, 10, page{}},
		{"whole text", "hello", 0, 10, page{Text: "hello", Total: 5}},
		{"exact fit", "hello", 0, 5, page{Text: "hello", Total: 5}},
		{"first page", "hello world", 0, 5, page{Text: "hello", Truncated: true, Total: 11, Next: pageNextAt(5)}},
		{"middle page", "hello world", 5, 3, page{Text: " wo", Offset: 5, Truncated: true, Total: 11, Next: pageNextAt(8)}},
		{"last page", "hello world", 8, 5, page{Text: "rld", Offset: 8, Total: 11}},
		{"offset at end", "hello", 5, 5, page{Offset: 5, Total: 5}},
		{"offset past end", "hello", 99, 5, page{Offset: 5, Total: 5}},
		{"max 1", "abc", 1, 1, page{Text: "b", Offset: 1, Truncated: true, Total: 3, Next: pageNextAt(2)}},
		{"defensive: negative offset", "abc", -4, 1, page{Text: "a", Truncated: true, Total: 3, Next: pageNextAt(1)}},
		{"defensive: max 0", "abc", 0, 0, page{Text: "a", Truncated: true, Total: 3, Next: pageNextAt(1)}},

		// é = C3 A9 in "xéy": bytes x(0) C3(1) A9(2) y(3)
		{"é offset 0", "xéy", 0, 10, page{Text: "xéy", Total: 4}},
		{"é offset 1", "xéy", 1, 10, page{Text: "éy", Offset: 1, Total: 4}},
		{"é offset 2 moves forward", "xéy", 2, 10, page{Text: "y", Offset: 3, Total: 4}},
		{"é offset 3", "xéy", 3, 10, page{Text: "y", Offset: 3, Total: 4}},
		{"é offset 4", "xéy", 4, 10, page{Offset: 4, Total: 4}},
		{"é end at 1", "xéy", 0, 1, page{Text: "x", Truncated: true, Total: 4, Next: pageNextAt(1)}},
		{"é end at 2 moves back", "xéy", 0, 2, page{Text: "x", Truncated: true, Total: 4, Next: pageNextAt(1)}},
		{"é end at 3", "xéy", 0, 3, page{Text: "xé", Truncated: true, Total: 4, Next: pageNextAt(3)}},
		{"é end at 4", "xéy", 0, 4, page{Text: "xéy", Total: 4}},
		{"é max 1 takes the character", "xéy", 1, 1, page{Text: "é", Offset: 1, Truncated: true, Total: 4, Next: pageNextAt(3)}},
		{"é max 2", "xéy", 1, 2, page{Text: "é", Offset: 1, Truncated: true, Total: 4, Next: pageNextAt(3)}},

		// 世 = E4 B8 96 in "x世y": x(0) E4(1) B8(2) 96(3) y(4)
		{"世 offset 1", "x世y", 1, 10, page{Text: "世y", Offset: 1, Total: 5}},
		{"世 offset 2 moves forward", "x世y", 2, 10, page{Text: "y", Offset: 4, Total: 5}},
		{"世 offset 3 moves forward", "x世y", 3, 10, page{Text: "y", Offset: 4, Total: 5}},
		{"世 offset 4", "x世y", 4, 10, page{Text: "y", Offset: 4, Total: 5}},
		{"世 end at 1", "x世y", 0, 1, page{Text: "x", Truncated: true, Total: 5, Next: pageNextAt(1)}},
		{"世 end at 2 moves back", "x世y", 0, 2, page{Text: "x", Truncated: true, Total: 5, Next: pageNextAt(1)}},
		{"世 end at 3 moves back", "x世y", 0, 3, page{Text: "x", Truncated: true, Total: 5, Next: pageNextAt(1)}},
		{"世 end at 4", "x世y", 0, 4, page{Text: "x世", Truncated: true, Total: 5, Next: pageNextAt(4)}},
		{"世 end at 5", "x世y", 0, 5, page{Text: "x世y", Total: 5}},
		{"世 max 1 takes the character", "x世y", 1, 1, page{Text: "世", Offset: 1, Truncated: true, Total: 5, Next: pageNextAt(4)}},
		{"世 max 2 takes the character", "x世y", 1, 2, page{Text: "世", Offset: 1, Truncated: true, Total: 5, Next: pageNextAt(4)}},
		{"世 max 3", "x世y", 1, 3, page{Text: "世", Offset: 1, Truncated: true, Total: 5, Next: pageNextAt(4)}},

		// 😀 = F0 9F 98 80 in "x😀y": x(0) F0(1) 9F(2) 98(3) 80(4) y(5)
		{"😀 offset 1", "x😀y", 1, 10, page{Text: "😀y", Offset: 1, Total: 6}},
		{"😀 offset 2 moves forward", "x😀y", 2, 10, page{Text: "y", Offset: 5, Total: 6}},
		{"😀 offset 3 moves forward", "x😀y", 3, 10, page{Text: "y", Offset: 5, Total: 6}},
		{"😀 offset 4 moves forward", "x😀y", 4, 10, page{Text: "y", Offset: 5, Total: 6}},
		{"😀 offset 5", "x😀y", 5, 10, page{Text: "y", Offset: 5, Total: 6}},
		{"😀 offset 6", "x😀y", 6, 10, page{Offset: 6, Total: 6}},
		{"😀 end at 1", "x😀y", 0, 1, page{Text: "x", Truncated: true, Total: 6, Next: pageNextAt(1)}},
		{"😀 end at 2 moves back", "x😀y", 0, 2, page{Text: "x", Truncated: true, Total: 6, Next: pageNextAt(1)}},
		{"😀 end at 3 moves back", "x😀y", 0, 3, page{Text: "x", Truncated: true, Total: 6, Next: pageNextAt(1)}},
		{"😀 end at 4 moves back", "x😀y", 0, 4, page{Text: "x", Truncated: true, Total: 6, Next: pageNextAt(1)}},
		{"😀 end at 5", "x😀y", 0, 5, page{Text: "x😀", Truncated: true, Total: 6, Next: pageNextAt(5)}},
		{"😀 end at 6", "x😀y", 0, 6, page{Text: "x😀y", Total: 6}},
		{"😀 max 1 takes the character", "x😀y", 1, 1, page{Text: "😀", Offset: 1, Truncated: true, Total: 6, Next: pageNextAt(5)}},
		{"😀 max 3 takes the character", "x😀y", 1, 3, page{Text: "😀", Offset: 1, Truncated: true, Total: 6, Next: pageNextAt(5)}},
		{"😀 max 4", "x😀y", 1, 4, page{Text: "😀", Offset: 1, Truncated: true, Total: 6, Next: pageNextAt(5)}},
		{"😀 max 5", "x😀y", 1, 5, page{Text: "😀y", Offset: 1, Total: 6}},
		{"😀 alone, max 1", "😀", 0, 1, page{Text: "😀", Total: 4}},
		{"😀 alone, offset inside", "😀", 2, 1, page{Offset: 4, Total: 4}},
		{"two 😀, max 7", "😀😀", 0, 7, page{Text: "😀", Truncated: true, Total: 8, Next: pageNextAt(4)}},

		// Not valid UTF-8: every byte that does not continue a valid
		// encoding is a character of its own.
		{"stray continuation bytes", "\x80\x80\x80\x80\x80", 1, 2, page{Text: "\x80\x80", Offset: 1, Truncated: true, Total: 5, Next: pageNextAt(3)}},
		{"truncated encoding", "\xe4\xb8a", 1, 1, page{Text: "\xb8", Offset: 1, Truncated: true, Total: 3, Next: pageNextAt(2)}},
		{"continuation after é", "é\x80z", 1, 5, page{Text: "\x80z", Offset: 2, Total: 4}},
		{"continuations after 😀", "😀\x80\x80\x80\x80", 2, 2, page{Text: "\x80\x80", Offset: 4, Truncated: true, Total: 8, Next: pageNextAt(6)}},
		{"😀 before continuations, max 1", "😀\x80\x80\x80\x80", 0, 1, page{Text: "😀", Truncated: true, Total: 8, Next: pageNextAt(4)}},
		{"lone lead byte", "a\xf0b", 1, 1, page{Text: "\xf0", Offset: 1, Truncated: true, Total: 3, Next: pageNextAt(2)}},
		{"truncated 😀 at the end", "a\xf0\x9f\x98", 2, 1, page{Text: "\x9f", Offset: 2, Truncated: true, Total: 4, Next: pageNextAt(3)}},
		{"surrogate encoding", "\xed\xa0\x80", 0, 2, page{Text: "\xed\xa0", Truncated: true, Total: 3, Next: pageNextAt(2)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := pageText(tc.text, tc.offset, tc.max)
			if got.Text != tc.want.Text || got.Offset != tc.want.Offset || got.Truncated != tc.want.Truncated ||
				got.Total != tc.want.Total || !pageSameNext(got.Next, tc.want.Next) {
				t.Errorf("PageText(%q, %d, %d) = %s, want %s", tc.text, tc.offset, tc.max, pageShow(got), pageShow(tc.want))
			}
		})
	}
}

func pageSameNext(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func pageShow(p page) string {
	next := "nil"
	if p.Next != nil {
		next = strconv.Itoa(*p.Next)
	}
	return fmt.Sprintf("{Text:%q Offset:%d Truncated:%v Total:%d Next:%s}", p.Text, p.Offset, p.Truncated, p.Total, next)
}

// TestPageTextWalk follows Next from 0 over texts with 1- to 4-byte
// characters and every max from 1 to 9, checking the exact pages.
func TestPageTextWalk(t *testing.T) {
	for _, tc := range []struct {
		text  string
		max   int
		pages []string
	}{
		{"aé世😀b", 1, []string{"a", "é", "世", "😀", "b"}},
		{"aé世😀b", 2, []string{"a", "é", "世", "😀", "b"}},
		{"aé世😀b", 3, []string{"aé", "世", "😀", "b"}},
		{"aé世😀b", 4, []string{"aé", "世", "😀", "b"}},
		{"aé世😀b", 5, []string{"aé", "世", "😀b"}},
		{"aé世😀b", 6, []string{"aé世", "😀b"}},
		{"aé世😀b", 7, []string{"aé世", "😀b"}},
		{"aé世😀b", 8, []string{"aé世", "😀b"}},
		{"aé世😀b", 9, []string{"aé世", "😀b"}},
		{"aé世😀b", 10, []string{"aé世😀", "b"}},
		{"aé世😀b", 11, []string{"aé世😀b"}},
		{"\xff\x80\x80\x80\x80\xe4\xb8", 2, []string{"\xff\x80", "\x80\x80", "\x80\xe4", "\xb8"}},
	} {
		var got []string
		for off := 0; ; {
			p := pageText(tc.text, off, tc.max)
			got = append(got, p.Text)
			if p.Next == nil {
				break
			}
			off = *p.Next
		}
		if strings.Join(got, "|") != strings.Join(tc.pages, "|") {
			t.Errorf("pages of %q by %d: %q, want %q", tc.text, tc.max, got, tc.pages)
		}
	}
}

// TestPageTextBoundaries checks every offset of texts mixing all
// character widths against boundaries found by decoding from the start.
func TestPageTextBoundaries(t *testing.T) {
	for _, text := range []string{"aé世😀b", "😀😀😀", "é\x80\xff世\xe4\xb8z", "\x80\x80\x80\x80\x80\x80"} {
		bounds := pageDecodeBoundaries(text)
		for off := 0; off <= len(text)+1; off++ {
			want := len(text)
			for b := range bounds {
				if b >= off && b < want {
					want = b
				}
			}
			if p := pageText(text, off, 1); p.Offset != want {
				t.Errorf("PageText(%q, %d, 1).Offset = %d, want %d", text, off, p.Offset, want)
			}
		}
	}
}

// decodeBoundaries returns the byte offsets where utf8.DecodeRuneInString,
// walking from the start, begins a character, plus len(s).
func pageDecodeBoundaries(s string) map[int]bool {
	b := map[int]bool{len(s): true}
	for i := 0; i < len(s); {
		b[i] = true
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return b
}
