// Tasks: a tool call that the server runs in the background (see TASKS in
// mcpx(1)). A task-augmented tools/call answers with a task (its id and
// status) instead of the result; the task is then followed with tasks/get,
// at the server's poll interval or when it sends a status notification,
// and its result fetched when it ends: with tasks/result (2025-11-25
// tasks), or from tasks/get itself (the tasks extension of the 2026-07-28
// era, io.modelcontextprotocol/tasks). Both shapes are read here, whatever
// the era: a server of either kind answers with its own.

package client

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// Task statuses.
const (
	taskWorking       = "working"
	taskInputRequired = "input_required"
	taskCompleted     = "completed"
	TaskFailed        = "failed"
	taskCancelled     = "cancelled"
)

// Task support of a tool (execution.taskSupport).
const (
	TaskSupportRequired  = "required"
	taskSupportOptional  = "optional"
	TaskSupportForbidden = "forbidden"
)

// tasksExtension is the 2026-07-28 era's tasks extension, which the task
// requests declare among the client's capabilities.
const tasksExtension = "io.modelcontextprotocol/tasks"

// Bounds on the wait between two tasks/get: the server's pollInterval is
// kept within [minPollInterval, maxPollInterval]; defaultPollInterval is
// used when it names none.
const (
	minPollInterval     = 100 * time.Millisecond
	maxPollInterval     = 30 * time.Second
	defaultPollInterval = time.Second
)

// taskCancelTimeout bounds the tasks/cancel sent for a task mcpx stops
// waiting for (interrupted, or out of time): a request and its answer.
const taskCancelTimeout = time.Second

// maxTaskPages ends a tasks/list that never ends, and maxTasks bounds the
// tasks it gathers (memory: a listing is kept whole, to be printed).
const (
	maxTaskPages = 1000
	maxTasks     = 100000
)

// Task is a task as the server last reported it.
type Task struct {
	ID            string
	Status        string
	StatusMessage string
	CreatedAt     string
	LastUpdatedAt string
	PollInterval  *int64 // milliseconds, as the server suggested
	TTL           *int64 // milliseconds from creation, nil: no expiry said

	// The 2026-07-28 tasks extension carries more in tasks/get: the result
	// of a completed task, the error of a failed one, the input requests
	// of one that needs input (the whole result, as answerInputs reads it).
	result  json.RawMessage
	failure json.RawMessage
	inputs  json.RawMessage
	// token is the progress token of the call that started the task (this
	// process's), which its progress notifications carry.
	token string
}

// terminal reports whether the task has ended (completed, failed or
// cancelled).
func (t *Task) terminal() bool {
	return t.Status == taskCompleted || t.Status == TaskFailed || t.Status == taskCancelled
}

// poll is the wait before the next tasks/get: the server's pollInterval,
// bounded.
func (t *Task) poll() time.Duration {
	if t.PollInterval == nil || *t.PollInterval <= 0 {
		return defaultPollInterval
	}
	if *t.PollInterval >= int64(maxPollInterval/time.Millisecond) {
		return maxPollInterval
	}
	return max(time.Duration(*t.PollInterval)*time.Millisecond, minPollInterval)
}

// TaskSupport is a tool's execution.taskSupport: TaskSupportRequired,
// taskSupportOptional, or TaskSupportForbidden (absent, or anything else).
func (it *Item) TaskSupport() string {
	switch s := gjson.GetBytes(it.Execution, "taskSupport").String(); s {
	case TaskSupportRequired, taskSupportOptional:
		return s
	}
	return TaskSupportForbidden
}

// parseTask reads a task from a result: the "task" member of a 2025-11-25
// CreateTaskResult, or the result itself (tasks/get, tasks/cancel, and
// the 2026-07-28 extension's results). ok is false when it holds no task
// id and status.
func parseTask(raw json.RawMessage) (*Task, bool) {
	r := gjson.ParseBytes(raw)
	if !r.IsObject() {
		return nil, false
	}
	o := r
	if t := r.Get("task"); t.IsObject() {
		o = t
	}
	id, status := o.Get("taskId"), o.Get("status")
	if id.Type != gjson.String || status.Type != gjson.String || id.String() == "" {
		return nil, false
	}
	t := &Task{ID: id.String(), Status: status.String(), StatusMessage: o.Get("statusMessage").String(),
		CreatedAt: o.Get("createdAt").String(), LastUpdatedAt: o.Get("lastUpdatedAt").String()}
	t.PollInterval = millis(o, "pollInterval", "pollIntervalMs")
	t.TTL = millis(o, "ttl", "ttlMs")
	if v := o.Get("result"); v.IsObject() {
		t.result = json.RawMessage(v.Raw)
	}
	if v := o.Get("error"); v.IsObject() {
		t.failure = json.RawMessage(v.Raw)
	}
	if o.Get("inputRequests").IsObject() {
		t.inputs = json.RawMessage(o.Raw)
	}
	return t, true
}

// millis is the first of names that is a non-negative whole number.
func millis(o gjson.Result, names ...string) *int64 {
	for _, n := range names {
		if v := o.Get(n); v.Type == gjson.Number && v.Num >= 0 && v.Num < 1<<53 {
			ms := int64(v.Num)
			return &ms
		}
	}
	return nil
}

// isTaskReply reports whether a tools/call result is a task rather than
// the tool's result.
func isTaskReply(raw json.RawMessage) bool {
	r := gjson.ParseBytes(raw)
	return r.Get("resultType").String() == "task" || r.Get("task").IsObject()
}

// declareTasks is the request option of the task requests: the request
// declares the tasks extension among the client's capabilities
// (2026-07-28 era); other requests do not.
func declareTasks(caps *mcp.ClientCapabilities) {
	ext := maps.Clone(caps.Extensions)
	if ext == nil {
		ext = map[string]any{}
	}
	ext[tasksExtension] = map[string]any{}
	caps.Extensions = ext
}

// taskWatch wakes the wait for one task when the server sends a status
// notification for it, and keeps the progress token of the call that
// started it: a task's progress carries that token while it runs.
type taskWatch struct {
	mu    sync.Mutex
	id    string
	token string
	wake  chan struct{}
}

func (w *taskWatch) start(id, token string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.id, w.token, w.wake = id, token, make(chan struct{}, 1)
	return w.wake
}

func (w *taskWatch) stop() {
	w.mu.Lock()
	w.id, w.token, w.wake = "", "", nil
	w.mu.Unlock()
}

// progressOf reports whether a progress token is the task's.
func (w *taskWatch) progressOf(token string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return token != "" && token == w.token
}

// notified is a notifications/tasks/status for task id.
func (w *taskWatch) notified(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if id != "" && id == w.id {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// StartTask calls a tool as a task (tools/call with "task"), and returns the
// task the server made. A server may answer with the tool's result instead
// (it ran the call at once): then the task is nil and raw is that result.
func (c *Conn) StartTask(ctx context.Context, name string, args json.RawMessage) (task *Task, raw json.RawMessage, err error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var token string
	raw, err = c.callRaw(ctx, "tools/call", func(ctx context.Context) (json.RawMessage, error) {
		meta := c.progressMeta()
		if meta != nil {
			token, _ = meta.ProgressToken.(string)
		}
		return c.roundTrips(ctx, "tools/call", func(round mcp.MultiRoundTripParams) any {
			return mcp.CallToolParams{Name: name, Arguments: args, Meta: meta, Task: &mcp.TaskParams{}, MultiRoundTripParams: round}
		}, declareTasks)
	})
	if unsup, ok := fail.As(err, fail.Unsupported); ok && !c.Caps.Tools {
		unsup.What = "tools"
	}
	if err != nil {
		return nil, nil, err
	}
	if isTaskReply(raw) {
		t, ok := parseTask(raw)
		if !ok {
			return nil, nil, badReply(c.T.Name, "tools/call", "answered with a task that has no taskId and status")
		}
		t.token = token
		return t, nil, nil
	}
	return nil, raw, nil
}

// taskRequest sends one request about task id and classifies its failure:
// an invalid-params reply (the answer of the SDKs to a task id they do not
// know, or no longer keep) is a not_found *fail.Error.
func (c *Conn) taskRequest(ctx context.Context, method, id string, params any) (json.RawMessage, error) {
	raw, err := c.callRaw(ctx, method, func(ctx context.Context) (json.RawMessage, error) {
		return c.plain(ctx, method, params, declareTasks)
	})
	se, ok := AsServerError(err)
	if ok && se.RPC.Code == mcp.INVALID_PARAMS && method != string(mcp.MethodTasksCancel) {
		rpc := *se.RPC
		e := fail.Unknown("task", id, "server said: "+se.Said)
		e.Server, e.RPC = c.T.Name, &rpc
		return nil, e
	}
	return raw, err
}

// GetTask asks for the status of task id (tasks/get). An unknown or
// expired id is a not_found *fail.Error.
func (c *Conn) GetTask(ctx context.Context, id string) (*Task, error) {
	raw, err := c.taskRequest(ctx, string(mcp.MethodTasksGet), id, mcp.GetTaskParams{TaskId: id})
	if err != nil {
		return nil, err
	}
	t, ok := parseTask(raw)
	if !ok {
		return nil, badReply(c.T.Name, "tasks/get", "answered with no taskId and status")
	}
	if t.ID != id {
		return nil, c.otherTask("tasks/get", id, t.ID)
	}
	return t, nil
}

// otherTask: the server answered a request about task id with another
// task, whose status (and result) is not id's.
func (c *Conn) otherTask(method, id, other string) error {
	return badReply(c.T.Name, method, fmt.Sprintf("answered about task %s when asked about task %s", shownID(other), shownID(id)))
}

// CancelTask asks the server to cancel task id (tasks/cancel) and returns
// the task as it then is (asked again with tasks/get when the answer does
// not say). A task that has ended already cannot be cancelled: a
// task failure (TaskEnded); an unknown id is a not_found *fail.Error.
func (c *Conn) CancelTask(ctx context.Context, id string) (*Task, error) {
	raw, err := c.taskRequest(ctx, string(mcp.MethodTasksCancel), id, mcp.CancelTaskParams{TaskId: id})
	se, ok := AsServerError(err)
	if ok && se.RPC.Code == mcp.INVALID_PARAMS {
		// Unknown, or already ended: tasks/get tells which.
		t, gerr := c.GetTask(ctx, id)
		if gerr != nil {
			return nil, gerr
		}
		if t.terminal() {
			return t, TaskEnded(c.T.Name, id, t.Status, "it cannot be cancelled any more (the server said: "+se.Said+")", nil)
		}
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if t, ok := parseTask(raw); ok {
		if t.ID != id {
			return nil, c.otherTask("tasks/cancel", id, t.ID)
		}
		return t, nil
	}
	return c.GetTask(ctx, id)
}

// ListTasks lists the server's tasks (tasks/list, every page). A cursor
// that repeats ends the listing; warnings say so, and name the tasks it
// skipped (coded as a listing's problems are).
func (c *Conn) ListTasks(ctx context.Context) (tasks []Task, warnings []Problem, err error) {
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page >= maxTaskPages {
			return tasks, append(warnings, Problem{Code: "too_many_pages",
				Message: fmt.Sprintf("server %q: tasks/list gave %d pages; the rest is not listed", c.T.Name, maxTaskPages)}), nil
		}
		var p mcp.PaginatedParams
		p.Cursor = mcp.Cursor(cursor)
		raw, err := c.callRaw(ctx, "tasks/list", func(ctx context.Context) (json.RawMessage, error) {
			return c.plain(ctx, "tasks/list", p, declareTasks)
		})
		if err != nil {
			return tasks, warnings, err
		}
		r := gjson.ParseBytes(raw)
		list := r.Get("tasks")
		if !list.IsArray() {
			return tasks, warnings, badReply(c.T.Name, "tasks/list", "answered without a tasks array")
		}
		for i, v := range list.Array() {
			if len(tasks) >= maxTasks {
				return tasks, append(warnings, Problem{Code: "too_large",
					Message: fmt.Sprintf("server %q: tasks/list gave more than %d tasks; the rest is not listed", c.T.Name, maxTasks)}), nil
			}
			t, ok := parseTask(json.RawMessage(v.Raw))
			if !ok {
				warnings = append(warnings, Problem{Item: fmt.Sprintf("#%d", i), Code: "bad_item",
					Message: fmt.Sprintf("server %q: tasks/list item #%d has no taskId and status; skipped", c.T.Name, i)})
				continue
			}
			tasks = append(tasks, *t)
		}
		next := r.Get("nextCursor")
		if next.Type != gjson.String || next.String() == "" {
			return tasks, warnings, nil
		}
		if seen[next.String()] {
			return tasks, append(warnings, Problem{Code: "repeated_cursor",
				Message: fmt.Sprintf("server %q: tasks/list repeated a cursor; the listing ends there", c.T.Name)}), nil
		}
		seen[next.String()] = true
		cursor = next.String()
	}
}

// WaitOptions say how WaitTask waits.
type WaitOptions struct {
	// OnStatus, when set, is told of each status the task reports.
	OnStatus func(Task)
	// Cancel: when ctx ends first (interrupted, out of time) the server is
	// told to cancel the task (tasks/cancel) before WaitTask returns.
	Cancel bool
}

// WaitTask waits until task t ends and returns its result, raw, as
// tools/call would have returned it. It polls tasks/get at the task's
// poll interval (see Task.poll), sooner when the server sends a status
// notification for it. A task that needs input is answered through the
// connection's hooks (elicitation): in the 2025-11-25 era by asking for
// its result (tasks/result), during which the server sends its requests;
// in the 2026-07-28 era with tasks/update. A task that failed without a
// result, or was cancelled, is a task failure (TaskEnded), or the server's
// error reply; one that failed with a result that does not report an error
// returns the result and a task failure (see taskOutcome).
func (c *Conn) WaitTask(ctx context.Context, t *Task, o WaitOptions) (raw json.RawMessage, err error) {
	wake := c.hooks.tasks.start(t.ID, t.token)
	defer c.hooks.tasks.stop()
	answered := 0 // input rounds (tasks/update)
	defer func() {
		if err != nil && o.Cancel && ctx.Err() != nil {
			c.abandonTask(t.ID)
		}
	}()
	for {
		if o.OnStatus != nil {
			o.OnStatus(*t)
		}
		switch {
		case t.terminal():
			return c.taskOutcome(ctx, t)
		case t.Status == taskInputRequired && t.inputs != nil:
			if answered++; answered > maxInputRounds {
				return nil, badReply(c.T.Name, "tasks/get", fmt.Sprintf("asked for input more than %d times for task %s", maxInputRounds, shownID(t.ID)))
			}
			if err := c.answerTask(ctx, t); err != nil {
				return nil, err
			}
		case t.Status == taskInputRequired && !mcp.IsModernProtocol(c.Protocol):
			// The server sends its requests while tasks/result waits.
			return c.taskResult(ctx, t)
		default:
			timer := time.NewTimer(t.poll())
			select {
			case <-timer.C:
			case <-wake:
				timer.Stop()
			case <-ctx.Done():
				timer.Stop()
				return nil, c.classify(ctx, "tasks/get", ctx.Err())
			}
		}
		next, err := c.GetTask(ctx, t.ID)
		if err != nil {
			return nil, err
		}
		if next.PollInterval == nil { // said once, at creation (mcp-go)
			next.PollInterval = t.PollInterval
		}
		next.token, t = t.token, next
	}
}

// taskOutcome is the result of a task that has ended. A task that failed
// and yet has a result that does not report an error (isError) returns
// both: the result, to be shown, and a task failure (TaskEnded) (a failed task exits 1).
func (c *Conn) taskOutcome(ctx context.Context, t *Task) (json.RawMessage, error) {
	raw, err := c.taskEnd(ctx, t)
	if err == nil && t.Status == TaskFailed && !gjson.GetBytes(raw, "isError").Bool() {
		return raw, TaskEnded(c.T.Name, t.ID, t.Status, c.shown(t.StatusMessage), nil)
	}
	return raw, err
}

// taskEnd is the result of a task that has ended, or why it has none.
func (c *Conn) taskEnd(ctx context.Context, t *Task) (json.RawMessage, error) {
	switch {
	case t.result != nil:
		return t.result, nil
	case t.Status == taskCancelled:
		return nil, TaskEnded(c.T.Name, t.ID, t.Status, c.shown(t.StatusMessage), nil)
	case t.failure != nil:
		rpc := fail.RPCError{Code: int(gjson.GetBytes(t.failure, "code").Int()), Message: gjson.GetBytes(t.failure, "message").String()}
		if d := gjson.GetBytes(t.failure, "data"); d.Exists() {
			rpc.Data = json.RawMessage(d.Raw)
		}
		return nil, TaskEnded(c.T.Name, t.ID, t.Status, c.shown(rpc.Message), &rpc)
	case mcp.IsModernProtocol(c.Protocol):
		// The tasks extension has no tasks/result: tasks/get carries it.
		return nil, badReply(c.T.Name, "tasks/get", fmt.Sprintf("reported task %s %s without its result or error, which the 2026-07-28 tasks extension puts there", shownID(t.ID), c.shown(t.Status)))
	}
	return c.taskResult(ctx, t)
}

// taskResult fetches the result of task t with tasks/result (2025-11-25),
// which waits until the task ends. A failed task's error reply is a
// task failure (TaskEnded).
func (c *Conn) taskResult(ctx context.Context, t *Task) (json.RawMessage, error) {
	raw, err := c.taskRequest(ctx, string(mcp.MethodTasksResult), t.ID, mcp.TaskResultParams{TaskId: t.ID})
	se, ok := AsServerError(err)
	if ok {
		rpc := *se.RPC
		return nil, TaskEnded(c.T.Name, t.ID, TaskFailed, se.Said, &rpc)
	}
	return raw, err
}

// answerTask answers the input requests of a task of the 2026-07-28
// tasks extension (tasks/update), through the connection's hooks.
func (c *Conn) answerTask(ctx context.Context, t *Task) error {
	var requests mcp.InputRequests
	if err := json.Unmarshal([]byte(gjson.GetBytes(t.inputs, "inputRequests").Raw), &requests); err != nil {
		return badReply(c.T.Name, "tasks/get", "returned input requests mcpx cannot read: "+c.shown(err.Error()))
	}
	if n := len(requests); n > maxInputRequests {
		return badReply(c.T.Name, "tasks/get", fmt.Sprintf("returned %d input requests; mcpx answers at most %d at once", n, maxInputRequests))
	}
	responses, err := c.hooks.answerInputs(ctx, t.inputs, requests)
	if err != nil {
		return c.classifyCall(ctx, "tasks/get", err, false)
	}
	params := map[string]any{"taskId": t.ID, "inputResponses": responses}
	_, err = c.taskRequest(ctx, "tasks/update", t.ID, params)
	return err
}

// abandonTask tells the server to cancel task id, which mcpx stopped
// waiting for (interrupted, or out of time), before the connection closes:
// within taskCancelTimeout, whatever the answer.
func (c *Conn) abandonTask(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), taskCancelTimeout)
	defer cancel()
	_, err := c.plain(ctx, string(mcp.MethodTasksCancel), mcp.CancelTaskParams{TaskId: id}, declareTasks)
	say := c.opts.Note
	if say == nil {
		return
	}
	if err != nil {
		say("server %q: could not cancel task %s (tasks/cancel: %s); it may still be running", c.T.Name, shownID(id), c.shown(err.Error()))
		return
	}
	say("server %q: cancelled task %s (tasks/cancel)", c.T.Name, shownID(id))
}

// maxShownID bounds a task id a message shows (a server chooses it).
const maxShownID = 200

// shownID is a task id as a message shows it: at most maxShownID
// characters, quoted when cut or when it holds control characters.
func shownID(id string) string {
	if len(id) > maxShownID || strings.ContainsFunc(id, unicode.IsControl) {
		return text.QuoteClip(id, maxShownID)
	}
	return id
}
