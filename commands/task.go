package commands

// Tasks (see TASKS in mcpx(1)): invoke runs a tool whose taskSupport is
// "required" as a task and waits for it, or starts any task tool with
// --detach and leaves it running; the task command follows a task by its
// id (get, wait, cancel, list).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/daemon"
	"github.com/mcpx-cli/mcpx/internal/fail"
)

// taskMarker starts the catalog's description of a tool that runs only as
// a task.
const taskMarker = "[task]"

// tasksOutlive reports whether a task started on t keeps running after
// this mcpx exits: an http or sse server keeps running; a one-shot stdio
// server is stopped, and its tasks with it. A warm connection (see WARM
// CONNECTIONS in mcpx(1)) keeps a stdio server running too.
func (a *app) tasksOutlive(t *config.Target) bool {
	if t.Transport != config.Stdio {
		return true
	}
	w, err := a.keepAlive(t, 0)
	return err == nil && w != nil && daemon.Supported
}

// detachStdioError: --detach of a one-shot stdio server (exit 2).
func detachStdioError(t *config.Target) error {
	return &fail.Error{
		Code:    fail.Usage,
		Message: fmt.Sprintf("--detach leaves a task running on the server, but server %q is a stdio server that mcpx stops when it exits, and its tasks with it", t.Name),
		Hints: []string{"keep the server running between calls with --keep-alive (a warm connection)",
			"or leave out --detach: invoke then waits for the task's result"},
	}
}

// taskSupportWord is a tool's execution.taskSupport as a message names it.
func taskSupportWord(it *client.Item) string {
	if s := gjson.GetBytes(it.Execution, "taskSupport"); s.Type == gjson.String {
		return strconv.Quote(s.String())
	}
	return "absent"
}

// callTool calls a tool: as a task when its taskSupport is "required" or
// --detach asks for one (it == nil: the listing did not say, and the tool
// is called plainly), else with a plain tools/call. A task is waited for,
// and its result returned as tools/call would have; a detached task is
// printed and nil returned.
func (a *app) callTool(ctx context.Context, s *session, it *client.Item, tool string, args json.RawMessage, detach bool) (json.RawMessage, error) {
	conn := s.conn
	support := client.TaskSupportForbidden
	if it != nil {
		support = it.TaskSupport()
	}
	if detach && it != nil && support == client.TaskSupportForbidden {
		return nil, &fail.Error{
			Code:    fail.Usage,
			Message: fmt.Sprintf("server %q: tool %s does not run as a task (its execution.taskSupport is %s), so --detach cannot leave it running", conn.T.Name, a.quote(tool, 200), taskSupportWord(it)),
			Hints:   []string{"leave out --detach to call it and wait for its result"},
		}
	}
	if !detach && support != client.TaskSupportRequired {
		return conn.CallTool(ctx, tool, args)
	}
	task, raw, err := conn.StartTask(ctx, tool, args)
	if err != nil {
		return nil, err
	}
	if task == nil {
		if detach {
			a.log.Note("server %q ran %s at once, without a task: this is its result", conn.T.Name, a.quote(tool, 200))
		}
		return raw, nil
	}
	a.log.Debug("server %q: tool %s runs as task %s", conn.T.Name, a.quote(tool, 200), a.quote(task.ID, 200))
	if detach {
		return nil, a.detached(ctx, conn, tool, task)
	}
	return conn.WaitTask(ctx, task, client.WaitOptions{OnStatus: a.taskProgress(conn.T.Name), Cancel: true})
}

// taskProgress draws a task's status on the progress line (a terminal
// only), except while a question is asked.
func (a *app) taskProgress(server string) func(client.Task) {
	return func(t client.Task) {
		if a.askingNow.Load() {
			return
		}
		line := fmt.Sprintf("mcpx: server %q: task %s", server, t.Status)
		if t.StatusMessage != "" {
			line += ": " + t.StatusMessage
		}
		a.log.Progress(line)
	}
}

// detachedDoc is what invoke --detach prints under --json.
type detachedDoc struct {
	Server         string `json:"server"`
	Tool           string `json:"tool"`
	TaskID         string `json:"task_id"`
	Status         string `json:"status"`
	PollIntervalMS *int64 `json:"poll_interval_ms"`
	TTLMS          *int64 `json:"ttl_ms"`
}

// detached prints a task left running: its id alone (text), or
// detachedDoc; a note says how to follow it, as a command that works as
// printed: on a one-shot http or sse connection, another session is asked
// first whether it sees the task (sessionBound).
func (a *app) detached(ctx context.Context, conn *client.Conn, tool string, t *client.Task) error {
	if a.asJSON() {
		if err := a.writeDoc(detachedDoc{Server: conn.T.Name, Tool: tool, TaskID: t.ID, Status: t.Status,
			PollIntervalMS: t.PollInterval, TTLMS: t.TTL}); err != nil {
			return err
		}
	} else if _, err := fmt.Fprintln(a.s.Out, t.ID); err != nil {
		return err
	}
	how := "mcpx " + a.targetFlags() + "task wait " + serverWord(conn.T.Name) + " ID"
	if len(t.ID) <= 200 {
		how = "mcpx " + a.targetFlags() + "task wait " + serverWord(conn.T.Name) + " " + serverWord(t.ID)
	}
	if len(a.g.headers) > 0 {
		how += " (with the same -H)" // secrets: never printed
	}
	if !conn.Warm() && a.sessionBound(ctx, conn.T, t.ID) {
		a.log.Note("server %q: task %s is %s, but the server keeps its tasks in the session that started them, which ends as mcpx exits: "+
			"nothing can wait for it; to follow one, start it on a warm connection, which keeps the session: mcpx --keep-alive %sinvoke %s %s ... --detach",
			conn.T.Name, a.quote(t.ID, 200), a.line(t.Status, 40), a.targetFlags(), serverWord(conn.T.Name), serverWord(a.line(tool, 200)))
		return nil
	}
	a.log.Note("server %q: task %s is %s; wait for its result with: %s", conn.T.Name, a.quote(t.ID, 200), a.line(t.Status, 40), how)
	return nil
}

// sessionBound reports whether a task that a one-shot connection to t
// started is unknown to another session of t (a new connection, one-shot:
// as a later mcpx would make): the server binds its tasks to the session
// that started them. Any other answer, or none, is taken as not.
func (a *app) sessionBound(ctx context.Context, t *config.Target, id string) bool {
	s, err := a.connect(ctx, t, connectOptions{oneShot: true})
	if err != nil {
		return false
	}
	defer s.close()
	_, err = s.conn.GetTask(s.ctx, id)
	nf, ok := fail.As(err, fail.NotFound)
	return ok && nf.What == "task"
}

// targetFlags are the options of this command line that make the
// connection to the server what it is (the config read, the protocol
// version, the roots), each followed by a space: a task command finds the
// warm connection holding the task only with the same ones.
func (a *app) targetFlags() string {
	var f []string
	if a.g.config != "" && a.g.config != a.getenv("MCPX_CONFIG") { // the environment's goes on
		f = append(f, "--config", shellArg(a.g.config))
	}
	if a.g.project {
		f = append(f, "--project")
	}
	if a.g.protocolVersion != client.DefaultProtocolVersion {
		f = append(f, "--protocol-version", shellArg(a.g.protocolVersion))
	}
	for _, r := range a.g.roots {
		f = append(f, "--root", shellArg(r))
	}
	if len(f) == 0 {
		return ""
	}
	return strings.Join(f, " ") + " "
}

// taskDoc is one task under --json (task get, cancel, list).
type taskDoc struct {
	Server         string  `json:"server"`
	TaskID         string  `json:"task_id"`
	Status         string  `json:"status"`
	StatusMessage  *string `json:"status_message"`
	CreatedAt      *string `json:"created_at"`
	LastUpdatedAt  *string `json:"last_updated_at"`
	TTLMS          *int64  `json:"ttl_ms"`
	PollIntervalMS *int64  `json:"poll_interval_ms"`
}

func newTaskDoc(server string, t client.Task) taskDoc {
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	return taskDoc{Server: server, TaskID: t.ID, Status: t.Status, StatusMessage: opt(t.StatusMessage),
		CreatedAt: opt(t.CreatedAt), LastUpdatedAt: opt(t.LastUpdatedAt), TTLMS: t.TTL, PollIntervalMS: t.PollInterval}
}

// writeTask prints one task: taskDoc, or its fields one a line as
// "name: value" (those the server sent).
func (a *app) writeTask(d taskDoc) error {
	if a.asJSON() {
		return a.writeDoc(d)
	}
	lines := [][2]string{{"task_id", d.TaskID}, {"status", d.Status}}
	add := func(k string, v *string) {
		if v != nil {
			lines = append(lines, [2]string{k, *v})
		}
	}
	num := func(k string, v *int64) {
		if v != nil {
			lines = append(lines, [2]string{k, strconv.FormatInt(*v, 10)})
		}
	}
	add("status_message", d.StatusMessage)
	add("created_at", d.CreatedAt)
	add("last_updated_at", d.LastUpdatedAt)
	num("ttl_ms", d.TTLMS)
	num("poll_interval_ms", d.PollIntervalMS)
	for _, l := range lines {
		if _, err := fmt.Fprintf(a.s.Out, "%s: %s\n", l[0], a.line(l[1], 2000)); err != nil {
			return err
		}
	}
	return nil
}

// taskOptions are the task command's arguments.
type taskOptions struct {
	Args   []string
	Server string
	ID     string
}

func (o *taskOptions) validate(sub string, withID bool) error {
	want, what := 1, "SRV"
	if withID {
		want, what = 2, "SRV and a task ID"
	}
	if len(o.Args) != want {
		return argCountError("task "+sub, what, o.Args, "mcpx task list SRV lists the server's tasks")
	}
	o.Server = o.Args[0]
	if withID {
		if o.ID = o.Args[1]; o.ID == "" {
			return usagef("task %s needs a non-empty task ID", sub)
		}
	}
	return nil
}

func (a *app) newTaskCmd() *cli.Command {
	sub := func(name, usage, argsUsage, desc string, withID bool, run func(context.Context, *taskOptions) error) *cli.Command {
		return &cli.Command{
			Name: name, Usage: usage, ArgsUsage: argsUsage, Description: desc,
			Action: func(ctx context.Context, cmd *cli.Command) error {
				o := &taskOptions{Args: cmd.Args().Slice()}
				if err := o.validate(name, withID); err != nil {
					return err
				}
				return run(ctx, o)
			},
		}
	}
	return &cli.Command{
		Name:  "task",
		Usage: "follow a task (a long-running tool call) by its id: get, wait, cancel, list",
		Description: "A tool whose execution.taskSupport is \"required\" runs as a task: invoke waits for it. " +
			"invoke --detach starts a task and prints its id instead; these commands follow it, from any process, " +
			"as long as the server keeps it (an http server whose tasks do not belong to the session that started them, " +
			"or a warm connection). They use the warm connection the daemon holds to the server when there is one, " +
			"without --keep-alive repeated, and never start a stdio server that cannot know the task (exit 4).",
		Action: func(_ context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				e := unknownCommand(cmd, cmd.Args().First()).(*fail.Error)
				e.Message = fmt.Sprintf("unknown task command %q: it is get, wait, cancel or list", cmd.Args().First())
				return e
			}
			return cli.ShowSubcommandHelp(cmd)
		},
		Commands: []*cli.Command{
			sub("get", "show a task's status", "SRV ID",
				"Prints task_id, status, and what the server sent of status_message, created_at, last_updated_at, ttl_ms "+
					"and poll_interval_ms, one \"name: value\" a line (--json: one object).\n\n"+
					"EXIT STATUS: 0, 1 the task failed (its status is printed) or a server error, 3 connection, "+
					"4 no such task (unknown or expired) or server, 5 the server does not offer tasks, 7 timeout.",
				true, a.taskGet),
			sub("wait", "wait for a task and print its result, as invoke does", "SRV ID",
				"Polls tasks/get at the server's poll interval until the task ends, answering what it asks meanwhile "+
					"(elicitation), then prints its result exactly as invoke prints a tool's result. Interrupted or out of "+
					"time, the task is left running (invoke, which started it, cancels it instead).\n\n"+
					"EXIT STATUS: as invoke's: 0, 1 the tool reported an error, the task failed or was cancelled, 3 connection, "+
					"4 no such task (unknown or expired) or server, 5 the server does not offer tasks, 7 timeout.",
				true, a.taskWait),
			sub("cancel", "cancel a task", "SRV ID",
				"Sends tasks/cancel and prints the task as get does.\n\n"+
					"EXIT STATUS: 0, 1 the task has ended already or a server error, 3 connection, 4 no such task or server, "+
					"5 the server does not offer tasks, 7 timeout.",
				true, a.taskCancel),
			sub("list", "list a server's tasks", "SRV",
				"Lists the tasks the server keeps (tasks/list, every page), one a line: TASK_ID STATUS MESSAGE, aligned "+
					"with a header on a terminal, tab-separated in a pipe (--json: {\"server\", \"tasks\": [...]}).\n\n"+
					"EXIT STATUS: 0, 1 a server error, 3 connection, 4 no such server, 5 the server does not list tasks, 7 timeout.",
				false, a.taskList),
		},
	}
}

// taskSession connects to the server SRV names: the warm connection the
// daemon holds to it, when there is one, whether or not keep-alive is
// asked for (the task may be that connection's: see TASKS in mcpx(1));
// else a stdio server's tasks are nowhere (exit 4: a new server cannot
// know them), and an http or sse server is connected to as usual. The
// callers stop it (a deferred close) once their result is printed, not
// before (see SERVER PROCESSES in mcpx(1)).
func (a *app) taskSession(ctx context.Context, o *taskOptions, listen bool) (*session, error) {
	t, err := a.target(o.Server)
	if err != nil {
		return nil, err
	}
	if !a.g.noKeepAlive && daemon.Supported {
		s, err := a.connect(ctx, t, connectOptions{listen: listen, existing: true})
		if !errors.Is(err, client.ErrNoWarmTarget) {
			return s, err
		}
		if t.Transport == config.Stdio {
			return nil, noWarmTaskError(t, o.ID)
		}
	}
	return a.connect(ctx, t, connectOptions{listen: listen})
}

// noWarmTaskError: a task command on a stdio server that no warm
// connection holds (exit 4).
func noWarmTaskError(t *config.Target, id string) error {
	msg := fmt.Sprintf("no warm connection to server %q is open, and a stdio server's tasks live only in the one that started them", t.Name)
	if id != "" {
		msg = fmt.Sprintf("unknown task %q: ", id) + msg
	}
	return &fail.Error{Code: fail.NotFound, What: "warm connection", Name: t.Name, Server: t.Name, Message: msg,
		Hints: []string{"start a task on a warm connection with: mcpx --keep-alive invoke " + serverWord(t.Name) + " TOOL --detach"}}
}

func (a *app) taskGet(ctx context.Context, o *taskOptions) error {
	s, err := a.taskSession(ctx, o, false)
	if err != nil {
		return err
	}
	defer s.close()
	t, err := s.conn.GetTask(s.ctx, o.ID)
	if err != nil {
		return err
	}
	if err := a.writeTask(newTaskDoc(s.conn.T.Name, *t)); err != nil {
		return err
	}
	if t.Status == client.TaskFailed {
		return client.TaskEnded(s.conn.T.Name, t.ID, t.Status, a.line(t.StatusMessage, 500), nil)
	}
	return nil
}

func (a *app) taskWait(ctx context.Context, o *taskOptions) error {
	s, err := a.taskSession(ctx, o, true)
	if err != nil {
		return err
	}
	defer s.close()
	conn := s.conn
	t, err := conn.GetTask(s.ctx, o.ID)
	if err != nil {
		return err
	}
	raw, err := conn.WaitTask(s.ctx, t, client.WaitOptions{OnStatus: a.taskProgress(conn.T.Name)})
	return a.showTaskResult(s.ctx, conn, "", raw, err, s.close)
}

// showTaskResult shows the result of a call or a task (raw; nil when
// there is none, or the task was detached) and returns err: a task that
// failed with a result that does not report an error has the result shown,
// then its task failure (client.TaskEnded) returned (exit 1).
func (a *app) showTaskResult(ctx context.Context, conn *client.Conn, tool string, raw json.RawMessage, err error, done func()) error {
	if raw == nil || (err != nil && !client.IsTaskFailure(err)) {
		return err
	}
	if serr := a.showToolResult(ctx, conn, tool, raw, done); serr != nil {
		return serr
	}
	return err
}

func (a *app) taskCancel(ctx context.Context, o *taskOptions) error {
	s, err := a.taskSession(ctx, o, false)
	if err != nil {
		return err
	}
	defer s.close()
	t, err := s.conn.CancelTask(s.ctx, o.ID)
	if t == nil {
		return err
	}
	if werr := a.writeTask(newTaskDoc(s.conn.T.Name, *t)); werr != nil {
		return werr
	}
	return err
}

func (a *app) taskList(ctx context.Context, o *taskOptions) error {
	s, err := a.taskSession(ctx, o, false)
	if err != nil {
		return err
	}
	defer s.close()
	tasks, warnings, err := s.conn.ListTasks(s.ctx)
	if err != nil {
		return err
	}
	// At most maxKindWarnings of one code: a page may hold thousands of
	// tasks that cannot be read.
	w := &warner{a: a}
	for _, p := range warnings {
		w.warn(warningOf(s.conn.T.Name, p))
	}
	w.flush(s.conn.T.Name)
	if a.asJSON() {
		docs := make([]taskDoc, 0, len(tasks))
		for _, t := range tasks {
			docs = append(docs, newTaskDoc(s.conn.T.Name, t))
		}
		return a.writeDoc(map[string]any{"server": s.conn.T.Name, "tasks": docs})
	}
	if len(tasks) == 0 {
		a.log.Note("server %q keeps no tasks", s.conn.T.Name)
		return nil
	}
	rows := make([][]string, 0, len(tasks))
	for _, t := range tasks {
		rows = append(rows, []string{t.ID, t.Status, a.line(t.StatusMessage, 200)})
	}
	return a.s.WriteTable([]string{"TASK_ID", "STATUS", "MESSAGE"}, rows)
}
