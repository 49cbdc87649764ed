package render

// Output masks every whole secret it prints; what it cannot see is a
// secret cut in two — by the start or end of a page, by the response
// ceiling, or by the boundary between two content items — so the content
// policy masks each piece it shows against the text around it, with the
// Policy's secret set (see SECRETS in mcpx(1)).

// maskPage returns page = whole[start:end] masked against the rest of
// whole (no secrets: page as it is).
func (p Policy) maskPage(whole string, start, end int) string {
	if p.Secrets.Longest() == 0 {
		return whole[start:end]
	}
	return p.Secrets.MaskIn(whole[:start], whole[start:end], whole[end:])
}

// seams masks the text items of one response in order, each page against
// its own text and, where the page reaches the start or the end of its
// item, against the neighbouring item's text: a secret split between two
// adjacent text items is masked on both sides.
type seams struct {
	p Policy
	n int // the context needed: the longest secret

	prevTail string // the end of the previous item's whole text ("": not a text)
	// open is the previous item when its page reaches the end of its text:
	// it is masked again once the next item's text is known.
	open             *TextItem
	openBefore, page string
}

func newSeams(p Policy) *seams {
	return &seams{p: p, n: p.Secrets.Longest()}
}

// text masks t, whose Text is the page whole[start:end] of an item.
func (s *seams) text(t *TextItem, whole string, start, end int) {
	if s.n == 0 {
		return
	}
	head := whole[:min(len(whole), s.n)]
	if s.open != nil {
		s.open.Text = s.p.Secrets.MaskIn(s.openBefore, s.page, head)
	}
	before := whole[:start]
	if start < s.n && s.prevTail != "" {
		before = s.prevTail + before
	}
	after := whole[end:]
	t.Text = s.p.Secrets.MaskIn(before, whole[start:end], after)
	s.open = nil
	if end == len(whole) {
		s.open, s.openBefore, s.page = t, before, whole[start:end]
	}
	s.prevTail = whole[max(0, len(whole)-s.n):]
}

// waiting reports whether the last page masked reaches the end of its
// text: the start of the next item's text may hold the rest of a secret
// that it ends with.
func (s *seams) waiting() bool { return s.n > 0 && s.open != nil }

// omitted masks the last page again against next, the text of the item
// after it, which the response ceiling leaves out (see waiting).
func (s *seams) omitted(next string) {
	if s.waiting() {
		s.open.Text = s.p.Secrets.MaskIn(s.openBefore, s.page, next[:min(len(next), s.n)])
	}
}

// other records an item that is not a text (or a text not to be joined
// to its neighbours, such as a filtered one): it separates the texts
// around it.
func (s *seams) other() {
	s.open, s.prevTail = nil, ""
}
