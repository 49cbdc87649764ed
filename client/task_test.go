package client

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestParseTask(t *testing.T) {
	for _, tc := range []struct {
		name, raw       string
		ok, reply       bool
		id, status      string
		poll, ttl       int64 // -1: nil
		result, failure bool
		inputs          bool
	}{
		{name: "2025-11-25 CreateTaskResult", raw: `{"task":{"taskId":"a","status":"working","ttl":300000,"pollInterval":1000,"createdAt":"x","lastUpdatedAt":"y"}}`,
			ok: true, reply: true, id: "a", status: "working", poll: 1000, ttl: 300000},
		{name: "2025-11-25 tasks/get", raw: `{"taskId":"a","status":"completed","ttl":null}`, ok: true, id: "a", status: "completed", poll: -1, ttl: -1},
		{name: "2026 extension create", raw: `{"resultType":"task","taskId":"t","status":"working","pollIntervalMs":50,"ttlMs":60000}`,
			ok: true, reply: true, id: "t", status: "working", poll: 50, ttl: 60000},
		{name: "2026 completed", raw: `{"taskId":"t","status":"completed","result":{"content":[]}}`, ok: true, id: "t", status: "completed", poll: -1, ttl: -1, result: true},
		{name: "2026 failed", raw: `{"taskId":"t","status":"failed","error":{"code":-1,"message":"m"}}`, ok: true, id: "t", status: "failed", poll: -1, ttl: -1, failure: true},
		{name: "2026 input", raw: `{"taskId":"t","status":"input_required","inputRequests":{"a":{}}}`, ok: true, id: "t", status: "input_required", poll: -1, ttl: -1, inputs: true},
		{name: "a plain result", raw: `{"content":[{"type":"text","text":"x"}]}`},
		{name: "no id", raw: `{"task":{"status":"working"}}`, reply: true},
		{name: "a number id", raw: `{"taskId":1,"status":"working"}`},
		{name: "negative poll", raw: `{"taskId":"a","status":"working","pollInterval":-5}`, ok: true, id: "a", status: "working", poll: -1, ttl: -1},
		{name: "not an object", raw: `[1]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := isTaskReply(json.RawMessage(tc.raw)); got != tc.reply {
				t.Errorf("isTaskReply = %v, want %v", got, tc.reply)
			}
			task, ok := parseTask(json.RawMessage(tc.raw))
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			ms := func(p *int64) int64 {
				if p == nil {
					return -1
				}
				return *p
			}
			if task.ID != tc.id || task.Status != tc.status || ms(task.PollInterval) != tc.poll || ms(task.TTL) != tc.ttl {
				t.Errorf("got %+v", task)
			}
			if (task.result != nil) != tc.result || (task.failure != nil) != tc.failure || (task.inputs != nil) != tc.inputs {
				t.Errorf("result %s, failure %s, inputs %s", task.result, task.failure, task.inputs)
			}
		})
	}
}

func TestTaskPoll(t *testing.T) {
	ms := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		poll *int64
		want time.Duration
	}{
		{nil, defaultPollInterval},
		{ms(0), defaultPollInterval},
		{ms(1), minPollInterval},
		{ms(250), 250 * time.Millisecond},
		{ms(60000), maxPollInterval},
		{ms(1 << 62), maxPollInterval},
	} {
		if got := (&Task{PollInterval: tc.poll}).poll(); got != tc.want {
			t.Errorf("Poll(%v) = %s, want %s", tc.poll, got, tc.want)
		}
	}
}

func TestTaskSupport(t *testing.T) {
	for raw, want := range map[string]string{
		``: TaskSupportForbidden, `{}`: TaskSupportForbidden, `{"taskSupport":"required"}`: TaskSupportRequired,
		`{"taskSupport":"optional"}`: taskSupportOptional, `{"taskSupport":"sometimes"}`: TaskSupportForbidden,
		`{"taskSupport":true}`: TaskSupportForbidden,
	} {
		it := &Item{Execution: json.RawMessage(raw)}
		if got := it.TaskSupport(); got != want {
			t.Errorf("TaskSupport(%s) = %q, want %q", raw, got, want)
		}
	}
}

// The task requests of the 2026-07-28 era declare the tasks extension next
// to the capabilities every request declares; other requests do not.
func TestDeclareTasks(t *testing.T) {
	c := &Conn{Protocol: mcp.LATEST_PROTOCOL_VERSION, hooks: &serverHooks{o: Options{Elicit: func(context.Context, Elicitation) Answer { return Answer{} }}}}
	c.hooks.conn = c
	params := mcp.GetTaskParams{TaskId: "a"}
	caps := func(p any) string {
		b, _ := json.Marshal(p)
		var v struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(b, &v)
		return string(v.Meta[mcp.MetaKeyClientCapabilities])
	}
	if got := caps(c.requestMeta(params)); got != `{"elicitation":{"form":{},"url":{}}}` {
		t.Errorf("a plain request declares %s", got)
	}
	got := caps(c.requestMeta(params, declareTasks))
	if want := `{"extensions":{"io.modelcontextprotocol/tasks":{}},"elicitation":{"form":{},"url":{}}}`; got != want {
		t.Errorf("a task request declares %s, want %s", got, want)
	}
}

// A server chooses its task ids: a message shows at most maxShownID
// characters of one, quoted when cut or when it holds control characters.
func TestTaskErrorShownID(t *testing.T) {
	long := strings.Repeat("x", 300)
	for id, want := range map[string]string{
		"abc":    `server "s": task abc failed: boom`,
		"a\x1bb": `server "s": task "a\x1bb" failed: boom`,
		long:     `server "s": task "` + strings.Repeat("x", maxShownID) + `..." failed: boom`,
	} {
		e := TaskEnded("s", id, TaskFailed, "boom", nil)
		if got := e.Error(); got != want {
			t.Errorf("Error() = %q, want %q", got, want)
		}
	}
}
