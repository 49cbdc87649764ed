package commands

import "github.com/urfave/cli/v3"

// newSkillsCmd is mcpx skills: its subcommands (see SKILLS in mcpx(1)).
func (a *app) newSkillsCmd() *cli.Command {
	return &cli.Command{
		Name:  "skills",
		Usage: "skills for agents: generate one that teaches a server through mcpx",
		Commands: []*cli.Command{
			a.newSkillsGenerateCmd(), // skills_generate.go
		},
	}
}
