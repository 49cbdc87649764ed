package config

import (
	"encoding/base64"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

func TestIsSecretName(t *testing.T) {
	secret := []string{"API_KEY", "apiKey", "APIKey", "api-key", "api.key", "APIKEY", "GITHUB_PAT", "ACCESS_TOKEN",
		"accessToken", "ACCESSTOKEN", "GITHUB_TOKEN", "GH_TOKEN2", "DB_PASSWORD", "dbPassword", "PASSWD", "GPG_PASSPHRASE",
		"SESSION_ID", "sessionId", "SESSIONID", "X_AUTH", "x-auth", "MCPX_TEST_SECRET", "CLIENT_SECRET", "clientSecret",
		"OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "SLACK_COOKIE", "PRIVATE_KEY", "CREDENTIALS", "TOKEN", "key",
		"OAuth2Token", "HX_SECRET", "ROBUST_SECRET", "API_TOKEN"}
	ordinary := []string{"PATH", "KEYBOARD", "keyboardLayout", "AUTHOR", "authorName", "MCP_LOG_LEVEL", "LOG_LEVEL", "PORT",
		"NODE_ENV", "DEBUG", "HOME", "MCP_TRANSPORT_TYPE", "MONKEY", "PATHS", "TOKEN_FILE", "SSH_AUTH_SOCK", "AUTH_TYPE",
		"AUTH_URL", "SESSION_TIMEOUT", "PRIVATE_KEY_PATH", "TOKEN_TYPE", "AUTH_ENABLED", "OAUTH_CLIENT_ID", "", "_",
		"MCPX_FIXTURE_PIDFILE", "MCPX_WS", "PATTERN", "SPATIAL", "K", "H"}
	for _, n := range secret {
		if !IsSecretName(n) {
			t.Errorf("%q is not a secret name (parts %q)", n, nameParts(n))
		}
	}
	for _, n := range ordinary {
		if IsSecretName(n) {
			t.Errorf("%q is a secret name (parts %q)", n, nameParts(n))
		}
	}
	if got := nameParts("myAPIKey2-x.y_Z"); !reflect.DeepEqual(got, []string{"MY", "API", "KEY", "2", "X", "Y", "Z"}) {
		t.Errorf("parts %q", got)
	}
}

func TestURLSecretsKinds(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, tc := range []struct {
		url  string
		want []string
	}{
		{"https://h/mcp", nil},
		{"https://user:p%40ss-1@h/mcp", []string{"p@ss-1", "user:p@ss-1", b64("user:p@ss-1"), "p%40ss-1"}},
		{"https://tok-abcdef@h/mcp", []string{"tok-abcdef", b64("tok-abcdef:")}},
		{"https://h/mcp?api_key=k1234&page=2&access_token=a%2Bb12&sig=s1234&mode=info", []string{"k1234", "a%2Bb12", "a+b12", "s1234"}},
		{"https://h/mcp?key=&apiKey", nil},
	} {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := URLSecrets(u); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.url, got, tc.want)
		}
	}
	got := HeaderSecrets("Basic " + b64("bob:hunter22"))
	if want := []string{"Basic " + b64("bob:hunter22"), b64("bob:hunter22"), "bob:hunter22", "hunter22"}; !reflect.DeepEqual(got, want) {
		t.Errorf("basic: %q, want %q", got, want)
	}
}

func TestDisplayURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.com/mcp":                            "https://example.com/mcp",
		"http://user:PASS@host/mcp":                          "http://user:***@host/mcp",
		"http://user:${PASS}@host/mcp":                       "http://user:${PASS}@host/mcp",
		"http://user:x${PASS}@host/mcp":                      "http://user:***@host/mcp",
		"https://TOKEN@host":                                 "https://***@host",
		"https://${TOKEN}@host":                              "https://${TOKEN}@host",
		"http://127.0.0.1:1/mcp?key=${API_KEY}":              "http://127.0.0.1:1/mcp?key=${API_KEY}",
		"http://h/mcp?api_key=k-1&page=2&token=t-2#frag?x=1": "http://h/mcp?api_key=***&page=2&token=***#frag?x=1",
		"http://h/p@th?mode=info":                            "http://h/p@th?mode=info",
		"not a url":                                          "not a url",
	} {
		if got := displayURL(in); got != want {
			t.Errorf("displayURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestResolveSecretsRule: secrets are what they say they are. Header
// values, secret-named env entries and ${VAR}s, URL credentials, and the
// names an entry lists in "secrets" are secrets; ordinary values are not.
func TestResolveSecretsRule(t *testing.T) {
	environ := []string{"GITHUB_TOKEN=ghp-123456", "MODE=production", "DIR=/srv/data", "PLAIN=plain-value-1",
		"CUSTOM=custom-secret-1", "HOST=example.com"}
	s := &Server{Name: "s", Transport: Stdio, Command: "srv", Args: []string{"--token", "${GITHUB_TOKEN}", "--mode", "${MODE}"},
		Cwd: "${DIR}", Env: map[string]string{
			"NODE_ENV": "production", "LOG_LEVEL": "info", "MCP_LOG_LEVEL": "error", "MCP_TRANSPORT_TYPE": "stdio",
			"DEBUG": "true", "PORT": "8080", "DATA": "${DIR}/x", "API_KEY": "k-${PLAIN}", "MY_VALUE": "${CUSTOM}",
			"other": "literal-listed"},
		Secrets: []string{"my_value", "OTHER"}}
	tg, err := Resolve(s, ResolveOptions{Environ: environ})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ghp-123456", "k-plain-value-1", "plain-value-1", "custom-secret-1", "literal-listed"}
	for _, w := range want {
		if !slices.Contains(tg.Secrets, w) {
			t.Errorf("%q is not a secret: %q", w, tg.Secrets)
		}
	}
	for _, o := range []string{"production", "info", "error", "stdio", "true", "8080", "/srv/data", "/srv/data/x"} {
		if slices.Contains(tg.Secrets, o) {
			t.Errorf("ordinary value %q is a secret: %q", o, tg.Secrets)
		}
	}

	h := &Server{Name: "h", Transport: HTTP, URL: "https://bob:pw-98765@${HOST}/mcp?mode=${MODE}&api_key=${PLAIN}",
		Headers: map[string]string{"X-Tenant": "t-${MODE}"}}
	tg, err = Resolve(h, ResolveOptions{Environ: environ, Headers: []string{"X-Extra: extra-1234"}})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"t-production", "production", "extra-1234", "pw-98765", "bob:pw-98765",
		base64.StdEncoding.EncodeToString([]byte("bob:pw-98765")), "plain-value-1"}
	for _, w := range want {
		if !slices.Contains(tg.Secrets, w) {
			t.Errorf("%q is not a secret: %q", w, tg.Secrets)
		}
	}
	if slices.Contains(tg.Secrets, "example.com") {
		t.Errorf("the host is a secret: %q", tg.Secrets)
	}
	if got := h.Target(); got != "https://bob:***@${HOST}/mcp?mode=${MODE}&api_key=${PLAIN}" {
		t.Errorf("target %q", got)
	}
}

// TestResolveValueURLs: a URL in a stdio server's arguments or env values
// (the reference Postgres server's connection string) has its password and
// credential-like query parameters as secrets, shown as *** by servers; a
// username alone is neither a secret nor hidden.
func TestResolveValueURLs(t *testing.T) {
	s := &Server{Name: "pg", Transport: Stdio, Command: "node",
		Args: []string{"index.js", "postgresql://app:pg-pw-4242@db.internal:5432/shop", "--dsn=mysql://root:my-pw-777@h/db",
			"postgres://postgres@localhost/db", "https://h/x?api_key=qk-5555&page=2", "postgresql://u:${PGPASS}@h/db"},
		Env: map[string]string{"DATABASE_URL": "redis://:rd-pw-8080@cache:6379/0", "HOME_URL": "https://example.com/"}}
	tg, err := Resolve(s, ResolveOptions{Environ: []string{"PGPASS=env-pw-3131"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"pg-pw-4242", "app:pg-pw-4242", "my-pw-777", "qk-5555", "env-pw-3131", "rd-pw-8080"} {
		if !slices.Contains(tg.Secrets, w) {
			t.Errorf("%q is not a secret: %q", w, tg.Secrets)
		}
	}
	for _, o := range []string{"postgres", "app", "root", "db.internal", "https://example.com/"} {
		if slices.Contains(tg.Secrets, o) {
			t.Errorf("%q is a secret: %q", o, tg.Secrets)
		}
	}
	want := "node index.js 'postgresql://app:***@db.internal:5432/shop' '--dsn=mysql://root:***@h/db' " +
		"postgres://postgres@localhost/db 'https://h/x?api_key=***&page=2' postgresql://u:${PGPASS}@h/db"
	if got := s.Target(); got != want {
		t.Errorf("target\n got %q\nwant %q", got, want)
	}
}

func TestSecretsKey(t *testing.T) {
	f := filepath.Join(t.TempDir(), "c.json")
	writeFile(t, f, `{"mcpServers": {"a": {"command": "x", "secrets": ["FOO"]}, "b": {"command": "x", "secrets": "FOO"}}}`)
	cfg, err := Load(LoadOptions{File: f, Getenv: env()})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.Servers["a"].Secrets, []string{"FOO"}) {
		t.Errorf("secrets %q", cfg.Servers["a"].Secrets)
	}
	if _, err := Resolve(cfg.Servers["b"], ResolveOptions{}); err == nil || err.Error() != `server "b": "secrets" must be an array of strings, not string` {
		t.Errorf("b: %v", err)
	}
}
