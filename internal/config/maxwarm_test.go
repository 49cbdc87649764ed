package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMaxWarm: "maxWarm" of mcpx's own file bounds the daemon's targets (0
// when not given: the daemon's default); anything but a whole number from
// 1 to MaxMaxWarm is the file's error.
func TestMaxWarm(t *testing.T) {
	load := func(body string) (*Config, error) {
		f := filepath.Join(t.TempDir(), "c.json")
		writeFile(t, f, body)
		return Load(LoadOptions{File: f, Getenv: env()})
	}
	for body, want := range map[string]int{`{}`: 0, `{"maxWarm": 4}`: 4, `{"maxWarm": null}`: 0, `{"maxWarm": 1024}`: 1024} {
		cfg, err := load(body)
		if err != nil || cfg.MaxWarm != want {
			t.Errorf("%s: MaxWarm %v (%v), want %d", body, cfg, err, want)
		}
	}
	for _, bad := range []string{`0`, `-1`, `2.5`, `"32"`, `true`, `1025`} {
		_, err := load(`{"maxWarm": ` + bad + `}`)
		if err == nil || !strings.Contains(err.Error(), `"maxWarm" must be a whole number from 1 to 1024, not `+bad) {
			t.Errorf("maxWarm %s: %v", bad, err)
		}
	}
}
