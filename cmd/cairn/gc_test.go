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

func TestIndexGC(t *testing.T) {
	pct := debug.SetGCPercent(100)
	defer debug.SetGCPercent(pct)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(limit)

	// neither set: the index run's own settings
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	os.Unsetenv("GOGC")
	os.Unsetenv("GOMEMLIMIT")
	indexGC()
	if got := debug.SetGCPercent(100); got != 300 {
		t.Errorf("GC percent %d, want 300", got)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != indexMemoryLimit {
		t.Errorf("memory limit %d, want %d", got, indexMemoryLimit)
	}

	// both set: the environment wins (the runtime read them at start)
	os.Setenv("GOGC", "100")
	os.Setenv("GOMEMLIMIT", "off")
	indexGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set: GC percent %d, want it left at 100", got)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set: memory limit %d, want it left off", got)
	}
}
