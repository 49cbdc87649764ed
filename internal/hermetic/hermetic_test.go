package hermetic

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	real, _ := os.UserHomeDir()
	os.Setenv("MCPX_CONFIG", "/somewhere/config.json")
	realHome = real
	os.Exit(M(m).Run())
}

var realHome string

// The tests run with every user directory in a temporary directory, mcpx's
// own variables gone, and the Go tool's directories where they were.
func TestEnvironment(t *testing.T) {
	root := os.Getenv(marker)
	if root == "" {
		t.Fatal("not hermetic")
	}
	for _, k := range []string{"HOME", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"} {
		if v := os.Getenv(k); !strings.HasPrefix(v, root+string(filepath.Separator)) {
			t.Errorf("%s=%q, not under %s", k, v, root)
		}
	}
	if h, _ := os.UserHomeDir(); h == realHome {
		t.Errorf("os.UserHomeDir() is the real home %s", h)
	}
	if v, ok := os.LookupEnv("MCPX_CONFIG"); ok {
		t.Errorf("MCPX_CONFIG=%q", v)
	}
	if realHome != "" && os.Getenv("GOPATH") == "" {
		t.Error("GOPATH not kept")
	}
	if gp := os.Getenv("GOPATH"); gp != "" && strings.HasPrefix(gp, root) {
		t.Errorf("GOPATH moved to %s", gp)
	}
}
