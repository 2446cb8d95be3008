package indexer

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// journal survives crashes of the parser itself. A tree-sitter grammar that
// crashes (a segfault in C) takes the process down where no recover can
// help, so before each parse a worker writes the file's hash and path into
// its slot file, and clears the slot after. A run that finds a non-empty
// slot knows the previous run died on that file: the file becomes a suspect.
// A suspect is parsed again (the death may have been a kill -9 that merely
// happened during its parse); a file that was in flight in two crashed runs
// is quarantined — indexed as text only, with status "crashed" — until its
// content changes. So a crashing grammar costs that one file.
type journal struct {
	dir     string
	slots   []*os.File
	counts  map[string]int // "hash\tpath" → crashed runs with this file in flight
	changed bool
}

const quarantineAfter = 2

func openJournal(dir string, workers int) *journal {
	if dir == "" {
		return nil
	}
	j := &journal{dir: filepath.Join(dir, "journal"), counts: map[string]int{}}
	if err := os.MkdirAll(j.dir, 0o755); err != nil {
		return nil
	}
	if f, err := os.Open(filepath.Join(j.dir, "suspects")); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			n, key, ok := strings.Cut(sc.Text(), "\t")
			if c, err := strconv.Atoi(n); ok && err == nil {
				j.counts[key] = c
			}
		}
		f.Close()
	}
	entries, _ := os.ReadDir(j.dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "inflight-") {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(j.dir, e.Name()))
		if key := strings.TrimSpace(string(b)); key != "" {
			j.counts[key]++
			j.changed = true
		}
		os.Remove(filepath.Join(j.dir, e.Name()))
	}
	if j.changed {
		j.save()
	}
	for i := 0; i < workers; i++ {
		f, err := os.OpenFile(filepath.Join(j.dir, fmt.Sprintf("inflight-%d", i)), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			j.close()
			return nil
		}
		j.slots = append(j.slots, f)
	}
	return j
}

func (j *journal) save() {
	var b strings.Builder
	for k, c := range j.counts {
		fmt.Fprintf(&b, "%d\t%s\n", c, k)
	}
	tmp := filepath.Join(j.dir, "suspects.tmp")
	if os.WriteFile(tmp, []byte(b.String()), 0o644) == nil {
		os.Rename(tmp, filepath.Join(j.dir, "suspects"))
	}
}

// suspect reports whether a previous run died while parsing this content.
func (j *journal) suspect(hash, path string) bool {
	return j != nil && j.counts[hash+"\t"+path] > 0
}

// quarantined reports whether this content crashed the parser repeatedly.
func (j *journal) quarantined(hash, path string) bool {
	return j != nil && j.counts[hash+"\t"+path] >= quarantineAfter
}

func (j *journal) begin(slot int, hash, path string) {
	if j == nil || slot >= len(j.slots) {
		return
	}
	f := j.slots[slot]
	f.Truncate(0)
	f.WriteAt([]byte(hash+"\t"+path+"\n"), 0)
}

func (j *journal) end(slot int) {
	if j == nil || slot >= len(j.slots) {
		return
	}
	j.slots[slot].Truncate(0)
}

// clear forgets suspects that parsed fine in a committed run; quarantined
// entries stay until their content changes (then their key no longer matches).
func (j *journal) clear() {
	if j == nil {
		return
	}
	n := len(j.counts)
	for k, c := range j.counts {
		if c < quarantineAfter {
			delete(j.counts, k)
		}
	}
	if len(j.counts) != n {
		j.save()
	}
}

func (j *journal) close() {
	if j == nil {
		return
	}
	for _, f := range j.slots {
		name := f.Name()
		f.Close()
		if st, err := os.Stat(name); err == nil && st.Size() == 0 {
			os.Remove(name)
		}
	}
	j.slots = nil
}
