package test

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// TestStartupInitIsLazy checks that the JSON Schema library linked into mcpx
// (through mcp-go's server package) does not compile its metaschemas when the
// program starts: that took 1.7 MB of allocations and most of the start-up
// time of every mcpx command, even of `mcpx --version`. The patched copy in
// third_party/jsonschema compiles them on first use; this fails when a build
// uses the unpatched module (go.work removed, or GOWORK=off).
func TestStartupInitIsLazy(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", os.Args[0], err, out)
	}
	m := regexp.MustCompile(`(?m)^init github\.com/santhosh-tekuri/jsonschema/v6 @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no init line for github.com/santhosh-tekuri/jsonschema/v6 in the init trace:\n%s", out)
	}
	bytes, _ := strconv.Atoi(string(m[1]))
	if bytes > 100_000 {
		t.Errorf("the init of github.com/santhosh-tekuri/jsonschema/v6 allocates %d bytes (%s allocs); want <= 100000: is the patched copy in third_party/jsonschema used (see go.work)?", bytes, m[2])
	}
}
