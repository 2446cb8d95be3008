package trace

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

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
	entryCache   map[graph.SymbolID]*Entry
	calleesCache map[graph.SymbolID][]callee
	callersCache map[graph.SymbolID][]graph.Edge
	pathsCache   map[graph.SymbolID][]CallPath

	pre *textPrefetch // the key's files, read while the index is asked
}

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
	for _, s := range t.sites {
		if err := t.pathsTo(s); err != nil {
			return nil, err
		}
	}
	gaps, err := t.gaps()
	if err != nil {
		return nil, err
	}
	flows, err := t.flows(gaps)
	if err != nil {
		return nil, err
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

// fieldKinds are the symbol kinds that hold a value.
func fieldKind(k graph.SymbolKind) bool {
	switch k {
	case graph.KindField, graph.KindProperty, graph.KindVariable, graph.KindConstant, graph.KindEnumMember:
		return true
	}
	return false
}

var reTag = regexp.MustCompile(`(\w+):"([^"]*)"`)

func (t *tracer) addCarrier(s *graph.Symbol, primary bool) {
	if _, ok := t.byID[s.ID]; ok {
		return
	}
	c := &Carrier{Kind: "field", Name: s.QualifiedName(), Lang: s.Lang.String(), Symbol: s.ID, Primary: primary,
		Loc: t.loc(s.Path, s.NameRange), container: s.Container}
	if s.Container == "" {
		c.Kind = "variable"
	}
	if s.Kind.IsCallable() {
		c.Kind = "accessor"
	}
	// tags on the field's line: json:"artifact_url,omitempty" db:"artifact_url"
	if src := t.src(s.Path); src != nil && int(s.Range.EndByte) <= len(src) {
		line := t.lineText(s.Path, int(s.NameRange.StartLine))
		for _, m := range reTag.FindAllStringSubmatch(line, -1) {
			name := strings.Split(m[2], ",")[0]
			switch m[1] {
			case "json", "yaml", "msgpack", "xml", "form", "bson", "mapstructure":
				if name != "" && name != "-" && c.Wire == "" {
					c.Wire = name
				}
			case "db", "sql", "pg":
				if name != "" && name != "-" {
					c.Column = name
				}
			case "gorm":
				for _, part := range strings.Split(m[2], ";") {
					if col, ok := strings.CutPrefix(part, "column:"); ok {
						c.Column = col
					}
				}
			}
		}
	}
	if c.Wire == "" && (s.Lang == graph.LangTypeScript || s.Lang == graph.LangTSX || s.Lang == graph.LangJavaScript) && s.Container != "" {
		c.Wire = s.Name // a TypeScript member is its JSON key
	}
	t.carriers = append(t.carriers, c)
	t.byID[s.ID] = c
	t.byName[s.Name] = append(t.byName[s.Name], c)
}

// findCarriers collects the fields, properties and variables spelling the
// key, in every language.
func (t *tracer) findCarriers() error {
	seen := map[graph.SymbolID]bool{}
	var cands, accessors []graph.Symbol
	for _, sp := range spellings(t.key) {
		ss, err := t.r.SymbolsByName(t.ctx, sp)
		if err != nil {
			return err
		}
		for _, s := range ss {
			if seen[s.ID] || normalize(s.Name) != t.key {
				continue
			}
			seen[s.ID] = true
			switch {
			case fieldKind(s.Kind):
				cands = append(cands, s)
			case s.Kind.IsCallable() && s.Container != "":
				// a builder or fluent accessor named like the field: status("new")
				accessors = append(accessors, s)
			}
		}
	}
	if len(cands) == 0 && t.qual != "" {
		// "Task.Artifact" for Task.ArtifactURL: a field of the type whose
		// name starts with the words asked for
		types, err := t.r.SymbolsByName(t.ctx, t.qual[strings.LastIndexByte(t.qual, '.')+1:])
		if err != nil {
			return err
		}
		for _, ty := range types {
			if !ty.Kind.IsType() {
				continue
			}
			ss, err := t.r.SymbolsInFile(t.ctx, ty.Path)
			if err != nil {
				return err
			}
			for _, s := range ss {
				if s.Container == ty.Name && fieldKind(s.Kind) && strings.HasPrefix(normalize(s.Name)+" ", t.key+" ") {
					t.key = normalize(s.Name)
					return t.findCarriers()
				}
			}
		}
	}
	for i := range cands {
		p := t.qual == "" || typeMatches(cands[i].Container, t.qual)
		if t.dotted != "" {
			p = false
		}
		t.addCarrier(&cands[i], p)
	}
	for i := range accessors {
		t.addCarrier(&accessors[i], t.qual == "" || typeMatches(accessors[i].Container, t.qual))
	}
	// setters, getters and builder methods of the key
	for _, pre := range []string{"set", "get", "with", "is", "has"} {
		for _, sp := range spellings(pre + " " + t.key) {
			if strings.Contains(sp, "-") {
				continue
			}
			ss, err := t.r.SymbolsByName(t.ctx, sp)
			if err != nil {
				return err
			}
			for _, s := range ss {
				if !seen[s.ID] && s.Kind.IsCallable() && s.Container != "" {
					seen[s.ID] = true
					t.addCarrier(&s, t.qual == "" || typeMatches(s.Container, t.qual))
				}
			}
		}
	}
	return nil
}

// symbolSites records the occurrences of the carriers: from the graph's
// read, write and call edges into them (each with the function it is in),
// then, when few files mention the carriers' names, from those files'
// occurrences, which adds the unresolved ones no edge was made for.
func (t *tracer) symbolSites() error {
	var ids []graph.SymbolID
	for id := range t.byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if len(ids) > 0 {
		es, err := t.r.Edges(t.ctx, ids, graph.In, graph.EdgeReads, graph.EdgeWrites, graph.EdgeCalls)
		if err != nil {
			return err
		}
		from := make([]graph.SymbolID, len(es))
		for i, e := range es {
			from[i] = e.From
		}
		t.prefetch(from)
		// a read+write occurrence gives two edges: the write speaks for it
		slices.SortStableFunc(es, func(a, b graph.Edge) int {
			if a.Kind == graph.EdgeWrites && b.Kind != graph.EdgeWrites {
				return -1
			}
			if b.Kind == graph.EdgeWrites && a.Kind != graph.EdgeWrites {
				return 1
			}
			return 0
		})
		for _, e := range es {
			c := t.byID[e.To]
			if c == nil {
				continue
			}
			var role graph.Role
			switch e.Kind {
			case graph.EdgeWrites:
				role = graph.RoleWrite
			case graph.EdgeReads:
				role = graph.RoleRead
			case graph.EdgeCalls:
				role = graph.RoleCall
			}
			name := c.Name[strings.LastIndexByte(c.Name, '.')+1:]
			o := graph.Occurrence{Name: name, Range: e.Range, Role: role, Symbol: e.To}
			conf := e.Confidence
			if e.Ambiguous {
				var cs []*Carrier
				for _, x := range t.byName[name] {
					if (x.Kind == "accessor") == (role == graph.RoleCall) {
						cs = append(cs, x)
					}
				}
				if len(cs) > 1 {
					c = t.unresolvedCarrier(name, cs)
				}
				conf = graph.ConfNameOnly
			}
			var fn *Func
			if sym := t.symbol(e.From); sym != nil && sym.Kind.IsCallable() {
				fn = t.funcOf(sym)
			} else if sym != nil && sym.Kind == graph.KindModule {
				fn = t.fileFunc(e.Path)
			}
			t.addSymbolSite(e.Path, &o, c, conf, fn)
		}
	}
	names := make([]string, 0, len(t.byName))
	for n := range t.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	byName := map[string][]string{}
	total := 0
	for _, name := range names {
		files, err := t.r.FilesMentioning(t.ctx, name)
		if err != nil {
			return err
		}
		byName[name] = files
		total += len(files)
	}
	if total > maxOccurrenceFiles {
		t.warn(fmt.Sprintf("%d files mention the carriers' names: only occurrences resolved (or linked by name) to them are counted", total))
		return nil
	}
	for _, name := range names {
		for _, p := range byName[name] {
			ff, err := t.fileFacts(p)
			if err != nil {
				return err
			}
			for i := range ff.Occurrences {
				o := &ff.Occurrences[i]
				if o.Name != name || o.Role&graph.RoleDefinition != 0 {
					continue
				}
				var c *Carrier
				conf := graph.ConfNameOnly
				switch {
				case o.Symbol != "" && t.byID[o.Symbol] != nil:
					c = t.byID[o.Symbol]
					conf = cmp.Or(o.Confidence, graph.ConfResolved)
					if !o.Symbol.IsHeuristic() {
						conf = graph.ConfPrecise
					}
				case o.Symbol != "":
					continue // something else of the same name
				default:
					// a call names an accessor; anything else a field
					var cs []*Carrier
					for _, c := range t.byName[name] {
						if (c.Kind == "accessor") == (o.Role&graph.RoleCall != 0) {
							cs = append(cs, c)
						}
					}
					if len(cs) == 0 {
						continue
					}
					if len(cs) == 1 {
						c = cs[0]
					} else {
						c = t.unresolvedCarrier(name, cs)
					}
				}
				t.addSymbolSite(p, o, c, conf, t.enclosingOcc(ff, o))
			}
		}
	}
	return nil
}

// maxOccurrenceFiles bounds the files whose occurrences are read one by
// one for unresolved uses of the carriers' names.
const maxOccurrenceFiles = 300

func (t *tracer) warn(msg string) {
	t.warnings = append(t.warnings, msg)
}

// unresolvedCarrier stands for "one of these fields": an occurrence whose
// receiver's type is unknown.
func (t *tracer) unresolvedCarrier(name string, cs []*Carrier) *Carrier {
	var owners []string
	for _, c := range cs {
		owners = append(owners, c.container)
	}
	return &Carrier{Kind: cs[0].Kind, Name: name + " (one of " + strings.Join(owners, ", ") + ")", of: cs}
}

// loadCalls fill their pointer arguments from storage or the wire.
var loadCalls = map[string]string{"Scan": "row", "ScanRow": "row", "ScanStruct": "row", "Get": "row", "Select": "row", "QueryRow": "row", "Find": "row", "First": "row", "Take": "row",
	"Decode": "wire", "Unmarshal": "wire", "Bind": "wire", "BindJSON": "wire", "ShouldBindJSON": "wire"}

func (t *tracer) addSymbolSite(p string, o *graph.Occurrence, c *Carrier, conf graph.Confidence, fn *Func) {
	s := &Site{Carrier: c.Name, Loc: t.loc(p, o.Range), Confidence: conf.String(), carrier: c, spelled: o.Name}
	if c.Kind == "accessor" {
		s.spelled = "" // setArtifactURL spells the key by design
	}
	s.Snippet = t.snippet(p, int(o.Range.StartLine))
	s.Func = fn
	src := t.src(p)
	switch {
	case c.Kind == "accessor":
		if o.Role&graph.RoleCall == 0 {
			return
		}
		_, write, _ := accessorKey(o.Name)
		if !write && normalize(o.Name) == t.key {
			write = hasArgs(src, int(o.Range.EndByte))
		}
		s.Access, s.How = access(write), "accessor "+o.Name+"(…)"
	case o.Role&graph.RoleWrite != 0:
		s.Access, s.How = "write", "assignment"
		if isLiteralKey(src, int(o.Range.EndByte)) {
			s.How = "literal field"
		}
	case o.Role&graph.RoleRead != 0 || o.Role == 0:
		s.Access, s.How = "read", "read"
		if call, ok := addressPassed(src, int(o.Range.StartByte)); ok {
			s.Access, s.How = "write", "pointer passed to "+call+"(…)"
			if kind, ok := loadCalls[call]; ok {
				s.How = call + "(&…) fills it from the " + map[string]string{"row": "query result", "wire": "decoded input"}[kind]
				s.Load = kind == "row"
			}
		}
	default:
		return
	}
	t.addSite(s, p, int(o.Range.StartByte))
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

// hasArgs: the call whose name ends at end passes arguments.
func hasArgs(src []byte, end int) bool {
	rest := bytes.TrimLeft(src[min(end, len(src)):], " \t")
	if !bytes.HasPrefix(rest, []byte("(")) {
		return false
	}
	rest = bytes.TrimLeft(rest[1:], " \t\n")
	return !bytes.HasPrefix(rest, []byte(")"))
}

// isLiteralKey: "Name:" right after the identifier, as in a struct or
// object literal.
func isLiteralKey(src []byte, end int) bool {
	rest := bytes.TrimLeft(src[min(end, len(src)):], " \t")
	return bytes.HasPrefix(rest, []byte(":")) && !bytes.HasPrefix(rest, []byte(":="))
}

// addressPassed reports whether the selector ending in the identifier at
// start has its address taken as a call argument: Scan(&t.ArtifactURL).
func addressPassed(src []byte, start int) (call string, ok bool) {
	if start > len(src) {
		return "", false // the file is gone, shorter, or refused (repofs)
	}
	i := start
	// back over the receiver chain "t." / "row.t."
	for i > 0 {
		j := i
		if j > 0 && src[j-1] == '.' {
			j--
			for j > 0 && isWordByte(src[j-1]) {
				j--
			}
		}
		if j == i {
			break
		}
		i = j
	}
	b := bytes.TrimRight(src[:i], " \t")
	if len(b) == 0 || b[len(b)-1] != '&' {
		return "", false
	}
	name := enclosingCall(string(src[:i]), i)
	return name, name != ""
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
		s.Normalized = s.spelled != "" && s.spelled != t.written
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

// column returns the carrier of table.column, creating it.
func (t *tracer) column(table, col string) *Carrier {
	k := strings.ToLower(table)
	if c, ok := t.columns[k]; ok {
		return c
	}
	c := &Carrier{Kind: "column", Name: table + "." + col, Table: table, Column: col, Lang: "sql",
		Primary: t.qual != "" && typeMatches(table, t.qual) || t.qual == ""}
	t.columns[k] = c
	t.carriers = append(t.carriers, c)
	return c
}

func (t *tracer) keyCarrier(kind, name string, lang graph.Language) *Carrier {
	for _, c := range t.carriers {
		if c.Kind == kind && c.Name == name {
			return c
		}
	}
	c := &Carrier{Kind: kind, Name: name, Lang: lang.String(), Primary: t.qual == ""}
	t.carriers = append(t.carriers, c)
	return c
}

// persistedTypes links types to the tables their values are loaded from:
// a struct scanned from a SELECT of the table, or tagged with its columns
// and named like it.
func (t *tracer) persistedTypes() {
	seen := map[string]bool{}
	var tables []string
	for _, c := range t.columns {
		if !seen[c.Table] {
			seen[c.Table] = true
			tables = append(tables, c.Table)
		}
	}
	// when several tables match a type (edges and gen_edges for Edge), the
	// one named closest to it wins: the shortest name, then the first in
	// order — never whichever a map happened to yield last
	slices.SortFunc(tables, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	for _, c := range t.carriers {
		if c.Kind != "field" || c.container == "" {
			continue
		}
		for _, tbl := range tables {
			if typeMatches(c.container, tbl) && (c.Column != "" || normalize(c.Name[strings.LastIndexByte(c.Name, '.')+1:]) == t.key) {
				c.Table = tbl
				break
			}
		}
	}
	// a row scanned into a field, in a function that selects from a table
	for _, s := range t.sites {
		if !s.Load || s.carrier == nil || s.carrier.Kind != "field" || s.Func == nil {
			continue
		}
		for _, o := range t.sites {
			if o.carrier != nil && o.carrier.Kind == "column" && o.Func != nil && o.Func.ID == s.Func.ID && o.Load && s.carrier.Table == "" {
				s.carrier.Table = o.carrier.Table // the first one found; a table named like the type won above
			}
		}
	}
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

// scope keeps, when the target named a type or table, the carriers that
// are linked to what it named: the same JSON key or column across a
// language or serialization boundary, or a function that touches both
// (a mapper, a loader, a handler). Other fields that merely share the
// name, and their sites, are left out.
func (t *tracer) scope() {
	linked := map[*Carrier]bool{}
	for _, c := range t.carriers {
		if c.Primary && c.Kind != "key" && c.Kind != "config" {
			linked[c] = true
		}
	}
	if t.qual == "" || len(linked) == 0 {
		return
	}
	siteFns := map[*Carrier]map[graph.SymbolID]bool{}
	for _, s := range t.sites {
		if s.Func == nil || s.Func.ID == "" {
			continue
		}
		if siteFns[s.carrier] == nil {
			siteFns[s.carrier] = map[graph.SymbolID]bool{}
		}
		siteFns[s.carrier][s.Func.ID] = true
	}
	for round := 0; round < 4; round++ {
		wires := map[string][]*Carrier{}
		fns := map[graph.SymbolID]bool{}
		tables := map[string]bool{}
		for c := range linked {
			for _, k := range []string{c.Wire, c.Column} {
				if k != "" {
					wires[normalize(k)] = append(wires[normalize(k)], c)
				}
			}
			for f := range siteFns[c] {
				fns[f] = true
			}
			if c.Table != "" {
				tables[strings.ToLower(c.Table)] = true
			}
			if c.container != "" {
				tables[strings.ToLower(c.container)] = true
			}
		}
		grew := false
		for _, c := range t.carriers {
			if linked[c] {
				continue
			}
			ok := false
			for _, l := range wires[normalize(c.Wire)] {
				if c.Wire != "" && (l.Lang != c.Lang || t.tagged(c) && t.tagged(l)) {
					ok = true
				}
			}
			for l := range linked {
				if l.container != "" && strings.HasPrefix(c.container, l.container+".") {
					ok = true // a nested builder or value class of the type
				}
			}
			if (c.Kind == "key" || c.Kind == "config") && len(wires[normalize(c.Name)]) > 0 {
				ok = true // the same key as a linked field's JSON name or column
			}
			if c.Kind == "column" {
				for tb := range tables {
					if typeMatches(c.Table, tb) {
						ok = true
					}
				}
			}
			for f := range siteFns[c] {
				if fns[f] {
					ok = true
				}
			}
			if ok {
				linked[c] = true
				grew = true
			}
		}
		if !grew {
			break
		}
	}
	// sites of unresolved spellings count when their function touches a
	// linked carrier too
	fns := map[graph.SymbolID]bool{}
	for c := range linked {
		for f := range siteFns[c] {
			fns[f] = true
		}
	}
	var keep []*Carrier
	for _, c := range t.carriers {
		if linked[c] {
			keep = append(keep, c)
			continue
		}
		delete(t.byID, c.Symbol)
		if c.Kind == "column" {
			delete(t.columns, strings.ToLower(c.Table))
		}
	}
	dropped := len(t.carriers) - len(keep)
	t.carriers = keep
	var sites []*Site
	for _, s := range t.sites {
		if linked[s.carrier] || s.carrier != nil && len(s.carrier.of) > 0 && (s.Func != nil && fns[s.Func.ID] || slices.ContainsFunc(s.carrier.of, func(c *Carrier) bool { return linked[c] })) {
			sites = append(sites, s)
		}
	}
	t.sites = sites
	if dropped > 0 {
		t.warn(fmt.Sprintf("%d other fields or keys share the name but are not linked to %s (no shared key, column or function): left out; trace the bare name to see them all", dropped, t.target))
	}
}
