package config

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/internal/fail"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestLoadTypesAndInference(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "c.json")
	writeFile(t, f, `{"mcpServers": {
		"a": {"command": "srv", "args": ["--x"], "unknownKey": 1},
		"b": {"url": "https://example.com/mcp"},
		"c": {"url": "https://example.com/sse", "type": "sse", "timeout": "45s"},
		"d": {"command": "x", "url": "http://y"},
		"e": {"type": "carrier-pigeon", "command": "x"},
		"f": {"url": "http://x", "timeout": 45}
	}}`)
	cfg, err := Load(LoadOptions{File: f, Getenv: env()})
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Names(); !reflect.DeepEqual(got, []string{"a", "b", "c", "d", "e", "f"}) {
		t.Fatalf("names %v", got)
	}
	if s := cfg.Servers["a"]; s.Transport != Stdio || s.Target() != "srv --x" || s.Source != f {
		t.Errorf("a: %+v", s)
	}
	if s := cfg.Servers["b"]; s.Transport != HTTP || s.explicitType {
		t.Errorf("b: %+v", s)
	}
	if s := cfg.Servers["c"]; s.Transport != SSE || s.Timeout != 45*time.Second {
		t.Errorf("c: %+v", s)
	}
	for name, want := range map[string]string{"d": "both", "e": "unknown type", "f": "duration"} {
		_, err := Resolve(cfg.Servers[name], ResolveOptions{Getenv: env()})
		ce, ok := fail.As(err, fail.Usage)
		if !ok || !strings.Contains(err.Error(), want) || ce.Server != name {
			t.Errorf("%s: err %v, want a Error mentioning %q", name, err, want)
		}
	}
}

func TestLoadBadJSON(t *testing.T) {
	f := filepath.Join(t.TempDir(), "c.json")
	writeFile(t, f, "{\n  \"mcpServers\": {\n    \"a\": {,}\n  }\n}\n")
	_, err := Load(LoadOptions{File: f, Getenv: env()})
	if err == nil || !strings.Contains(err.Error(), "line 3, column 11") {
		t.Fatalf("err %v", err)
	}
	if _, err := Load(LoadOptions{File: filepath.Join(t.TempDir(), "missing.json"), Getenv: env()}); err == nil {
		t.Fatal("a missing --config file is not an error")
	}
}

func TestExpansion(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, ".vscode", "mcp.json")
	writeFile(t, f, `{"servers": {
		"v": {"command": "./bin/srv", "args": ["${env:TOKEN}", "${workspaceFolder}/x", "${MODE:-fast}", "$HOME"], "cwd": "data",
		      "env": {"K": "${TOKEN}"}},
		"unset": {"command": "srv", "args": ["${NOPE}"]},
		"input": {"command": "srv", "args": ["${input:apiKey}"]},
		"h": {"url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
	}}`)
	cfg, err := Load(LoadOptions{File: f, Getenv: env()})
	if err != nil {
		t.Fatal(err)
	}
	environ := []string{"TOKEN=tok-123456", "HOST=example.com", "PATH=/bin", "SECRET_OTHER=zzz", "LC_ALL=C"}
	o := ResolveOptions{Getenv: env(), Environ: environ, Headers: []string{"X-Extra: a,b"}}
	tg, err := Resolve(cfg.Servers["v"], o)
	if err != nil {
		t.Fatal(err)
	}
	if tg.Command != filepath.Join(dir, ".vscode", "bin/srv") || tg.Dir != filepath.Join(dir, ".vscode", "data") {
		t.Errorf("paths: %q %q", tg.Command, tg.Dir)
	}
	if want := []string{"tok-123456", dir + "/x", "fast", "$HOME"}; !reflect.DeepEqual(tg.Args, want) {
		t.Errorf("args %q, want %q", tg.Args, want)
	}
	if want := []string{"PATH=/bin", "LC_ALL=C", "K=tok-123456"}; !reflect.DeepEqual(tg.Env, want) {
		t.Errorf("env %q, want %q", tg.Env, want)
	}
	if !slices.Contains(tg.Secrets, "tok-123456") {
		t.Errorf("${TOKEN} is not a secret: %q", tg.Secrets)
	}
	for _, s := range []string{dir, dir + "/x", "fast"} {
		if slices.Contains(tg.Secrets, s) {
			t.Errorf("%q (an ordinary value) is a secret: %q", s, tg.Secrets)
		}
	}
	_, err = Resolve(cfg.Servers["unset"], o)
	if ce, ok := fail.As(err, fail.Usage); !ok || ce.What != "variable" || ce.Name != "NOPE" || ce.Server != "unset" || !errors.Is(err, ErrInvalid) {
		t.Errorf("unset: %v", err)
	}
	if _, err = Resolve(cfg.Servers["input"], o); err == nil || !strings.Contains(err.Error(), "${input:apiKey}") {
		t.Errorf("input: %v", err)
	}
	h, err := Resolve(cfg.Servers["h"], o)
	if err != nil {
		t.Fatal(err)
	}
	if h.URL != "https://example.com/mcp" || h.Headers["Authorization"] != "Bearer tok-123456" || h.Headers["X-Extra"] != "a,b" || !h.Fallback || h.SpillName != "h" {
		t.Errorf("h: %+v", h)
	}
	if !slices.Contains(h.Secrets, "a,b") || !slices.Contains(h.Secrets, "Bearer tok-123456") {
		t.Errorf("header values are secrets: %q", h.Secrets)
	}
	if cfg.Servers["h"].Target() != "https://${HOST}/mcp" {
		t.Errorf("target is shown unexpanded: %q", cfg.Servers["h"].Target())
	}
}

func TestInheritEnvAndTimeout(t *testing.T) {
	f := filepath.Join(t.TempDir(), "c.json")
	writeFile(t, f, `{"mcpServers": {"i": {"command": "x", "inheritEnv": true, "timeout": "5s", "env": {"PATH": "/custom"}}}}`)
	cfg, _ := Load(LoadOptions{File: f, Getenv: env()})
	tg, err := Resolve(cfg.Servers["i"], ResolveOptions{Environ: []string{"PATH=/bin", "OTHER=1"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"OTHER=1", "PATH=/custom"}; !reflect.DeepEqual(tg.Env, want) {
		t.Errorf("env %q, want %q", tg.Env, want)
	}
	if tg.Timeout != 5*time.Second {
		t.Errorf("server timeout %s", tg.Timeout)
	}
	tg, _ = Resolve(cfg.Servers["i"], ResolveOptions{Timeout: time.Second})
	if tg.Timeout != time.Second {
		t.Errorf("--timeout wins: %s", tg.Timeout)
	}
}

func TestProjectTrust(t *testing.T) {
	root := t.TempDir()
	xdg := filepath.Join(root, "xdg")
	proj := filepath.Join(root, "proj")
	writeFile(t, filepath.Join(proj, ".mcp.json"), `{"mcpServers": {"p": {"command": "p"}, "u": {"command": "evil"}}}`)
	writeFile(t, filepath.Join(xdg, "mcpx", "config.json"), `{"mcpServers": {"u": {"command": "good"}}}`)
	ge := env("XDG_CONFIG_HOME", xdg)
	cfg, err := Load(LoadOptions{Cwd: proj, Getenv: ge})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cfg.Servers["p"]; ok || len(cfg.Notes) != 0 || cfg.Untrusted != proj {
		t.Errorf("untrusted project file was read: %v %v %q", cfg.Names(), cfg.Notes, cfg.Untrusted)
	}
	cfg, _ = Load(LoadOptions{Cwd: proj, Getenv: ge, Project: true})
	if _, ok := cfg.Servers["p"]; !ok || cfg.Servers["u"].Command != "good" || len(cfg.Warns) != 1 {
		t.Errorf("--project: %v %q %v", cfg.Names(), cfg.Servers["u"].Command, cfg.Warns)
	}
	writeFile(t, filepath.Join(xdg, "mcpx", "config.json"), `{"trustedProjects": ["`+proj+`"], "mcpServers": {}}`)
	cfg, _ = Load(LoadOptions{Cwd: proj, Getenv: ge})
	if _, ok := cfg.Servers["p"]; !ok {
		t.Errorf("trustedProjects: %v", cfg.Names())
	}
	cfg, _ = Load(LoadOptions{Cwd: proj, Getenv: ge, File: filepath.Join(proj, ".mcp.json")})
	if len(cfg.Files) != 1 {
		t.Errorf("--config reads one file: %v", cfg.Files)
	}
}

func TestLookup(t *testing.T) {
	cfg := &Config{Servers: map[string]*Server{"x": {Name: "x", Transport: Stdio, Command: "x"}}}
	if s, err := cfg.Lookup("demo", "/bin/mcpx"); err != nil || s.Source != SourceBuiltin || s.Target() != "mcpx serve-demo" {
		t.Errorf("demo: %+v %v", s, err)
	}
	if s, err := cfg.Lookup("https://h.example/mcp", ""); err != nil || s.Transport != HTTP {
		t.Errorf("url: %+v %v", s, err)
	}
	if _, err := cfg.Lookup("nope", ""); !fail.Is(err, fail.NotFound) {
		t.Errorf("nope: %v", err)
	}
	cfg.Servers["demo"] = &Server{Name: "demo", Transport: HTTP, URL: "http://x"}
	if s, _ := cfg.Lookup("demo", ""); s.Source == SourceBuiltin {
		t.Error("a configured demo does not override the built-in one")
	}
}

func TestParseHeader(t *testing.T) {
	for _, tc := range []struct{ in, k, v string }{{"A: b", "A", "b"}, {"X-Y:  a, b ", "X-Y", "a, b"}, {"Empty:", "Empty", ""}} {
		k, v, err := ParseHeader(tc.in)
		if err != nil || k != tc.k || v != tc.v {
			t.Errorf("%q: %q %q %v", tc.in, k, v, err)
		}
	}
	for _, bad := range []string{"novalue", ": x", "a b: c"} {
		if _, _, err := ParseHeader(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestHeaderAndURLSecrets(t *testing.T) {
	if got := HeaderSecrets("Bearer tok-123"); !reflect.DeepEqual(got, []string{"Bearer tok-123", "tok-123"}) {
		t.Errorf("bearer: %q", got)
	}
	if got := HeaderSecrets("k-12345"); !reflect.DeepEqual(got, []string{"k-12345"}) {
		t.Errorf("plain: %q", got)
	}
	u, _ := url.Parse("http://bob:pw-123@h/x")
	if got := URLSecrets(u); !reflect.DeepEqual(got, []string{"pw-123", "bob:pw-123", "Ym9iOnB3LTEyMw=="}) {
		t.Errorf("url: %q", got)
	}
	h := map[string]string{"authorization": "a"}
	setHeader(h, "Authorization", "b")
	if !reflect.DeepEqual(h, map[string]string{"Authorization": "b"}) {
		t.Errorf("headers are case-insensitive: %v", h)
	}
}

// A client id is public (it is in every authorization URL, which
// --no-browser users copy); the client secret is a secret.
func TestResolveOAuthSecrets(t *testing.T) {
	s := &Server{Name: "srv", Transport: HTTP, URL: "https://example.com/mcp", explicitType: true,
		OAuth: &OAuthConfig{ClientID: "${CID}", ClientSecret: "${SEC}", Scopes: []string{"a"}}}
	tg, err := Resolve(s, ResolveOptions{Getenv: func(string) string { return "" }, Environ: []string{"CID=client-1234", "SEC=secret-5678"}})
	if err != nil {
		t.Fatal(err)
	}
	if tg.OAuth.ClientID != "client-1234" || tg.OAuth.ClientSecret != "secret-5678" {
		t.Errorf("OAuth = %+v", tg.OAuth)
	}
	if !slices.Contains(tg.Secrets, "secret-5678") || slices.Contains(tg.Secrets, "client-1234") {
		t.Errorf("Secrets = %q", tg.Secrets)
	}
}

// The jwt-bearer and id-jag grants: the variables they name are read when
// the entry is (and are secrets), the files they name are relative to the
// config file's directory and read at each grant.
func TestResolveGrantCredentials(t *testing.T) {
	env := ResolveOptions{Getenv: func(string) string { return "" }, Environ: []string{"WIF=eyJ.wif", "IDT=eyJ.idt", "IDP_SEC=idp-secret"}}
	s := &Server{Name: "srv", Transport: HTTP, URL: "https://example.com/mcp", explicitType: true, Dir: "/etc/mcpx",
		OAuth: &OAuthConfig{Grant: GrantJWTBearer, AssertionEnv: "WIF"}}
	tg, err := Resolve(s, env)
	if err != nil || tg.OAuth.Assertion != "eyJ.wif" || !slices.Contains(tg.Secrets, "eyJ.wif") {
		t.Fatalf("Resolve = %+v, %v (secrets %q)", tg.OAuth, err, tg.Secrets)
	}
	s.OAuth = &OAuthConfig{Grant: GrantJWTBearer, AssertionFile: "ci/token.jwt"}
	if tg, err := Resolve(s, env); err != nil || tg.OAuth.AssertionFile != "/etc/mcpx/ci/token.jwt" || tg.OAuth.Assertion != "" {
		t.Errorf("Resolve = %+v, %v", tg.OAuth, err)
	}
	s.OAuth = &OAuthConfig{Grant: GrantIDJAG, ClientID: "c", IdP: &IdPConfig{Issuer: "https://idp.example", ClientID: "i",
		ClientSecret: "${IDP_SEC}", IDTokenEnv: "IDT"}}
	tg, err = Resolve(s, env)
	if err != nil || tg.OAuth.IdP.IDToken != "eyJ.idt" || tg.OAuth.IdP.ClientSecret != "idp-secret" ||
		!slices.Contains(tg.Secrets, "eyJ.idt") || !slices.Contains(tg.Secrets, "idp-secret") {
		t.Fatalf("Resolve = %+v, %v (secrets %q)", tg.OAuth.IdP, err, tg.Secrets)
	}
	s.OAuth.IdP.IDTokenEnv = "UNSET"
	_, err = Resolve(s, env)
	if ce, ok := fail.As(err, fail.Usage); !ok || ce.What != "variable" || ce.Name != "UNSET" {
		t.Errorf("unset variable: %v", err)
	}
}
