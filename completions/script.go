package completions

import (
	"embed"
	"fmt"
	"strings"
)

//go:embed templates
var templates embed.FS

// Shells are the shells Script writes for, in order.
var Shells = []string{"bash", "zsh", "fish", "powershell"}

// fileNames are the names packagers install the scripts under, by shell (the
// generated copies in this directory).
var fileNames = map[string]string{"bash": "mcpx.bash", "zsh": "_mcpx", "fish": "mcpx.fish", "powershell": "mcpx.ps1"}

// Script returns the completion script of shell for the program prog.
func Script(shell, prog string) (string, error) {
	b, err := templates.ReadFile("templates/" + shell)
	if err != nil {
		return "", fmt.Errorf("no completion script for the shell %q (bash, zsh, fish and powershell have one)", shell)
	}
	return strings.ReplaceAll(string(b), "{{PROG}}", prog), nil
}
