package commands

// Arguments checked against the names a prompt or a tool declares: a
// prompt's missing and undeclared arguments, the error that lists the
// declared names, and the close match it suggests for a typo.

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/secret"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// promptArgs checks pairs against the prompt's declared arguments: an undeclared
// key is a usage error listing the declared names (Details "declared": []string,
// and "unknown": []string). It returns the values by name and the missing required
// arguments (in declared order), which the caller asks for or reports.
func promptArgs(prompt string, pairs []pair, declared []client.PromptArgument) (map[string]string, []client.PromptArgument, error) {
	names := make([]string, 0, len(declared))
	for _, a := range declared {
		names = append(names, a.Name)
	}
	values := make(map[string]string, len(pairs))
	var unknown []string
	for _, p := range pairs {
		if !slices.Contains(names, p.Key) {
			unknown = append(unknown, p.Key)
			continue
		}
		values[p.Key] = p.Value
	}
	var missing []client.PromptArgument
	var missingNames []string
	for _, a := range declared {
		if _, ok := values[a.Name]; a.Required && !ok {
			missing = append(missing, a)
			missingNames = append(missingNames, a.Name)
		}
	}
	if len(unknown) > 0 {
		return nil, nil, undeclaredError("prompt", prompt, "has no", "unknown", unknown, names, names, missingNames)
	}
	return values, missing, nil
}

// undeclaredError: arguments a prompt or tool does not declare (exit 2),
// with the declared names, close matches among suggest, and the missing
// ones too (a typo usually explains both). Details: detailKey (the extra
// names), "declared", and "missing" when some are.
func undeclaredError(kind, name, verb, detailKey string, extra, declared, suggest, missing []string) error {
	var msg string
	if len(declared) == 0 {
		msg = fmt.Sprintf("%s %q takes no arguments, got %s", kind, name, quoteList(extra))
	} else {
		shown := declared
		if len(shown) > 50 { // a server can declare thousands
			shown = append(slices.Clone(shown[:50]), fmt.Sprintf("and %d more", len(declared)-50))
		}
		msg = fmt.Sprintf("%s %q %s %s %s; it declares: %s", kind, name, verb, text.Plural(len(extra), "argument", "arguments"), quoteList(extra), strings.Join(shown, ", "))
	}
	var hints []string
	for _, x := range extra {
		if n := argNearest(x, suggest); n != "" {
			hints = append(hints, fmt.Sprintf("did you mean %q instead of %q?", n, x))
		}
	}
	d := map[string]any{detailKey: extra, "declared": declared}
	if len(missing) > 0 {
		d["missing"] = missing
		hints = append(hints, "also missing: "+strings.Join(missing, ", "))
	}
	return &fail.Error{Code: fail.Usage, Message: msg, Hints: hints, Details: d}
}

// missingPromptArgs is the exit-2 error listing every missing required argument
// (Details "missing": names), each with its description in the message.
func missingPromptArgs(prompt string, missing []client.PromptArgument, sec *secret.Set) error {
	names := make([]string, 0, len(missing))
	items := make([]string, 0, len(missing))
	pairs := make([]string, 0, len(missing))
	for _, a := range missing {
		names = append(names, a.Name)
		item := a.Name
		if a.Description != nil {
			if d := maskedLine(sec, *a.Description, 80); d != "" {
				item += " (" + d + ")"
			}
		}
		items = append(items, item)
		pairs = append(pairs, shellArg(maskedClip(sec, a.Name, 100)+"=VALUE")) // a server's name, pasted into a shell
	}
	return &fail.Error{
		Code:    fail.Usage,
		Message: fmt.Sprintf("prompt %q is missing required %s: %s", prompt, text.Plural(len(missing), "argument", "arguments"), strings.Join(items, ", ")),
		Hints:   []string{"add " + strings.Join(pairs, " ")},
		Details: map[string]any{"missing": names},
	}
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// argNearest returns the declared name closest to name (the same name but
// for case and the spelling of '-' and '_', or at most two edits away, a
// transposition counting as one), or "".
func argNearest(name string, names []string) string {
	best, bestD := "", 3
	if len(name) > 64 {
		return "" // names come from servers: no quadratic work on long ones
	}
	key := nameKey(name)
	for _, n := range names {
		if len(n) > 64 {
			continue
		}
		if nameKey(n) == key {
			return n
		}
		if d := editDistance(key, nameKey(n)); d < bestD && d < utf8.RuneCountInString(name) {
			best, bestD = n, d
		}
	}
	return best
}

// nearMiss returns the name of names that key is a likely misspelling of,
// or "": the same name but for case and the spelling of '-' and '_', else
// at most one edit away (a transposition counting as one) when either
// name has at most 4 characters, two when both are longer, and fewer
// edits than key has characters. Of equally near names the first wins.
func nearMiss(key string, names []string) string {
	if len(key) > 64 {
		return ""
	}
	k, kn := nameKey(key), utf8.RuneCountInString(key)
	best, bestD := "", 3
	for _, n := range names {
		if len(n) > 64 {
			continue
		}
		nk := nameKey(n)
		if nk == k {
			return n
		}
		limit := 2
		if min(kn, utf8.RuneCountInString(n)) <= 4 {
			limit = 1
		}
		if d := editDistance(k, nk); d <= limit && d < kn && d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// nameKey is a name compared without regard to case or to the spelling of
// '-' and '_' (get-sum, get_sum and Get_Sum are one name).
func nameKey(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "-", "_"))
}

// editDistance is the optimal string alignment distance of a and b: the
// insertions, deletions, substitutions and transpositions of adjacent
// characters that turn one into the other ("haed" is one from "head").
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
