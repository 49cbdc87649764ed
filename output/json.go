package output

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// noMatch: --select path matched nothing (exit 9, no_match; Name is the
// path).
func noMatch(path string) error {
	return &fail.Error{Code: fail.NoMatch, What: "--select", Name: path, Message: fmt.Sprintf("--select %q matched nothing", path)}
}

// Marshal encodes v as one compact JSON document without HTML escaping.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// WriteJSON prints v as one JSON document on stdout: indented on a terminal,
// compact in a pipe. With a --select path it prints the selection instead:
// a string raw, an array one element per line (strings raw, others compact
// JSON), anything else compact JSON. No match is a no_match *fail.Error and prints
// nothing.
func (s *Streams) WriteJSON(v any, selectPath string) error {
	doc, err := Marshal(v)
	if err != nil {
		return err
	}
	doc = s.secrets.MaskJSON(doc)
	if selectPath != "" {
		return writeSelection(s.outJSON, doc, selectPath)
	}
	if s.OutTTY {
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, doc, "", "  "); err == nil {
			doc = pretty.Bytes()
		}
	}
	doc = append(doc, '\n')
	_, err = s.outJSON.Write(doc)
	return err
}

// WriteJSONLine prints a JSON document as it is, and a newline: for JSON
// inside text output (a tool's structured content). Like WriteJSON, it
// masks secrets in string values only, never in keys.
func (s *Streams) WriteJSONLine(doc []byte) error {
	doc = s.secrets.MaskJSON(doc)
	_, err := s.outJSON.Write(append(doc[:len(doc):len(doc)], '\n'))
	return err
}

func writeSelection(w io.Writer, doc []byte, path string) error {
	r := gjson.GetBytes(doc, path)
	if !r.Exists() {
		return noMatch(path)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	switch {
	case r.Type == gjson.String:
		bw.WriteString(r.Str)
		bw.WriteByte('\n')
	case r.IsArray():
		// element by element: a selection can hold millions of them
		r.ForEach(func(_, el gjson.Result) bool {
			if el.Type == gjson.String {
				bw.WriteString(el.Str)
			} else {
				bw.WriteString(text.CompactJSON(text.BytesView(el.Raw)))
			}
			return bw.WriteByte('\n') == nil
		})
	default:
		bw.WriteString(text.CompactJSON(text.BytesView(r.Raw)))
		bw.WriteByte('\n')
	}
	return bw.Flush() // a bufio.Writer keeps its first error
}
