package commands

import (
	"context"
	"testing"

	"github.com/mcpx-cli/mcpx/completions"
)

// A TAB's budget bounds reading the config and the hosts' files, whatever
// they hold: once it has ended, nothing more is waited for, and the TAB
// answers nothing from them.
func TestCompleteBudgetBoundsFiles(t *testing.T) {
	a, _ := testApp()
	ctx, cancel := context.WithCancel(context.Background())
	src := &completeSource{a: a, line: &completions.Line{}, ctx: ctx}
	block, started := make(chan struct{}), make(chan struct{})
	defer close(block)
	got := make(chan bool)
	go func() {
		got <- src.within(func() {
			close(started)
			<-block // a read that never ends
		})
	}()
	<-started
	cancel()
	if <-got {
		t.Error("within waited for f past the budget")
	}
	if _, err := src.config(); err == nil {
		t.Error("config read after the budget ended")
	}
	if src.ImportSources() != nil || src.ImportNames("cursor") != nil {
		t.Error("import candidates after the budget ended")
	}
}
