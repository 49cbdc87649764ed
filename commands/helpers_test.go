package commands

import "sync"

// Test scaffolding that several of the package's tests share.

// racePauses pauses and resumes clk from 8 goroutines at once, 20 times
// each (nested, as several questions would), asking for its expiry in
// between, and waits for them; then it resumes once too many, which the
// clock ignores.
func racePauses(clk *clock) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				clk.pause()
				_ = clk.expires()
				clk.resume()
			}
		}()
	}
	wg.Wait()
	clk.resume() // one too many: ignored
}
