//go:build unix

package test

// task-matches TOOL ARGS-JSON FILE: FILE (mcpx --json invoke SRV TOOL ...,
// or mcpx --json task wait SRV ID) renders exactly what the independent
// session gets for the same call made as a task: a raw tools/call with
// "task", tasks/get until the task ends, then tasks/result.

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/rogpeppe/go-internal/testscript"
)

func (it *interop) cmdTaskMatches(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: task-matches TOOL ARGS-JSON FILE")
	}
	tool, argsJSON, file := args[0], args[1], args[2]
	if !json.Valid([]byte(argsJSON)) {
		ts.Fatalf("ARGS-JSON %q is not JSON", argsJSON)
	}
	tr := it.truth(ts)
	res, err := rawTaskCall(tr.raw, tool, json.RawMessage(argsJSON))
	ts.Check(err)
	compareInvoke(ts, tr.String(), tool, argsJSON, res, file, func(server string) string { return it.spillDirFor(ts, server) })
}

// rawTaskCall calls a tool as a task and returns the task's result.
func rawTaskCall(tr transport.Interface, name string, args json.RawMessage) (json.RawMessage, error) {
	created, err := rawCall(tr, "tools/call", map[string]any{"name": name, "arguments": args, "task": map[string]any{}})
	if err != nil {
		return nil, err
	}
	var c struct {
		Task struct {
			TaskID string `json:"taskId"`
		} `json:"task"`
	}
	if err := json.Unmarshal(created, &c); err != nil || c.Task.TaskID == "" {
		return nil, fmt.Errorf("tools/call %s answered no task: %s", name, created)
	}
	id := map[string]any{"taskId": c.Task.TaskID}
	for deadline := time.Now().Add(60 * time.Second); ; {
		got, err := rawCall(tr, "tasks/get", id)
		if err != nil {
			return nil, err
		}
		var t struct {
			Status string `json:"status"`
		}
		_ = json.Unmarshal(got, &t)
		if t.Status == "completed" || t.Status == "failed" || t.Status == "cancelled" {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("task %s of %s still %q after 60s", c.Task.TaskID, name, t.Status)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return rawCall(tr, "tasks/result", id)
}
