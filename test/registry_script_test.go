package test

import (
	"encoding/json"
	"net/http/httptest"
	"os"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpx-cli/mcpx/test/fixture"
)

// fixture-registry VAR FILE: serve an MCP registry of the records in FILE
// (a JSON array; see fixture.NewRegistry) on the loopback, logging every
// request to $WORK/registry.log (which the script may remove between
// requests), and set VAR to its base URL.
func cmdFixtureRegistry(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: fixture-registry VAR FILE")
	}
	var records []json.RawMessage
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[1])), &records))
	h, err := fixture.NewRegistry(records, appender(ts.MkAbs("registry.log")))
	ts.Check(err)
	srv := httptest.NewServer(h)
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL)
}

// appender appends each write to the file at its path, opened anew.
type appender string

func (p appender) Write(b []byte) (int, error) {
	f, err := os.OpenFile(string(p), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return f.Write(b)
}
