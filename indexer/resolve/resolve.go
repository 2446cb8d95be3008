package resolve

import (
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/cairn-dev/cairn/graph"
)

// MaxCandidates bounds a name-only fan-out; beyond it a name stays
// unresolved.
const MaxCandidates = 16

// langRules holds what the resolver must know per language.
type langRules struct {
	selfWords []string // names of the enclosing object
	superWord string
	// implicitMembers: a bare name can be a member of the enclosing type
	// (Java, C++).
	implicitMembers bool
	// bareWritesAreLocal: assigning a bare name inside a function declares
	// a local (Python, JavaScript).
	bareWritesAreLocal bool
	ctorNames          []string // member names of constructors
	// bareNamesGlobal: an unqualified name may be defined in any file
	// (C and C++ share one global namespace; Rust paths are elided by use).
	bareNamesGlobal bool
	// uniqueMemberGuess: guess an unknown receiver's member by name only
	// when a single definition has that name (Go code calls mostly into
	// the standard library, whose types are not indexed).
	uniqueMemberGuess bool
	// builtinMembers are methods of the language's built-in types (str,
	// list, dict; Array, Promise): on a receiver of unknown type they are
	// far likelier built-in than the repository's, so they are not guessed.
	builtinMembers map[string]bool
	// qualSeps are member separators other than "." in qualifiers
	// (PHP's -> and ::, Ruby's ::); they split steps as "." does.
	qualSeps []string
	// uniformAccess: x.f and f name a method and an attribute alike (Ruby),
	// so the role follows the target: a call of an attribute reads it, a
	// bare name of a method calls it.
	uniformAccess bool
	// bareConstants: a capitalised bare name is a constant looked up
	// through the lexical nesting, then globally (Ruby).
	bareConstants bool
	// namespaceImports: an import without a name opens a namespace whose
	// top-level types a bare name may denote (C#'s using A.B;), and code
	// sees the types of its namespace's parents.
	namespaceImports bool
	// selfReturning are library methods that, called on a class, return
	// an instance of it (ActiveRecord's find, create, new).
	selfReturning map[string]bool
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

var pythonBuiltinMembers = words(`append extend insert remove pop clear index count sort reverse copy
	keys values items get setdefault update popitem fromkeys add discard union intersection difference
	issubset issuperset symmetric_difference join split rsplit splitlines strip lstrip rstrip replace
	startswith endswith lower upper title capitalize casefold format format_map encode decode find rfind
	partition rpartition isdigit isalpha isalnum isspace isupper islower zfill ljust rjust center expandtabs
	translate maketrans read readline readlines write writelines close flush seek tell fileno truncate
	group groups groupdict match search sub subn findall finditer fullmatch span start end
	total_seconds isoformat strftime timestamp date time replace astimezone tzname utcoffset
	acquire release wait notify put get_nowait put_nowait qsize empty full send recv hex bit_length`)

var jsBuiltinMembers = words(`push pop shift unshift slice splice concat join reverse sort indexOf lastIndexOf
	includes find findIndex filter map reduce reduceRight forEach some every flat flatMap fill keys values
	entries toString valueOf hasOwnProperty then catch finally resolve reject apply call bind
	split trim trimStart trimEnd toLowerCase toUpperCase startsWith endsWith replace replaceAll match
	matchAll padStart padEnd charAt charCodeAt substring substr repeat localeCompare normalize at
	get set has delete clear add size length test exec toFixed toISOString getTime stringify parse
	log warn error info debug assign freeze create defineProperty getPrototypeOf next return throw`)

var rules = map[graph.Language]*langRules{
	graph.LangGo: {uniqueMemberGuess: true},
	graph.LangPython: {selfWords: []string{"self", "cls"}, superWord: "super()", bareWritesAreLocal: true, ctorNames: []string{"__init__"},
		builtinMembers: pythonBuiltinMembers},
	graph.LangTypeScript: {selfWords: []string{"this"}, superWord: "super", ctorNames: []string{"constructor"}, builtinMembers: jsBuiltinMembers, uniqueMemberGuess: true},
	graph.LangTSX:        {selfWords: []string{"this"}, superWord: "super", ctorNames: []string{"constructor"}, builtinMembers: jsBuiltinMembers, uniqueMemberGuess: true},
	graph.LangJavaScript: {selfWords: []string{"this"}, superWord: "super", ctorNames: []string{"constructor"}, builtinMembers: jsBuiltinMembers},
	graph.LangJava:       {selfWords: []string{"this"}, superWord: "super", implicitMembers: true},
	graph.LangRust:       {selfWords: []string{"self", "Self"}, bareNamesGlobal: true},
	graph.LangC:          {bareNamesGlobal: true},
	graph.LangCpp:        {selfWords: []string{"this"}, implicitMembers: true, bareNamesGlobal: true},
	graph.LangRuby:       rubyRules,
	graph.LangPHP:        phpRules,
	graph.LangCSharp:     csharpRules,
}

// Resolver resolves the occurrences of files against an Index.
type Resolver struct {
	x *Index
	// ModuleSymbol names the file-level "symbol" of a file, the source of
	// edges from code outside any definition.
	ModuleSymbol func(lang graph.Language, path, pkg string) graph.SymbolID
}

// New returns a resolver over x.
func New(x *Index, module func(lang graph.Language, path, pkg string) graph.SymbolID) *Resolver {
	return &Resolver{x: x, ModuleSymbol: module}
}

type target struct {
	sym  graph.Symbol
	conf graph.Confidence
}

// fileCtx is the resolution state of one file.
type fileCtx struct {
	r      *Resolver
	x      *Index
	ff     *graph.FileFacts
	rules  *langRules
	module graph.SymbolID
	// imports by the local name they bind
	imports map[string][]graph.Import
	// locals and typed bindings per scope (a symbol index of the file; -1 is
	// the file level)
	locals   map[int32]map[string]bool
	bindings map[int32]map[string]string
	// topByName: this file's top-level definitions
	topByName map[string][]int
	// depth guards the mutual recursion of type inference (x := x.Next()).
	depth int
	kinds map[graph.SymbolID]graph.SymbolKind
}

// File resolves ff's occurrences in place (Symbol and Confidence of those
// that resolve to exactly one symbol) and returns the file's edges.
func (r *Resolver) File(ff *graph.FileFacts) []graph.Edge {
	lr := rules[ff.File.Lang]
	if lr == nil || !ff.File.Status.Analysed() {
		return nil
	}
	c := &fileCtx{r: r, x: r.x, ff: ff, rules: lr, imports: map[string][]graph.Import{},
		locals: map[int32]map[string]bool{}, bindings: map[int32]map[string]string{}, topByName: map[string][]int{},
		kinds: map[graph.SymbolID]graph.SymbolKind{}}
	if r.ModuleSymbol != nil {
		c.module = r.ModuleSymbol(ff.File.Lang, ff.File.Path, ff.File.Package)
	}
	for _, im := range ff.Imports {
		if n := c.importLocalName(im); n != "" {
			c.imports[n] = append(c.imports[n], im)
		}
	}
	for _, b := range ff.Bindings {
		if c.locals[b.Scope] == nil {
			c.locals[b.Scope] = map[string]bool{}
			c.bindings[b.Scope] = map[string]string{}
		}
		c.locals[b.Scope][b.Name] = true
		if b.Type != "" {
			c.bindings[b.Scope][b.Name] = b.Type
		}
	}
	for i := range ff.Symbols {
		if ff.Symbols[i].Parent < 0 && !goMethod(&ff.Symbols[i]) {
			c.topByName[ff.Symbols[i].Name] = append(c.topByName[ff.Symbols[i].Name], i)
		}
	}
	if lr.bareWritesAreLocal {
		for _, o := range ff.Occurrences {
			if o.Role&graph.RoleWrite != 0 && o.Qualifier == "" && o.Enclosing >= 0 && ff.Symbols[o.Enclosing].Kind.IsCallable() {
				if c.locals[o.Enclosing] == nil {
					c.locals[o.Enclosing] = map[string]bool{}
					c.bindings[o.Enclosing] = map[string]string{}
				}
				c.locals[o.Enclosing][o.Name] = true
			}
		}
	}

	var edges []graph.Edge
	// contains
	for i := range ff.Symbols {
		s := &ff.Symbols[i]
		from := c.module
		if s.Parent >= 0 {
			from = ff.Symbols[s.Parent].ID
		}
		if from != "" {
			edges = append(edges, graph.Edge{From: from, To: s.ID, Kind: graph.EdgeContains, Confidence: graph.ConfResolved, Path: ff.File.Path, Range: s.NameRange})
		}
	}
	// occurrences
	for i := range ff.Occurrences {
		o := &ff.Occurrences[i]
		if o.Role&graph.RoleDefinition != 0 {
			continue
		}
		var ts []target
		if o.Symbol != "" && o.Confidence == graph.ConfPrecise {
			if o.Symbol.IsLocal() {
				continue
			}
			ts = []target{{sym: graph.Symbol{ID: o.Symbol, Kind: c.preciseKind(o.Symbol)}, conf: graph.ConfPrecise}}
		} else if ff.File.SCIP != "" {
			// The file's SCIP index had no symbol here: no guessing in a
			// precisely indexed file.
			continue
		} else {
			o.Symbol, o.Confidence = "", 0
			if o.Qualifier == "" && o.Role&graph.RoleImport == 0 && c.isLocal(o.Name, o.Enclosing) {
				// A parameter or local variable: not a symbol, and not a
				// reference to any definition of the same name.
				o.Symbol, o.Confidence = graph.LocalSymbol(o.Name), graph.ConfResolved
				continue
			}
			if o.Role&graph.RoleArgument != 0 {
				var param bool
				if ts, param = c.resolveArgument(o); param {
					// A parameter of the callee: like a local, it is no
					// use of any definition spelled like it.
					o.Symbol, o.Confidence = graph.LocalSymbol(o.Name), graph.ConfResolved
					continue
				}
				if len(ts) > 0 {
					o.Role |= graph.RoleWrite // a field of the class called
				}
			} else {
				var outside bool
				if ts, outside = c.resolveOutside(o); outside {
					o.Confidence = graph.ConfResolved // names nothing of the index
				}
			}
			if len(ts) == 1 {
				o.Symbol, o.Confidence = ts[0].sym.ID, ts[0].conf
			}
			if c.rules.uniformAccess {
				o.Role = uniformRole(o.Role, ts)
			}
		}
		edges = c.occurrenceEdges(edges, o, ts)
	}
	// precise relations from a SCIP index
	for _, e := range ff.Edges {
		e.Path = ff.File.Path
		edges = append(edges, e)
	}
	// supertypes and overrides
	for i := range ff.Symbols {
		if ff.File.SCIP != "" {
			break // the index gave implementations precisely
		}
		s := &ff.Symbols[i]
		if !typeLike(s) {
			continue
		}
		for _, kind := range []graph.EdgeKind{graph.EdgeExtends, graph.EdgeImplements} {
			texts := s.Extends
			if kind == graph.EdgeImplements {
				texts = s.Implements
			}
			for _, text := range texts {
				for _, ts := range c.heritageRefs(text, int32(i)) {
					for _, t := range ts {
						if t.sym.ID == s.ID {
							continue
						}
						edges = append(edges, graph.Edge{From: s.ID, To: t.sym.ID, Kind: kind, Confidence: t.conf,
							Ambiguous: len(ts) > 1, Path: ff.File.Path, Range: s.NameRange})
					}
				}
			}
		}
	}
	if ff.File.SCIP == "" {
		edges = append(edges, c.overrides()...)
	}
	return edges
}

// preciseKind is the kind of a symbol named by a SCIP occurrence, as far as
// the index knows it (it decides reads versus references).
func (c *fileCtx) preciseKind(id graph.SymbolID) graph.SymbolKind {
	if k, ok := c.kinds[id]; ok {
		return k
	}
	k := c.lookupKind(id)
	c.kinds[id] = k
	return k
}

func (c *fileCtx) lookupKind(id graph.SymbolID) graph.SymbolKind {
	if n, ok := preciseName(id); ok {
		for _, s := range c.x.byName(n) {
			if s.ID == id {
				return s.Kind
			}
		}
	}
	s := string(id)
	switch {
	case strings.HasSuffix(s, ")."):
		return graph.KindFunction
	case strings.HasSuffix(s, "#"):
		return graph.KindClass
	}
	return graph.KindUnknown
}

// preciseName returns the name of a symbol's last descriptor.
func preciseName(id graph.SymbolID) (string, bool) {
	p, err := id.Parse()
	if err != nil || len(p.Descriptors) == 0 {
		return "", false
	}
	return p.Descriptors[len(p.Descriptors)-1].Name, true
}

// importLocalName is the name an import binds, by language rules.
func (c *fileCtx) importLocalName(im graph.Import) string {
	switch c.ff.File.Lang {
	case graph.LangPython:
		if im.Alias != "" {
			return im.Alias
		}
		if im.Name != "" {
			if im.Name == "*" {
				return ""
			}
			return im.Name
		}
		head, _, _ := strings.Cut(im.Module, ".")
		return head // import a.b binds a
	case graph.LangC, graph.LangCpp, graph.LangRuby:
		return "" // an include or require binds no name
	case graph.LangCSharp:
		if im.Name == "" {
			return "" // using A.B; opens a namespace (namespaceImports)
		}
	case graph.LangGo:
		if im.Alias != "" {
			if im.Alias == "_" || im.Alias == "." {
				return ""
			}
			return im.Alias
		}
		return goPackageName(im.Module)
	}
	if im.Name == "*" {
		return ""
	}
	return im.LocalName()
}

// scopes returns the enclosing symbol chain of an occurrence, innermost
// first, ending with -1 (the file).
func (c *fileCtx) scopes(enc int32) []int32 {
	var out []int32
	for s := enc; s >= 0; s = c.ff.Symbols[s].Parent {
		out = append(out, s)
	}
	return append(out, -1)
}

func (c *fileCtx) isLocal(name string, enc int32) bool {
	for _, s := range c.scopes(enc) {
		if s < 0 && c.ff.File.Lang != graph.LangGo {
			break // file-level bindings are module variables (symbols)
		}
		if c.locals[s][name] {
			return s >= 0 || c.topByName[name] == nil
		}
	}
	return false
}

func (c *fileCtx) bindingType(name string, enc int32) (string, bool) {
	for _, s := range c.scopes(enc) {
		if t, ok := c.bindings[s][name]; ok {
			return t, true
		}
		if c.locals[s][name] {
			return "", true // an untyped local shadows outer names
		}
	}
	return "", false
}

// enclosingType returns the innermost type around a scope.
func (c *fileCtx) enclosingType(enc int32) *graph.Symbol {
	for s := enc; s >= 0; s = c.ff.Symbols[s].Parent {
		if typeLike(&c.ff.Symbols[s]) {
			return &c.ff.Symbols[s]
		}
	}
	// Go methods are not nested in their type: the container names it.
	if enc >= 0 {
		m := &c.ff.Symbols[enc]
		for m.Parent >= 0 {
			m = &c.ff.Symbols[m.Parent]
		}
		if m.Container != "" {
			for _, t := range c.x.typesNamed(lastComponent(m.Container)) {
				if strings.HasPrefix(string(m.ID), string(t.ID)) {
					t := t
					return &t
				}
			}
		}
	}
	return nil
}

func lastComponent(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// resolve finds the targets of one reference.
func (c *fileCtx) resolve(o *graph.Occurrence) []target {
	ts, _ := c.resolveOutside(o)
	return ts
}

// resolveOutside resolves o; outside reports that o was found to name
// nothing of the index (graph.Occurrence.Outside).
func (c *fileCtx) resolveOutside(o *graph.Occurrence) (ts []target, outside bool) {
	if o.Role&graph.RoleImport != 0 {
		return c.resolveImported(o), false
	}
	if o.Qualifier == "" {
		return c.resolveBare(o.Name, o.Enclosing, o.Role), false
	}
	return c.resolveMemberOutside(o)
}

// resolveArgument resolves a keyword argument, f(name=v), whose qualifier
// is the callee. Only when the callee is a class with a field of that name
// (a dataclass or a model built with Task(url=u)) does it denote, and
// write, the field. Otherwise it binds a parameter of the callee (param):
// when the callee is a function or method of the index, or a lower-case
// name from elsewhere (open, json.dumps; classes are capitalised). An
// unknown capitalised callee (a library's class) leaves it unresolved.
func (c *fileCtx) resolveArgument(o *graph.Occurrence) (ts []target, param bool) {
	steps := c.splitQual(o.Qualifier)
	if len(steps) == 0 {
		return nil, false
	}
	callee := strings.TrimSuffix(steps[len(steps)-1], "()")
	if ts := c.selfAttributeWrite(steps, o); len(ts) > 0 {
		return ts, false
	}
	var calls []target
	if len(steps) == 1 {
		calls = c.resolveBare(callee, o.Enclosing, graph.RoleCall)
	} else {
		calls = c.resolveMember(&graph.Occurrence{Name: callee, Qualifier: strings.Join(steps[:len(steps)-1], "."), Enclosing: o.Enclosing})
	}
	types := false
	for _, t := range calls {
		if !t.sym.Kind.IsType() {
			continue
		}
		types = true
		for _, m := range c.x.members(&t.sym, o.Name, 4) {
			switch m.Kind {
			case graph.KindField, graph.KindProperty, graph.KindVariable:
				ts = append(ts, target{sym: m, conf: t.conf})
			}
		}
	}
	if len(ts) > 0 {
		return ts, false
	}
	if len(calls) > 0 {
		return nil, !types
	}
	return nil, callee != "" && !unicode.IsUpper(rune(callee[0]))
}

func one(syms []graph.Symbol, conf graph.Confidence) []target {
	out := make([]target, len(syms))
	for i, s := range syms {
		out[i] = target{sym: s, conf: conf}
	}
	return out
}

// nameOnly applies the name-only fallback to candidates.
func nameOnly(cands []graph.Symbol) []target {
	if len(cands) == 0 || len(cands) > MaxCandidates {
		return nil
	}
	return one(cands, graph.ConfNameOnly)
}

func (c *fileCtx) sameLang(ss []graph.Symbol) []graph.Symbol {
	l := c.ff.File.Lang
	return filter(ss, func(s *graph.Symbol) bool {
		return s.Lang == l || (isJS(s.Lang) && isJS(l)) || (l == graph.LangC && s.Lang == graph.LangCpp) || (l == graph.LangCpp && s.Lang == graph.LangC)
	})
}

func (c *fileCtx) resolveBare(name string, enc int32, role graph.Role) []target {
	if c.isLocal(name, enc) {
		return nil
	}
	// same file, top level (and the file's own nested definitions)
	if idx := c.topByName[name]; len(idx) > 0 {
		var ss []graph.Symbol
		for _, i := range idx {
			ss = append(ss, c.ff.Symbols[i])
		}
		return one(dedupeIDs(ss), graph.ConfResolved)
	}
	// members of the enclosing type, without this.
	if c.rules.implicitMembers {
		if t := c.enclosingType(enc); t != nil {
			if ms := c.x.members(t, name, 3); len(ms) > 0 {
				return one(dedupeIDs(ms), graph.ConfResolved)
			}
		}
	}
	// imported names
	if ims := c.imports[name]; len(ims) > 0 {
		if ts := c.resolveImportBinding(ims, name); len(ts) > 0 {
			return ts
		}
	}
	if c.rules.bareConstants && isConstName(name) {
		return c.rubyConstant(name, enc)
	}
	all := c.x.entry(name).byLang[langFamily(c.ff.File.Lang)]
	if c.rules.namespaceImports {
		if ts := c.namespaceMember(name, all); len(ts) > 0 {
			return ts
		}
	}
	me := &graph.Symbol{Lang: c.ff.File.Lang, Path: c.ff.File.Path, Package: c.ff.File.Package}
	// same package (Go directory, Java package, C translation units)
	if pkg := filter(all, func(s *graph.Symbol) bool { return s.Parent < 0 && !goMethod(s) && samePackage(s, me) }); len(pkg) > 0 {
		conf := graph.ConfResolved
		if c.ff.File.Lang == graph.LangC || c.ff.File.Lang == graph.LangCpp {
			conf = graph.ConfNameOnly // any translation unit may define it
		}
		if len(pkg) > 1 && conf == graph.ConfNameOnly {
			return nameOnly(dedupeIDs(pkg))
		}
		return one(dedupeIDs(pkg), conf)
	}
	// name only: top-level definitions of the language, where a bare name
	// can come from anywhere (C's one namespace, Rust's crate paths, a
	// Python star import); in Go, Java, Python and JavaScript a bare name
	// that is neither local, imported nor in the package is a builtin or a
	// global of the runtime.
	if !c.rules.bareNamesGlobal && !(c.ff.File.Lang == graph.LangPython && c.starImports()) {
		return nil
	}
	return nameOnly(dedupeIDs(filter(all, func(s *graph.Symbol) bool { return s.Container == "" })))
}

func (c *fileCtx) starImports() bool {
	for _, im := range c.ff.Imports {
		if im.Name == "*" {
			return true
		}
	}
	return false
}

// resolveImported resolves the name of an import statement itself.
func (c *fileCtx) resolveImported(o *graph.Occurrence) []target {
	for _, im := range c.ff.Imports {
		if im.Range.StartByte <= o.Range.StartByte && o.Range.EndByte <= im.Range.EndByte {
			if ts := c.moduleMember(im.Module, o.Name); len(ts) > 0 {
				return ts
			}
		}
	}
	return nil
}

// resolveImportBinding resolves a name bound by imports.
func (c *fileCtx) resolveImportBinding(ims []graph.Import, name string) []target {
	for _, im := range ims {
		member := im.Name
		if member == "" || member == "*" || member == "default" {
			continue // a module: not a symbol by itself
		}
		if ts := c.moduleMember(im.Module, lastComponent(strings.ReplaceAll(member, "::", "."))); len(ts) > 0 {
			return ts
		}
	}
	return nil
}

// moduleMember finds top-level definitions named name in an imported module.
func (c *fileCtx) moduleMember(module, name string) []target {
	cands := c.x.entry(name).byLang[langFamily(c.ff.File.Lang)]
	var in []graph.Symbol
	switch c.ff.File.Lang {
	case graph.LangGo:
		in = c.goPackageMembers(module, cands)
	case graph.LangPython:
		mod := c.pythonModule(module)
		in = filter(cands, func(s *graph.Symbol) bool {
			return s.Parent < 0 && (s.Package == mod || strings.HasSuffix(s.Package, "."+mod) ||
				// from pkg import name where name is in pkg/__init__.py
				strings.HasSuffix(s.Package, "."+mod+".__init__"))
		})
	case graph.LangTypeScript, graph.LangTSX, graph.LangJavaScript:
		in = c.jsModuleMember(cands, module, name, c.ff.File.Path, 0)
	case graph.LangJava, graph.LangKotlin, graph.LangScala:
		in = filter(cands, func(s *graph.Symbol) bool { return s.Package == module || strings.HasSuffix(module, "."+s.Name) })
	case graph.LangPHP, graph.LangCSharp, graph.LangSwift:
		in = filter(cands, func(s *graph.Symbol) bool { return s.Parent < 0 && s.Package == module })
	case graph.LangRust:
		segs := strings.Split(strings.ReplaceAll(module, "::", "/"), "/")
		in = filter(cands, func(s *graph.Symbol) bool {
			for _, seg := range segs {
				if seg != "crate" && seg != "self" && seg != "super" && strings.Contains(s.Path, seg) {
					return true
				}
			}
			return false
		})
	}
	if len(in) == 0 {
		return nil
	}
	return one(dedupeIDs(in), graph.ConfResolved)
}

// goPackageMembers keeps the top-level Go candidates in the package an
// import path names: through the repository's go.mod files when one claims
// the path (external packages then match nothing), else by the longest
// common suffix of path elements, at least two, or a top-level package of
// the repository's own (goTopLevel).
func (c *fileCtx) goPackageMembers(importPath string, cands []graph.Symbol) []graph.Symbol {
	cands = filter(cands, func(s *graph.Symbol) bool { return s.Parent < 0 && !goMethod(s) })
	if dir, ok := c.x.goImportDir(importPath); ok {
		return filter(cands, func(s *graph.Symbol) bool { return path.Dir(s.Path) == dir })
	} else if len(c.x.goMods) > 0 {
		return nil
	}
	ip := strings.Split(importPath, "/")
	best, bestLen := []graph.Symbol(nil), 0
	for _, s := range cands {
		if s.Parent >= 0 {
			continue
		}
		d := strings.Split(path.Dir(s.Path), "/")
		n := 0
		for n < len(ip) && n < len(d) && ip[len(ip)-1-n] == d[len(d)-1-n] {
			n++
		}
		if n < min(2, len(ip)) {
			if !c.x.goTopLevel(ip, path.Dir(s.Path)) {
				continue
			}
			n = 1 // below any match of two elements
		}
		switch {
		case n > bestLen:
			best, bestLen = []graph.Symbol{s}, n
		case n == bestLen:
			best = append(best, s)
		}
	}
	return best
}

// goMethod: a Go method is declared at top level (no parent) but is
// reached only through a value or its type (x.Error(), T.Error), never
// as a package member or a bare name: pkg.Error is the package's
// function, and so is Error inside the package.
func goMethod(s *graph.Symbol) bool {
	return s.Lang == graph.LangGo && s.Kind == graph.KindMethod
}

// pythonModule makes a relative module absolute against this file's module.
func (c *fileCtx) pythonModule(mod string) string { return pythonModuleOf(&c.ff.File, mod) }

// pythonModuleOf makes a relative module absolute against file f's module.
func pythonModuleOf(f *graph.File, mod string) string {
	if !strings.HasPrefix(mod, ".") {
		return mod
	}
	dots := len(mod) - len(strings.TrimLeft(mod, "."))
	rest := mod[dots:]
	base := f.Package
	if !strings.HasSuffix(f.Path, "__init__.py") {
		// a module's package is its parent
		if i := strings.LastIndexByte(base, '.'); i >= 0 {
			base = base[:i]
		} else {
			base = ""
		}
	}
	for i := 1; i < dots; i++ {
		if j := strings.LastIndexByte(base, '.'); j >= 0 {
			base = base[:j]
		} else {
			base = ""
		}
	}
	switch {
	case base == "":
		return rest
	case rest == "":
		return base
	}
	return base + "." + rest
}

// jsModuleMember finds the top-level definitions named name that a module
// exports, following re-exports (export * from, export { x } from) of
// barrel files a few levels deep.
func (c *fileCtx) jsModuleMember(cands []graph.Symbol, spec, name, from string, depth int) []graph.Symbol {
	files := c.jsModuleFiles(spec, from)
	in := filter(cands, func(s *graph.Symbol) bool { return s.Parent < 0 && files[s.Path] })
	if len(in) > 0 || depth >= 3 || c.x.Imports == nil || !strings.HasPrefix(spec, ".") {
		return in
	}
	paths := make([]string, 0, len(files))
	for f := range files {
		paths = append(paths, f)
	}
	slices.Sort(paths)
	for _, f := range paths {
		for _, im := range c.x.importsOf(f) {
			target := ""
			switch {
			case im.Alias == name && im.Name != "":
				target = im.Name // export { a as name } from
			case im.Name == name && im.Alias == "", im.Name == "" && im.Alias == "", im.Name == "*" && im.Alias == "":
				target = name // export { name } from, export * from
			default:
				continue
			}
			if got := c.jsModuleMember(c.x.entry(target).byLang[graph.LangTypeScript], im.Module, target, f, depth+1); len(got) > 0 {
				return got
			}
		}
	}
	return nil
}

// jsModuleFiles maps an import specifier, relative to the file from, to the
// files it can mean (TypeScript's ESM ".js" specifiers name ".ts" files).
func (c *fileCtx) jsModuleFiles(spec, from string) map[string]bool {
	return c.x.jsModuleFiles(spec, from)
}

func (x *Index) jsModuleFiles(spec, from string) map[string]bool {
	if !strings.HasPrefix(spec, ".") {
		return x.jsPackageFiles(spec)
	}
	out := map[string]bool{}
	base := path.Join(path.Dir(from), spec)
	base = strings.TrimSuffix(base, path.Ext(base))
	for _, ext := range []string{"", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".d.ts", "/index.ts", "/index.tsx", "/index.js"} {
		if _, ok := x.files[base+ext]; ok {
			out[base+ext] = true
		}
	}
	if _, ok := x.files[path.Join(path.Dir(from), spec)]; ok {
		out[path.Join(path.Dir(from), spec)] = true
	}
	return out
}

func isJSPath(p string) bool {
	switch path.Ext(p) {
	case ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts":
		return true
	}
	return false
}

// resolveMember resolves q.name.
func (c *fileCtx) resolveMember(o *graph.Occurrence) []target {
	ts, _ := c.resolveMemberOutside(o)
	return ts
}

// resolveMemberOutside resolves a qualified name; outside reports that
// the qualifier is a module without the member, or a value whose type is
// known to lie outside the index.
func (c *fileCtx) resolveMemberOutside(o *graph.Occurrence) ([]target, bool) {
	steps := c.splitQual(o.Qualifier)
	types, mod, conf, known := c.qualifierType(steps, o.Enclosing)
	switch {
	case mod != "":
		if ts := c.moduleMember(mod, o.Name); len(ts) > 0 {
			return ts, false
		}
		return nil, c.outsideModule(mod) // a module we know, a member we do not (external)
	case len(types) > 0:
		var ms []graph.Symbol
		for i := range types {
			ms = append(ms, c.x.members(&types[i], o.Name, 4)...)
		}
		if len(ms) > 0 {
			if conf == graph.ConfNameOnly {
				return nameOnly(dedupeIDs(ms)), false
			}
			return one(dedupeIDs(ms), conf), false
		}
		// A type we know without the member: it comes from elsewhere
		// (embedded from another package, a library base class).
	}
	if known {
		// what the qualifier is, is known: no guessing by name
		return nil, len(steps) == 1 && c.externalValue(steps[0], o.Enclosing)
	}
	// name only: members with that name
	if c.rules.builtinMembers[o.Name] {
		return nil, false
	}
	limit := 4 * MaxCandidates
	if c.rules.uniqueMemberGuess {
		limit = 1
	}
	if ms := dedupeIDs(c.sameLang(c.x.allMembers(o.Name, limit))); len(ms) > 0 && len(ms) <= limit {
		return nameOnly(ms), false
	}
	return nil, false
}

// externalValue reports a local whose type is named through an imported
// package that holds no such definition in the index: t := time.NewTimer(d),
// var b bytes.Buffer. Its members are not the index's.
func (c *fileCtx) externalValue(name string, enc int32) bool {
	bt, ok := c.bindingType(name, enc)
	if !ok {
		return false
	}
	bt = strings.TrimLeft(bt, "*&")
	qual, member, found := strings.Cut(strings.TrimSuffix(bt, "()"), ".")
	if !found || strings.ContainsAny(member, ".[]()<> ") || !isIdent(qual) {
		return false
	}
	mod := c.moduleOf([]string{qual})
	return mod != "" && len(c.moduleMember(mod, member)) == 0 && c.outsideModule(mod)
}

// outsideModule: a member the resolver did not find in module mod is no
// definition of the index. In Go a package defines its members itself
// (none re-exported), so any package qualifies; a Python module may
// re-export (from .api import get in a package's __init__), so only a
// module the index does not hold; in other languages, none.
func (c *fileCtx) outsideModule(mod string) bool {
	switch c.ff.File.Lang {
	case graph.LangGo:
		return true
	case graph.LangPython:
		return !c.isPyModule(mod)
	}
	return false
}

// qualifierType follows a qualifier chain to the types it can denote. It
// returns a module instead when the chain names an imported module. known
// reports that the qualifier was understood — its types found, or found to
// lie outside the repository (a standard-library type, a library base
// class) — so that an unresolved member must not be guessed by name.
func (c *fileCtx) qualifierType(steps []string, enc int32) (types []graph.Symbol, module string, conf graph.Confidence, known bool) {
	if len(steps) == 0 || len(steps) > 5 {
		return nil, "", 0, false
	}
	head := steps[0]
	conf = graph.ConfResolved
	call := strings.HasSuffix(head, "()")
	headName := strings.TrimSuffix(head, "()")
	switch {
	case slices.Contains(c.rules.selfWords, headName):
		t := c.enclosingType(enc)
		if t == nil {
			return nil, "", 0, false
		}
		types, known = []graph.Symbol{*t}, true
	case c.rules.superWord != "" && (head == c.rules.superWord || headName == c.rules.superWord):
		if t := c.enclosingType(enc); t != nil {
			types, known = c.x.supertypes(t), true
		}
	default:
		if bt, ok := c.bindingType(headName, enc); ok {
			if bt == "" {
				return nil, "", 0, false // an untyped local: nothing known
			}
			types, known = c.typeOfText(bt, enc), true
			break
		}
		if mod := c.moduleOf(steps); mod != "" {
			n := c.moduleSteps(steps)
			if n == len(steps) {
				return nil, mod, conf, true
			}
			// pkg.Type.member or pkg.var.member
			ts := c.moduleMember(mod, strings.TrimSuffix(steps[n], "()"))
			types, known = c.symbolsToTypes(ts, strings.HasSuffix(steps[n], "()")), true
			steps = steps[n:]
			break
		}
		// a type or a top-level value named by the head
		ts := c.resolveBare(headName, enc, graph.RoleRead)
		types = c.symbolsToTypes(ts, call)
		known = len(ts) > 0 && len(types) > 0
		for _, t := range ts {
			if t.conf < conf {
				conf = t.conf
			}
		}
	}
	for _, step := range steps[1:] {
		if len(types) == 0 {
			return nil, "", 0, known
		}
		name := strings.TrimSuffix(step, "()")
		var ms []graph.Symbol
		var embedded []graph.Symbol
		for i := range types {
			ms = append(ms, c.x.members(&types[i], name, 4)...)
			// Go's embedded fields are named by their type: l.Mem.Save()
			for _, ext := range types[i].Extends {
				if _, n := typeName(ext); n == name {
					embedded = append(embedded, c.typeInContext(ext, &types[i])...)
				}
			}
		}
		if len(ms) == 0 && len(embedded) > 0 {
			types = embedded
			continue
		}
		if len(ms) == 0 && c.rules.selfReturning[name] {
			continue // Account.find(id): still an Account
		}
		types = c.symbolsToTypes(one(ms, conf), strings.HasSuffix(step, "()"))
		if len(ms) > 0 && len(types) == 0 {
			known = false // an untyped field or result: nothing known further
		}
	}
	if len(types) > MaxCandidates {
		return nil, "", 0, false
	}
	return dedupeIDs(types), "", conf, known
}

// moduleOf returns the imported module a qualifier chain starts with.
func (c *fileCtx) moduleOf(steps []string) string {
	if c.ff.File.Lang == graph.LangPython {
		mod, _ := c.pyModuleOf(steps)
		return mod
	}
	ims := c.imports[steps[0]]
	for _, im := range ims {
		switch c.ff.File.Lang {
		case graph.LangGo:
			return im.Module
		case graph.LangTypeScript, graph.LangTSX, graph.LangJavaScript:
			if im.Name == "" || im.Name == "*" {
				return im.Module
			}
		}
	}
	return ""
}

// pyModuleOf is the Python module a qualifier chain starts with and how
// many of its steps name it: the module an import binds to the first step,
// then as long as the chain goes on through submodules the index holds —
// x.c.Base is module a.b.c's Base when x is a.b, whether the file imported
// a (import a), a.b (from a import b, import a.b as x) or a.b.c (a
// package's submodule is its attribute once anything imported it).
func (c *fileCtx) pyModuleOf(steps []string) (string, int) {
	for _, im := range c.imports[steps[0]] {
		mod, n := "", 1
		switch {
		case im.Name == "" && im.Alias == "":
			// import a.b binds a; a.b.f means module a.b
			mod = steps[0]
			if m := len(strings.Split(im.Module, ".")); m <= len(steps) && strings.Join(steps[:m], ".") == im.Module {
				mod, n = im.Module, m
			}
		case im.Name == "":
			mod = im.Module // import a.b as x
		default:
			// from a import b: b may be a submodule
			full := c.pythonModule(im.Module)
			if full != "" && !strings.HasSuffix(full, ".") {
				full += "."
			}
			full += im.Name
			if !c.isPyModule(full) {
				continue
			}
			mod = full
		}
		for n < len(steps) && !strings.HasSuffix(steps[n], "()") && c.isPyModule(mod+"."+steps[n]) {
			mod, n = mod+"."+steps[n], n+1
		}
		return mod, n
	}
	return "", 0
}

// hasPyModuleSuffix reports whether some module ends in "."+mod.
func (c *fileCtx) hasPyModuleSuffix(mod string) bool { return c.x.pySuffixes[mod] }

// moduleSteps returns how many leading steps the module spans.
func (c *fileCtx) moduleSteps(steps []string) int {
	if c.ff.File.Lang != graph.LangPython {
		return 1
	}
	_, n := c.pyModuleOf(steps)
	return max(n, 1)
}

// isPyModule reports whether the index holds the Python module (a file
// or a package's __init__.py), perhaps under a source directory.
func (c *fileCtx) isPyModule(mod string) bool {
	if _, ok := c.x.pyModules[mod]; ok {
		return true
	}
	if _, ok := c.x.pyModules[mod+".__init__"]; ok {
		return true
	}
	// a source root below the repository's (src/pkg/…)
	return c.hasPyModuleSuffix(mod) || c.hasPyModuleSuffix(mod+".__init__")
}

// symbolsToTypes turns resolved symbols into the types of their values:
// a type stays itself (a static access, or a constructor when called), a
// field or variable gives its declared type, a function its result type.
func (c *fileCtx) symbolsToTypes(ts []target, called bool) []graph.Symbol {
	var out []graph.Symbol
	for _, t := range ts {
		s := t.sym
		switch {
		case s.Kind.IsType() || s.Kind == graph.KindNamespace || s.Kind == graph.KindModule:
			out = append(out, s) // members are reached through it
		case s.Kind.IsCallable():
			if s.Kind == graph.KindConstructor {
				if ty := c.x.ownerType(&s); ty != nil {
					out = append(out, *ty)
				}
				continue
			}
			if s.Type != "" {
				out = append(out, c.typeInContext(s.Type, &s)...)
			}
		default:
			if s.Type != "" {
				out = append(out, c.typeInContext(s.Type, &s)...)
			}
		}
	}
	return out
}

// typeOfText resolves a binding's type text in this file: a declared type,
// or "f()" — the result of calling f.
func (c *fileCtx) typeOfText(text string, enc int32) []graph.Symbol {
	if c.depth > 4 {
		return nil
	}
	c.depth++
	defer func() { c.depth-- }()
	if strings.HasSuffix(text, "()") {
		callee := strings.TrimSuffix(text, "()")
		steps := c.splitQual(callee)
		var ts []target
		if len(steps) == 1 {
			ts = c.resolveBare(steps[0], enc, graph.RoleCall)
		} else {
			ts = c.resolveMember(&graph.Occurrence{Name: strings.TrimSuffix(steps[len(steps)-1], "()"),
				Qualifier: strings.Join(steps[:len(steps)-1], "."), Enclosing: enc})
		}
		return c.symbolsToTypes(ts, true)
	}
	return symbolsOf(c.typeRef(text, enc))
}

func symbolsOf(ts []target) []graph.Symbol {
	out := make([]graph.Symbol, len(ts))
	for i, t := range ts {
		out[i] = t.sym
	}
	return out
}

// typeRef resolves a type as written in this file.
func (c *fileCtx) typeRef(text string, enc int32) []target {
	qual, name := typeName(text)
	if name == "" {
		return nil
	}
	if qual != "" {
		if mod := c.moduleOf(c.splitQual(qual)); mod != "" {
			return c.typesIn(c.moduleMember(mod, name))
		}
		// Outer.Inner or an unknown package: by name
		return nameOnly(c.sameLang(c.x.typesNamed(name)))
	}
	return c.typesIn(c.resolveBare(name, enc, graph.RoleTypeUse))
}

// heritageRefs resolves a supertype as written: the type it names, and
// in TypeScript, when that is a type alias or not defined in the
// repository (Omit, Pick, a WithRequired helper), the type given as its
// first argument too — interface A extends Omit<B, 'id'> is a B, for the
// reader looking for B's implementations. Each group is one reference's
// candidates.
func (c *fileCtx) heritageRefs(text string, enc int32) [][]target {
	var out [][]target
	for depth := 0; depth < 3 && text != ""; depth++ {
		ts := c.typeRef(text, enc)
		if len(ts) > 0 {
			out = append(out, ts)
		}
		lang := c.ff.File.Lang
		if lang != graph.LangTypeScript && lang != graph.LangTSX {
			break
		}
		for _, t := range ts {
			if t.sym.Kind != graph.KindTypeAlias {
				return out
			}
		}
		text = firstTypeArg(text)
	}
	return out
}

// firstTypeArg returns the first type argument of a generic type as
// written ("WithRequired<QueryOptions<A, B>, 'k'>" → "QueryOptions<A, B>"),
// or "".
func firstTypeArg(text string) string {
	open := strings.IndexAny(text, "<[")
	if open <= 0 {
		return ""
	}
	inner := strings.TrimSpace(text[open+1:])
	if j := topLevelIndex(inner, ','); j >= 0 {
		return strings.TrimSpace(inner[:j])
	}
	return strings.TrimSpace(strings.TrimRight(inner, ">] "))
}

func (c *fileCtx) typesIn(ts []target) []target {
	var out []target
	for _, t := range ts {
		if typeLike(&t.sym) {
			out = append(out, t)
		}
	}
	return out
}

// typeInContext resolves a type text found on symbol s (a field's declared
// type, a function's result type) in s's own file: with that file's imports
// and package, not this file's.
func (c *fileCtx) typeInContext(text string, s *graph.Symbol) []graph.Symbol {
	if s.Path == c.ff.File.Path {
		return symbolsOf(c.typeRef(text, -1))
	}
	other := c.x.contextOf(s.Path, c.r)
	if other == nil {
		return nil
	}
	other.depth = c.depth + 1
	if other.depth > 6 {
		return nil
	}
	return symbolsOf(other.typeRef(text, -1))
}

// ownerType returns the type a member belongs to.
func (x *Index) ownerType(m *graph.Symbol) *graph.Symbol {
	if m.Container == "" {
		return nil
	}
	for _, t := range x.typesNamed(lastComponent(m.Container)) {
		if strings.HasPrefix(string(m.ID), string(t.ID)) {
			t := t
			return &t
		}
	}
	return nil
}

func dedupeIDs(ss []graph.Symbol) []graph.Symbol {
	seen := map[graph.SymbolID]bool{}
	out := ss[:0:0]
	for _, s := range ss {
		if !seen[s.ID] {
			seen[s.ID] = true
			out = append(out, s)
		}
	}
	return out
}

// occurrenceEdges derives the edges of one resolved occurrence.
func (c *fileCtx) occurrenceEdges(edges []graph.Edge, o *graph.Occurrence, ts []target) []graph.Edge {
	if len(ts) == 0 {
		return edges
	}
	from := c.module
	isTest := false
	if o.Enclosing >= 0 {
		s := &c.ff.Symbols[o.Enclosing]
		from = s.ID
		for p := o.Enclosing; p >= 0; p = c.ff.Symbols[p].Parent {
			if c.ff.Symbols[p].IsTest {
				isTest = true
			}
		}
	}
	if from == "" {
		return edges
	}
	amb := len(ts) > 1
	add := func(to graph.SymbolID, kind graph.EdgeKind, conf graph.Confidence) {
		edges = append(edges, graph.Edge{From: from, To: to, Kind: kind, Confidence: conf, Ambiguous: amb, Path: c.ff.File.Path, Range: o.Range})
	}
	for _, t := range ts {
		kinds := edgeKinds(o.Role, t.sym.Kind)
		for _, k := range kinds {
			add(t.sym.ID, k, t.conf)
		}
		if o.Role&graph.RoleCall != 0 {
			if isTest {
				add(t.sym.ID, graph.EdgeTests, t.conf)
			}
			// calling a class calls its constructor
			if t.sym.Kind.IsType() {
				for _, ctor := range c.constructors(&t.sym) {
					add(ctor.ID, graph.EdgeCalls, t.conf)
				}
			}
		}
	}
	return edges
}

func (c *fileCtx) constructors(t *graph.Symbol) []graph.Symbol {
	var out []graph.Symbol
	names := c.rules.ctorNames
	if javaLike(c.ff.File.Lang) || c.ff.File.Lang == graph.LangCpp || c.ff.File.Lang == graph.LangCSharp {
		names = []string{t.Name}
	}
	for _, n := range names {
		for _, m := range c.x.members(t, n, 0) {
			if m.Kind == graph.KindConstructor || m.Kind == graph.KindMethod {
				out = append(out, m)
			}
		}
	}
	return out
}

// edgeKinds maps an occurrence role and its target's kind to edge kinds.
func edgeKinds(role graph.Role, target graph.SymbolKind) []graph.EdgeKind {
	var out []graph.EdgeKind
	if role&graph.RoleCall != 0 {
		out = append(out, graph.EdgeCalls)
	}
	if role&graph.RoleWrite != 0 {
		out = append(out, graph.EdgeWrites)
	}
	if role&graph.RoleRead != 0 {
		switch target {
		case graph.KindField, graph.KindVariable, graph.KindConstant, graph.KindProperty, graph.KindEnumMember, graph.KindUnknown:
			out = append(out, graph.EdgeReads)
		default:
			out = append(out, graph.EdgeReferences)
		}
	}
	if role&graph.RoleTypeUse != 0 && role&graph.RoleCall == 0 {
		switch target {
		case graph.KindVariable, graph.KindConstant, graph.KindField, graph.KindProperty:
			// a value where the syntax allows a type: Go's handlers[name](n)
			// parses as the instantiation F[T](x) does; it reads handlers
			if role&graph.RoleRead == 0 {
				out = append(out, graph.EdgeReads)
			}
		default:
			out = append(out, graph.EdgeTypeUse)
		}
	}
	if role&graph.RoleImport != 0 {
		out = append(out, graph.EdgeImports)
	}
	return out
}

// overrides links methods to the methods they override in supertypes.
func (c *fileCtx) overrides() []graph.Edge {
	var out []graph.Edge
	for i := range c.ff.Symbols {
		m := &c.ff.Symbols[i]
		if m.Kind != graph.KindMethod || m.Parent < 0 {
			continue
		}
		t := &c.ff.Symbols[m.Parent]
		if !typeLike(t) {
			continue
		}
		seen := map[graph.SymbolID]bool{}
		var walk func(t *graph.Symbol, depth int)
		walk = func(t *graph.Symbol, depth int) {
			if depth > 4 {
				return
			}
			for _, sup := range c.x.supertypes(t) {
				if seen[sup.ID] {
					continue
				}
				seen[sup.ID] = true
				found := false
				for _, sm := range c.x.members(&sup, m.Name, 0) {
					if sm.Kind.IsCallable() && sm.ID != m.ID {
						out = append(out, graph.Edge{From: m.ID, To: sm.ID, Kind: graph.EdgeOverrides, Confidence: graph.ConfResolved,
							Path: c.ff.File.Path, Range: m.NameRange})
						found = true
					}
				}
				if !found {
					walk(&sup, depth+1)
				}
			}
		}
		walk(t, 0)
	}
	return out
}

// goPackageName guesses the name a Go import path binds: its last element,
// without a major-version element or a gopkg.in ".vN" suffix.
func goPackageName(importPath string) string {
	parts := strings.Split(importPath, "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = parts[len(parts)-2]
	}
	if i := strings.Index(last, ".v"); i > 0 {
		last = last[:i]
	}
	last = strings.TrimPrefix(last, "go-")
	return strings.ReplaceAll(last, "-", "_")
}
