package config

import "testing"

func TestUserConfigPathFor(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, tc := range []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"linux", map[string]string{"HOME": "/h", "APPDATA": "/a"}, "/h/.config/mcpx/config.json"},
		{"darwin", map[string]string{"HOME": "/h", "APPDATA": "/a"}, "/h/.config/mcpx/config.json"},
		{"windows", map[string]string{"HOME": "/h", "APPDATA": "/a"}, "/a/mcpx/config.json"},
		{"windows", map[string]string{"APPDATA": "/a", "XDG_CONFIG_HOME": "/x"}, "/x/mcpx/config.json"},
		{"windows", map[string]string{"HOME": "/h", "APPDATA": "relative"}, "/h/.config/mcpx/config.json"},
	} {
		if got := userConfigPathFor(tc.goos, env(tc.env)); got != tc.want {
			t.Errorf("userConfigPathFor(%s, %v) = %q, want %q", tc.goos, tc.env, got, tc.want)
		}
	}
}
