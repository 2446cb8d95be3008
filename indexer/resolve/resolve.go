package resolve

import (
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
	all := c.x.entry(name).byLang(langFamily(c.ff.File.Lang))
	if c.rules.namespaceImports {
		if ts := c.namespaceMember(name, all); len(ts) > 0 {
			return ts
		}
	}
	if l := c.ff.File.Lang; l == graph.LangC || l == graph.LangCpp {
		// what follows, for C's one namespace, computed once a name
		b := c.x.bareC(name, l)
		switch {
		case len(b.top) == 1:
			return one(b.top, graph.ConfNameOnly) // any translation unit may define it
		case len(b.top) > 1:
			return nameOnly(b.top)
		}
		return nameOnly(b.any)
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
	cands := c.x.entry(name).byLang(langFamily(c.ff.File.Lang))
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

// moduleSteps returns how many leading steps the module spans.
func (c *fileCtx) moduleSteps(steps []string) int {
	if c.ff.File.Lang != graph.LangPython {
		return 1
	}
	_, n := c.pyModuleOf(steps)
	return max(n, 1)
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
