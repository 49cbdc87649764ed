package config

import (
	"os"
	"testing"

	"github.com/mcpx-cli/mcpx/internal/hermetic"
)

// The tests never see the machine's own config, state or daemon.
func TestMain(m *testing.M) { os.Exit(hermetic.M(m).Run()) }
