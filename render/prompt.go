package render

import (
	"fmt"
	"regexp"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
)

// PromptMessage is one rendered message of a prompt (CONTRACT §5).
type PromptMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"` // *TextItem, *BlobItem, *LinkItem, *UnknownItem
}

// PromptDoc is the document of `mcpx prompt`. Text is exactly what text
// mode prints into a pipe.
type PromptDoc struct {
	Server      string          `json:"server"`
	Prompt      string          `json:"prompt"`
	Description *string         `json:"description"`
	Messages    []PromptMessage `json:"messages"`
	Text        string          `json:"text"`
	Truncated   bool            `json:"truncated"` // the text was cut at the response ceiling
	Omitted     int             `json:"omitted"`   // content blocks past the ceiling, not rendered
}

// Rendered prompts are labelled by role; MCP defines user and assistant.
// Another role is labelled as sent (with a warning) when it is a plain
// word, so that no role can forge a label line.
var plainRole = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,31}$`)

// RenderPrompt flattens a raw prompts/get result into one block of text
// (CONTRACT §3 prompt): each message is "[ROLE]\n" + TEXT + "\n", messages
// joined by "\n"; TEXT is the message's blocks, joined by "\n" when a
// server sends several, each shown as its text or a placeholder. The text
// is never altered. The block obeys the response ceiling: it is cut on a
// character boundary, and the blocks after the cut are counted in Omitted,
// never decoded. A label or a placeholder is never cut: what does not fit
// whole is left out (a message whose label does not fit, with its blocks). Every block is checked, and the decode ceiling applied,
// before anything is decoded or spilled. Texts are decoded in place in raw.
// Warnings name what was left out (unknown content types, odd roles).
func RenderPrompt(raw []byte, p Policy) (doc *PromptDoc, warnings []string, err error) {
	res := gjson.Parse(unsafe.String(unsafe.SliceData(raw), len(raw)))
	if !res.IsObject() {
		return nil, nil, &BadContentError{Item: -1, Msg: "the result is not a JSON object"}
	}
	doc = &PromptDoc{Messages: []PromptMessage{}}
	// The members as encoding/json reads them (the last of repeated keys
	// wins), like those of each message and block.
	top := scanMembers(raw, res.Index, res.Index+len(res.Raw))
	doc.Description = orNilString(shortString(raw, top["description"]))
	var list gjson.Result // absent or null: no messages
	base := 0             // where list is in raw
	switch l := top["messages"]; {
	case !l.present(raw):
	case l.is(raw, '['):
		list, base = gjson.Parse(unsafe.String(unsafe.SliceData(raw[l.s:l.e]), l.e-l.s)), l.s
	default:
		return nil, nil, &BadContentError{Item: -1, Msg: "the result's \"messages\" is not an array"}
	}
	type message struct {
		role   string
		blocks []*block
	}
	var msgs []message
	var sizes int64
	var ferr error
	k := 0
	list.ForEach(func(_, m gjson.Result) bool {
		where := fmt.Sprintf("message #%d", k)
		k++
		bad := func(format string, args ...any) bool {
			ferr = &BadContentError{Item: -1, Msg: where + ": " + fmt.Sprintf(format, args...)}
			return false
		}
		if !m.IsObject() {
			return bad("not a JSON object")
		}
		f := scanMembers(raw, base+m.Index, base+m.Index+len(m.Raw))
		role, ok := shortString(raw, f["role"])
		switch {
		case !ok:
			return bad("no string \"role\"")
		case role == "user" || role == "assistant":
		case plainRole.MatchString(role):
			warnings = append(warnings, fmt.Sprintf("%s has the role %q, which MCP does not define; it is labelled [%s]", where, role, role))
		default:
			return bad("its role %q is not a plain word", Clip(role, 40))
		}
		msg := message{role: role}
		c := f["content"]
		var spans []span
		switch {
		case c.is(raw, '{'):
			spans = []span{c}
		case c.is(raw, '['):
			gjson.Parse(unsafe.String(unsafe.SliceData(raw[c.s:c.e]), c.e-c.s)).ForEach(func(_, v gjson.Result) bool {
				spans = append(spans, span{c.s + v.Index, c.s + v.Index + len(v.Raw)})
				return true
			})
		default:
			return bad("no \"content\" object")
		}
		for i, sp := range spans {
			b, err := checkBlock(raw, sp.s, sp.e, i, where)
			if err != nil {
				ferr = err
				return false
			}
			sizes += b.blob
			if b.res != nil {
				if _, err := parseItemAt(raw, b.res.start, b.res.end, i, &sizes, false); err != nil {
					if bc, ok := err.(*BadContentError); ok {
						bc.Where, bc.Msg = where, "embedded resource: "+bc.Msg
					}
					ferr = err
					return false
				}
			}
			if sizes > DecodeCeiling {
				ferr = decodeCeilingError()
				return false
			}
			msg.blocks = append(msg.blocks, b)
		}
		msgs = append(msgs, msg)
		return true
	})
	if ferr != nil {
		return nil, nil, ferr
	}

	// Render in order, building the block of text under the ceiling. Text
	// is cut on a character boundary; a label or a placeholder is shown
	// whole or not at all, and a block with no room left is never decoded.
	var out strings.Builder
	var decoded int64
	full := false
	for k, m := range msgs {
		label := "[" + m.role + "]\n"
		if k > 0 {
			label = "\n" + label
		}
		if full || len(label) > ResponseCeiling-out.Len() {
			full = true
			doc.Omitted += len(m.blocks)
			continue
		}
		out.WriteString(label)
		pm := PromptMessage{Role: m.role, Content: []any{}}
		where := fmt.Sprintf("message #%d", k)
		for i, b := range m.blocks {
			sep := ""
			if i > 0 {
				sep = "\n"
			}
			left := ResponseCeiling - out.Len() - len(sep)
			if full || left <= 0 || b.minLine(raw) > left {
				full = true
				doc.Omitted += len(m.blocks) - i
				break
			}
			r, err := p.renderBlock(raw, b, where, &decoded)
			if err != nil {
				return nil, nil, err
			}
			shown := r.text
			if len(shown) > left {
				full = true
				if !r.isText { // never a cut placeholder
					doc.Omitted += len(m.blocks) - i
					break
				}
				shown = cutText(shown, left)
				t := r.item.(*TextItem)
				t.Text, t.Truncated = shown, true
			}
			if r.warning != "" {
				warnings = append(warnings, r.warning)
			}
			out.WriteString(sep)
			out.WriteString(shown)
			pm.Content = append(pm.Content, r.item)
		}
		if !full {
			if out.Len() < ResponseCeiling {
				out.WriteString("\n")
			} else {
				full = true
			}
		}
		doc.Messages = append(doc.Messages, pm)
	}
	doc.Text = out.String()
	doc.Truncated = full
	return doc, warnings, nil
}

// minLine is a lower bound on the length of the line a block shows,
// known before it is decoded or spilled: a placeholder but for its path.
func (b *block) minLine(doc []byte) int {
	if b.typ != BlockImage && b.typ != BlockAudio {
		return 0
	}
	mime, _ := shortString(doc, b.m["mimeType"])
	return len(placeholder(b.typ, &BlobItem{MimeType: orNil(mime), SizeBytes: b.blob}))
}

func orNilString(s string, ok bool) *string {
	if !ok {
		return nil
	}
	return &s
}
