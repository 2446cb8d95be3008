package resolve

import (
	"context"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/graph"
)

// Source looks up definitions by name across the repository (the store, or
// an in-memory table during a full run). SymbolsByName may match
// case-insensitively; the index keeps exact matches only.
type Source interface {
	SymbolsByName(ctx context.Context, name string) ([]graph.Symbol, error)
}

// Index is the resolver's view of the repository: symbols by exact name
// (cached, safe for concurrent use) and the indexed files, for mapping
// imports to files.
type Index struct {
	src Source
	ctx context.Context
	mu  sync.Mutex
	// cache and old are the name cache's two generations (entry)
	cache, old map[string]*nameEntry
	cacheGen   int
	err        error

	files map[string]graph.File
	// goDirs are the directories holding Go files; pyModules maps a dotted
	// Python module name to its file.
	goDirs    map[string]bool
	pyModules map[string]string
	// pySuffixes holds every proper dotted suffix of a module in pyModules
	// ("a.b.c" gives "b.c" and "c"): modules under a source root below the
	// repository's are found without a walk over all modules.
	pySuffixes map[string]bool
	superMu    sync.Mutex
	supers     map[graph.SymbolID][]graph.Symbol
	// goMods maps a Go module path to its directory (from go.mod files).
	goMods map[string]string
	// goPkgNames maps a directory of Go files to its package's name (that
	// of its files not named *_test).
	goPkgNames map[string]string
	// Imports returns a file's imports, to resolve types named in it; the
	// index caches its answers (see importsOf).
	Imports   func(path string) []graph.Import
	importsMu sync.Mutex
	imports   map[string][]graph.Import
	ctxMu     sync.Mutex
	contexts  map[string]*fileCtx
	// jsPackages caches the files of bare JavaScript module specifiers.
	jsMu       sync.Mutex
	jsPackages map[string]map[string]bool
	// pkgs maps a language family's package names to their files
	// (ImportedDirs, built once).
	pkgOnce sync.Once
	pkgs    map[graph.Language]map[string][]string
}

// jsPackageFiles maps a bare specifier ("zod", "@scope/pkg/sub") to the
// repository's files under a directory of that name (a monorepo package).
func (x *Index) jsPackageFiles(spec string) map[string]bool {
	x.jsMu.Lock()
	defer x.jsMu.Unlock()
	if v, ok := x.jsPackages[spec]; ok {
		return v
	}
	if x.jsPackages == nil {
		x.jsPackages = map[string]map[string]bool{}
	}
	out := map[string]bool{}
	needle := "/" + strings.TrimPrefix(spec, "@") + "/"
	for p := range x.files {
		if isJS(x.files[p].Lang) && strings.Contains("/"+p, needle) {
			out[p] = true
		}
	}
	x.jsPackages[spec] = out
	return out
}

// SetGoModules tells the index which directory holds which Go module.
func (x *Index) SetGoModules(mods map[string]string) { x.goMods = mods }

// goImportDir maps an import path to a directory of the repository, when a
// go.mod of the repository claims it.
func (x *Index) goImportDir(importPath string) (string, bool) {
	best, bestDir := "", ""
	for mod, dir := range x.goMods {
		if (importPath == mod || strings.HasPrefix(importPath, mod+"/")) && len(mod) > len(best) {
			best, bestDir = mod, dir
		}
	}
	if best == "" {
		return "", false
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(importPath, best), "/")
	switch {
	case bestDir == "." || bestDir == "":
		if rest == "" {
			return ".", true
		}
		return rest, true
	case rest == "":
		return bestDir, true
	}
	return bestDir + "/" + rest, true
}

// goTopLevel: with no go.mod to map import paths, the import path ip (its
// elements) names directory dir of the repository's own top level — the
// root, or a directory of the root — when its last element is that
// directory's package name (and the directory's own name, for one below the
// root). Suffix matching needs two elements to tell the repository's
// packages from another's, and a GOPATH-era or go.mod-less checkout's
// top-level packages share one at most ("github.com/google/zoekt/shards"
// for shards/, "github.com/google/zoekt" for the root's package zoekt).
func (x *Index) goTopLevel(ip []string, dir string) bool {
	if len(ip) < 2 || len(x.goMods) > 0 {
		return false
	}
	last := ip[len(ip)-1]
	return (dir == "." || dir == last) && x.goPkgNames[dir] == last
}

// NewIndex builds an Index over src and the repository's files.
func NewIndex(ctx context.Context, src Source, files []graph.File) *Index {
	x := &Index{src: src, ctx: ctx, cache: map[string]*nameEntry{}, cacheGen: nameCacheGen, files: map[string]graph.File{},
		goDirs: map[string]bool{}, pyModules: map[string]string{}, pySuffixes: map[string]bool{}, supers: map[graph.SymbolID][]graph.Symbol{}}
	for _, f := range files {
		x.files[f.Path] = f
		switch f.Lang {
		case graph.LangGo:
			x.goDirs[path.Dir(f.Path)] = true
			if f.Package != "" && !strings.HasSuffix(f.Package, "_test") {
				if x.goPkgNames == nil {
					x.goPkgNames = map[string]string{}
				}
				x.goPkgNames[path.Dir(f.Path)] = f.Package
			}
		case graph.LangPython:
			if f.Package != "" {
				x.pyModules[f.Package] = f.Path
				for m := f.Package; ; {
					i := strings.IndexByte(m, '.')
					if i < 0 {
						break
					}
					m = m[i+1:]
					x.pySuffixes[m] = true
				}
			}
		}
	}
	return x
}

// Err returns the first error the source reported.
func (x *Index) Err() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.err
}

// nameEntry is everything known about one name, grouped the ways the
// resolver asks. There is an entry for every name the run asks about (a
// million on the Linux kernel), so the common shapes — one language
// family, one owning type — hold their group without a map: a map per
// name was most of the entries' memory and the collector's work.
type nameEntry struct {
	all   []graph.Symbol
	types []graph.Symbol
	// by language family (JavaScript with TypeScript, C with C++): one
	// family's (fam, famAll), or byFam when there are several
	fam    graph.Language
	famAll []graph.Symbol
	byFam  map[graph.Language][]graph.Symbol
	// members by the symbol of the type that owns them: one owner's
	// (owner, owned), or byOwner when there are several
	owner    string
	owned    []graph.Symbol
	byOwner  map[string][]graph.Symbol
	nmembers int
	// C's and C++'s bare-name candidates by the asking file's language
	// (Index.bareC), computed at the first ask
	bareInC, bareInCpp *bareC
}

// byLang returns the definitions in language family fam.
func (e *nameEntry) byLang(fam graph.Language) []graph.Symbol {
	if e.byFam != nil {
		return e.byFam[fam]
	}
	if fam == e.fam {
		return e.famAll
	}
	return nil
}

// ownedBy returns the members owned by the type whose id is o.
func (e *nameEntry) ownedBy(o string) []graph.Symbol {
	if e.byOwner != nil {
		return e.byOwner[o]
	}
	if o == e.owner {
		return e.owned
	}
	return nil
}

// bare is where the bare-name candidates of a file of lang are kept.
func (e *nameEntry) bare(lang graph.Language) **bareC {
	if lang == graph.LangCpp {
		return &e.bareInCpp
	}
	return &e.bareInC
}

// bareC are the candidates of a bare C or C++ name: the language's
// top-level definitions, and (when there are none) every definition
// outside a container in the family, each deduplicated.
type bareC struct {
	top, any []graph.Symbol
}

// nameCacheGen is the number of names a generation of the resolver's
// name cache holds (Index.entry).
const nameCacheGen = 1 << 16

// entry returns the definitions spelled exactly name, grouped. The
// entries are cached in two generations: a name found in the older is
// moved to the newer, and when the newer is full the older is dropped.
// The cache is bounded — on the Linux kernel one entry for each of the
// million names a run asks about was half a gigabyte at the resolution's
// peak, most of it asked once — and a name a file after file asks (u32,
// kfree) stays.
func (x *Index) entry(name string) *nameEntry {
	x.mu.Lock()
	if v, ok := x.cache[name]; ok {
		x.mu.Unlock()
		return v
	}
	if v, ok := x.old[name]; ok {
		x.keep(name, v)
		x.mu.Unlock()
		return v
	}
	x.mu.Unlock()
	all, err := x.src.SymbolsByName(x.ctx, name)
	e := newNameEntry(name, all)
	x.mu.Lock()
	defer x.mu.Unlock()
	if err != nil && x.err == nil {
		x.err = err
	}
	if v, ok := x.cache[name]; ok {
		return v // another goroutine's, cached meanwhile
	}
	x.keep(name, e)
	return e
}

// keep puts an entry in the newer generation, which becomes the older
// when full. The key is the entry's own name when it has definitions (a
// view of the symbol table, no copy), else a copy: name is often a
// substring of a file's facts, which it would keep alive. x.mu is held.
func (x *Index) keep(name string, e *nameEntry) {
	if len(x.cache) >= x.cacheGen {
		x.old, x.cache = x.cache, make(map[string]*nameEntry, x.cacheGen)
	}
	if len(e.all) > 0 && e.all[0].Name == name {
		name = e.all[0].Name
	} else {
		name = strings.Clone(name)
	}
	x.cache[name] = e
}

// bareC returns the candidates of a bare name in a file of lang, C or
// C++. They do not depend on the file: a translation unit can name any
// other's top-level definitions. So they are filtered and deduplicated
// once per name and language instead of at every use — on the Linux
// kernel a name such as u32 is defined in dozens of headers and named
// millions of times, and the copies were most of the resolution's
// allocation. The slices are shared: read only.
func (x *Index) bareC(name string, lang graph.Language) *bareC {
	e := x.entry(name)
	x.mu.Lock()
	b := *e.bare(lang)
	x.mu.Unlock()
	if b != nil {
		return b
	}
	all := e.byLang(langFamily(lang))
	me := &graph.Symbol{Lang: lang}
	b = &bareC{top: sharedUnique(all, func(s *graph.Symbol) bool { return s.Parent < 0 && samePackage(s, me) })}
	if len(b.top) == 0 {
		b.any = sharedUnique(all, func(s *graph.Symbol) bool { return s.Container == "" })
	}
	x.mu.Lock()
	*e.bare(lang) = b
	x.mu.Unlock()
	return b
}

// sharedUnique is dedupeIDs(filter(ss, keep)), but ss itself (clipped:
// read only) when keep holds for every symbol and no id repeats — most C
// names' definitions are all top level and distinct, and a copy per name
// kept for the run was 0.2 GB on the Linux kernel.
func sharedUnique(ss []graph.Symbol, keep func(*graph.Symbol) bool) []graph.Symbol {
	all := true
	for i := range ss {
		if !keep(&ss[i]) {
			all = false
			break
		}
	}
	if all && len(dedupeIDs(ss)) == len(ss) {
		return ss[:len(ss):len(ss)]
	}
	return dedupeIDs(filter(ss, keep))
}

// newNameEntry groups the definitions in all spelled exactly name (a
// source may return other spellings too). A group holding every definition
// shares the slice instead of copying it: most names are defined in one
// language, and many by one type or only by types. The slices are read
// only.
func newNameEntry(name string, all []graph.Symbol) *nameEntry {
	e := &nameEntry{}
	n := 0
	for i := range all {
		if all[i].Name == name {
			n++
		}
	}
	if n == len(all) {
		e.all = all[:n:n]
	} else {
		e.all = make([]graph.Symbol, 0, n)
		for i := range all {
			if all[i].Name == name {
				e.all = append(e.all, all[i])
			}
		}
	}
	if n == 0 {
		return e
	}
	oneLang, allTypes, oneOwner := true, true, true
	fam := langFamily(e.all[0].Lang)
	firstOwner := ""
	for i := range e.all {
		s := &e.all[i]
		if langFamily(s.Lang) != fam {
			oneLang = false
		}
		if !typeLike(s) {
			allTypes = false
		}
		o := ""
		if s.Container != "" {
			o = owner(s.ID)
		}
		if o != "" {
			e.nmembers++
		}
		if i == 0 {
			firstOwner = o
		}
		if o == "" || o != firstOwner {
			oneOwner = false
		}
	}
	if oneLang {
		e.fam, e.famAll = fam, e.all
	} else {
		e.byFam = map[graph.Language][]graph.Symbol{}
	}
	if allTypes {
		e.types = e.all
	}
	if oneOwner {
		e.owner, e.owned = firstOwner, e.all
	}
	for i := range e.all {
		s := e.all[i]
		if !oneLang {
			e.byFam[langFamily(s.Lang)] = append(e.byFam[langFamily(s.Lang)], s)
		}
		if !allTypes && typeLike(&s) {
			e.types = append(e.types, s)
		}
		if !oneOwner && s.Container != "" {
			if o := owner(s.ID); o != "" {
				if e.byOwner == nil {
					e.byOwner = map[string][]graph.Symbol{}
				}
				e.byOwner[o] = append(e.byOwner[o], s)
			}
		}
	}
	// The entry is shared by every caller: no group keeps room that an
	// append by one of them would write into.
	e.types = slices.Clip(e.types)
	for k, g := range e.byFam {
		e.byFam[k] = slices.Clip(g)
	}
	for k, g := range e.byOwner {
		e.byOwner[k] = slices.Clip(g)
	}
	return e
}

// byName returns the definitions spelled exactly name.
func (x *Index) byName(name string) []graph.Symbol { return x.entry(name).all }

// typesNamed returns the type definitions spelled exactly name.
func (x *Index) typesNamed(name string) []graph.Symbol { return x.entry(name).types }

// members returns the members named name of type t (methods, fields),
// through its supertypes too, nearest first.
func (x *Index) members(t *graph.Symbol, name string, depth int) []graph.Symbol {
	e := x.entry(name)
	if e.nmembers == 0 {
		return nil
	}
	if m := e.ownedBy(string(t.ID)); len(m) > 0 || depth <= 0 {
		return m
	}
	var out []graph.Symbol
	for _, sup := range x.supertypes(t) {
		if sup.ID == t.ID {
			continue
		}
		if m := x.members(&sup, name, depth-1); len(m) > 0 {
			out = append(out, m...)
		}
	}
	return out
}

// allMembers returns every member named name, or nil when there are more
// than limit of them.
func (x *Index) allMembers(name string, limit int) []graph.Symbol {
	e := x.entry(name)
	if e.nmembers == 0 || e.nmembers > limit {
		return nil
	}
	out := make([]graph.Symbol, 0, e.nmembers)
	for _, s := range e.all {
		if s.Container != "" {
			out = append(out, s)
		}
	}
	return out
}

// supertypes resolves t's Extends and Implements by name, preferring types
// of t's own package (cached).
func (x *Index) supertypes(t *graph.Symbol) []graph.Symbol {
	x.superMu.Lock()
	if v, ok := x.supers[t.ID]; ok {
		x.superMu.Unlock()
		return v
	}
	x.superMu.Unlock()
	var out []graph.Symbol
	for _, text := range append(append([]string(nil), t.Extends...), t.Implements...) {
		_, name := typeName(text)
		if name == "" || name == t.Name {
			continue
		}
		cands := x.typesNamed(name)
		if pref := filter(cands, func(s *graph.Symbol) bool { return samePackage(s, t) }); len(pref) > 0 {
			cands = pref
		}
		if len(cands) <= 3 {
			out = append(out, cands...)
		}
	}
	x.superMu.Lock()
	x.supers[t.ID] = out
	x.superMu.Unlock()
	return out
}

func typesOnly(ss []graph.Symbol) []graph.Symbol {
	return filter(ss, func(s *graph.Symbol) bool { return s.Kind.IsType() })
}

func filter(ss []graph.Symbol, keep func(*graph.Symbol) bool) []graph.Symbol {
	var out []graph.Symbol
	for i := range ss {
		if keep(&ss[i]) {
			out = append(out, ss[i])
		}
	}
	return out
}

// samePackage reports whether two symbols live in the same package as their
// language understands it.
func samePackage(a, b *graph.Symbol) bool {
	if a.Lang != b.Lang && !(isJS(a.Lang) && isJS(b.Lang)) {
		return false
	}
	switch a.Lang {
	case graph.LangGo:
		return path.Dir(a.Path) == path.Dir(b.Path)
	case graph.LangJava, graph.LangPHP, graph.LangCSharp, graph.LangKotlin, graph.LangScala, graph.LangSwift:
		return a.Package == b.Package
	case graph.LangC, graph.LangCpp:
		return true
	}
	return a.Path == b.Path
}

func isJS(l graph.Language) bool {
	return l == graph.LangTypeScript || l == graph.LangTSX || l == graph.LangJavaScript
}

// langFamily groups languages that can refer to each other's definitions.
func langFamily(l graph.Language) graph.Language {
	switch l {
	case graph.LangTSX, graph.LangJavaScript:
		return graph.LangTypeScript
	case graph.LangCpp:
		return graph.LangC
	}
	return l
}

// contextOf returns a resolution context for another file: its imports and
// package, enough to resolve the types named in its declarations.
func (x *Index) contextOf(p string, r *Resolver) *fileCtx {
	f, ok := x.files[p]
	if !ok || x.Imports == nil {
		return nil
	}
	x.ctxMu.Lock()
	if c, ok := x.contexts[p]; ok {
		x.ctxMu.Unlock()
		cc := *c // each caller gets its own recursion guard
		return &cc
	}
	x.ctxMu.Unlock()
	lr := rules[f.Lang]
	if lr == nil {
		return nil
	}
	c := &fileCtx{r: r, x: x, ff: &graph.FileFacts{File: f, Imports: x.importsOf(p)}, rules: lr,
		imports: map[string][]graph.Import{}, locals: map[int32]map[string]bool{}, bindings: map[int32]map[string]string{},
		topByName: map[string][]int{}, kinds: map[graph.SymbolID]graph.SymbolKind{}}
	for _, im := range c.ff.Imports {
		if n := c.importLocalName(im); n != "" {
			c.imports[n] = append(c.imports[n], im)
		}
	}
	x.ctxMu.Lock()
	if x.contexts == nil {
		x.contexts = map[string]*fileCtx{}
	}
	x.contexts[p] = c
	x.ctxMu.Unlock()
	cc := *c
	return &cc
}

// importsOf returns (and caches) the imports of a file.
func (x *Index) importsOf(p string) []graph.Import {
	if x.Imports == nil {
		return nil
	}
	x.importsMu.Lock()
	if v, ok := x.imports[p]; ok {
		x.importsMu.Unlock()
		return v
	}
	x.importsMu.Unlock()
	v := x.Imports(p)
	x.importsMu.Lock()
	if x.imports == nil {
		x.imports = map[string][]graph.Import{}
	}
	x.imports[p] = v
	x.importsMu.Unlock()
	return v
}
