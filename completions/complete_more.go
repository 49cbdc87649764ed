package completions

import (
	"context"
	"slices"
	"strings"
)

// moreStages completes the arguments of watch (a server, then its
// resources, but templates and those typed already) and of skills (its
// subcommand generate, then a server); other commands take nothing.
func moreStages(ctx context.Context, src Source, cmd string, args []string) ([]Candidate, PathKind, error) {
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
	case "skills":
		switch {
		case len(args) == 0:
			return []Candidate{{"generate", "write a SKILL.md that teaches a server through mcpx"}}, NoPath, nil
		case len(args) == 1 && args[0] == "generate":
			return src.Servers(), NoPath, nil
		}
	}
	return nil, NoPath, nil
}
