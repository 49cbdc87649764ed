package output

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

type listDoc struct {
	Items    []any `json:"items"`
	Warnings []any `json:"warnings"`
}

// TestJSONListIsWriteJSON: a document streamed an element at a time is
// byte for byte what WriteJSON prints for the whole, compact in a pipe and
// indented on a terminal, masked, with and without elements.
func TestJSONListIsWriteJSON(t *testing.T) {
	items := []any{
		map[string]any{"id": "a<b>", "n": json.Number("1.50"), "nested": map[string]any{"x": []any{1, map[string]any{}}, "y": []any{}}},
		map[string]any{"id": "with s3cr3t-token inside", "raw": json.RawMessage(`{ "k" : [ 1 , 2 ] }`)},
	}
	warnings := []any{map[string]any{"code": "c", "message": "s3cr3t-token"}}
	for _, tty := range []bool{false, true} {
		for _, doc := range []listDoc{{items, warnings}, {[]any{}, []any{}}, {items[:1], []any{}}} {
			whole, out, _ := ForTest(tty)
			whole.Secrets().Add("s3cr3t-token")
			if err := whole.WriteJSON(doc, ""); err != nil {
				t.Fatal(err)
			}
			streamed, got, _ := ForTest(tty)
			streamed.Secrets().Add("s3cr3t-token")
			l := streamed.Stream(context.Background()).JSONList("items", "")
			for _, it := range doc.Items {
				if err := l.Add(it); err != nil {
					t.Fatal(err)
				}
			}
			if err := l.Close(Member{"warnings", doc.Warnings}); err != nil {
				t.Fatal(err)
			}
			if got.String() != out.String() {
				t.Errorf("tty %v: streamed\n%s\nwant\n%s", tty, got, out)
			}
			if strings.Contains(got.String(), "s3cr3t") {
				t.Errorf("tty %v: a secret is printed: %s", tty, got)
			}
		}
	}
}

// TestJSONListSelect: with a --select path the selection of the whole
// document is printed, as WriteJSON prints it.
func TestJSONListSelect(t *testing.T) {
	doc := listDoc{[]any{map[string]any{"k": "a"}, map[string]any{"k": "b"}}, []any{}}
	for _, path := range []string{"items.#.k", "items.1", "warnings", "items.0.k", "nope"} {
		whole, out, _ := ForTest(false)
		werr := whole.WriteJSON(doc, path)
		streamed, got, _ := ForTest(false)
		l := streamed.Stream(context.Background()).JSONList("items", path)
		for _, it := range doc.Items {
			if err := l.Add(it); err != nil {
				t.Fatal(err)
			}
		}
		err := l.Close(Member{"warnings", doc.Warnings})
		if got.String() != out.String() || (err == nil) != (werr == nil) {
			t.Errorf("%s: %q (%v), want %q (%v)", path, got, err, out, werr)
		}
	}
}

// TestTable: in a pipe, tab-separated lines; on a terminal, aligned under
// a header to the widths measured, the last column cut to the terminal's
// width, escaped and masked, with no trailing blanks.
func TestTable(t *testing.T) {
	rows := [][]string{{"tool", "add", "Add two numbers."}, {"tool", "wide\x1b", "a b\tc"}, {"prompt", "p", ""}, {"tool", "日本", "s3cr3t-token here"}}
	pipe, out, _ := ForTest(false)
	pipe.Secrets().Add("s3cr3t-token")
	st := pipe.Stream(context.Background())
	tab := st.Table([]string{"KIND", "ID", "DESCRIPTION"}, nil)
	for _, r := range rows {
		if err := tab.Row(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := "tool\tadd\tAdd two numbers.\ntool\twide\x1b\ta b c\nprompt\tp\t\ntool\t日本\t*** here\n"; out.String() != want {
		t.Errorf("pipe: %q, want %q", out, want)
	}

	tty, out, _ := ForTest(true)
	tty.Secrets().Add("s3cr3t-token")
	tty.OutWidth = 30
	widths := []int{0, 0}
	for _, r := range rows {
		for i := range widths {
			widths[i] = max(widths[i], tty.CellWidth(r[i]))
		}
	}
	st = tty.Stream(context.Background())
	tab = st.Table([]string{"KIND", "ID", "DESCRIPTION"}, widths)
	for _, r := range rows {
		if err := tab.Row(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "KIND    ID        DESCRIPTION\n" +
		"tool    add       Add two num…\n" +
		"tool    wide\\x1b  a b c\n" +
		"prompt  p\n" +
		"tool    日本      *** here\n"
	if out.String() != want {
		t.Errorf("terminal:\n%s\nwant\n%s", out, want)
	}
}

// TestStreamStalled: a write still blocked when the deadline passes is
// abandoned with ErrStalled, which says why.
func TestStreamStalled(t *testing.T) {
	r, w := io.Pipe()
	defer r.Close()
	s := New(bytes.NewReader(nil), w, io.Discard, false, false, false)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	st := s.Stream(ctx)
	start := time.Now()
	tab := st.Table([]string{"A"}, nil)
	var err error
	for i := 0; i < 100000 && err == nil; i++ {
		err = tab.Row([]string{"a row of some length"})
	}
	if err == nil {
		err = st.Flush()
	}
	if !errors.Is(err, ErrStalled) || !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("err %v after %s", err, time.Since(start))
	}
}
