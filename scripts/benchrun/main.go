//go:build unix

// Command benchrun times commands the way scripts/bench.sh needs when
// hyperfine is not installed: it runs them alternately (A B, B A, A B, ...),
// after warm-up runs, each directly (no shell), with stdin and stdout on
// /dev/null, and reports wall time and peak RSS per command.
//
// Usage:
//
//	benchrun [-n RUNS] [-warmup RUNS] [-human] -- LABEL COMMAND [ARG...] ::: LABEL COMMAND [ARG...] ...
//	benchrun -hyperfine FILE   (reformat hyperfine --export-json FILE)
//
// Output (one line per command, tab-separated, times in milliseconds):
//
//	LABEL  RUNS  MEAN  MEDIAN  STDDEV  MIN  MAX  RSS_KB
//
// RSS_KB is the median over the runs of the peak resident set size that
// wait4 reports: the largest of the command and every descendant it waited
// for (for `mcpx catalog`, mcpx or its server, whichever peaked higher).
//
// A run that exits non-zero stops everything: its stderr is shown and
// benchrun exits 1.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"time"
)

type command struct {
	label string
	argv  []string
	wall  []float64 // ms
	rss   []float64 // KiB
}

func main() {
	n := flag.Int("n", 30, "timed runs per command")
	warmup := flag.Int("warmup", 3, "untimed warm-up runs per command")
	human := flag.Bool("human", false, "print a readable table instead of tab-separated fields")
	hyperfine := flag.String("hyperfine", "", "run nothing: print the results of hyperfine --export-json `FILE` (commands named with -n) in benchrun's format")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: benchrun [-n RUNS] [-warmup RUNS] [-human] -- LABEL COMMAND [ARG...] ::: LABEL COMMAND [ARG...] ...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *hyperfine != "" {
		if err := fromHyperfine(*hyperfine); err != nil {
			fatal(err)
		}
		return
	}
	cmds, err := parse(flag.Args())
	if err != nil || *n < 1 || *warmup < 0 {
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchrun:", err)
		}
		flag.Usage()
		os.Exit(2)
	}
	errFile, err := os.CreateTemp("", "benchrun-stderr-*")
	if err != nil {
		fatal(err)
	}
	defer os.Remove(errFile.Name())
	if err := bench(cmds, *n, *warmup, errFile); err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Remove(errFile.Name())
		os.Exit(1)
	}
	for _, c := range cmds {
		mean, sd := meanStddev(c.wall)
		if *human {
			fmt.Printf("%-12s  %3d runs  mean %8.1f ms  median %8.1f ms  sd %6.1f ms  min %8.1f  max %8.1f  rss %7.0f KiB\n",
				c.label, len(c.wall), mean, median(c.wall), sd, minOf(c.wall), maxOf(c.wall), median(c.rss))
			continue
		}
		fmt.Printf("%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.0f\n",
			c.label, len(c.wall), mean, median(c.wall), sd, minOf(c.wall), maxOf(c.wall), median(c.rss))
	}
}

// fromHyperfine prints hyperfine's JSON export (times in seconds) as
// benchrun's tab-separated lines, RSS unknown ("-").
func fromHyperfine(file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var doc struct {
		Results []struct {
			Command string    `json:"command"`
			Times   []float64 `json:"times"`
		} `json:"results"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	for _, r := range doc.Results {
		if len(r.Times) == 0 {
			return fmt.Errorf("%s: %q has no times", file, r.Command)
		}
		ms := make([]float64, len(r.Times))
		for i, t := range r.Times {
			ms[i] = t * 1000
		}
		mean, sd := meanStddev(ms)
		fmt.Printf("%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t-\n", r.Command, len(ms), mean, median(ms), sd, minOf(ms), maxOf(ms))
	}
	return nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "benchrun:", err)
	os.Exit(1)
}

func parse(args []string) ([]*command, error) {
	var cmds []*command
	var cur []string
	flush := func() error {
		if len(cur) < 2 {
			return errors.New("each command needs a LABEL and a COMMAND")
		}
		cmds = append(cmds, &command{label: cur[0], argv: cur[1:]})
		cur = nil
		return nil
	}
	for _, a := range args {
		if a == ":::" {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		cur = append(cur, a)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return cmds, nil
}

// bench runs warm-up rounds then timed rounds; each round runs every
// command once, the order reversed every other round.
func bench(cmds []*command, n, warmup int, errFile *os.File) error {
	order := make([]*command, len(cmds))
	for round := 0; round < warmup+n; round++ {
		copy(order, cmds)
		if round%2 == 1 {
			for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
				order[i], order[j] = order[j], order[i]
			}
		}
		for _, c := range order {
			wall, rss, err := once(c.argv, errFile)
			if err != nil {
				return fmt.Errorf("%s: %s: %w%s", c.label, strings.Join(c.argv, " "), err, tail(errFile))
			}
			if round >= warmup {
				c.wall = append(c.wall, wall)
				c.rss = append(c.rss, rss)
			}
		}
	}
	return nil
}

func once(argv []string, errFile *os.File) (wallMS, rssKB float64, err error) {
	if err := errFile.Truncate(0); err != nil {
		return 0, 0, err
	}
	if _, err := errFile.Seek(0, io.SeekStart); err != nil {
		return 0, 0, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = errFile // stdin and stdout: /dev/null (exec's default for nil)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	err = cmd.Wait()
	wall := time.Since(start)
	if err != nil {
		return 0, 0, err
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rssKB = float64(ru.Maxrss) // KiB on Linux
	}
	return float64(wall.Microseconds()) / 1000, rssKB, nil
}

func tail(f *os.File) string {
	b, err := os.ReadFile(f.Name())
	if err != nil || len(b) == 0 {
		return ""
	}
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return "\nits stderr:\n" + strings.TrimRight(string(b), "\n")
}

func meanStddev(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)-1))
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func minOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = math.Min(m, x)
	}
	return m
}

func maxOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}
