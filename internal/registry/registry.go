// Package registry reads an MCP registry (the official one, or any that
// implements its API: GET /v0.1/servers, paged by metadata.nextCursor, and
// GET /v0.1/servers/{name}/versions/{version}), and resolves a server's
// server.json into how to run it (see REGISTRY in mcpx(1)).
package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpx-cli/mcpx/internal/fail"
)

// Official is the official registry's base URL.
const Official = "https://registry.modelcontextprotocol.io"

// OfficialMetaKey is the _meta key of the registry's own facts.
const OfficialMetaKey = "io.modelcontextprotocol.registry/official"

// Bounds on what a registry can make mcpx do.
const (
	maxBody  = 16 << 20 // one response
	maxPages = 50       // pages of one search
	pageSize = 100
)

// Statuses.
const (
	StatusActive     = "active"
	StatusDeprecated = "deprecated"
	StatusDeleted    = "deleted"
)

// Record is one server version as the registry serves it.
type Record struct {
	Server Server `json:"server"`
	Meta   struct {
		Official OfficialMeta `json:"io.modelcontextprotocol.registry/official"`
	} `json:"_meta"`
}

// OfficialMeta is the registry's own facts about a version.
type OfficialMeta struct {
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	IsLatest      bool   `json:"isLatest"`
}

// Status is the version's status ("active" when the registry says none).
func (r *Record) Status() string {
	if r.Meta.Official.Status == "" {
		return StatusActive
	}
	return r.Meta.Official.Status
}

// Server is a server.json.
type Server struct {
	Name        string    `json:"name"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	Version     string    `json:"version"`
	Packages    []Package `json:"packages"`
	Remotes     []Remote  `json:"remotes"`
}

// Package is one of server.json's packages.
type Package struct {
	RegistryType     string     `json:"registryType"`
	Identifier       string     `json:"identifier"`
	Version          string     `json:"version"`
	RuntimeHint      string     `json:"runtimeHint"`
	RuntimeArguments []Argument `json:"runtimeArguments"`
	PackageArguments []Argument `json:"packageArguments"`
	Transport        struct {
		Type string `json:"type"`
		URL  string `json:"url"`
	} `json:"transport"`
	EnvironmentVariables []Input `json:"environmentVariables"`
	FileSHA256           string  `json:"fileSha256"`
}

// Argument is a runtime or package argument.
type Argument struct {
	Type       string `json:"type"` // positional or named
	Name       string `json:"name"`
	Value      string `json:"value"`
	ValueHint  string `json:"valueHint"`
	Default    string `json:"default"`
	IsRequired bool   `json:"isRequired"`
}

// Input is an environment variable, a header or a URL variable.
type Input struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Value       string   `json:"value"`
	Default     string   `json:"default"`
	IsRequired  bool     `json:"isRequired"`
	IsSecret    bool     `json:"isSecret"`
	Choices     []string `json:"choices"`
}

// Remote is one of server.json's remotes.
type Remote struct {
	Type      string           `json:"type"` // streamable-http or sse
	URL       string           `json:"url"`
	Headers   []Input          `json:"headers"`
	Variables map[string]Input `json:"variables"`
}

// Transports are how a server can be run or reached: its packages'
// registry types and its remotes' types.
func (s *Server) Transports() []string {
	var out []string
	for _, p := range s.Packages {
		out = append(out, p.RegistryType)
	}
	for _, r := range s.Remotes {
		out = append(out, r.Type)
	}
	return out
}

// Client reads one registry.
type Client struct {
	Base string
	HTTP *http.Client
}

// unreadable is a registry that cannot be read (exit 3): unreachable, or
// an answer that is not the API's.
func unreadable(url, msg string) *fail.Error {
	return &fail.Error{Code: fail.Connection, What: "registry", Name: url, Message: fmt.Sprintf("registry %s: %s", url, msg)}
}

// notListed is a server or version the registry does not have (exit 4).
func notListed(name, version string) *fail.Error {
	msg := fmt.Sprintf("the registry has no server %s", name)
	if version != "" {
		msg = fmt.Sprintf("the registry has no version %s of %s", version, name)
	}
	return &fail.Error{Code: fail.NotFound, What: "registry server", Name: name, Message: msg}
}

// get decodes the JSON at path (with query) into v; a 404 is
// errNotFound.
func (c *Client) get(ctx context.Context, path string, query url.Values, v any) error {
	u := strings.TrimRight(c.Base, "/") + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return unreadable(c.Base, err.Error())
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return unreadable(c.Base, err.Error())
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return errNotFound
	}
	if resp.StatusCode != http.StatusOK {
		return unreadable(c.Base, fmt.Sprintf("GET %s answered %s", path, resp.Status))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return unreadable(c.Base, err.Error())
	}
	if len(body) > maxBody {
		return unreadable(c.Base, fmt.Sprintf("GET %s answered more than %d MiB", path, maxBody>>20))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return unreadable(c.Base, fmt.Sprintf("GET %s answered what the registry API does not: %v", path, err))
	}
	return nil
}

var errNotFound = errors.New("not found")

// Search lists the servers matching query (every page, following
// metadata.nextCursor, at most maxPages of them).
func (c *Client) Search(ctx context.Context, query string) ([]Record, error) {
	var all []Record
	cursor := ""
	seen := map[string]bool{}
	for range maxPages {
		q := url.Values{"limit": {fmt.Sprint(pageSize)}}
		if query != "" {
			q.Set("search", query)
		}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var page struct {
			Servers  []Record `json:"servers"`
			Metadata struct {
				NextCursor string `json:"nextCursor"`
			} `json:"metadata"`
		}
		if err := c.get(ctx, "/v0.1/servers", q, &page); err != nil {
			if errors.Is(err, errNotFound) {
				return nil, unreadable(c.Base, "GET /v0.1/servers answered 404: not a registry")
			}
			return nil, err
		}
		all = append(all, page.Servers...)
		cursor = page.Metadata.NextCursor
		if cursor == "" {
			return all, nil
		}
		if seen[cursor] {
			return nil, unreadable(c.Base, fmt.Sprintf("the cursor %q came twice", cursor))
		}
		seen[cursor] = true
	}
	return nil, unreadable(c.Base, fmt.Sprintf("more than %d pages of results: make the search narrower", maxPages))
}

// Get is one version of a server ("" or "latest": the latest).
func (c *Client) Get(ctx context.Context, name, version string) (*Record, error) {
	v := version
	if v == "" {
		v = "latest"
	}
	var r Record
	err := c.get(ctx, "/v0.1/servers/"+url.PathEscape(name)+"/versions/"+url.PathEscape(v), nil, &r)
	if errors.Is(err, errNotFound) {
		return nil, notListed(name, version)
	}
	if err != nil {
		return nil, err
	}
	if r.Server.Name == "" {
		return nil, unreadable(c.Base, fmt.Sprintf("the record of %s has no server name", name))
	}
	return &r, nil
}
