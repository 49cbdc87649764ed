package render

import (
	"bytes"
	"encoding/json"

	"github.com/mcpx-cli/mcpx/internal/jsonscan"
)

// span is a value's bytes [s, e) in its JSON document; e == 0 means absent.
type span struct{ s, e int }

func (sp span) present(doc []byte) bool { return sp.e > 0 && string(doc[sp.s:sp.e]) != "null" }

// itemFields are the members of a content item mcpx reads.
type itemFields struct{ uri, mimeType, text, blob, annotations span }

// scanItem finds the members of the JSON object doc[start:end] (valid JSON,
// so no error handling) without decoding any value: gjson decodes every
// string it is asked for, and a text can be tens of MiB. Keys are compared
// after decoding their escapes; of repeated keys the last wins, as in
// encoding/json.
func scanItem(doc []byte, start, end int) itemFields {
	var f itemFields
	i := skipSpace(doc, start+1)
	for i < end && doc[i] == '"' {
		ke := skipValue(doc, i)
		key := string(doc[i+1 : ke-1])
		if containsByte(doc[i:ke], '\\') {
			_ = json.Unmarshal(doc[i:ke], &key)
		}
		i = skipSpace(doc, skipSpace(doc, ke)+1) // past the colon
		ve := skipValue(doc, i)
		sp := span{i, ve}
		switch key {
		case "uri":
			f.uri = sp
		case "mimeType":
			f.mimeType = sp
		case "text":
			f.text = sp
		case "blob":
			f.blob = sp
		case "annotations":
			f.annotations = sp
		}
		i = skipSpace(doc, ve)
		if i < end && doc[i] == ',' {
			i = skipSpace(doc, i+1)
		}
	}
	return f
}

// The scanner itself lives in internal/jsonscan (the schema reader uses it
// too); these are its names here.

func containsByte(b []byte, c byte) bool { return bytes.IndexByte(b, c) >= 0 }

func skipSpace(b []byte, i int) int { return jsonscan.SkipSpace(b, i) }

// skipValue returns the end of the JSON value starting at b[i].
func skipValue(b []byte, i int) int { return jsonscan.SkipValue(b, i) }
