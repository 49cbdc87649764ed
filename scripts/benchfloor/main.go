//go:build unix

// Command benchfloor is the floor of scripts/bench.sh: the least a client
// can do to produce what mcpx produces from a stdio server.
//
// It spawns the server (argv given on the command line), sends initialize and
// notifications/initialized as newline-delimited JSON-RPC with plain
// encoding/json, does the work of -op, then stops the server the way mcpx
// does: close its stdin, wait up to 100 ms, SIGTERM its process group, wait
// up to 1 s, SIGKILL.
//
//   - catalog (the default), the floor of `mcpx catalog SRV`: tools/list,
//     resources/list, resources/templates/list and prompts/list (each only if
//     the server advertised the capability), following nextCursor to the end;
//     one line per item: KIND<TAB>ID<TAB>first line of the description, as
//     mcpx prints in a pipe.
//   - prompts, the floor of completing `mcpx prompt SRV <TAB>`: prompts/list
//     (if advertised) following nextCursor to the end; one prompt name a line.
//   - complete, the floor of completing `mcpx prompt SRV NAME ARG=<TAB>`: one
//     completion/complete of argument -arg (typed so far: -value) of prompt
//     -prompt (if the server advertised completions); one value a line.
//
// Usage:
//
//	benchfloor [-op catalog|prompts|complete] [-prompt NAME -arg NAME [-value V]] [-argv0 NAME] [-protocol VERSION] [--] COMMAND [ARG...]
//
// For the built-in demo: benchfloor -argv0 mcpx -- bin/mcpx serve-demo
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	stopGrace = 100 * time.Millisecond
	stopTerm  = 1 * time.Second
)

type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type client struct {
	in     io.Writer
	out    *bufio.Reader
	nextID int
}

func (c *client) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = c.in.Write(b)
	return err
}

// call sends a request and returns its result, skipping every message that
// is not the response to it (notifications, server requests, non-JSON lines).
func (c *client) call(method string, params map[string]any) (json.RawMessage, error) {
	c.nextID++
	id := strconv.Itoa(c.nextID)
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params}); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var m message
			if json.Unmarshal(line, &m) == nil && m.Method == "" && string(bytes.TrimSpace(m.ID)) == id {
				if m.Error != nil {
					return nil, fmt.Errorf("%s: error %d: %s", method, m.Error.Code, m.Error.Message)
				}
				return m.Result, nil
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: reading the server's stdout: %w", method, err)
		}
	}
}

type list struct{ kind, method, key, id, capability string }

var lists = []list{
	{"tool", "tools/list", "tools", "name", "tools"},
	{"resource", "resources/list", "resources", "uri", "resources"},
	{"resource_template", "resources/templates/list", "resourceTemplates", "uriTemplate", "resources"},
	{"prompt", "prompts/list", "prompts", "name", "prompts"},
}

// options is what a run does once the server is up.
type options struct {
	op, protocol       string
	prompt, arg, value string
}

func main() {
	var o options
	argv0 := flag.String("argv0", "", "argv[0] for the server (default: COMMAND)")
	flag.StringVar(&o.op, "op", "catalog", "what to do: `catalog`, prompts or complete")
	flag.StringVar(&o.protocol, "protocol", "2025-11-25", "protocol `VERSION` to send in initialize")
	flag.StringVar(&o.prompt, "prompt", "", "-op complete: the prompt `NAME`")
	flag.StringVar(&o.arg, "arg", "", "-op complete: the argument `NAME` to complete")
	flag.StringVar(&o.value, "value", "", "-op complete: the `VALUE` typed so far")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: benchfloor [-op catalog|prompts|complete] [-prompt NAME -arg NAME [-value V]] [-argv0 NAME] [-protocol VERSION] [--] COMMAND [ARG...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	ok := flag.NArg() > 0
	switch o.op {
	case "catalog", "prompts":
	case "complete":
		ok = ok && o.prompt != "" && o.arg != ""
	default:
		ok = false
	}
	if !ok {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Args(), *argv0, o); err != nil {
		fmt.Fprintln(os.Stderr, "benchfloor:", err)
		os.Exit(1)
	}
}

func run(argv []string, argv0 string, o options) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	if argv0 != "" {
		cmd.Args[0] = argv0
	}
	cmd.Env = childEnv(os.Environ())
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	out := bufio.NewWriter(os.Stdout)
	c := &client{in: stdin, out: bufio.NewReaderSize(stdout, 64<<10)}
	caps, err := initialize(c, o.protocol)
	if err == nil {
		switch o.op {
		case "catalog":
			err = catalog(c, caps, lists, out)
		case "prompts":
			err = promptNames(c, caps, out)
		case "complete":
			err = complete(c, caps, o, out)
		}
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	stop(cmd, stdin, exited)
	return err
}

// initialize does the handshake and returns the server's capabilities.
func initialize(c *client, protocol string) (map[string]json.RawMessage, error) {
	res, err := c.call("initialize", map[string]any{
		"protocolVersion": protocol,
		"clientInfo":      map[string]any{"name": "mcpx", "version": "benchfloor"},
		"capabilities":    map[string]any{},
	})
	if err != nil {
		return nil, err
	}
	var init struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(res, &init); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		return nil, err
	}
	return init.Capabilities, nil
}

func advertised(caps map[string]json.RawMessage, capability string) bool {
	v, ok := caps[capability]
	return ok && string(v) != "null"
}

// callError is a request that failed (as opposed to a result that does not
// parse).
type callError struct{ error }

// listAll calls method page by page, following nextCursor, and hands each
// item to each.
func listAll(c *client, method, key string, each func(map[string]json.RawMessage)) error {
	cursor := ""
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		res, err := c.call(method, params)
		if err != nil {
			return callError{err}
		}
		var page map[string]json.RawMessage
		if err := json.Unmarshal(res, &page); err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		var items []map[string]json.RawMessage
		if err := json.Unmarshal(page[key], &items); err != nil && page[key] != nil {
			return fmt.Errorf("%s: %q: %w", method, key, err)
		}
		for _, it := range items {
			each(it)
		}
		cursor = ""
		_ = json.Unmarshal(page["nextCursor"], &cursor)
		if cursor == "" {
			return nil
		}
	}
}

func catalog(c *client, caps map[string]json.RawMessage, lists []list, out *bufio.Writer) error {
	for _, l := range lists {
		if !advertised(caps, l.capability) {
			continue
		}
		err := listAll(c, l.method, l.key, func(it map[string]json.RawMessage) {
			var id, desc string
			_ = json.Unmarshal(it[l.id], &id)
			_ = json.Unmarshal(it["description"], &desc)
			fmt.Fprintf(out, "%s\t%s\t%s\n", l.kind, clean(id), clean(firstLine(desc)))
		})
		if err != nil {
			if !errors.As(err, new(callError)) {
				return err
			}
			// mcpx degrades a failed listing to a warning; so does the floor.
			fmt.Fprintln(os.Stderr, "benchfloor: warning:", err)
		}
	}
	return nil
}

// promptNames prints the name of every prompt, as completing
// `mcpx prompt SRV <TAB>` does.
func promptNames(c *client, caps map[string]json.RawMessage, out *bufio.Writer) error {
	if !advertised(caps, "prompts") {
		return nil
	}
	return listAll(c, "prompts/list", "prompts", func(it map[string]json.RawMessage) {
		var name string
		_ = json.Unmarshal(it["name"], &name)
		fmt.Fprintln(out, name)
	})
}

// complete prints the values the server suggests for one prompt argument,
// as completing `mcpx prompt SRV NAME ARG=VALUE<TAB>` does.
func complete(c *client, caps map[string]json.RawMessage, o options, out *bufio.Writer) error {
	if !advertised(caps, "completions") {
		return nil
	}
	res, err := c.call("completion/complete", map[string]any{
		"ref":      map[string]any{"type": "ref/prompt", "name": o.prompt},
		"argument": map[string]any{"name": o.arg, "value": o.value},
	})
	if err != nil {
		return err
	}
	var r struct {
		Completion struct {
			Values []json.RawMessage `json:"values"`
		} `json:"completion"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return fmt.Errorf("completion/complete: %w", err)
	}
	for _, v := range r.Completion.Values {
		var s string
		if json.Unmarshal(v, &s) == nil {
			fmt.Fprintln(out, s)
		}
	}
	return nil
}

// stop ends the server as mcpx does: close stdin, wait 100 ms, SIGTERM the
// group, wait 1 s, SIGKILL the group.
func stop(cmd *exec.Cmd, stdin io.Closer, exited <-chan error) {
	_ = stdin.Close()
	pgid := cmd.Process.Pid
	select {
	case <-exited:
		return
	case <-time.After(stopGrace):
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-exited:
		return
	case <-time.After(stopTerm):
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-exited
}

// childEnv keeps what mcpx passes a stdio server from its own environment.
func childEnv(environ []string) []string {
	pass := map[string]bool{"HOME": true, "LOGNAME": true, "PATH": true, "SHELL": true,
		"TERM": true, "USER": true, "LANG": true, "TMPDIR": true}
	env := []string{}
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if pass[k] || strings.HasPrefix(k, "LC_") {
			env = append(env, kv)
		}
	}
	return env
}

func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return ""
}

func clean(s string) string {
	return strings.NewReplacer("\t", " ", "\r", " ", "\n", " ").Replace(s)
}
