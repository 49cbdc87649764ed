package completions

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestScript(t *testing.T) {
	starts := map[string]string{
		"bash":       "# bash completion for mcpx: load it with\n",
		"zsh":        "#compdef mcpx\n",
		"fish":       "# fish completion for mcpx: install it with\n",
		"powershell": "# PowerShell completion for mcpx: load it with\n",
	}
	calls := map[string]string{
		"bash":       `__complete bash "${COMP_TYPE:-9}" "$COMP_WORDBREAKS" "${COMP_LINE:0:COMP_POINT}"`,
		"zsh":        "__complete zsh -- ",
		"fish":       "__complete fish -- ",
		"powershell": "& $prog __complete powershell -- @words ('.' + $cur)",
	}
	registers := map[string]string{
		"bash":       "\ncomplete -F __mcpx_complete mcpx\n",
		"zsh":        "\n    compdef _mcpx mcpx\n",
		"fish":       "\ncomplete -c mcpx -f -a '(__mcpx_complete)'\n",
		"powershell": "\nRegister-ArgumentCompleter -Native -CommandName 'mcpx', 'mcpx.exe' -ScriptBlock {\n",
	}
	if !slices.Equal(Shells, []string{"bash", "zsh", "fish", "powershell"}) {
		t.Errorf("Shells = %q", Shells)
	}
	for _, shell := range Shells {
		s, err := Script(shell, "mcpx")
		if err != nil {
			t.Fatalf("Script(%q): %v", shell, err)
		}
		if strings.Contains(s, "{{") || strings.Contains(s, "}}") {
			t.Errorf("%s script holds a template placeholder", shell)
		}
		if !strings.HasPrefix(s, starts[shell]) {
			t.Errorf("%s script starts %q, want %q", shell, s[:min(len(s), 60)], starts[shell])
		}
		if !strings.Contains(s, calls[shell]) {
			t.Errorf("%s script does not call %q", shell, calls[shell])
		}
		if !strings.Contains(s, registers[shell]) {
			t.Errorf("%s script does not register with %q", shell, registers[shell])
		}
		if !strings.HasSuffix(s, "\n") {
			t.Errorf("%s script does not end with a newline", shell)
		}
		other, err := Script(shell, "mcpx-dev")
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.ReplaceAll(s, "mcpx", "mcpx-dev"); other != want {
			t.Errorf("%s script for mcpx-dev is not the mcpx one renamed", shell)
		}
	}
	for _, shell := range []string{"", "pwsh", "Bash", "bash ", "../script.go", "templates/bash", "./bash"} {
		if s, err := Script(shell, "mcpx"); err == nil || s != "" {
			t.Errorf("Script(%q) = %d bytes, %v; want an error", shell, len(s), err)
		} else if !strings.Contains(err.Error(), "bash, zsh, fish and powershell") {
			t.Errorf("Script(%q): error %q does not name the shells", shell, err)
		}
	}
}

// TestScriptFilesFresh fails when a committed script differs from what
// `mcpx completion SHELL` prints.
func TestScriptFilesFresh(t *testing.T) {
	if len(fileNames) != len(Shells) {
		t.Errorf("FileNames has %d entries for %d shells", len(fileNames), len(Shells))
	}
	for _, shell := range Shells {
		name := fileNames[shell]
		want, err := Script(shell, "mcpx")
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Errorf("completions/%s: %v: run 'make completions' and commit", name, err)
			continue
		}
		if string(got) != want {
			t.Errorf("completions/%s is stale: run 'make completions' and commit", name)
		}
	}
}

// TestScriptSyntax has each shell parse its script without running it.
func TestScriptSyntax(t *testing.T) {
	for _, shell := range Shells {
		t.Run(shell, func(t *testing.T) {
			path, err := exec.LookPath(shell)
			if err != nil {
				t.Skipf("%s is not installed: its script's syntax is not checked", shell)
			}
			s, err := Script(shell, "mcpx")
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), fileNames[shell])
			if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(path, "-n", file)
			cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}
			if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
				t.Errorf("%s -n %s: %v\n%s", shell, fileNames[shell], err, out)
			}
		})
	}
}
