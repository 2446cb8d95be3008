package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/indexer"
)

// memProfiler records where an index run's memory goes, phase by phase,
// when CAIRN_MEMPROFILE names a directory (as CAIRN_CPUPROFILE names a
// CPU profile): at the end of every phase (indexer.Progress) and of the
// run it appends a line to DIR/phases.tsv — the phase, seconds since the
// start, the process's resident and peak resident memory (VmRSS, VmHWM),
// the live heap the last collection marked, the heap in use and all the
// memory the Go runtime holds (the rest of the anonymous memory is C's), the
// process's CPU seconds so far and the collector's share of them (the
// runtime's estimate) and its cycles — and
// writes a heap profile DIR/NN-PHASE.pb.gz; a sampler writes
// DIR/peak.pb.gz whenever the live heap has grown by a quarter since the
// last one, so the largest live heap's holders are in a profile too. Read
// them with `go tool pprof -sample_index=inuse_space`. For measurement
// only: profiling costs a little CPU, and the heap profile's sampling rate
// is the runtime's default.
type memProfiler struct {
	dir   string
	start time.Time
	mu    sync.Mutex
	n     int
	phase string
	stop  chan struct{}
	done  chan struct{}
	// top is the sampler's reading at the largest resident memory seen
	top topReading
}

// topReading is one sample of the process's memory.
type topReading struct {
	phase               string
	at                  float64
	mem                 procStatus
	live, inuse, mapped uint64
}

// newMemProfiler returns nil when CAIRN_MEMPROFILE is not set or its
// directory cannot be made.
func newMemProfiler() *memProfiler {
	dir := os.Getenv("CAIRN_MEMPROFILE")
	if dir == "" || os.MkdirAll(dir, 0o755) != nil {
		return nil
	}
	m := &memProfiler{dir: dir, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	if f, err := os.Create(filepath.Join(dir, "phases.tsv")); err == nil {
		fmt.Fprintln(f, "phase\tend_s\trss_mb\tpeak_rss_mb\tanon_mb\tfile_mb\tlive_heap_mb\theap_inuse_mb\tgo_mapped_mb\tcpu_s\tgc_cpu_s\tgc_cycles")
		f.Close()
	}
	go m.sample()
	return m
}

// wrap returns a progress callback that notes phase ends before calling next.
func (m *memProfiler) wrap(next func(indexer.Progress)) func(indexer.Progress) {
	if m == nil {
		return next
	}
	return func(p indexer.Progress) {
		m.mu.Lock()
		if p.Phase != m.phase {
			if m.phase != "" {
				m.record(m.phase)
			}
			m.phase = p.Phase
		}
		m.mu.Unlock()
		if next != nil {
			next(p)
		}
	}
}

// finish records the last phase and the run's end, and stops the sampler.
func (m *memProfiler) finish() {
	if m == nil {
		return
	}
	close(m.stop)
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.phase != "" {
		m.record(m.phase)
		m.phase = ""
	}
	m.record("end")
	if t := m.top; t.phase != "" {
		if f, err := os.OpenFile(filepath.Join(m.dir, "phases.tsv"), os.O_APPEND|os.O_WRONLY, 0); err == nil {
			fmt.Fprintf(f, "top-rss@%s\t%.1f\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\t\t\n", t.phase, t.at,
				t.mem.rss>>20, t.mem.hwm>>20, t.mem.anon>>20, t.mem.file>>20, t.live>>20, t.inuse>>20, t.mapped>>20)
			f.Close()
		}
	}
}

func (m *memProfiler) record(phase string) {
	m.n++
	mem := procMemory()
	live, inuse := heapNow()
	mapped := goMapped()
	cpu, gc, cycles := cpuNow()
	if f, err := os.OpenFile(filepath.Join(m.dir, "phases.tsv"), os.O_APPEND|os.O_WRONLY, 0); err == nil {
		fmt.Fprintf(f, "%s\t%.1f\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f\t%.1f\t%d\n", phase, time.Since(m.start).Seconds(),
			mem.rss>>20, mem.hwm>>20, mem.anon>>20, mem.file>>20, live>>20, inuse>>20, mapped>>20, cpu, gc, cycles)
		f.Close()
	}
	writeHeapProfile(filepath.Join(m.dir, fmt.Sprintf("%02d-%s.pb.gz", m.n, phase)))
}

// sample writes peak.pb.gz each time the live heap has grown by a quarter,
// and keeps the reading at the largest resident memory: finish writes it
// as a last line, top-rss@PHASE, which says whether the peak was the Go
// heap's or C's.
func (m *memProfiler) sample() {
	defer close(m.done)
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	var last uint64
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			mem := procMemory()
			live, inuse := heapNow()
			m.mu.Lock()
			if mem.rss > m.top.mem.rss {
				m.top = topReading{phase: m.phase, at: time.Since(m.start).Seconds(), mem: mem, live: live, inuse: inuse, mapped: goMapped()}
			}
			m.mu.Unlock()
			if live > last+last/4 {
				last = live
				writeHeapProfile(filepath.Join(m.dir, "peak.pb.gz"))
			}
		}
	}
}

func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err != nil {
		return
	}
	defer f.Close()
	pprof.Lookup("heap").WriteTo(f, 0)
}

// heapNow reads the live heap (what the last collection marked) and the
// heap in use now.
func heapNow() (live, inuse uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		live = s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		inuse = s[1].Value.Uint64()
	}
	return live, inuse
}

// goMapped is the memory the Go runtime holds from the system and has not
// released (its heap, free or not, stacks and metadata): the process's
// anonymous memory beyond it is C's (SQLite's caches and sorts,
// tree-sitter).
func goMapped() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64() - s[1].Value.Uint64()
}

// cpuNow reads the process's CPU seconds (user and system), the
// collector's (the runtime's estimate: /cpu/classes/gc/total) and the
// collections so far.
func cpuNow() (cpu, gc float64, cycles uint64) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindFloat64 {
		gc = s[0].Value.Float64()
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		cycles = s[1].Value.Uint64()
	}
	return cpu, gc, cycles
}

// procStatus is the process's memory as /proc/self/status has it.
type procStatus struct{ rss, hwm, anon, file uint64 }

// procMemory reads the process's resident memory, its peak, and the
// anonymous and file-backed (mapped files: the text index's segments)
// parts of it (Linux; zeros elsewhere).
func procMemory() (m procStatus) {
	if runtime.GOOS != "linux" {
		return m
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return m
	}
	fields := []struct {
		name string
		dst  *uint64
	}{{"VmRSS:", &m.rss}, {"VmHWM:", &m.hwm}, {"RssAnon:", &m.anon}, {"RssFile:", &m.file}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		for _, k := range fields {
			if v, ok := bytes.CutPrefix(sc.Bytes(), []byte(k.name)); ok {
				if f := bytes.Fields(v); len(f) > 0 {
					n, _ := strconv.ParseUint(string(f[0]), 10, 64)
					*k.dst = n << 10
				}
			}
		}
	}
	return m
}
