package render

import (
	"bufio"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpx-cli/mcpx/internal/limits"
)

const blob50MiB = limits.DecodeCeiling // the largest blob a response can carry

// BenchmarkSpill50MiB spills a new 50 MiB blob each iteration: hash, write
// through a temporary file and rename, and an eviction walk.
func BenchmarkSpill50MiB(b *testing.B) {
	data := make([]byte, blob50MiB)
	rand.Read(data)
	s := &Spiller{Root: b.TempDir()}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		got, err := s.Spill("bench", data, "application/octet-stream")
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.Remove(got.Path) // so the next iteration writes again
		b.StartTimer()
	}
}

// BenchmarkSpill50MiBReuse spills the same 50 MiB blob again: hash, size
// check, touch, eviction walk.
func BenchmarkSpill50MiBReuse(b *testing.B) {
	data := make([]byte, blob50MiB)
	rand.Read(data)
	s := &Spiller{Root: b.TempDir()}
	if _, err := s.Spill("bench", data, "application/octet-stream"); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Spill("bench", data, "application/octet-stream"); err != nil {
			b.Fatal(err)
		}
	}
}

// vmHWM is this process's peak resident set size in bytes, from /proc/self/status.
func vmHWM() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/self/status")
}

// helperRSS (TestSpillHelperProcess, mode "rss") allocates one 50 MiB blob,
// spills it, and prints its peak RSS at the start, once the blob is filled,
// and after the spill.
func helperRSS() error {
	start, err := vmHWM()
	if err != nil {
		return err
	}
	data := make([]byte, blob50MiB)
	rand.Read(data)
	filled, err := vmHWM()
	if err != nil {
		return err
	}
	if _, err := (&Spiller{Root: filepath.Join(os.Getenv("MCPX_SPILL_ROOT"), "cache")}).Spill("rss", data, ""); err != nil {
		return err
	}
	after, err := vmHWM()
	fmt.Println(start, filled, after)
	return err
}

// TestSpillPeakRSS: spilling a 50 MiB blob costs about the blob itself (which
// the caller holds anyway) and no copy of it.
func TestSpillPeakRSS(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status")
	}
	if testing.Short() {
		t.Skip("writes 50 MiB")
	}
	out, err := helperCmd("rss", "MCPX_SPILL_ROOT="+t.TempDir()).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var start, filled, after int64
	if _, err := fmt.Sscan(string(out), &start, &filled, &after); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	const mib = 1 << 20
	t.Logf("peak RSS %.1f MiB = %.2f× the 50 MiB blob (%.1f MiB at start, %.1f MiB with the blob filled, +%.1f MiB for the spill)",
		float64(after)/mib, float64(after)/blob50MiB, float64(start)/mib, float64(filled)/mib, float64(after-filled)/mib)
	if raceDetector() {
		return // its shadow memory, mapped as the spill reads the blob, swamps the figure
	}
	// Neither the hash nor the write may copy the blob (that would be +50 MiB).
	if after-filled >= blob50MiB/2 {
		t.Errorf("the spill raised peak RSS by %.1f MiB, want under 25 MiB", float64(after-filled)/mib)
	}
}

// raceDetector reports whether this binary was built with -race.
func raceDetector() bool {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" {
				return s.Value == "true"
			}
		}
	}
	return false
}
