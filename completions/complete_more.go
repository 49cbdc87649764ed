package completions

import (
	"context"
	"slices"
	"strings"
)

// moreStages completes the arguments of watch (a server, then its
// resources, but templates and those typed already); other commands take
// nothing.
func moreStages(ctx context.Context, src source, cmd string, args []string) ([]Candidate, pathKind, error) {
	switch cmd {
	case "watch":
		if len(args) == 0 {
			return src.Servers(), NoPath, nil
		}
		res, err := src.Resources(ctx, args[0])
		var out []Candidate
		for _, r := range res {
			if !strings.Contains(r.URI, "{") && !slices.Contains(args[1:], r.URI) {
				out = append(out, Candidate{r.URI, r.Desc})
			}
		}
		return out, NoPath, err
	}
	return nil, NoPath, nil
}
