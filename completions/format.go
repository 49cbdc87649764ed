package completions

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxDesc is the longest description shown, in characters.
const maxDesc = 80

// usable reports whether a value can be offered: valid UTF-8 with no
// control, bidi or other format character (a value is inserted into the
// command line, where such a character could hide what is run), and not
// empty.
func usable(v string) bool {
	if v == "" || !utf8.ValidString(v) {
		return false
	}
	for _, r := range v {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			return false
		}
	}
	return true
}

// cleanDesc is the first line of a description with every control, bidi
// and format character made a space, runs of spaces squeezed, cut to maxDesc
// characters.
func cleanDesc(d string) string {
	d = strings.ToValidUTF8(d, "\uFFFD")
	d = strings.TrimSpace(d)
	if i := strings.IndexAny(d, "\r\n"); i >= 0 {
		d = d[:i]
	}
	var b strings.Builder
	space, n := false, 0
	for _, r := range d {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if n >= maxDesc {
			b.WriteString("…")
			break
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// clean drops the candidates that cannot be offered and the repeats, and
// cleans the descriptions.
func clean(cands []Candidate) []Candidate {
	seen := map[string]bool{}
	out := make([]Candidate, 0, len(cands))
	for _, c := range cands {
		if !usable(c.Value) || seen[c.Value] {
			continue
		}
		seen[c.Value] = true
		out = append(out, Candidate{c.Value, cleanDesc(c.Desc)})
	}
	return out
}

// directive is the first line of every answer: what the script does besides
// offering the candidates.
func directive(r result, cands []Candidate) string {
	switch r.Path {
	case Files:
		return "files"
	case Dirs:
		return "dirs"
	}
	for _, c := range cands {
		if strings.HasSuffix(c.Value, "=") {
			return "nospace"
		}
	}
	return "-"
}

// WriteTabbed writes the answer zsh and fish read: the directive line, then
// one "VALUE<TAB>DESCRIPTION" line per candidate (the shell matches them
// against the word itself). No suggestion is no output at all. shell is
// "zsh", "fish" or "powershell".
func WriteTabbed(w io.Writer, r result, shell string) error {
	cands := clean(r.Cands)
	if shell == "fish" {
		// fish inserts a leading '~' of a function's suggestion unescaped,
		// so "~root" would become /root: such values are not offered.
		cands = slices.DeleteFunc(cands, func(c Candidate) bool { return strings.HasPrefix(c.Value, "~") })
	}
	if len(cands) == 0 && r.Path == NoPath {
		return nil
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, directive(r, cands))
	for _, c := range cands {
		if c.Desc != "" {
			fmt.Fprintf(bw, "%s\t%s\n", c.Value, c.Desc)
		} else {
			fmt.Fprintln(bw, c.Value)
		}
	}
	return bw.Flush()
}

// WriteBash writes the answer the bash script reads: the directive line,
// then the entries of COMPREPLY, one a line. w is the word being completed
// (see SplitBash). Only candidates that start with the word are kept. Each
// entry is the part of the value readline replaces, escaped for the shell;
// when bash lists the choices (COMP_TYPE 63, the second TAB) and there are
// several, each is the whole value and its description instead, for display.
// No suggestion is no output at all.
func WriteBash(wr io.Writer, r result, w BashWord, compType int) error {
	var cands []Candidate
	for _, c := range clean(r.Cands) {
		if strings.HasPrefix(c.Value, w.Cur) {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 && r.Path == NoPath {
		return nil
	}
	bw := bufio.NewWriter(wr)
	fmt.Fprintln(bw, directive(r, cands))
	if compType == '?' && len(cands) > 1 {
		width := 0
		for _, c := range cands {
			width = max(width, utf8.RuneCountInString(c.Value))
		}
		for _, c := range cands {
			if c.Desc == "" {
				fmt.Fprintln(bw, c.Value)
				continue
			}
			fmt.Fprintf(bw, "%s%s  -- %s\n", c.Value, strings.Repeat(" ", width-utf8.RuneCountInString(c.Value)), c.Desc)
		}
		return bw.Flush()
	}
	entries := make([]string, 0, len(cands)+1)
	for _, c := range cands {
		entries = append(entries, w.insert(c.Value))
	}
	if p, ok := danglingPrefix(entries); ok {
		// One more entry, the common prefix without its half escape,
		// keeps readline from inserting the half escape.
		entries = append(entries, p)
	}
	for _, e := range entries {
		fmt.Fprintln(bw, e)
	}
	return bw.Flush()
}
