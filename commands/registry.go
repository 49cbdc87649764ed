package commands

// mcpx search and mcpx add (see REGISTRY in mcpx(1)): servers found in an
// MCP registry, and added to the user file from their server.json.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/registry"
)

// classifyRegistry gives a registry that does not answer in time its
// exit code (the registry's other failures have theirs).
func classifyRegistry(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &fail.Error{Code: fail.Timeout, Message: fmt.Sprintf("the registry did not answer in time: %v", err), Cause: err}
	}
	return err
}

// registryFlag is --registry, on search and add.
func registryFlag(dst *string) cli.Flag {
	return &cli.StringFlag{Name: "registry", Usage: "the registry's base `URL` (else the user file's \"registry\", else the official one)", Destination: dst}
}

// registryClient is the registry named by --registry, else by the
// "registry" of mcpx's own file, else the official one.
func (a *app) registryClient(flag string) (*registry.Client, error) {
	base := flag
	if base == "" {
		b, err := a.fileRegistry()
		if err != nil {
			return nil, err
		}
		base = b
	}
	if base == "" {
		base = registry.Official
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, usagef("registry %s: not an http or https URL", shellArg(base))
	}
	timeout := config.DefaultTimeout
	if a.g.timeoutSet {
		timeout = a.g.timeout
	}
	return &registry.Client{Base: base, HTTP: &http.Client{Timeout: timeout}}, nil
}

// fileRegistry is the "registry" of mcpx's own file ("" when none).
func (a *app) fileRegistry() (string, error) {
	path := a.userFile()
	if path == "" {
		return "", nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(strings.TrimSpace(string(data))) == 0) {
		return "", nil
	}
	if err != nil {
		return "", config.Invalid("", fmt.Sprintf("cannot read config file: %v", err))
	}
	var f struct {
		Registry *string `json:"registry"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return "", config.Invalid("", fmt.Sprintf("config file %s: %v", path, err))
	}
	if f.Registry == nil {
		return "", nil
	}
	return *f.Registry, nil
}

// userFile is mcpx's own file: --config, else the user file.
func (a *app) userFile() string {
	if a.g.config != "" {
		return a.g.config
	}
	return config.UserConfigPath(a.getenv)
}

// ---------------------------------------------------------------- search

// searchItem is one server of search's result.
type searchItem struct {
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Status      string   `json:"status"`
	Description string   `json:"description"`
	Transports  []string `json:"transports"`
}

func (a *app) newSearchCmd() *cli.Command {
	var reg string
	return &cli.Command{
		Name:      "search",
		Usage:     "find servers in an MCP registry",
		ArgsUsage: "QUERY",
		Description: "Lists the servers of the registry that match QUERY (its search matches names and descriptions), " +
			"the latest version of each, every page of results: NAME, VERSION, STATUS (active, deprecated, deleted), " +
			"TRANSPORTS (the package types, npm, pypi, oci, nuget, mcpb, and the remotes, streamable-http, sse) and " +
			"DESCRIPTION. mcpx add NAME adds one.\n\n" +
			"EXIT STATUS: 0 (none found is a note), 2 usage, 3 the registry cannot be reached or answers what its API " +
			"does not, 7 timeout.",
		Flags: []cli.Flag{registryFlag(&reg)},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 || strings.TrimSpace(cmd.Args().First()) == "" {
				return usagef("search takes one QUERY")
			}
			rc, err := a.registryClient(reg)
			if err != nil {
				return err
			}
			return a.search(ctx, rc, cmd.Args().First())
		},
	}
}

func (a *app) search(ctx context.Context, rc *registry.Client, query string) error {
	recs, err := rc.Search(ctx, query)
	if err != nil {
		return classifyRegistry(err)
	}
	items := latest(recs)
	if len(items) == 0 {
		a.log.Note("the registry has no servers matching %q", query)
	}
	if a.asJSON() {
		return a.writeDoc(map[string]any{"servers": items})
	}
	rows := make([][]string, len(items))
	for i, it := range items {
		rows[i] = []string{it.Name, it.Version, it.Status, strings.Join(it.Transports, ","), it.Description}
	}
	return a.s.WriteTable([]string{"NAME", "VERSION", "STATUS", "TRANSPORTS", "DESCRIPTION"}, rows)
}

// latest keeps one record a server, the latest version (the one the
// registry marks so, else the first listed), in the order listed.
func latest(recs []registry.Record) []searchItem {
	var out []searchItem
	at := map[string]int{}
	for i := range recs {
		r := &recs[i]
		it := searchItem{Name: r.Server.Name, Version: r.Server.Version, Status: r.Status(),
			Description: r.Server.Description, Transports: r.Server.Transports()}
		if it.Transports == nil {
			it.Transports = []string{}
		}
		if j, ok := at[it.Name]; ok {
			if r.Meta.Official.IsLatest {
				out[j] = it
			}
			continue
		}
		at[it.Name] = len(out)
		out = append(out, it)
	}
	return out
}

// ---------------------------------------------------------------- add

// addOptions are add's arguments and flags.
type addOptions struct {
	Name, Version string
	As            string
	Vars          map[string]string
	Registry      string
}

func (a *app) newAddCmd() *cli.Command {
	o := &addOptions{}
	var vars []string
	return &cli.Command{
		Name:      "add",
		Usage:     "add a server from an MCP registry to the user file",
		ArgsUsage: "NAME[@VERSION] [--as LOCAL] [--var K=V ...]",
		Description: "Resolves the server's server.json (the latest version unless @VERSION) into an entry of the user " +
			"file (or --config), written under its lock: an npm package as npx -y PKG@VERSION, PyPI as uvx PKG==VERSION, " +
			"OCI as docker run -i --rm IMAGE:TAG, NuGet as dnx PKG@VERSION --yes, else a remote's URL, its {variables} " +
			"filled from --var. Each required or secret environment variable (or header) is written as a ${NAME} " +
			"reference, never a value, and a note says what to export. A deprecated server is a warning; a deleted one " +
			"is refused. The entry's name is --as, else the last part of NAME.\n\n" +
			"EXIT STATUS: 0, 1 a deleted server, or the file cannot be written, 2 usage (a name the file has, a value " +
			"--var must give), 3 the registry cannot be reached, 4 no such server or version, 5 nothing mcpx can run " +
			"(an mcpb bundle only), 7 timeout.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "as", Usage: "the entry's `LOCAL` name", Destination: &o.As},
			&cli.StringSliceFlag{Name: "var", Usage: "`K=V`: a remote URL variable, a package argument or a non-secret environment variable", Destination: &vars},
			registryFlag(&o.Registry),
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := o.parse(cmd.Args().Slice(), vars); err != nil {
				return err
			}
			rc, err := a.registryClient(o.Registry)
			if err != nil {
				return err
			}
			return a.add(ctx, rc, o)
		},
	}
}

var localName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_.-]+`) })

func (o *addOptions) parse(args, vars []string) error {
	if len(args) != 1 || args[0] == "" {
		return usagef("add takes one NAME[@VERSION], got %s", count(len(args), "argument"))
	}
	o.Name = args[0]
	if i := strings.LastIndexByte(o.Name, '@'); i > 0 {
		o.Name, o.Version = o.Name[:i], o.Name[i+1:]
		if o.Version == "" {
			return usagef("%s: no version after @", shellArg(args[0]))
		}
	}
	o.Vars = map[string]string{}
	for _, v := range vars {
		k, val, ok := strings.Cut(v, "=")
		if !ok || k == "" {
			return usagef("--var %s: not K=V", shellArg(v))
		}
		o.Vars[k] = val
	}
	if o.As == "" {
		o.As = o.Name[strings.LastIndexByte(o.Name, '/')+1:]
	}
	o.As = strings.Trim(localName().ReplaceAllString(o.As, "-"), "-.")
	if o.As == "" {
		return usagef("%s gives no usable local name: give one with --as", shellArg(o.Name))
	}
	return nil
}

// addResult is add's --json document.
type addResult struct {
	Name    string           `json:"name"`
	Server  string           `json:"server"`
	Version string           `json:"version"`
	Status  string           `json:"status"`
	File    string           `json:"file"`
	Entry   config.MCPXEntry `json:"entry"`
	Export  []exportVar      `json:"export"`
}

// exportVar is a variable add's entry refers to, which is to be exported.
type exportVar struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Secret      bool   `json:"secret"`
}

func (a *app) add(ctx context.Context, rc *registry.Client, o *addOptions) error {
	rec, err := rc.Get(ctx, o.Name, o.Version)
	if err != nil {
		return classifyRegistry(err)
	}
	if err := a.checkStatus(rec); err != nil {
		return err
	}
	e, err := registry.Resolve(&rec.Server, o.Vars)
	if err != nil {
		return classifyRegistry(err)
	}
	for _, name := range e.Unset {
		a.s.Secrets().Add(o.Vars[name])
		a.log.Warnf("--var %s: a secret is never written to the config file; it is written as ${%s}: export %s instead", name, name, name)
	}
	path := a.userFile()
	if path == "" {
		return &fail.Error{Code: fail.Usage, Message: "add has no user config file to write: no home directory is known",
			Hints: []string{"set HOME (or XDG_CONFIG_HOME), or give --config FILE"}}
	}
	entry := config.MCPXEntry{Type: e.Type, Command: e.Command, Args: e.Args, Env: e.Env, URL: e.URL, Headers: e.Headers}
	err = config.EditServers(path, func(have map[string]bool) ([]config.NamedEntry, error) {
		if have[o.As] {
			return nil, &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("%s already has a server named %q; nothing was written", path, o.As),
				Hints: []string{"give the new one another name with --as LOCAL"}}
		}
		return []config.NamedEntry{{Name: o.As, Entry: entry}}, nil
	})
	if err != nil {
		return err
	}
	a.log.Note("added %q to %s: %s %s, as %s", o.As, path, rec.Server.Name, rec.Server.Version, e.Via)
	if len(e.Export) > 0 {
		a.log.Note("%s needs %s in its environment: export %s before using it", o.As, joinAnd(exportList(e.Export)), strings.Join(exportNames(e.Export), " "))
	}
	if a.asJSON() {
		export := []exportVar{}
		for _, v := range e.Export {
			export = append(export, exportVar{Name: v.Name, Description: v.Description, Secret: v.IsSecret})
		}
		return a.writeDoc(addResult{Name: o.As, Server: rec.Server.Name, Version: rec.Server.Version, Status: rec.Status(),
			File: path, Entry: entry, Export: export})
	}
	_, err = fmt.Fprintln(a.s.Out, o.As)
	return err
}

// checkStatus warns of a deprecated version and refuses a deleted one.
func (a *app) checkStatus(rec *registry.Record) error {
	why := ""
	if m := rec.Meta.Official.StatusMessage; m != "" {
		why = ": " + a.line(m, 300)
	}
	switch rec.Status() {
	case registry.StatusDeleted:
		return fmt.Errorf("%s %s is deleted from the registry%s; nothing was written", rec.Server.Name, rec.Server.Version, why)
	case registry.StatusDeprecated:
		a.log.Warnf("%s %s is deprecated in the registry%s", rec.Server.Name, rec.Server.Version, why)
	}
	return nil
}

func exportNames(in []registry.Input) []string {
	names := make([]string, len(in))
	for i, v := range in {
		names[i] = v.Name
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// exportList describes the variables to export: NAME (secret), ...
func exportList(in []registry.Input) []string {
	secret := map[string]bool{}
	for _, v := range in {
		secret[v.Name] = secret[v.Name] || v.IsSecret
	}
	var out []string
	for _, name := range exportNames(in) {
		if secret[name] {
			name += " (secret)"
		}
		out = append(out, name)
	}
	return out
}

// joinAnd joins a list: a, b and c.
func joinAnd(list []string) string {
	switch len(list) {
	case 0:
		return ""
	case 1:
		return list[0]
	}
	return strings.Join(list[:len(list)-1], ", ") + " and " + list[len(list)-1]
}
