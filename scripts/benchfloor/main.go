// Command benchfloor is the floor of scripts/bench.sh: the least a client
// can do to produce what `mcpx catalog SRV` produces from a stdio server.
//
// It spawns the server (argv given on the command line), sends initialize,
// notifications/initialized, then tools/list, resources/list,
// resources/templates/list and prompts/list (each only if the server
// advertised the capability), following nextCursor to the end, as
// newline-delimited JSON-RPC with plain encoding/json. It prints one line per
// item (KIND<TAB>ID<TAB>first line of the description, as mcpx prints in a
// pipe), then stops the server the way mcpx does: close its stdin, wait up to
// 100 ms, SIGTERM its process group, wait up to 1 s, SIGKILL.
//
// Usage:
//
//	benchfloor [-argv0 NAME] [-protocol VERSION] [--] COMMAND [ARG...]
//
// For the built-in demo: benchfloor -argv0 mcpx -- bin/mcpx serve-demo
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
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

var lists = []struct{ kind, method, key, id, capability string }{
	{"tool", "tools/list", "tools", "name", "tools"},
	{"resource", "resources/list", "resources", "uri", "resources"},
	{"resource_template", "resources/templates/list", "resourceTemplates", "uriTemplate", "resources"},
	{"prompt", "prompts/list", "prompts", "name", "prompts"},
}

func main() {
	argv0 := flag.String("argv0", "", "argv[0] for the server (default: COMMAND)")
	protocol := flag.String("protocol", "2025-11-25", "protocol `VERSION` to send in initialize")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: benchfloor [-argv0 NAME] [-protocol VERSION] [--] COMMAND [ARG...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Args(), *argv0, *protocol); err != nil {
		fmt.Fprintln(os.Stderr, "benchfloor:", err)
		os.Exit(1)
	}
}

func run(argv []string, argv0, protocol string) error {
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
	err = exchange(&client{in: stdin, out: bufio.NewReaderSize(stdout, 64<<10)}, protocol, out)
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	stop(cmd, stdin, exited)
	return err
}

func exchange(c *client, protocol string, out *bufio.Writer) error {
	res, err := c.call("initialize", map[string]any{
		"protocolVersion": protocol,
		"clientInfo":      map[string]any{"name": "mcpx", "version": "benchfloor"},
		"capabilities":    map[string]any{},
	})
	if err != nil {
		return err
	}
	var init struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(res, &init); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if err := c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		return err
	}
	for _, l := range lists {
		if v, ok := init.Capabilities[l.capability]; !ok || string(v) == "null" {
			continue
		}
		cursor := ""
		for {
			params := map[string]any{}
			if cursor != "" {
				params["cursor"] = cursor
			}
			res, err := c.call(l.method, params)
			if err != nil {
				// mcpx degrades a failed listing to a warning; so does the floor.
				fmt.Fprintln(os.Stderr, "benchfloor: warning:", err)
				break
			}
			var page map[string]json.RawMessage
			if err := json.Unmarshal(res, &page); err != nil {
				return fmt.Errorf("%s: %w", l.method, err)
			}
			var items []map[string]json.RawMessage
			if err := json.Unmarshal(page[l.key], &items); err != nil && page[l.key] != nil {
				return fmt.Errorf("%s: %q: %w", l.method, l.key, err)
			}
			for _, it := range items {
				var id, desc string
				_ = json.Unmarshal(it[l.id], &id)
				_ = json.Unmarshal(it["description"], &desc)
				fmt.Fprintf(out, "%s\t%s\t%s\n", l.kind, clean(id), clean(firstLine(desc)))
			}
			cursor = ""
			_ = json.Unmarshal(page["nextCursor"], &cursor)
			if cursor == "" {
				break
			}
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
