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
		{"windows", map[string]string{"USERPROFILE": "/u"}, "/u/.config/mcpx/config.json"},
		// no home directory: no user file, never the real home of the
		// machine running the tests
		{"linux", map[string]string{}, ""},
		{"windows", map[string]string{"APPDATA": `C:\Users\u\AppData\Roaming`}, ""},
		{"linux", map[string]string{"HOME": "relative"}, ""},
	} {
		if got := userConfigPathFor(tc.goos, env(tc.env)); got != tc.want {
			t.Errorf("userConfigPathFor(%s, %v) = %q, want %q", tc.goos, tc.env, got, tc.want)
		}
	}
}

func TestUserCacheDirFor(t *testing.T) {
	for _, tc := range []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"linux", map[string]string{"HOME": "/h"}, "/h/.cache"},
		{"linux", map[string]string{"HOME": "/h", "XDG_CACHE_HOME": "/x"}, "/x"},
		{"linux", map[string]string{"HOME": "/h", "XDG_CACHE_HOME": "rel"}, "/h/.cache"},
		{"darwin", map[string]string{"HOME": "/h", "XDG_CACHE_HOME": "/x"}, "/h/Library/Caches"},
		{"windows", map[string]string{"HOME": "/h", "LOCALAPPDATA": "/l"}, "/l"},
		{"linux", map[string]string{}, ""},
	} {
		getenv := func(k string) string { return tc.env[k] }
		if got := userCacheDirFor(tc.goos, getenv); got != tc.want {
			t.Errorf("userCacheDirFor(%s, %v) = %q, want %q", tc.goos, tc.env, got, tc.want)
		}
	}
}
