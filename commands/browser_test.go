package commands

import (
	"slices"
	"testing"
)

func TestBrowserArgv(t *testing.T) {
	const u = "https://as.example/authorize?a=1&b=2"
	for _, tc := range []struct {
		goos, browser string
		want          []string
	}{
		{"linux", "", []string{"xdg-open", u}},
		{"freebsd", "", []string{"xdg-open", u}},
		{"darwin", "", []string{"open", u}},
		{"windows", "", []string{"rundll32", "url.dll,FileProtocolHandler", u}},
		{"linux", "firefox --new-tab:chromium", []string{"firefox", "--new-tab", u}},
		{"linux", "w3m %s -dump", []string{"w3m", u, "-dump"}},
		{"windows", `C:\Tools\browser.exe;other`, []string{`C:\Tools\browser.exe`, u}},
	} {
		if got := browserArgv(tc.goos, u, tc.browser); !slices.Equal(got, tc.want) {
			t.Errorf("browserArgv(%s, %q) = %q, want %q", tc.goos, tc.browser, got, tc.want)
		}
	}
}
