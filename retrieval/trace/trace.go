package trace

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/repofs"
)

// ErrNoTarget: nothing in the index or the text carries the target.
var ErrNoTarget = errors.New("nothing found for the target")

type tracer struct {
	ctx  context.Context
	r    graph.Reader
	o    Options
	root string
	fs   Files
	meta graph.Meta

	target  string
	written string // the key as the target spells it: "_AuthToken"
	key     string // normalized words: "artifact url"
	qual    string // the type or table the target names, if any
	dotted  string // a dotted config key, when the target is one

	facts map[string]*graph.FileFacts
	srcs  map[string][]byte
	stale map[string]bool
	lines map[string][]int

	carriers []*Carrier
	byID     map[graph.SymbolID]*Carrier
	byName   map[string][]*Carrier // exact spelling of field carriers
	columns  map[string]*Carrier   // table → column carrier
	sites    []*Site
	siteAt   map[string]bool // path:offset already recorded

	unknown []string
	// uncertain: files that mention the key could not be analysed
	uncertain bool
	warnings  []string
	syms      map[graph.SymbolID]*graph.Symbol
	files     map[string]*graph.File
	lows      map[string][]byte

	routes       []route
	clients      []clientCall
	httpLoaded   bool
	railsLoaded  bool
	rails        []railsRoute
	playLoaded   bool
	play         []playRoute
	scanned      map[string][]scannedRoute
	entryCache   map[graph.SymbolID]*Entry
	calleesCache map[graph.SymbolID][]callee
	callersCache map[graph.SymbolID][]graph.Edge
	pathsCache   map[graph.SymbolID][]CallPath

	pre *textPrefetch // the key's files, read while the index is asked
}

// newTracer prepares a tracer over r, its target unset.
func newTracer(ctx context.Context, r graph.Reader, o Options, m graph.Meta) *tracer {
	t := &tracer{
		ctx: ctx, r: r, o: o, meta: m, root: cmp.Or(o.Root, m.Root),
		facts: map[string]*graph.FileFacts{}, srcs: map[string][]byte{}, stale: map[string]bool{}, lines: map[string][]int{},
		byID: map[graph.SymbolID]*Carrier{}, byName: map[string][]*Carrier{}, columns: map[string]*Carrier{},
		siteAt: map[string]bool{}, syms: map[graph.SymbolID]*graph.Symbol{}, files: map[string]*graph.File{}, lows: map[string][]byte{}, entryCache: map[graph.SymbolID]*Entry{}, calleesCache: map[graph.SymbolID][]callee{}, callersCache: map[graph.SymbolID][]graph.Edge{}, pathsCache: map[graph.SymbolID][]CallPath{},
	}
	t.fs = o.Files
	if t.fs == nil {
		t.fs = repofs.New(t.root)
	}
	return t
}

// Trace finds who writes and who reads the value target names, through
// which call paths from which entry points, and where its path breaks.
// target is a field ("Task.ArtifactURL", "task.artifact_url", "artifact"),
// a column ("tasks.artifact_url"), a JSON or map key ("artifact_url"), a
// config key ("server.port") or a variable.
func Trace(ctx context.Context, r graph.Reader, target string, o Options) (*Result, error) {
	if strings.TrimSpace(target) == "" {
		return nil, fmt.Errorf("trace: empty target")
	}
	o.Depth = cmp.Or(o.Depth, 8)
	o.Paths = cmp.Or(o.Paths, 3)
	m, err := r.Meta(ctx)
	if err != nil {
		return nil, err
	}
	t := newTracer(ctx, r, o, m)
	t.target = strings.TrimSpace(target)
	res := &Result{Target: t.target, Revision: m.Revision, Dirty: m.Dirty}
	if err := t.parseTarget(); err != nil {
		return nil, err
	}
	t.prefetchTexts()
	res.Key = t.key
	if t.dotted != "" {
		res.Key = t.dotted
	}
	if err := t.findCarriers(); err != nil {
		return nil, err
	}
	if err := t.symbolSites(); err != nil {
		return nil, err
	}
	if err := t.textSites(); err != nil {
		return nil, err
	}
	t.scope()
	if err := t.skippedFiles(); err != nil {
		return nil, err
	}
	unresolved, typeKnown, err := t.unresolvedQualifier()
	if err != nil {
		return nil, err
	}
	if len(t.carriers) == 0 && len(t.sites) == 0 {
		if unresolved != "" && !typeKnown {
			return nil, fmt.Errorf("%w: no type or table %q in the index, and no field, column, key or config entry spells %q", ErrNoTarget, t.qual, t.written)
		}
		return nil, fmt.Errorf("%w: no field, column, key or config entry spells %q", ErrNoTarget, t.target)
	}
	res.Unresolved = unresolved
	t.persistedTypes()
	followed, cut := 0, false
	for _, s := range t.sites {
		if t.past() {
			cut = true
			break
		}
		followed++
		if err := t.pathsTo(s); err != nil {
			return nil, err
		}
	}
	gaps, err := t.gaps()
	if err != nil {
		return nil, err
	}
	if err := t.dropSites(gaps); err != nil {
		return nil, err
	}
	var flows []Flow
	switch {
	case cut:
		res.Partial = fmt.Sprintf("call paths followed for %d of %d sites, flows not joined: the trace's time bound", followed, len(t.sites))
	case t.past():
		res.Partial = "flows not joined: the trace's time bound"
	default:
		if flows, err = t.flows(gaps); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(t.carriers, func(a, b *Carrier) int {
		if a.Primary != b.Primary {
			if a.Primary {
				return -1
			}
			return 1
		}
		if ea, eb := t.spelledAsWritten(a.Name), t.spelledAsWritten(b.Name); ea != eb {
			if ea {
				return -1
			}
			return 1
		}
		return cmp.Or(strings.Compare(a.Path, b.Path), a.StartLine-b.StartLine)
	})
	for _, c := range t.carriers {
		res.Carriers = append(res.Carriers, *c)
	}
	t.rankSpellings()
	for _, s := range t.sites {
		if s.Access == "write" {
			res.Writes = append(res.Writes, *s)
		} else {
			res.Reads = append(res.Reads, *s)
		}
	}
	res.Flows, res.Gaps, res.Unknown, res.Warnings = flows, gaps, t.unknown, t.warnings
	if res.Writes == nil {
		res.Writes = []Site{}
	}
	if res.Reads == nil {
		res.Reads = []Site{}
	}
	if res.Flows == nil {
		res.Flows = []Flow{}
	}
	if res.Gaps == nil {
		res.Gaps = []Gap{}
	}
	return res, nil
}

// past reports whether the trace's deadline has passed.
func (t *tracer) past() bool {
	return !t.o.Deadline.IsZero() && time.Now().After(t.o.Deadline)
}

// parseTarget splits the target into a key and an optional type or table.
func (t *tracer) parseTarget() error {
	tg := strings.TrimPrefix(strings.TrimPrefix(t.target, "config:"), "key:")
	if tg != t.target && strings.Contains(tg, ".") {
		t.dotted = tg
		t.written = tg[strings.LastIndexByte(tg, '.')+1:]
		t.key = normalize(t.written)
		return nil
	}
	qual, name := graph.SplitQualified(tg)
	t.key, t.qual, t.written = normalize(name), qual, name
	if t.key == "" {
		return fmt.Errorf("trace: %q names no identifier", t.target)
	}
	if strings.Count(tg, ".") >= 2 && strings.ToLower(tg) == tg {
		// "server.http.port": a config key unless a type says otherwise
		t.dotted = tg
	}
	return nil
}

func (t *tracer) warn(msg string) {
	t.warnings = append(t.warnings, msg)
}

func access(write bool) string {
	if write {
		return "write"
	}
	return "read"
}

func (t *tracer) addSite(s *Site, path string, off int) {
	k := fmt.Sprintf("%s:%d", path, off)
	if t.siteAt[k] {
		return
	}
	t.siteAt[k] = true
	t.sites = append(t.sites, s)
}

// unresolvedQualifier says, when the target names a type or table
// (Task.artifact_url, zzqq.yy) that nothing found belongs to, whether the
// index holds that type at all, and that the bare key was traced instead:
// a trace of zzqq.yy must not pass for a trace of yy.
func (t *tracer) unresolvedQualifier() (msg string, typeKnown bool, err error) {
	if t.qual == "" || t.dotted != "" {
		return "", false, nil
	}
	for _, c := range t.carriers {
		if c.Primary {
			return "", true, nil
		}
	}
	name := t.qual[strings.LastIndexByte(t.qual, '.')+1:]
	ss, err := t.r.SymbolsByName(t.ctx, name)
	if err != nil {
		return "", false, err
	}
	for _, s := range ss {
		if s.Kind.IsType() {
			return fmt.Sprintf("type %s (%s:%d) has no field spelled %s: traced the key %q wherever it is spelled instead", s.Name, s.Path, s.NameRange.StartLine, t.written, t.key), true, nil
		}
	}
	return fmt.Sprintf("no type or table %s in the index: traced the key %q wherever it is spelled instead", t.qual, t.key), false, nil
}

// spelledAsWritten: a carrier's name ends in the key as the target spells
// it (headers["_AuthToken"] for _AuthToken, Task.ArtifactURL for
// ArtifactURL).
func (t *tracer) spelledAsWritten(name string) bool {
	return name == t.written || strings.HasSuffix(name, "."+t.written)
}

// rankSpellings marks, for a bare key or name (_AuthToken, not
// Task.ArtifactURL, whose column and wire names are its representations),
// the sites that spell it otherwise (Normalized) and lists them after the
// ones spelled as written: a quoted key is matched as written; its
// normalized variants are further candidates, never in its place.
func (t *tracer) rankSpellings() {
	if t.qual != "" || t.dotted != "" {
		// a field or column: its other representations (the column of a
		// field, the client's camelCase member) are the value itself
		return
	}
	for _, s := range t.sites {
		if !t.exactSpelling(s) {
			s.Normalized = true
			s.Variant = cmp.Or(s.spelled, s.Carrier)
		}
	}
	slices.SortStableFunc(t.sites, func(a, b *Site) int {
		switch {
		case a.Normalized == b.Normalized:
			return 0
		case b.Normalized:
			return -1
		}
		return 1
	})
}

// exactSpelling: the site spells the key as the target does. A site
// without a spelling of its own (an accessor's call, a mapper that drops
// the value) does when its accessor or carrier holds the key as written
// (setArtifactURL for ArtifactURL; not set_fill_value for _FillValue):
// every other site is a variant, listed after the exact ones.
func (t *tracer) exactSpelling(s *Site) bool {
	if s.spelled != "" {
		return s.spelled == t.written
	}
	return strings.Contains(s.How, t.written) || t.spelledAsWritten(s.Carrier)
}

// skippedFiles reports files the index left out for their size or lines
// (or could not read) that may hold the key: the trace cannot speak for
// them, so its "none" becomes "unknown".
func (t *tracer) skippedFiles() error {
	skips, err := t.r.Skips(t.ctx)
	if err != nil {
		return err
	}
	for _, sk := range skips {
		switch sk.Reason {
		case graph.SkipOversized, graph.SkipLongLines:
			src := t.readFile(sk.Path)
			if src != nil && len(src) <= 64<<20 && t.mentions(src) {
				t.unknown = append(t.unknown, fmt.Sprintf("%s: not indexed (%s), mentions the key", sk.Path, sk.Reason))
				t.uncertain = true
			}
		case graph.SkipUnreadable:
			if st, err := os.Lstat(filepath.Join(t.root, filepath.FromSlash(sk.Path))); err == nil && st.Mode()&os.ModeSymlink != 0 {
				continue // a dangling link, not code
			}
			t.unknown = append(t.unknown, fmt.Sprintf("%s: not indexed (%s), not searched", sk.Path, sk.Reason))
		}
	}
	return nil
}
