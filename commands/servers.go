package commands

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
)

// serversOptions are servers' arguments and flags; validate checks them.
type serversOptions struct {
	Args   []string // none
	Probe  bool
	Strict bool // --strict: a failed probe is exit 1
}

func (o *serversOptions) validate() error {
	if len(o.Args) > 0 {
		return usagef("servers takes no arguments")
	}
	if o.Strict && !o.Probe {
		return &fail.Error{Code: fail.Usage, Message: "--strict fails when a probed server fails, and needs --probe",
			Hints: []string{"a health check: mcpx servers --probe --strict"}}
	}
	return nil
}

// serverEntry is the JSON shape of one server (see servers in COMMANDS,
// mcpx(1)).
type serverEntry struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	Target    string `json:"target"`
	Source    string `json:"source"` // the file that defines it, or builtin
	Origin    string `json:"origin"` // mcpx, project, builtin or a host's source name
	Status    string `json:"status"` // active, shadowed (NAME@SOURCE reaches it), disabled or invalid
	Probe     *probe `json:"probe"`
}

type probe struct {
	ServerName      *string              `json:"server_name"`
	ServerVersion   *string              `json:"server_version"`
	ProtocolVersion *string              `json:"protocol_version"`
	Capabilities    *client.Capabilities `json:"capabilities"`
	Auth            *probeAuth           `json:"auth"`
	Error           *string              `json:"error"`
}

// probeAuth is a server's OAuth state (see AUTHENTICATION in mcpx(1)): none,
// token, expired or required; null when the probe failed for another reason.
type probeAuth struct {
	State     string  `json:"state"`
	ExpiresAt *string `json:"expires_at"`
}

func (p *probeAuth) String() string {
	if p == nil {
		return "-"
	}
	if p.State == "token" && p.ExpiresAt != nil {
		return "token (expires " + *p.ExpiresAt + ")"
	}
	if p.State == "expired" && p.ExpiresAt != nil {
		return "expired (" + *p.ExpiresAt + ")"
	}
	return p.State
}

func (a *app) newServersCmd() *cli.Command {
	o := &serversOptions{}
	return &cli.Command{
		Name:  "servers",
		Usage: "list the configured servers (and the built-in demo)",
		Description: "Shows each server's name, transport, target (unexpanded), source (mcpx, project, builtin, " +
			"or the host whose config defines it) and status: active, shadowed (an earlier source defines the name; " +
			"NAME@SOURCE reaches it), disabled, or invalid (the entry cannot be used as written: an unknown type, no command " +
			"or url, ...; a warning says why). -v adds the file that defines it. A host's file that cannot be used is a " +
			"warning here every time (other commands warn once per change of the file). --probe contacts " +
			"them, --jobs at a time, and adds what each reports at initialize, or its error, and its OAuth state: " +
			"none (no stored token used), token (with its expiry), expired (it could not be refreshed), required " +
			"(the server asks for authentication).\n\n" +
			"EXIT STATUS: 0 (a failed probe is reported, not fatal), 1 with --strict a probe failed, 2 usage or a broken config file.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "probe", Usage: "contact each server and report its name, version, protocol and capabilities", Destination: &o.Probe},
			&cli.BoolFlag{Name: "strict", Usage: "with --probe, exit 1 when any probed server failed (stdout still carries the result)", Destination: &o.Strict},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o.Args = cmd.Args().Slice()
			if err := o.validate(); err != nil {
				return err
			}
			return a.servers(ctx, o)
		},
	}
}

func (a *app) servers(ctx context.Context, o *serversOptions) error {
	a.everyWarning = true // the listing is where a broken file is looked into
	cfg, err := a.config()
	if err != nil {
		return err
	}
	// Every entry of every source: by name, and a name's entries in the
	// order of the sources (the first is the one the name resolves to).
	servers := slices.Clone(cfg.All)
	if _, ok := cfg.Servers[config.DemoName]; !ok {
		servers = append(servers, config.Demo(a.self))
	}
	sort.SliceStable(servers, func(i, j int) bool { return servers[i].Name < servers[j].Name })
	entries := make([]serverEntry, len(servers))
	for i, s := range servers {
		entries[i] = serverEntry{Name: s.Name, Transport: s.Transport, Target: s.Target(), Source: s.Source, Origin: s.Origin, Status: entryStatus(cfg, s)}
		if err := s.Problem(); err != nil {
			msg := err.Error()
			if ce, ok := fail.As(err, fail.Usage); ok { // the entry's problem, without its name
				msg = strings.TrimPrefix(ce.Message, fmt.Sprintf("server %q: ", ce.Server))
			}
			a.log.Warnf("server %q in %s cannot be used: %s", s.Name, s.Source, msg)
		}
		if entries[i].Transport == "" {
			entries[i].Transport = "-"
		}
	}
	var failed []string
	if o.Probe {
		if failed, err = a.probeAll(ctx, servers, entries); err != nil {
			return err
		}
	}
	if err := a.writeServers(entries, o); err != nil {
		return err
	}
	if o.Strict && len(failed) > 0 {
		return probeFailed(failed)
	}
	return nil
}

// entryStatus is how a server's entry stands: active, shadowed (by an
// entry of the same name that comes first), disabled or invalid.
func entryStatus(cfg *config.Config, s *config.Server) string {
	switch {
	case cfg.Servers[s.Name] != nil && cfg.Shadowed(s):
		return "shadowed"
	case s.Disabled:
		return "disabled"
	case s.Problem() != nil:
		return "invalid"
	}
	return "active"
}

// probeAll probes every server but the disabled ones (--jobs at a time)
// into its entry, and returns the names of those whose probe failed.
func (a *app) probeAll(ctx context.Context, servers []*config.Server, entries []serverEntry) ([]string, error) {
	if err := a.forEach(ctx, len(servers), func(i int) {
		if servers[i].Disabled {
			msg := "disabled: not started"
			entries[i].Probe = &probe{Error: &msg}
			return
		}
		entries[i].Probe = a.probe(ctx, servers[i])
	}); err != nil {
		return nil, err
	}
	var failed []string
	for i, e := range entries {
		if e.Probe != nil && e.Probe.Error != nil && !servers[i].Disabled {
			failed = append(failed, e.Name)
		}
	}
	return failed, nil
}

// probeFailed: --strict, and the probed servers failed failed (exit 1,
// strict).
func probeFailed(failed []string) error {
	return &fail.Error{Code: fail.Strict, Details: map[string]any{"failed": failed},
		Message: fmt.Sprintf("--strict: %s failed: %s", count(len(failed), "probed server"), strings.Join(failed, ", "))}
}

// writeServers prints the servers document, or its table.
func (a *app) writeServers(entries []serverEntry, o *serversOptions) error {
	if a.asJSON() {
		return a.writeDoc(map[string]any{"servers": entries})
	}
	header := []string{"NAME", "TRANSPORT", "TARGET", "SOURCE", "STATUS"}
	if a.g.verbose {
		header = append(header, "FILE")
	}
	if o.Probe {
		header = append(header, "SERVER", "VERSION", "PROTOCOL", "CAPABILITIES", "AUTH", "ERROR")
	}
	rows := make([][]string, len(entries))
	for i, e := range entries {
		rows[i] = []string{e.Name, e.Transport, e.Target, e.Origin, e.Status}
		if a.g.verbose {
			file := e.Source
			if e.Origin == config.SourceBuiltin {
				file = "-"
			}
			rows[i] = append(rows[i], file)
		}
		if p := e.Probe; p != nil {
			rows[i] = append(rows[i], deref(p.ServerName), deref(p.ServerVersion), deref(p.ProtocolVersion), capList(p.Capabilities), p.Auth.String(), deref(p.Error))
		}
	}
	return a.s.WriteTable(header, rows)
}

func (a *app) probe(ctx context.Context, s *config.Server) *probe {
	failed := func(err error) *probe {
		msg := classify(err, nil).Message
		p := &probe{Error: &msg}
		var ae *fail.AuthError
		if errors.As(err, &ae) && ae.Status != 0 {
			p.Auth = &probeAuth{State: "required"}
			if ae.Token == "expired" {
				p.Auth.State = "expired"
				if !ae.ExpiredAt.IsZero() {
					p.Auth.ExpiresAt = stamp(ae.ExpiredAt)
				}
			}
		}
		return p
	}
	t, err := a.resolve(s)
	var sess *session
	if err == nil {
		sess, err = a.connect(ctx, t, connectOptions{})
	}
	if errors.Is(err, config.ErrInvalid) {
		a.log.Warnf("%v", err)
	}
	if err != nil {
		return failed(err)
	}
	defer sess.closeLater()
	conn := sess.conn
	// the protocol a command would get: a server may accept the 2026-07-28
	// era at server/discover and refuse it for every request after
	if err := conn.ConfirmEra(sess.ctx); err != nil {
		return failed(err)
	}
	pa := &probeAuth{State: conn.Auth.State}
	if e := conn.Auth.ExpiresAt; e != nil && pa.State != "none" {
		pa.ExpiresAt = stamp(*e)
	}
	return &probe{ServerName: orNil(conn.ServerName), ServerVersion: orNil(conn.ServerVersion), ProtocolVersion: orNil(conn.Protocol),
		Capabilities: &conn.Caps, Auth: pa}
}

// stamp is a time as --json and the AUTH column show it: RFC 3339, UTC.
func stamp(t time.Time) *string {
	s := t.UTC().Format(time.RFC3339)
	return &s
}

func deref(s *string) string {
	if s == nil || *s == "" {
		return "-"
	}
	return *s
}

func capList(c *client.Capabilities) string {
	if c == nil {
		return "-"
	}
	var caps []string
	for _, x := range []struct {
		on   bool
		name string
	}{{c.Tools, "tools"}, {c.Resources, "resources"}, {c.Prompts, "prompts"}, {c.Completions, "completions"}, {c.Logging, "logging"}} {
		if x.on {
			caps = append(caps, x.name)
		}
	}
	if len(caps) == 0 {
		return "none"
	}
	return strings.Join(caps, ",")
}
