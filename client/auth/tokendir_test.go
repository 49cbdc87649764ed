package auth

import "testing"

func TestTokenDirFor(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, tc := range []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"linux", map[string]string{"HOME": "/h", "LOCALAPPDATA": "/l"}, "/h/.local/state/mcpx/tokens"},
		{"darwin", map[string]string{"HOME": "/h"}, "/h/.local/state/mcpx/tokens"},
		{"linux", map[string]string{"HOME": "/h", "XDG_STATE_HOME": "/s"}, "/s/mcpx/tokens"},
		{"windows", map[string]string{"HOME": "/h", "LOCALAPPDATA": "/l"}, "/l/mcpx/tokens"},
		{"windows", map[string]string{"LOCALAPPDATA": "/l", "XDG_STATE_HOME": "/s"}, "/s/mcpx/tokens"},
		{"windows", map[string]string{"HOME": "/h", "LOCALAPPDATA": "rel"}, ""},
		{"windows", map[string]string{"HOME": "/h"}, ""},
	} {
		if got := tokenDirFor(tc.goos, env(tc.env)); got != tc.want {
			t.Errorf("tokenDirFor(%s, %v) = %q, want %q", tc.goos, tc.env, got, tc.want)
		}
	}
}
