package completions

import "strings"

// BashWord is a bash command line up to the cursor, split into words with
// the quoting removed, and what readline does with the word being completed.
type BashWord struct {
	Words []string // the complete words, the program name first
	Cur   string   // the word being completed, quoting removed
	// keep is the start of Cur that readline leaves alone: it replaces only
	// the text after the last word-break character (COMP_WORDBREAKS, which
	// holds ':' and '=' by default), or after the open quote.
	keep  string
	quote byte // the quote the word is open in: 0, '\'' or '"'
}

// SplitBash splits line (COMP_LINE up to COMP_POINT) the way bash reads it:
// blanks separate words, quotes and backslashes are removed, and ; | & ( )
// start a new command. breaks is COMP_WORDBREAKS.
func SplitBash(line, breaks string) BashWord {
	var (
		words          []string
		cur            strings.Builder
		inWord         bool
		quote          byte
		keepLen        int
		quoteKeepStart = -1
	)
	end := func() {
		if inWord {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord, keepLen, quoteKeepStart = false, 0, -1
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch quote {
		case '\'':
			if c == '\'' {
				quote, quoteKeepStart = 0, -1
			} else {
				cur.WriteByte(c)
			}
			continue
		case '"':
			switch {
			case c == '"':
				quote, quoteKeepStart = 0, -1
			case c == '\\' && i+1 < len(line) && strings.IndexByte("$`\"\\\n", line[i+1]) >= 0:
				i++
				if line[i] != '\n' {
					cur.WriteByte(line[i])
				}
			default:
				cur.WriteByte(c)
			}
			continue
		}
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			end()
		case c == ';' || c == '|' || c == '&' || c == '(' || c == ')':
			end()
			words = nil
		case c == '<' || c == '>':
			end()
		case c == '\\':
			inWord = true
			if i+1 < len(line) {
				i++
				if line[i] != '\n' {
					cur.WriteByte(line[i])
				}
			}
		case c == '\'' || c == '"':
			inWord = true
			quote = c
			quoteKeepStart = cur.Len()
		default:
			inWord = true
			cur.WriteByte(c)
			if strings.IndexByte(breaks, c) >= 0 {
				keepLen = cur.Len()
			}
		}
	}
	w := BashWord{Words: words, Cur: cur.String(), quote: quote}
	if quote != 0 && quoteKeepStart >= 0 {
		w.keep = w.Cur[:quoteKeepStart]
	} else {
		w.keep = w.Cur[:keepLen]
	}
	return w
}

// insert is the text bash puts in place of readline's word for value (which
// starts with Cur): the part after keep, escaped so that the shell reads it
// back as written. Inside an open quote the text starts with that quote
// (readline then replaces the one typed: it never doubles an opening quote)
// and ends with it, so nothing of the value can end up outside the quotes.
func (w BashWord) insert(value string) string {
	s := value[len(w.keep):]
	switch w.quote {
	case '\'':
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	case '"':
		var b strings.Builder
		b.WriteByte('"')
		for i := 0; i < len(s); i++ {
			switch {
			case s[i] == '!':
				// History expansion works inside double quotes, where
				// a backslash before '!' is kept: close the quotes.
				b.WriteString(`"\!"`)
				continue
			case strings.IndexByte("$`\"\\", s[i]) >= 0:
				b.WriteByte('\\')
			}
			b.WriteByte(s[i])
		}
		b.WriteByte('"')
		return b.String()
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(" \t\"'\\$`!&;|<>()*?[]{}#~^", s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// danglingPrefix returns the longest common prefix of entries, less its last
// byte, when that prefix ends in half an escape (an odd run of
// backslashes): readline inserts the common prefix of several entries, and
// a lone backslash there would escape whatever is typed next. ok is false
// when the prefix is whole.
func danglingPrefix(entries []string) (prefix string, ok bool) {
	if len(entries) < 2 {
		return "", false
	}
	p := entries[0]
	for _, e := range entries[1:] {
		n := 0
		for n < len(p) && n < len(e) && p[n] == e[n] {
			n++
		}
		p = p[:n]
	}
	n := 0
	for n < len(p) && p[len(p)-1-n] == '\\' {
		n++
	}
	if n%2 == 0 {
		return "", false
	}
	return p[:len(p)-1], true
}
