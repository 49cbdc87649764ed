package registry

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpx-cli/mcpx/internal/fail"
)

func TestResolvePackages(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Package
		vars map[string]string
		want string
	}{
		{"npm", Package{RegistryType: "npm", Identifier: "@a/b", Version: "1.2.0"}, nil, "npx -y @a/b@1.2.0"},
		{"npm latest", Package{RegistryType: "npm", Identifier: "b", Version: "latest"}, nil, "npx -y b"},
		{"npm hint", Package{RegistryType: "npm", Identifier: "b", Version: "1", RuntimeHint: "bunx"}, nil, "bunx -y b@1"},
		{"pypi", Package{RegistryType: "pypi", Identifier: "x-mcp", Version: "0.3"}, nil, "uvx x-mcp==0.3"},
		{"oci", Package{RegistryType: "oci", Identifier: "ghcr.io/a/b", Version: "2"}, nil, "docker run -i --rm ghcr.io/a/b:2"},
		{"oci tagged", Package{RegistryType: "oci", Identifier: "localhost:5000/a/b:9", Version: "2"}, nil, "docker run -i --rm localhost:5000/a/b:9"},
		{"oci env", Package{RegistryType: "oci", Identifier: "a/b", Version: "1", EnvironmentVariables: []Input{{Name: "Z", IsSecret: true}, {Name: "A", IsRequired: true}}},
			nil, "docker run -i --rm -e A -e Z a/b:1 env A=${A} Z=${Z}"},
		{"nuget", Package{RegistryType: "nuget", Identifier: "A.B", Version: "1.0"}, nil, "dnx A.B@1.0 --yes"},
		{"arguments", Package{RegistryType: "npm", Identifier: "b", Version: "1", PackageArguments: []Argument{
			{Type: "positional", Value: "serve"}, {Type: "named", Name: "--port", ValueHint: "port", Default: "80"}, {Type: "named", Name: "--dir", IsRequired: true}}},
			map[string]string{"dir": "/d"}, "npx -y b@1 serve --port 80 --dir /d"},
		{"env given", Package{RegistryType: "npm", Identifier: "b", Version: "1", EnvironmentVariables: []Input{{Name: "R", IsRequired: true}, {Name: "S", IsSecret: true}, {Name: "O", Default: "x"}}},
			map[string]string{"R": "eu", "S": "secret-value"}, "npx -y b@1 env R=eu S=${S}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Resolve(&Server{Name: "s", Packages: []Package{tc.p}}, tc.vars)
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(e); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if strings.Contains(fmt.Sprint(e), "secret-value") {
				t.Fatalf("a secret was written: %+v", e)
			}
		})
	}
}

func describe(e *Entry) string {
	s := strings.TrimSpace(e.Type + " " + e.URL + " " + e.Command + " " + strings.Join(e.Args, " "))
	if len(e.Env) > 0 {
		s += " env"
		for _, k := range sortedKeys(e.Env) {
			s += " " + k + "=" + e.Env[k]
		}
	}
	for _, k := range sortedKeys(e.Headers) {
		s += " " + k + ": " + e.Headers[k]
	}
	return s
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestResolveChoosesAndRemotes(t *testing.T) {
	s := &Server{Name: "s",
		Packages: []Package{{RegistryType: "mcpb", Identifier: "u"}, {RegistryType: "npm", Identifier: "h", Transport: struct {
			Type string `json:"type"`
			URL  string `json:"url"`
		}{Type: "streamable-http"}}},
		Remotes: []Remote{{Type: "sse", URL: "https://x/sse"}, {Type: "streamable-http", URL: "https://{t}.x/{r}",
			Variables: map[string]Input{"t": {IsRequired: true, Description: "tenant"}, "r": {Default: "eu"}},
			Headers:   []Input{{Name: "X-Api-Key", IsSecret: true}, {Name: "X-Fixed", Value: "1"}}}}}
	_, err := Resolve(s, nil)
	if !fail.Is(err, fail.Usage) || err.Error() != "s needs t (tenant): give each with --var NAME=VALUE" {
		t.Fatalf("err %v", err)
	}
	e, err := Resolve(s, map[string]string{"t": "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := describe(e), "http https://acme.x/eu X-Api-Key: ${X_API_KEY} X-Fixed: 1"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	_, err = Resolve(&Server{Name: "b", Packages: []Package{{RegistryType: "mcpb"}}}, nil)
	if !fail.Is(err, fail.Unsupported) || err.Error() != "b offers only what mcpx cannot run: mcpb package over stdio" {
		t.Fatalf("err %v", err)
	}
}

// A registry whose cursor comes back is refused, not followed forever;
// one whose pages never end stops at maxPages.
func TestSearchBounds(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		cursor := "same"
		if strings.Contains(r.URL.Path, "endless") || r.URL.Query().Get("search") == "endless" {
			cursor = fmt.Sprint(calls)
		}
		fmt.Fprintf(w, `{"servers":[{"server":{"name":"a","version":"1"}}],"metadata":{"nextCursor":%q}}`, cursor)
	}))
	defer srv.Close()
	c := &Client{Base: srv.URL, HTTP: srv.Client()}
	if _, err := c.Search(context.Background(), "loop"); err == nil || !strings.Contains(err.Error(), `the cursor "same" came twice`) {
		t.Fatalf("err %v", err)
	}
	calls = 0
	if _, err := c.Search(context.Background(), "endless"); err == nil || !strings.Contains(err.Error(), "more than 50 pages") || calls != maxPages {
		t.Fatalf("err %v after %d calls", err, calls)
	}
}
