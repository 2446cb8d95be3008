package history

import (
	"bufio"
	"cmp"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/gitrepo"
	"github.com/cairn-dev/cairn/internal/redact"
	"github.com/cairn-dev/cairn/retrieval/internal/ties"
	"github.com/cairn-dev/cairn/retrieval/query"
	"github.com/cairn-dev/cairn/retrieval/tokens"
)

// Meta keys of a generation that has a history index.
const (
	KeyFile    = "history.file"    // the file's name in the side directory
	KeyHead    = "history.head"    // the commit the history was read from
	KeyCommits = "history.commits" // how many commits it holds
	// KeyRemotes: the repository's names on its code hosts
	// (gitrepo.Remotes, space-separated), read again by every index run
	KeyRemotes = "history.remotes"
)

// Keys are all the meta keys of a history index.
var Keys = []string{KeyFile, KeyHead, KeyCommits, KeyRemotes}

// Defaults of Options.
const (
	DefaultMaxCommits = 5000
	DefaultMaxFiles   = 100
	maxMessage        = 2000
	formatVersion     = 3
	// maxNums: a message citing more pull requests or issues than this
	// (a changelog, a release) is about none of them.
	maxNums = 5
	// perNumber is the most commits a number names (the pull request's
	// own commit or merge, and the fixes that cite the issue), newest
	// first.
	perNumber = 3
)

// Options bound what a Builder reads.
type Options struct {
	// MaxCommits is the most commits kept, newest first (0: the default;
	// negative: no history index).
	MaxCommits int
	// MaxFiles: a commit that changed more files (a bulk rename, a
	// vendored update, a license header everywhere) says nothing about
	// which files go together, and is left out (0: the default).
	MaxFiles int
}

// record is one commit as stored: its subject (for the why), the number
// of terms of its message (BM25's document length), the files it
// changed, as indexes into file.Paths, and the pull requests and issues
// its message cites ("(#3165)", "Fixes #12", "Merge pull request #774").
type record struct {
	Hash    string
	Time    int64
	Subject string
	Len     int32
	Files   []int32
	Nums    []int32
}

// file is the stored history of one generation: the commits, newest
// first, and their messages as an inverted index — Terms sorted, Post[i]
// the postings of Terms[i] as (commit index, term frequency) pairs — so
// that opening it is one decode and a query reads only its terms'
// postings (the messages are analysed once, when indexing).
//
// Merges are the first-parent line's merges that cite a number ("Merge
// pull request #774 from …"), each with what it changed against its first
// parent: how a repository that merges pull requests records which change
// a number was. They are no documents of the text search (their branch's
// commits are), are capped like the commits, and are kept in a file of
// their own (the same type with its own path table, no commits), read
// only by a query that names a change: astropy's 5,000 merges would
// double the time to open the history for every search.
type file struct {
	Version int
	Head    string
	Paths   []string
	Commits []record
	Terms   []string
	Post    [][]int32
	Merges  []record
}

// Builder reads the commit history of a generation's root and writes it to
// the side directory. It is a side-index sink of the indexer (package
// indexer's Sink, by method set): files it is given are ignored; Finish
// reads the history. A previous generation's history read from an
// ancestor of HEAD is extended with the new commits only.
type Builder struct {
	root  string
	prev  map[string]string
	opts  Options
	dir   string
	made  []string // the files this run wrote (removed on Abort)
	fresh bool
}

// NewBuilder returns a Builder for the worktree at root; prev is the meta
// of the generation being extended (nil for a fresh one).
func NewBuilder(root string, prev map[string]string, o Options) *Builder {
	if o.MaxCommits == 0 {
		o.MaxCommits = DefaultMaxCommits
	}
	if o.MaxFiles == 0 {
		o.MaxFiles = DefaultMaxFiles
	}
	return &Builder{root: root, prev: prev, opts: o}
}

// Begin implements the sink: dir is the generation's side directory.
func (b *Builder) Begin(_ context.Context, dir string, fresh bool) error {
	b.dir, b.fresh = dir, fresh
	return nil
}

// Put implements the sink; the history needs no file's facts.
func (b *Builder) Put(context.Context, *graph.FileFacts, []int64) error { return nil }

// Delete implements the sink.
func (b *Builder) Delete(context.Context, string) error { return nil }

// Abort removes what this run wrote.
func (b *Builder) Abort() {
	for _, n := range b.made {
		os.Remove(filepath.Join(b.dir, n))
	}
}

// Finish reads the history and writes it, returning the meta keys that
// name it. Outside git, or with MaxCommits negative, there is none (no
// keys: the generator is off).
func (b *Builder) Finish(ctx context.Context) (map[string]string, error) {
	if b.opts.MaxCommits < 0 {
		return nil, nil
	}
	head := gitrepo.Head(ctx, b.root)
	if head == "" {
		return nil, nil
	}
	prevName, prevHead := b.prev[KeyFile], b.prev[KeyHead]
	prevPath := filepath.Join(b.dir, prevName)
	name := fileName(head)
	if !b.fresh && prevName == name && prevHead == head {
		// HEAD did not move: the previous file stands (a damaged one is
		// found by the manifest check and rebuilt by the repair)
		_, err1 := os.Stat(prevPath)
		_, err2 := os.Stat(mergesName(prevPath))
		if err1 == nil && err2 == nil {
			return map[string]string{KeyFile: prevName, KeyHead: prevHead, KeyCommits: b.prev[KeyCommits],
				KeyRemotes: strings.Join(gitrepo.Remotes(ctx, b.root), " ")}, nil
		}
	}
	var old, oldMerges *file
	after := ""
	if prevName != "" && prevHead != "" {
		f, err1 := readFile(prevPath)
		fm, err2 := readFile(mergesName(prevPath))
		if err1 == nil && err2 == nil && f.Head == prevHead && fm.Head == prevHead {
			if ok, err := gitrepo.IsAncestor(ctx, b.root, prevHead, head); err == nil && ok {
				old, oldMerges, after = f, fm, prevHead
			}
		}
	}
	var logs [2][]gitrepo.Commit
	for i := range logs {
		cs, err := gitrepo.Log(ctx, b.root, head, gitrepo.LogOptions{Max: b.opts.MaxCommits, After: after, Merges: i == 1})
		if err != nil {
			var ce *gitrepo.CommandError
			if errors.As(err, &ce) && ce.Exited() {
				// a shallow clone's missing parents, a damaged object: the
				// index goes on without history, as outside git
				return nil, nil
			}
			return nil, fmt.Errorf("history: %w", err)
		}
		logs[i] = cs
	}
	f, fm := b.build(logs[0], logs[1], old, oldMerges)
	f.Head, fm.Head = head, head
	for _, w := range []struct {
		name string
		f    *file
	}{{mergesName(name), fm}, {name, f}} {
		if err := writeFile(filepath.Join(b.dir, w.name), w.f); err != nil {
			return nil, err
		}
		if name != prevName {
			b.made = append(b.made, w.name)
		}
	}
	b.removeOthers(name, mergesName(name), prevName, mergesName(prevName))
	return map[string]string{KeyFile: name, KeyHead: head, KeyCommits: strconv.Itoa(len(f.Commits)),
		KeyRemotes: strings.Join(gitrepo.Remotes(ctx, b.root), " ")}, nil
}

// removeOthers deletes history files of generations before the previous
// one (a reader of the previous generation may still open its file).
func (b *Builder) removeOthers(keep ...string) {
	ents, _ := os.ReadDir(b.dir)
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, "history-") && !slices.Contains(keep, n) {
			os.Remove(filepath.Join(b.dir, n))
		}
	}
}

// fileName is the history file of a head: the format's version in it, so
// that a file of another format is read again rather than kept.
func fileName(head string) string {
	return fmt.Sprintf("history-%s-v%d.gob", head[:min(12, len(head))], formatVersion)
}

// Outdated reports whether a generation's history index is of another
// format than this build reads (an index made by an older cairn): search
// goes without it until the next index run reads the history again.
func Outdated(meta map[string]string) bool {
	name := meta[KeyFile]
	return name != "" && !strings.HasSuffix(name, fmt.Sprintf("-v%d.gob", formatVersion))
}

// mergesName is the file of the merges beside a history file.
func mergesName(name string) string {
	return strings.TrimSuffix(name, ".gob") + "-merges.gob"
}

// nums are the pull requests and issues msg cites (query.Numbers, as a
// query's are read), none when it cites more than maxNums.
func nums(msg string) []int32 {
	ns := query.Numbers(msg)
	if len(ns) > maxNums {
		return nil
	}
	out := make([]int32, len(ns))
	for i, n := range ns {
		out[i] = int32(n)
	}
	return out
}

// pathTable gives each path of a file an index into file.Paths.
type pathTable struct {
	f   *file
	ids map[string]int32
}

func (t *pathTable) id(p string) int32 {
	if i, ok := t.ids[p]; ok {
		return i
	}
	i := int32(len(t.f.Paths))
	t.ids[p] = i
	t.f.Paths = append(t.f.Paths, p)
	return i
}

// moved is an old record with its files (indexes into paths) in t.
func (t *pathTable) moved(r record, paths []string) record {
	nr := record{Hash: r.Hash, Time: r.Time, Subject: r.Subject, Len: r.Len, Files: make([]int32, len(r.Files)), Nums: r.Nums}
	for k, x := range r.Files {
		nr.Files[k] = t.id(paths[x])
	}
	return nr
}

// fresh is a new commit's record, its files in t, and its message capped.
func (t *pathTable) fresh(c gitrepo.Commit) (record, string) {
	msg := capped(c.Message)
	// the subject is shown (a hit's why): a secret in it is redacted
	r := record{Hash: c.Hash, Time: c.Time, Subject: redact.Text(subject(msg)), Nums: nums(msg)}
	for _, p := range c.Files {
		r.Files = append(r.Files, t.id(p))
	}
	return r, msg
}

// build makes the history file and the merges file, each with its own
// path table, from the new commits and merges, followed by the old ones.
func (b *Builder) build(cs, merges []gitrepo.Commit, old, oldMerges *file) (*file, *file) {
	f := &file{Version: formatVersion}
	fm := &file{Version: formatVersion}
	ft := &pathTable{f: f, ids: map[string]int32{}}
	mt := &pathTable{f: fm, ids: map[string]int32{}}
	// each commit's terms with their frequencies, newest first
	var docs []map[string]int32
	for _, c := range cs {
		if len(c.Files) > b.opts.MaxFiles {
			continue
		}
		r, msg := ft.fresh(c)
		tf := map[string]int32{}
		tokens.Text([]byte(msg), func(t tokens.Token) {
			tf[t.Term]++
			r.Len++
		})
		f.Commits = append(f.Commits, r)
		docs = append(docs, tf)
	}
	if old != nil {
		n := min(len(old.Commits), max(b.opts.MaxCommits-len(f.Commits), 0))
		olddocs := make([]map[string]int32, n)
		for i := range olddocs {
			olddocs[i] = map[string]int32{}
		}
		for ti, post := range old.Post {
			for j := 0; j+1 < len(post); j += 2 {
				if c := int(post[j]); c < n {
					olddocs[c][old.Terms[ti]] = post[j+1]
				}
			}
		}
		for i, r := range old.Commits[:n] {
			f.Commits = append(f.Commits, ft.moved(r, old.Paths))
			docs = append(docs, olddocs[i])
		}
	}
	// merges that cite a number, the new ones before the old, capped
	for _, c := range merges {
		if len(c.Files) <= b.opts.MaxFiles && len(fm.Merges) < b.opts.MaxCommits && len(nums(capped(c.Message))) > 0 {
			r, _ := mt.fresh(c)
			fm.Merges = append(fm.Merges, r)
		}
	}
	if oldMerges != nil {
		for _, r := range oldMerges.Merges[:min(len(oldMerges.Merges), max(b.opts.MaxCommits-len(fm.Merges), 0))] {
			fm.Merges = append(fm.Merges, mt.moved(r, oldMerges.Paths))
		}
	}
	// invert
	post := map[string][]int32{}
	for i, d := range docs {
		for t, n := range d {
			post[t] = append(post[t], int32(i), n)
		}
	}
	f.Terms = make([]string, 0, len(post))
	for t := range post {
		f.Terms = append(f.Terms, t)
	}
	slices.Sort(f.Terms)
	f.Post = make([][]int32, len(f.Terms))
	for i, t := range f.Terms {
		ps := post[t]
		// by commit index, so that the file is the same for the same history
		pairs := make([][2]int32, len(ps)/2)
		for j := range pairs {
			pairs[j] = [2]int32{ps[2*j], ps[2*j+1]}
		}
		slices.SortFunc(pairs, func(a, b [2]int32) int { return cmp.Compare(a[0], b[0]) })
		for j, pr := range pairs {
			ps[2*j], ps[2*j+1] = pr[0], pr[1]
		}
		f.Post[i] = ps
	}
	return f, fm
}

func writeFile(path string, f *file) error {
	tmp := path + ".tmp"
	w, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	bw := bufio.NewWriter(w)
	err = gob.NewEncoder(bw).Encode(f)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = w.Sync()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("history: write %s: %w", filepath.Base(path), err)
	}
	return nil
}

func readFile(path string) (*file, error) {
	r, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var f file
	if err := gob.NewDecoder(bufio.NewReader(r)).Decode(&f); err != nil {
		return nil, fmt.Errorf("history index %s is damaged (%v); run cairn index to rebuild it", filepath.Base(path), err)
	}
	if f.Version != formatVersion {
		return nil, fmt.Errorf("history index %s has format %d, not %d; run cairn index to rebuild it", filepath.Base(path), f.Version, formatVersion)
	}
	bad := len(f.Terms) != len(f.Post) || !slices.IsSorted(f.Terms)
	for _, c := range slices.Concat(f.Commits, f.Merges) {
		for _, x := range c.Files {
			bad = bad || x < 0 || int(x) >= len(f.Paths)
		}
	}
	for _, ps := range f.Post {
		bad = bad || len(ps)%2 != 0
		for j := 0; j+1 < len(ps); j += 2 {
			bad = bad || ps[j] < 0 || int(ps[j]) >= len(f.Commits)
		}
	}
	if bad {
		return nil, fmt.Errorf("history index %s is damaged (an index out of range); run cairn index to rebuild it", filepath.Base(path))
	}
	return &f, nil
}

// Index is a generation's history, ready to search: each commit message
// a BM25 document of stemmed English terms.
type Index struct {
	f      *file
	avgLen float64
	// remotes: the repository's names on its code hosts (KeyRemotes)
	remotes []string
	// the merges, read when a query first names a change
	mergesPath string
	once       sync.Once
	merges     *file
	mergesErr  error
}

// Open reads the history index a generation's meta names; nil (and no
// error) when it has none.
func Open(dir string, meta map[string]string) (*Index, error) {
	name := meta[KeyFile]
	if name == "" {
		return nil, nil
	}
	if filepath.Base(name) != name || !strings.HasPrefix(name, "history-") {
		return nil, fmt.Errorf("history index: bad file name %q in the index's meta", name)
	}
	f, err := readFile(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	x := &Index{f: f, mergesPath: mergesName(filepath.Join(dir, name)), remotes: strings.Fields(meta[KeyRemotes])}
	var total float64
	for _, c := range f.Commits {
		total += float64(c.Len)
	}
	if len(f.Commits) > 0 {
		x.avgLen = total / float64(len(f.Commits))
	}
	return x, nil
}

// Len is the number of commits held.
func (x *Index) Len() int { return len(x.f.Commits) }

// Head is the commit the history was read from.
func (x *Index) Head() string { return x.f.Head }

// CommitHit is a past commit like the query, or one it names.
type CommitHit struct {
	Hash    string
	Subject string
	Score   float64
	Files   []string
	// Ref is how the query named it ("#3165", "24638f59"; Named only).
	Ref string
}

// FileHit is a file the commits most like the query changed.
type FileHit struct {
	Path  string
	Score float64
	// Commit is the strongest of them (hash and subject), for the why.
	Commit CommitHit
}

// Commits returns the k past commits whose messages are most like text
// (BM25 over stemmed terms), best first.
func (x *Index) Commits(text string, k int) []CommitHit {
	if x == nil || len(x.f.Commits) == 0 || k <= 0 {
		return nil
	}
	seen := map[string]bool{}
	var q [][]int32 // the query terms' postings
	tokens.Text([]byte(text), func(t tokens.Token) {
		if seen[t.Term] {
			return
		}
		seen[t.Term] = true
		if i, ok := slices.BinarySearch(x.f.Terms, t.Term); ok {
			q = append(q, x.f.Post[i])
		}
	})
	if len(q) == 0 {
		return nil
	}
	const k1, b = 1.2, 0.75
	n := float64(len(x.f.Commits))
	score := map[int32]float64{}
	for _, ps := range q {
		df := float64(len(ps) / 2)
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for j := 0; j+1 < len(ps); j += 2 {
			c, tf := ps[j], float64(ps[j+1])
			norm := k1 * (1 - b + b*float64(x.f.Commits[c].Len)/x.avgLen)
			score[c] += idf * tf * (k1 + 1) / (tf + norm)
		}
	}
	type sc struct {
		i int
		s float64
	}
	all := make([]sc, 0, len(score))
	for c, v := range score {
		all = append(all, sc{int(c), ties.Round(v)})
	}
	slices.SortFunc(all, func(a, b sc) int { return cmp.Or(cmp.Compare(b.s, a.s), cmp.Compare(a.i, b.i)) })
	if len(all) > k {
		all = all[:k]
	}
	out := make([]CommitHit, len(all))
	for j, a := range all {
		c := x.f.Commits[a.i]
		h := CommitHit{Hash: c.Hash, Subject: c.Subject, Score: a.s, Files: make([]string, len(c.Files))}
		for i, p := range c.Files {
			h.Files[i] = x.f.Paths[p]
		}
		out[j] = h
	}
	return out
}

// Named returns the past changes a text names (package query's Refs), in
// the order given: the commit whose hash begins with a hash (none when
// two do), and for a number the commits and merges whose messages cite it
// — the pull request's own squashed commit or merge, the fixes that
// close the issue — newest first, at most three. A number of another
// repository (its Repo none of the remotes' names) names nothing. Score
// is 1 for each. The merges are read on the first call; when their file
// cannot be read the commits still answer, with the error.
func (x *Index) Named(refs []query.Ref) ([]CommitHit, error) {
	var hashes []string
	var numbers []int
	for _, r := range refs {
		switch {
		case r.Hash != "":
			hashes = append(hashes, r.Hash)
		case r.Repo == "" || x != nil && slices.Contains(x.remotes, r.Repo):
			if !slices.Contains(numbers, r.Number) {
				numbers = append(numbers, r.Number)
			}
		}
	}
	if x == nil || len(hashes)+len(numbers) == 0 {
		return nil, nil
	}
	x.once.Do(func() { x.merges, x.mergesErr = readFile(x.mergesPath) })
	type rec struct {
		r     *record
		paths []string
	}
	each := func(fn func(rec)) {
		for i := range x.f.Commits {
			fn(rec{&x.f.Commits[i], x.f.Paths})
		}
		if x.merges != nil {
			for i := range x.merges.Merges {
				fn(rec{&x.merges.Merges[i], x.merges.Paths})
			}
		}
	}
	var out []CommitHit
	seen := map[string]bool{}
	hit := func(c rec, ref string) {
		if seen[c.r.Hash] {
			return
		}
		seen[c.r.Hash] = true
		h := CommitHit{Hash: c.r.Hash, Subject: c.r.Subject, Score: 1, Files: make([]string, len(c.r.Files)), Ref: ref}
		for i, p := range c.r.Files {
			h.Files[i] = c.paths[p]
		}
		out = append(out, h)
	}
	for _, h := range hashes {
		var found []rec
		each(func(c rec) {
			if len(h) >= 7 && strings.HasPrefix(c.r.Hash, h) {
				found = append(found, c)
			}
		})
		if len(found) == 1 {
			hit(found[0], h)
		}
	}
	for _, num := range numbers {
		var found []rec
		each(func(c rec) {
			if slices.Contains(c.r.Nums, int32(num)) {
				found = append(found, c)
			}
		})
		slices.SortStableFunc(found, func(a, b rec) int { return cmp.Compare(b.r.Time, a.r.Time) })
		for _, c := range found[:min(len(found), perNumber)] {
			hit(c, "#"+strconv.Itoa(num))
		}
	}
	return out, x.mergesErr
}

// CommitsVoting is how many of the most similar commits vote for files.
const CommitsVoting = 30

// Files ranks the files that the past commits most like text changed: each
// of the CommitsVoting best commits gives its score to its files, shared
// as score/√(files it changed), and only files alive (still indexed)
// count. Best first, at most k.
func (x *Index) Files(text string, k int, alive func(string) bool) []FileHit {
	by := map[string]*FileHit{}
	for _, c := range x.Commits(text, CommitsVoting) {
		var live []string
		for _, p := range c.Files {
			if alive == nil || alive(p) {
				live = append(live, p)
			}
		}
		if len(live) == 0 {
			continue
		}
		share := c.Score / math.Sqrt(float64(len(live)))
		for _, p := range live {
			h := by[p]
			if h == nil {
				h = &FileHit{Path: p, Commit: CommitHit{Hash: c.Hash, Subject: c.Subject, Score: c.Score}}
				by[p] = h
			}
			h.Score += share
		}
	}
	out := make([]FileHit, 0, len(by))
	for _, h := range by {
		h.Score = ties.Round(h.Score)
		out = append(out, *h)
	}
	slices.SortFunc(out, func(a, b FileHit) int { return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.Path, b.Path)) })
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// capped is a message cut to maxMessage bytes.
func capped(msg string) string {
	if len(msg) > maxMessage {
		msg = strings.ToValidUTF8(msg[:maxMessage], "")
	}
	return msg
}

func subject(msg string) string {
	s, _, _ := strings.Cut(msg, "\n")
	if len(s) > 100 {
		s = strings.ToValidUTF8(s[:100], "") + "…"
	}
	return s
}
