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
	"time"

	"github.com/cairn-dev/cairn/indexer"
)

// memProfiler records where an index run's memory goes, phase by phase,
// when CAIRN_MEMPROFILE names a directory (as CAIRN_CPUPROFILE names a
// CPU profile): at the end of every phase (indexer.Progress) and of the
// run it appends a line to DIR/phases.tsv — the phase, seconds since the
// start, the process's resident and peak resident memory (VmRSS, VmHWM),
// the live heap the last collection marked and the heap in use — and
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
		fmt.Fprintln(f, "phase\tend_s\trss_mb\tpeak_rss_mb\tanon_mb\tfile_mb\tlive_heap_mb\theap_inuse_mb")
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
}

func (m *memProfiler) record(phase string) {
	m.n++
	mem := procMemory()
	live, inuse := heapNow()
	if f, err := os.OpenFile(filepath.Join(m.dir, "phases.tsv"), os.O_APPEND|os.O_WRONLY, 0); err == nil {
		fmt.Fprintf(f, "%s\t%.1f\t%d\t%d\t%d\t%d\t%d\t%d\n", phase, time.Since(m.start).Seconds(),
			mem.rss>>20, mem.hwm>>20, mem.anon>>20, mem.file>>20, live>>20, inuse>>20)
		f.Close()
	}
	writeHeapProfile(filepath.Join(m.dir, fmt.Sprintf("%02d-%s.pb.gz", m.n, phase)))
}

// sample writes peak.pb.gz each time the live heap has grown by a quarter.
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
			if live, _ := heapNow(); live > last+last/4 {
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
