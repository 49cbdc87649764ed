package commands

import (
	"slices"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
)

func TestBareKeepAlive(t *testing.T) {
	got := bareKeepAlive([]string{"mcpx", "--keep-alive", "invoke", "s", "--keep-alive=5m", "--", "--keep-alive"})
	want := []string{"mcpx", "--keep-alive=on", "invoke", "s", "--keep-alive=5m", "--", "--keep-alive"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// The precedence of WARM CONNECTIONS in mcpx(1): --no-keep-alive, then
// --keep-alive[=DUR], then $MCPX_KEEP_ALIVE, then the entry; 0 is one-shot;
// only stdio servers.
func TestKeepAlivePrecedence(t *testing.T) {
	stdio := &config.Target{Transport: config.Stdio, KeepAlive: 3 * time.Minute}
	tests := []struct {
		name     string
		flag     string
		no       bool
		env      string
		target   *config.Target
		fallback time.Duration
		want     time.Duration // 0: one-shot
		usage    bool
	}{
		{name: "entry", target: stdio, want: 3 * time.Minute},
		{name: "no entry", target: &config.Target{Transport: config.Stdio}},
		{name: "fallback (completion)", target: &config.Target{Transport: config.Stdio}, fallback: 2 * time.Minute, want: 2 * time.Minute},
		{name: "entry over fallback", target: stdio, fallback: 2 * time.Minute, want: 3 * time.Minute},
		{name: "env over entry", env: "1m", target: stdio, want: time.Minute},
		{name: "env 0", env: "0", target: stdio},
		{name: "env 0 over fallback", env: "0", target: &config.Target{Transport: config.Stdio}, fallback: 2 * time.Minute},
		{name: "bare flag takes the entry", flag: keepAliveBare, env: "1m", target: stdio, want: 3 * time.Minute},
		{name: "bare flag default", flag: keepAliveBare, target: &config.Target{Transport: config.Stdio}, want: config.DefaultKeepAlive},
		{name: "flag over env", flag: "5m", env: "0", target: stdio, want: 5 * time.Minute},
		{name: "no-keep-alive over all", no: true, flag: "5m", env: "1m", target: stdio},
		{name: "http is warm too", flag: "5m", target: &config.Target{Transport: config.HTTP}, want: 5 * time.Minute},
		{name: "bad flag", flag: "soon", target: stdio, usage: true},
		{name: "bad env", env: "never", target: stdio, usage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _ := testApp()
			a.getenv = func(k string) string {
				if k == "MCPX_KEEP_ALIVE" {
					return tt.env
				}
				return ""
			}
			a.g.keepAlive, a.g.noKeepAlive = tt.flag, tt.no
			w, err := a.keepAlive(tt.target, tt.fallback)
			if tt.usage {
				if _, ok := err.(*fail.Error); !ok {
					t.Fatalf("err = %v, want a usage error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got time.Duration
			if w != nil {
				got = w.KeepAlive
				if w.Required != (tt.flag != "") {
					t.Errorf("required = %v", w.Required)
				}
			}
			if got != tt.want {
				t.Fatalf("keep-alive %v, want %v", got, tt.want)
			}
		})
	}
}
