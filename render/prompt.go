package render

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/internal/secret"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// promptMessage is one rendered message of a prompt (see prompt in
// COMMANDS, mcpx(1)).
type promptMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"` // *TextItem, *BlobItem, *linkItem, *unknownItem
}

// PromptDoc is the document of `mcpx prompt`. Text is exactly what text
// mode prints into a pipe.
type PromptDoc struct {
	Server      string          `json:"server"`
	Prompt      string          `json:"prompt"`
	Description *string         `json:"description"`
	Messages    []promptMessage `json:"messages"`
	Text        string          `json:"text"`
	Truncated   bool            `json:"truncated"` // the text was cut at the response ceiling
	Omitted     int             `json:"omitted"`   // content blocks past the ceiling, not rendered
}

// Rendered prompts are labelled by role; MCP defines user and assistant.
// Another role is labelled as sent (with a warning) when it is a plain
// word, so that no role can forge a label line.
// ([A-Za-z][A-Za-z0-9_-]{0,31})
func plainRole(role string) bool { return isToken(role, 32, false, "_-") }

// RenderPrompt flattens a raw prompts/get result into one block of text (see
// prompt in COMMANDS, mcpx(1)): each message is "[ROLE]\n" + TEXT + "\n",
// messages joined by "\n"; TEXT is the message's blocks, joined by "\n" when a
// server sends several, each shown as its text or a placeholder. The text is
// never altered. The block obeys the response ceiling: it is cut on a
// character boundary, and the blocks after the cut are counted in Omitted,
// never decoded. A label or a placeholder is never cut: what does not fit
// whole is left out (a message whose label does not fit, with its blocks).
// Every block is checked, and the decode ceiling applied, before anything is
// decoded or spilled. Texts are decoded in place in raw. Warnings name what
// was left out (unknown content types, odd roles).
func RenderPrompt(raw []byte, p Policy) (doc *PromptDoc, warnings []string, err error) {
	doc, list, base, err := readPrompt(raw)
	if err != nil {
		return nil, nil, err
	}
	// First every message and block is checked, and the decode ceiling
	// applied, keeping nothing (a reply can hold millions of blocks); then
	// the messages are walked again and rendered until the ceiling.
	total, err := checkPromptBlocks(raw, list, base, p.Secrets)
	if err != nil {
		return nil, nil, err
	}
	w := &promptWriter{raw: raw, p: p, doc: doc}
	if err := eachMessage(raw, list, base, p.Secrets, w.message); err != nil && err != errStop {
		return nil, nil, err
	}
	doc.Text = w.out.String()
	doc.Truncated = w.full
	doc.Omitted = total - w.shown
	return doc, w.warnings, nil
}

// readPrompt reads a prompts/get result's description into a new document,
// and finds its messages: list, at base in raw (an empty list when the
// member is absent or null).
func readPrompt(raw []byte) (doc *PromptDoc, list gjson.Result, base int, err error) {
	res := gjson.Parse(text.StringView(raw))
	if !res.IsObject() {
		return nil, list, 0, &BadContentError{Item: -1, Msg: "the result is not a JSON object"}
	}
	doc = &PromptDoc{Messages: []promptMessage{}}
	// The members as encoding/json reads them (the last of repeated keys
	// wins), like those of each message and block.
	top := scanMembers(raw, res.Index, res.Index+len(res.Raw))
	doc.Description = orNilString(shortString(raw, top.get("description")))
	switch l := top.get("messages"); {
	case !l.present(raw):
	case l.is(raw, '['):
		list, base = gjson.Parse(text.StringView(raw[l.s:l.e])), l.s
	default:
		return nil, list, 0, &BadContentError{Item: -1, Msg: "the result's \"messages\" is not an array"}
	}
	return doc, list, base, nil
}

// checkPromptBlocks checks every message and block of list (at base in
// raw) and applies the decode ceiling to them all, keeping nothing; it
// returns how many blocks there are.
func checkPromptBlocks(raw []byte, list gjson.Result, base int, sec *secret.Set) (total int, err error) {
	var sizes int64
	err = eachMessage(raw, list, base, sec, func(k int, role string, content span) error {
		where := fmt.Sprintf("message #%d", k)
		return eachBlock(raw, content, func(i int, sp span) error {
			b, err := checkBlock(raw, sp.s, sp.e, i, where)
			if err != nil {
				return err
			}
			total++
			return b.checkSizes(raw, where, &sizes)
		})
	})
	return total, err
}

// promptWriter renders checked messages in order, building the block of
// text under the ceiling. Text is cut on a character boundary; a label or
// a placeholder is shown whole or not at all, and a block with no room
// left is never decoded.
type promptWriter struct {
	raw      []byte
	p        Policy
	doc      *PromptDoc
	out      bytes.Buffer
	decoded  int64    // bytes decoded so far (the decode ceiling)
	full     bool     // the ceiling was reached
	shown    int      // blocks rendered
	warnings []string // in the order of the blocks
}

// message renders message k: its label, then its blocks. A message whose
// label fits but none of its blocks is taken back whole.
func (w *promptWriter) message(k int, role string, content span) error {
	label := "[" + role + "]\n"
	if k > 0 {
		label = "\n" + label
	}
	if len(label) > limits.ResponseCeiling-w.out.Len() {
		w.full = true
		return errStop
	}
	before := w.out.Len()
	w.out.WriteString(label)
	after := w.out.Len()
	where := fmt.Sprintf("message #%d", k)
	roleWarning := ""
	if role != "user" && role != "assistant" {
		roleWarning = fmt.Sprintf("%s has the role %q, which MCP does not define; it is labelled [%s]", where, role, text.EscapeClip(role, 200))
	}
	nwarn := len(w.warnings)
	pm := promptMessage{Role: role, Content: []any{}}
	err := eachBlock(w.raw, content, func(i int, sp span) error {
		return w.block(i, sp, where, &pm)
	})
	if w.full && w.out.Len() == after {
		// The ceiling left no room for any of this message: no label
		// without its content (it would read as an empty message).
		w.out.Truncate(before)
		w.shown -= len(pm.Content)
		w.warnings = w.warnings[:nwarn]
		return err
	}
	if roleWarning != "" {
		w.warnings = append(w.warnings[:nwarn], append([]string{roleWarning}, w.warnings[nwarn:]...)...)
	}
	w.doc.Messages = append(w.doc.Messages, pm)
	if err != nil {
		return err
	}
	if w.out.Len() >= limits.ResponseCeiling {
		w.full = true
		return errStop
	}
	w.out.WriteString("\n")
	return nil
}

// block renders block i of a message into pm and the text, cutting a text
// at the ceiling; a placeholder that does not fit whole ends the walk.
func (w *promptWriter) block(i int, sp span, where string, pm *promptMessage) error {
	b, err := checkBlock(w.raw, sp.s, sp.e, i, where)
	if err != nil {
		return err
	}
	sep := ""
	if i > 0 {
		sep = "\n"
	}
	left := limits.ResponseCeiling - w.out.Len() - len(sep)
	if left <= 0 || b.minLine(w.raw, w.p.SpillDir, true) > left {
		w.full = true
		return errStop
	}
	r, err := w.p.renderBlock(w.raw, &b, where, &w.decoded)
	if err != nil {
		return err
	}
	shown := r.text
	if len(shown) > left {
		w.full = true
		if !r.isText { // never a cut placeholder
			return errStop
		}
		t := r.item.(*TextItem)
		cut := cutText(shown, left)
		// a secret the ceiling cuts shows as *** for the part kept
		t.Text, t.Truncated, t.Bytes = w.p.maskPage(shown, 0, len(cut)), true, len(cut)
		shown = t.Text
	}
	if r.warning != "" {
		w.warnings = append(w.warnings, r.warning)
	}
	w.out.WriteString(sep)
	w.out.WriteString(shown)
	pm.Content = append(pm.Content, r.item)
	w.shown++
	if w.full {
		return errStop
	}
	return nil
}

// errStop ends a walk early.
var errStop = errors.New("stop")

// eachMessage calls visit for each message of the array list (at base in
// raw), with its role and content, checking both: a message that is not
// an object, has no string role, a role that is not a plain word, or no
// content object or array is a *BadContentError (quoting a role with
// sec's secrets masked).
func eachMessage(raw []byte, list gjson.Result, base int, sec *secret.Set, visit func(k int, role string, content span) error) error {
	k := 0
	var err error
	list.ForEach(func(_, m gjson.Result) bool {
		where := fmt.Sprintf("message #%d", k)
		bad := func(format string, args ...any) bool {
			err = &BadContentError{Item: -1, Msg: where + ": " + fmt.Sprintf(format, args...)}
			return false
		}
		if !m.IsObject() {
			return bad("not a JSON object")
		}
		f := scanMembers(raw, base+m.Index, base+m.Index+len(m.Raw))
		role, ok := shortString(raw, f.get("role"))
		switch {
		case !ok:
			return bad("no string \"role\"")
		case role == "user" || role == "assistant" || plainRole(role):
		default:
			return bad("its role %s is not a plain word", sec.Quote(role, 40))
		}
		c := f.get("content")
		if !c.is(raw, '{') && !c.is(raw, '[') {
			return bad("no \"content\" object")
		}
		err = visit(k, role, c)
		k++
		return err == nil
	})
	return err
}

// eachBlock calls visit for each block of a content value: an object is
// one block, an array holds several.
func eachBlock(raw []byte, content span, visit func(i int, sp span) error) error {
	if content.is(raw, '{') {
		return visit(0, content)
	}
	i := 0
	var err error
	gjson.Parse(text.StringView(raw[content.s:content.e])).ForEach(func(_, v gjson.Result) bool {
		err = visit(i, span{content.s + v.Index, content.s + v.Index + len(v.Raw)})
		i++
		return err == nil
	})
	return err
}

// minLine is a lower bound on the length of the line a block shows,
// known before it is decoded or spilled: for an image or audio clip, the
// placeholder with a path of the spill directory plus a file name
// (SHA256.EXT); when path is false, the path alone and its newline.
func (b *block) minLine(doc []byte, spillDir string, placeholderLine bool) int {
	if b.typ != blockImage && b.typ != blockAudio {
		return 0
	}
	mime, _ := shortString(doc, b.m.get("mimeType"))
	path := len(spillDir) + 1 + 64 + 1 + len(extension(mime))
	if !placeholderLine {
		return path + 1
	}
	return len(placeholder(b.typ, &BlobItem{MimeType: orNil(mime), SizeBytes: b.blob})) + path
}

func orNilString(s string, ok bool) *string {
	if !ok {
		return nil
	}
	return &s
}
