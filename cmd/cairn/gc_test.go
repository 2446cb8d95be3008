package main

import (
	"math"
	"os"
	"runtime/debug"
	"testing"
)

func TestLessGC(t *testing.T) {
	// t.Setenv restores GOGC at the end; lessGC looks only at whether it
	// is set, so the set case comes first and os.Unsetenv makes the other.
	t.Setenv("GOGC", "")
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	restore := lessGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set: collector at %d, want it left at 100", got)
	}
	restore()

	os.Unsetenv("GOGC")
	limit := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(limit)
	restore = lessGC()
	pct := debug.SetGCPercent(400)
	lim := debug.SetMemoryLimit(-1)
	restore()
	if pct != 400 || lim != 1<<30 {
		t.Errorf("one-shot settings: GC percent %d, memory limit %d; want 400 and 1 GiB", pct, lim)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after restore: GC percent %d, want 100", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("after restore: memory limit %d, want none", got)
	}
}
