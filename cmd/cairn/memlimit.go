package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// indexMemoryFloor is the least soft ceiling of an index run's Go memory.
// The run allocates much short-lived memory and collects rarely (GOGC 300)
// until the heap nears its ceiling; on mono1m its live heap peaks near
// 250 MB (bleve's analysis of a batch of documents, then the resolver's
// symbol table). Measured there (bench/index/RESULTS.md, 2026-12-04): a
// fixed 1,100 MiB peaks at about 1,318 MB RSS, 800 MiB at 1,009 MB; this
// floor with batches of 2,000 documents at about 630 MB, for about the GC
// CPU of 500 MiB with batches of 5,000 (4.7 against 4.5 s; about 710 MB).
const indexMemoryFloor = 400 << 20

// indexMemoryLimit is the ceiling for a live heap of live bytes: the
// floor, or 3/2 of the live heap when that is more. A fixed ceiling
// near a larger repository's live heap would have the collector run
// almost without pause; 3/2 lets the heap grow by half of what each
// collection marks (GOGC 50) at worst. On mono1m (live heap at most
// about 250 MB, gctrace) the floor holds.
func indexMemoryLimit(live uint64, floor int64) int64 {
	l := int64(live) + int64(live)/2
	if l < floor {
		return floor
	}
	return l
}

// tuner holds the process's memory-limit tuner, started by the first
// indexGC (a watcher runs many index batches, one tuner).
var tuner struct {
	sync.Mutex
	stop func()
}

// indexGC sets the collector for an index run, a worker or a watcher's
// batches; GOGC and GOMEMLIMIT, when set, win. The memory limit follows
// the live heap (tuneMemoryLimit) for the rest of the process.
func indexGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(300)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(indexMemoryFloor)
		tuner.Lock()
		if tuner.stop == nil {
			tuner.stop = tuneMemoryLimit(indexMemoryFloor)
		}
		tuner.Unlock()
	}
}

// gcSentinel is allocated for its cleanup, which runs after the
// collection that finds it unreachable. It holds a pointer so that it is
// never one of the tiny allocator's shared blocks, whose cleanups may not
// run.
type gcSentinel struct {
	_ *byte
	_ [8]byte
}

// tuneMemoryLimit sets the memory limit to indexMemoryLimit of the live
// heap after every collection, until stop is called: each collection's
// cleanup of an unreachable sentinel reads the live heap
// (/gc/heap/live:bytes, what that collection marked) and arms the next
// sentinel. No goroutine polls; the cost is one small allocation and one
// metrics read per collection.
func tuneMemoryLimit(floor int64) (stop func()) {
	var stopped atomic.Bool
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		runtime.AddCleanup(new(gcSentinel), func(struct{}) {
			if stopped.Load() {
				return
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				debug.SetMemoryLimit(indexMemoryLimit(sample[0].Value.Uint64(), floor))
			}
			arm()
		}, struct{}{})
	}
	arm()
	return func() { stopped.Store(true) }
}
