package trace

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/graph"
)

// textPrefetch reads the files the text index says hold the key while the
// symbol side of the trace runs: file I/O beside database reads.
type textPrefetch struct {
	key  string // the key it was started for (findCarriers may refine it)
	done chan textFiles
}

type textFiles struct {
	paths []string
	texts map[string]readText
	err   error
}

type readText struct{ src, low []byte }

// prefetchTexts starts reading the candidate files of the key, when a text
// index can name them. It touches no state of t but its own result.
func (t *tracer) prefetchTexts() {
	if t.o.Texts == nil {
		return
	}
	terms := t.keyTerms()
	pre := &textPrefetch{key: t.key, done: make(chan textFiles, 1)}
	t.pre = pre
	ctx, texts, files := t.ctx, t.o.Texts, t.fs
	go func() {
		ps, err := texts.FilesWithTerms(ctx, terms)
		if err != nil {
			pre.done <- textFiles{err: err}
			return
		}
		sort.Strings(ps)
		out := make([]readText, len(ps))
		onEveryCore(len(ps), func(i int) {
			if b, err := files.ReadFile(ps[i]); err == nil {
				out[i] = readText{src: b, low: lowerASCII(b)}
			}
		})
		m := make(map[string]readText, len(ps))
		for i, p := range ps {
			m[p] = out[i]
		}
		pre.done <- textFiles{paths: ps, texts: m}
	}()
}

// textSites scans the sources that mention the key for SQL columns, map
// and JSON keys, ORM and builder calls and config entries.
func (t *tracer) textSites() error {
	var pre map[string]readText
	var paths []string
	var err error
	if t.pre != nil && t.pre.key == t.key {
		if r := <-t.pre.done; r.err == nil {
			paths, pre = r.paths, r.texts
		}
	}
	if pre == nil { // not prefetched, or the text index failed: as it says
		paths, err = t.candidateFiles()
	}
	if err != nil {
		return err
	}
	// in a large repository a qualified target's text sites are looked
	// for in the files that also name its type or table
	var qualWord []byte
	if t.qual != "" && len(paths) > 200 {
		q := t.qual[strings.LastIndexByte(t.qual, '.')+1:]
		qualWord = []byte(strings.ReplaceAll(singular(normalize(q)), " ", ""))
		t.warn(fmt.Sprintf("%d files mention the key: SQL, key and config sites were looked for in those that also name %q", len(paths), string(qualWord)))
	}
	// the index's view of each file first (one goroutine: the store), then
	// the scans, which only read bytes, on every core
	type job struct {
		p        string
		f        *graph.File
		src, low []byte
		found    []textSite
	}
	var jobs []*job
	for _, p := range paths {
		f, err := t.file(p)
		if errors.Is(err, graph.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		j := &job{p: p, f: f, src: t.srcs[p]}
		if r, ok := pre[p]; ok && r.src != nil {
			j.src, j.low = r.src, r.low
		}
		jobs = append(jobs, j)
	}
	scan := func(j *job) {
		if j.src == nil {
			j.src = t.readFile(j.p)
		}
		if j.src == nil {
			return
		}
		if j.low == nil {
			j.low = lowerASCII(j.src)
		}
		if qualWord != nil && !bytes.Contains(j.low, qualWord) {
			return
		}
		lang := j.f.Lang
		if !j.f.Status.Analysed() && j.f.Status != graph.ParseTextOnly {
			return
		}
		sp := t.keyTerms() // spellings, as written (_AuthToken), dotted
		// SQL statements reach far back from a column's mention (the
		// UPDATE … SET before it); keys and keyword arguments are read
		// from the text right around it, so their scan reads less
		in := func(before, after int, keep func([]byte, int, int) bool, scanner func([]byte) []textSite) []textSite {
			var out []textSite
			seen := map[int]bool{}
			for _, w := range windows(j.src, j.low, sp, before, after, keep) {
				for _, s := range scanner(j.src[w[0]:w[1]]) {
					s.Offset += w[0]
					if !seen[s.Offset] {
						seen[s.Offset] = true
						out = append(out, s)
					}
				}
			}
			return out
		}
		switch {
		case lang == graph.LangYAML || lang == graph.LangTOML || lang == graph.LangConfig:
			j.found = scanConfig(j.src, t.key, t.dotted)
		case lang == graph.LangSQL:
			if t.dotted == "" {
				j.found = in(3000, 600, nil, func(b []byte) []textSite { return scanSQL(b, t.key, t.tableQual()) })
			}
		case lang == graph.LangJSON:
			j.found = in(600, 200, keyMention(false), func(b []byte) []textSite { return scanKeys(b, t.key, t.dotted, false) })
			for i := range j.found {
				j.found[i].How = "key in " + filepath.Base(j.p)
			}
		case lang.HasParser():
			if t.dotted == "" {
				j.found = in(3000, 600, nil, func(b []byte) []textSite { return scanSQL(b, t.key, t.tableQual()) })
			}
			at := map[int]bool{}
			for _, ts := range j.found {
				at[ts.Offset] = true
			}
			py := lang == graph.LangPython
			for _, ts := range in(600, 200, keyMention(py), func(b []byte) []textSite {
				return scanKeys(b, t.key, t.dotted, py)
			}) {
				if !at[ts.Offset] { // a site the SQL scan found speaks for it
					j.found = append(j.found, ts)
				}
			}
		}
	}
	onEveryCore(len(jobs), func(i int) { scan(jobs[i]) })
	for _, j := range jobs {
		if j.src == nil {
			continue
		}
		t.srcs[j.p] = j.src
		if j.low != nil {
			t.lows[j.p] = j.low
		}
		if !j.f.Status.Analysed() && j.f.Status != graph.ParseTextOnly {
			if t.mentions(j.src) {
				t.unknown = append(t.unknown, fmt.Sprintf("%s: %s (%s), mentions the key", j.p, j.f.Status, j.f.Error))
				t.uncertain = true
			}
			continue
		}
		if len(j.found) == 0 {
			continue
		}
		ff, err := t.fileFacts(j.p)
		if err != nil {
			return err
		}
		kept, folded := foldAlike(j.found)
		for _, ts := range kept {
			t.addTextSite(ff, j.src, ts)
		}
		if folded > 0 {
			t.warn(fmt.Sprintf("%s: %d more name-only sites like the ones listed are counted, not listed", j.p, folded))
		}
	}
	return nil
}

// maxAlikePerFile bounds the text sites of one kind listed for one file.
const maxAlikePerFile = 20

// foldAlike keeps the first maxAlikePerFile sites of each kind (How) of a
// file's text sites in order, and counts the rest on the last one kept.
func foldAlike(found []textSite) (kept []textSite, folded int) {
	if len(found) <= maxAlikePerFile {
		return found, 0
	}
	type kind struct {
		how, table string
		write      bool
	}
	n := map[kind]int{}
	last := map[kind]int{}
	for _, ts := range found {
		k := kind{ts.How, ts.Table, ts.Write}
		n[k]++
		if ts.Def || n[k] <= maxAlikePerFile {
			last[k] = len(kept)
			kept = append(kept, ts)
			continue
		}
		kept[last[k]].Alike++
		folded++
	}
	return kept, folded
}

// tableQual is the table a "table.column" target names.
func (t *tracer) tableQual() string {
	if t.qual == "" {
		return ""
	}
	return t.qual
}

func (t *tracer) mentions(src []byte) bool {
	low := lowerASCII(src) // not cached: called once per file
	for _, sp := range spellings(t.key) {
		if bytes.Contains(low, []byte(sp)) {
			return true
		}
	}
	return t.dotted != "" && bytes.Contains(low, []byte(strings.ToLower(t.dotted)))
}

// keyTerms are the words the text index is asked for: the key's
// spellings, the key as the target spells it (the text index keeps an
// identifier whole: _AuthToken is "_authtoken", not "authtoken"), and a
// dotted config key whole.
func (t *tracer) keyTerms() []string {
	terms := spellings(t.key)
	if w := strings.ToLower(t.written); w != "" && !slices.Contains(terms, w) {
		terms = append(terms, w)
	}
	if t.dotted != "" {
		terms = append(terms, strings.ToLower(t.dotted))
	}
	return terms
}

// onEveryCore runs fn(0) … fn(n-1) on as many goroutines as there are
// cores and returns when all have.
func onEveryCore(n int, fn func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

func (t *tracer) candidateFiles() ([]string, error) {
	terms := t.keyTerms()
	if t.o.Texts != nil {
		ps, err := t.o.Texts.FilesWithTerms(t.ctx, terms)
		if err == nil {
			sort.Strings(ps)
			return ps, nil
		}
		t.unknown = append(t.unknown, "text index unavailable ("+err.Error()+"): every file read instead")
	}
	files, err := t.r.Files(t.ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		src := t.readFile(f.Path)
		if src != nil && t.mentions(src) {
			out = append(out, f.Path)
			t.srcs[f.Path] = src
		}
	}
	return out, nil
}

func (t *tracer) addTextSite(ff *graph.FileFacts, src []byte, ts textSite) {
	p := ff.File.Path
	line, col := t.lineCol(p, ts.Offset)
	loc := t.at(p, line, col)
	if ts.Table != "" {
		c := t.column(ts.Table, ts.Column)
		if ts.Def {
			c.Loc = loc
			return
		}
		s := &Site{Access: access(ts.Write), Carrier: c.Name, How: ts.How, Loc: loc, Confidence: graph.ConfNameOnly.String(), spelled: ts.Column,
			Load: ts.Load, Persist: ts.Write, Alike: ts.Alike, carrier: c}
		if t.qual != "" && typeMatches(ts.Table, t.qual) {
			s.Confidence = graph.ConfResolved.String()
		}
		s.Snippet = t.snippet(p, line)
		s.Func = t.enclosingOffset(ff, ts.Offset)
		t.addSite(s, p, ts.Offset)
		return
	}
	kind := "key"
	if strings.HasPrefix(ts.How, "config entry") || ff.File.Lang == graph.LangJSON {
		kind = "config"
	}
	name := ts.Column
	if kind == "config" && t.dotted != "" {
		name = t.dotted
	}
	c := t.keyCarrier(kind, name, ff.File.Lang)
	if c.Path == "" && kind == "config" {
		c.Loc = loc
	}
	s := &Site{Access: access(ts.Write), Carrier: c.Name, How: ts.How, Loc: loc, Confidence: graph.ConfNameOnly.String(), carrier: c, Alike: ts.Alike, spelled: ts.Column,
		Persist: ts.Write && (strings.Contains(ts.How, "update") || strings.Contains(ts.How, "create") || strings.Contains(ts.How, "Update") || strings.Contains(ts.How, "Insert"))}
	s.Snippet = t.snippet(p, line)
	s.Func = t.enclosingOffset(ff, ts.Offset)
	t.addSite(s, p, ts.Offset)
}
