// Command benchhello is the floor of `scripts/bench.sh -s startup`: a
// hello-world Go program, built as mcpx is (static, -trimpath, stripped), so
// that `mcpx --version` can be timed against the start-up of any Go program.
package main

import "fmt"

func main() {
	fmt.Println("hello, world")
}
