package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
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
	tuner.Lock()
	started := tuner.stop != nil
	if started {
		tuner.stop()
		tuner.stop = nil
	}
	tuner.Unlock()
	if !started {
		t.Error("no memory-limit tuner started")
	}
	if got := debug.SetGCPercent(100); got != 300 {
		t.Errorf("GC percent %d, want 300", got)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != indexMemoryFloor {
		t.Errorf("memory limit %d, want %d", got, indexMemoryFloor)
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
	tuner.Lock()
	if tuner.stop != nil {
		t.Error("GOMEMLIMIT set: a memory-limit tuner started")
		tuner.stop()
		tuner.stop = nil
	}
	tuner.Unlock()
}

func TestIndexMemoryLimit(t *testing.T) {
	const floor = 500 << 20
	for _, c := range []struct {
		live uint64
		want int64
	}{
		{0, floor},
		{290e6, floor},         // mono1m's peak (MB)
		{400 << 20, 600 << 20}, // above the floor: 3/2 of the live heap
		{4 << 30, 6 << 30},
		{340 << 20, 510 << 20},
	} {
		if got := indexMemoryLimit(c.live, floor); got != c.want {
			t.Errorf("live %d MiB: limit %d MiB, want %d MiB", c.live>>20, got>>20, c.want>>20)
		}
	}
}

// The tuner raises the limit above a live heap the floor cannot hold, after
// a real collection, and leaves it alone once stopped.
func TestTuneMemoryLimit(t *testing.T) {
	pct := debug.SetGCPercent(100)
	defer debug.SetGCPercent(pct)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(limit)

	const floor = 8 << 20
	debug.SetMemoryLimit(floor)
	stop := tuneMemoryLimit(floor)
	var live [][]byte
	// each collection arms the next: the limit follows a heap that grows
	for _, mib := range []int{32, 96} {
		for len(live) < mib {
			live = append(live, make([]byte, 1<<20))
		}
		want := int64(mib<<20) * 3 / 2
		deadline := time.Now().Add(5 * time.Second)
		var got int64
		for time.Now().Before(deadline) {
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
			if got = debug.SetMemoryLimit(-1); got >= want {
				break
			}
		}
		if got < want {
			t.Fatalf("with %d MiB live the limit is %d MiB, want at least %d MiB", mib, got>>20, want>>20)
		}
	}
	runtime.KeepAlive(live)

	stop()
	live = nil
	debug.SetMemoryLimit(floor)
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got != floor {
		t.Errorf("stopped tuner moved the limit to %d MiB", got>>20)
	}
}
