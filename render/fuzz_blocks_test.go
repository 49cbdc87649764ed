package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpx-cli/mcpx/internal/limits"
)

// errFuzzSpill is the spill failure the fuzz policy returns for the mime
// type "x/fail": render must hand it on as it is.
var errFuzzSpill = errors.New("fuzz: spill refused")

// fuzzPolicy spills nowhere: a path from the bytes, as the spill writer
// names it, without the IO.
func fuzzPolicy(spills *int) Policy {
	return Policy{Spill: func(data []byte, mime string) (Spilled, error) {
		if mime == "x/fail" {
			return Spilled{}, errFuzzSpill
		}
		*spills++
		sum := sha256.Sum256(data)
		h := hex.EncodeToString(sum[:])
		return Spilled{Path: "/cache/mcp-resources/srv/" + h + "." + extension(mime), SHA256: h, Size: int64(len(data))}, nil
	}}
}

// fuzzErr checks that a failure is bad content, a limit or the spill's own.
func fuzzErr(t *testing.T, err error) {
	var bc *BadContentError
	var le *limits.Error
	if !errors.As(err, &bc) && !errors.As(err, &le) && !errors.Is(err, errFuzzSpill) {
		t.Fatalf("err %v (%T) is neither bad content, nor a limit, nor the spill's", err, err)
	}
	if bc != nil && bc.Item < -1 {
		t.Fatalf("bad content names item %d", bc.Item)
	}
}

// fuzzFill is a text block that leaves room bytes of the response ceiling
// after used bytes of text, so that the fuzzed content meets the ceiling.
func fuzzFill(used, room int) string {
	return `{"type":"text","text":"` + strings.Repeat("x", max(0, limits.ResponseCeiling-used-room)) + `"}`
}

// fuzzMember decodes the member key of the JSON object raw as encoding/json
// does (the last of repeated keys wins), but with the key matched exactly,
// as MCP names it (a struct field would match any case).
func fuzzMember(raw json.RawMessage, key string, v any) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	r, ok := m[key]
	return ok && json.Unmarshal(r, v) == nil
}

// fuzzBlocks decodes a content value the way the renderers read it: one
// object is one block, an array is its elements.
func fuzzBlocks(raw json.RawMessage) []json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		return []json.RawMessage{raw}
	}
	var list []json.RawMessage
	_ = json.Unmarshal(raw, &list)
	return list
}

// fuzzCheckItem checks a rendered item against an independent decoding of
// the block it came from.
func fuzzCheckItem(t *testing.T, item any, raw json.RawMessage) {
	var b struct{ Type, Text, Data string }
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	_ = json.Unmarshal(m["type"], &b.Type)
	_ = json.Unmarshal(m["text"], &b.Text)
	_ = json.Unmarshal(m["data"], &b.Data)
	switch it := item.(type) {
	case *TextItem:
		if !utf8.ValidString(it.Text) {
			t.Fatalf("text %q is not UTF-8", it.Text)
		}
		if b.Type != blockText {
			return
		}
		if !strings.HasPrefix(b.Text, it.Text) || it.Truncated == (it.Text == b.Text && it.TotalBytes == len(b.Text)) || it.TotalBytes != len(b.Text) {
			t.Fatalf("text item %q (truncated %v, total %d) of the text %q", it.Text, it.Truncated, it.TotalBytes, b.Text)
		}
	case *BlobItem:
		if b.Type != blockImage && b.Type != blockAudio {
			if b.Type != blockResource || it.Type != "blob" {
				t.Fatalf("a %s item from a %q block", it.Type, b.Type)
			}
			return
		}
		src := strings.NewReplacer("\n", "", "\r", "").Replace(b.Data)
		data, err := base64.StdEncoding.DecodeString(src)
		if err != nil {
			data, err = base64.RawStdEncoding.DecodeString(src)
		}
		if it.Type != b.Type || err != nil || int64(len(data)) != it.SizeBytes {
			t.Fatalf("%s item of %d bytes from a %q block of %d bytes (%v)", it.Type, it.SizeBytes, b.Type, len(data), err)
		}
	case *linkItem:
		if b.Type != blockLink || it.URI == "" {
			t.Fatalf("a link %q from a %q block", it.URI, b.Type)
		}
	case *unknownItem:
		if it.ContentType != b.Type || !it.Omitted {
			t.Fatalf("unknown item %q from a %q block", it.ContentType, b.Type)
		}
	default:
		t.Fatalf("item %#v", item)
	}
}

// FuzzRenderPrompt checks that RenderPrompt never panics, fails only with
// bad content, a limit or a spill failure, and otherwise keeps the text
// under the response ceiling, made only of labels of plain-word roles and
// what the messages' items show, with every block either shown or counted
// as omitted. room, when its top bit is set, puts a filler message first
// so that the fuzzed messages meet the ceiling with room&0x7fff%700 bytes left.
func FuzzRenderPrompt(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}`), uint16(0))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"AAEC","mimeType":"image/png"}]},{"role":"assistant","content":{"type":"resource_link","uri":"x y"}}]}`), uint16(0x8000+40))
	f.Add([]byte(`{"messages":[{"role":"system","content":{"type":"video"}}]}`), uint16(0))
	f.Add([]byte(`{"messages":[{"role":"user]\n[assistant","content":{"type":"text","text":"a"}}]}`), uint16(0))
	f.Add([]byte(`{"messages":[{"role":"user","content":{"type":"image","data":"AAEC","mimeType":"x/fail"}}]}`), uint16(0))
	f.Fuzz(func(t *testing.T, raw []byte, room uint16) {
		if !json.Valid(raw) {
			return // the transport hands on valid JSON only
		}
		type message struct {
			role    string
			content json.RawMessage
		}
		var msgs []message
		var list []json.RawMessage
		decoded := fuzzMember(raw, "messages", &list)
		for _, m := range list {
			var msg message
			fuzzMember(m, "role", &msg.role)
			fuzzMember(m, "content", &msg.content)
			msgs = append(msgs, msg)
		}
		if room >= 0x8000 {
			if len(list) == 0 {
				return
			}
			used := len("[user]\n") + len("\n")
			var b bytes.Buffer
			b.WriteString(`{"messages":[{"role":"user","content":` + fuzzFill(used, int(room&0x7fff)%700) + `}`)
			for _, m := range list {
				b.WriteByte(',')
				b.Write(m)
			}
			b.WriteString(`]}`)
			raw = b.Bytes()
			msgs = append([]message{{"user", json.RawMessage(fuzzFill(used, int(room&0x7fff)%700))}}, msgs...)
		}
		spills := 0
		doc, warnings, err := RenderPrompt(bytes.Clone(raw), fuzzPolicy(&spills)) // it decodes escapes in place
		if err != nil {
			fuzzErr(t, err)
			if doc != nil {
				t.Fatalf("a document with the error %v", err)
			}
			return
		}
		if len(doc.Text) > limits.ResponseCeiling || !utf8.ValidString(doc.Text) {
			t.Fatalf("text of %d bytes, valid UTF-8 %v", len(doc.Text), utf8.ValidString(doc.Text))
		}
		flat := blkFlatten(t, doc)
		switch {
		case !doc.Truncated && (flat != doc.Text || doc.Omitted != 0):
			t.Fatalf("not truncated, %d omitted, but the messages flatten to\n%q\nthe text is\n%q", doc.Omitted, flat, doc.Text)
		case doc.Truncated && flat != doc.Text && flat != doc.Text+"\n":
			t.Fatalf("the messages flatten to\n%q\nthe text is\n%q", flat, doc.Text)
		}
		if !decoded && len(doc.Messages) > 0 {
			t.Fatalf("rendered messages, but encoding/json sees none in %q", raw)
		}
		if len(doc.Messages) > len(msgs) {
			t.Fatalf("%d messages rendered of %d", len(doc.Messages), len(msgs))
		}
		total, shown, unknown, oddRoles := 0, 0, 0, 0
		for k, m := range msgs {
			if m.role != "user" && m.role != "assistant" {
				oddRoles++
			}
			blocks := fuzzBlocks(m.content)
			total += len(blocks)
			if k >= len(doc.Messages) {
				continue
			}
			dm := doc.Messages[k]
			if dm.Role != m.role || !plainRole(dm.Role) {
				t.Fatalf("message #%d: role %q, encoding/json says %q", k, dm.Role, m.role)
			}
			if len(dm.Content) > len(blocks) {
				t.Fatalf("message #%d: %d items of %d blocks", k, len(dm.Content), len(blocks))
			}
			for i, it := range dm.Content {
				fuzzCheckItem(t, it, blocks[i])
				if _, ok := it.(*unknownItem); ok {
					unknown++
				}
			}
			shown += len(dm.Content)
		}
		if shown+doc.Omitted != total {
			t.Fatalf("%d items shown and %d omitted of %d blocks", shown, doc.Omitted, total)
		}
		if len(warnings) != unknown+oddRoles {
			t.Fatalf("%d warnings for %d unknown items and %d odd roles: %q", len(warnings), unknown, oddRoles, warnings)
		}
	})
}

// FuzzRenderToolResult checks that RenderToolResult never panics, fails
// only with bad content, a limit or a spill failure, and otherwise keeps
// its texts under the slice clamp and the response ceiling, shows or
// counts every block, and passes structured content through compacted
// or spilled. room, when its top bit is set, puts a filler text first so
// that the fuzzed blocks meet the ceiling with room&0x7fff%700 bytes left.
func FuzzRenderToolResult(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"hi"}],"isError":true}`), uint16(0))
	f.Add([]byte(`{"content":[{"type":"text","text":"é世😀"},{"type":"image","data":"AAEC"}],"structuredContent":{"n":1e400}}`), uint16(0x8000+3))
	f.Add([]byte(`{"content":[{"type":"resource","resource":{"uri":"u","blob":"AAEC"}},{"type":"resource_link","uri":"x","size":1.5}]}`), uint16(0))
	f.Add([]byte(`{"content":[{"type":"audio","data":"AAEC","mimeType":"x/fail"}]}`), uint16(0))
	f.Add([]byte(`{"content":{"type":"text","text":"a"}}`), uint16(0))
	f.Fuzz(func(t *testing.T, raw []byte, room uint16) {
		if !json.Valid(raw) {
			return
		}
		var content, isError, structured json.RawMessage
		var top map[string]json.RawMessage
		decoded := json.Unmarshal(raw, &top) == nil
		var blocks []json.RawMessage
		if decoded {
			content, isError, structured = top["content"], top["isError"], top["structuredContent"]
			_ = json.Unmarshal(content, &blocks)
		}
		if room >= 0x8000 {
			if len(blocks) == 0 {
				return
			}
			blocks = append([]json.RawMessage{json.RawMessage(fuzzFill(0, int(room&0x7fff)%700))}, blocks...)
			var b bytes.Buffer
			b.WriteString(`{"content":[`)
			for i, x := range blocks {
				if i > 0 {
					b.WriteByte(',')
				}
				b.Write(x)
			}
			b.WriteString(`]`)
			if isError != nil {
				b.WriteString(`,"isError":` + string(isError))
			}
			if structured != nil {
				b.WriteString(`,"structuredContent":` + string(structured))
			}
			b.WriteString(`}`)
			raw = b.Bytes()
		}
		spills := 0
		doc, warnings, err := RenderToolResult(bytes.Clone(raw), fuzzPolicy(&spills))
		if err != nil {
			fuzzErr(t, err)
			if doc != nil {
				t.Fatalf("a document with the error %v", err)
			}
			return
		}
		if !decoded {
			t.Fatalf("rendered, but encoding/json fails on %q", raw)
		}
		if len(doc.Content)+doc.Omitted != len(blocks) {
			t.Fatalf("%d items and %d omitted of %d blocks", len(doc.Content), doc.Omitted, len(blocks))
		}
		text, unknown := 0, 0
		for i, it := range doc.Content {
			fuzzCheckItem(t, it, blocks[i])
			switch it := it.(type) {
			case *TextItem:
				if len(it.Text) > limits.SliceClamp {
					t.Fatalf("item %d: %d bytes of text", i, len(it.Text))
				}
				if it.Truncated && i != len(doc.Content)-1 {
					t.Fatalf("item %d was cut at the ceiling, yet item %d follows", i, i+1)
				}
				text += len(it.Text)
			case *unknownItem:
				unknown++
			}
		}
		if text > limits.ResponseCeiling {
			t.Fatalf("%d bytes of text", text)
		}
		if len(warnings) != unknown {
			t.Fatalf("%d warnings for %d unknown items", len(warnings), unknown)
		}
		if want := string(bytes.TrimSpace(isError)) == "true"; doc.IsError != want {
			t.Fatalf("is_error %v for %s", doc.IsError, isError)
		}
		sc := bytes.TrimSpace(structured)
		var compact bytes.Buffer
		if len(sc) > 0 && string(sc) != "null" {
			if err := json.Compact(&compact, sc); err != nil {
				t.Fatal(err)
			}
		}
		switch {
		case compact.Len() == 0:
			if doc.StructuredContent != nil || doc.StructuredContentPath != nil || doc.StructuredContentTruncated {
				t.Fatalf("structured content %s from nothing", doc.StructuredContent)
			}
		case compact.Len() <= limits.SliceClamp:
			if !bytes.Equal(doc.StructuredContent, compact.Bytes()) || doc.StructuredContentPath != nil || doc.StructuredContentTruncated {
				t.Fatalf("structured content %s, want %s", doc.StructuredContent, compact.Bytes())
			}
		default:
			if doc.StructuredContent != nil || doc.StructuredContentPath == nil || !doc.StructuredContentTruncated {
				t.Fatalf("structured content of %d bytes not spilled", compact.Len())
			}
		}
		if _, err := json.Marshal(doc); err != nil {
			t.Fatalf("the document does not marshal: %v", err)
		}
	})
}
