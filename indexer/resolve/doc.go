// Package resolve ties references to definitions and derives the edges of
// the code graph (calls, references, reads, writes, type uses, imports,
// contains, extends, implements, overrides, tests), each with the
// confidence of its derivation.
//
// # Confidence
//
//   - precise: the occurrence already carries a symbol from a SCIP index;
//     the resolver only turns it into an edge.
//   - resolved: found through scope and imports: a local binding's declared
//     type, a receiver or self/this, an imported name or module, the same
//     file or package. The qualifier chain of a member access is followed
//     through declared field types and function result types, a few steps
//     deep: in `s.store.Load()` with `s *Server` and `store *Store`, Load is
//     Store's.
//   - name-only: nothing scope-aware applied and the spelling alone matched.
//     One candidate gives one edge; several give an edge to each, marked
//     ambiguous — never one picked silently. Past MaxCandidates the
//     occurrence stays unresolved: an edge fan of dozens of unrelated
//     methods named Get is noise, and "unknown" is more honest.
//
// A name that is a local (a parameter, a variable declared in the enclosing
// function) resolves to nothing: locals are not symbols. So does a Python
// keyword argument (role argument: it binds a parameter of the callee),
// unless the callee is a class with a field of that name (Task(url=u)),
// which makes it a write of the field. A variable or constant where the
// syntax allows a type is read: Go's handlers[name](n) parses as the
// instantiation F[T](x) does.
//
// # Outside the index
//
// A use the resolver finds to name nothing of the index keeps no symbol but
// a confidence (graph.Occurrence.Outside): a member of an imported package
// that the index does not define (errors.New, a package of the module that
// was not indexed), or a member of a local whose type is named through one
// (t := time.NewTimer(d); t.Stop()). A Python module may re-export what it
// imports (from .api import get in a package's __init__), so there only a
// module the index does not hold (os.getcwd) counts; other languages mark
// nothing. References never count it as a
// name-only use of an indexed definition spelled alike.
//
// A Python qualifier follows submodules the index holds past what the
// import bound: with import a (or from a import b), a.b.c.Base (b.c.Base)
// is module a.b.c's Base, so class X(pkg.plugins.PluginBase) extends it.
//
// In Go a method is declared at top level but never named bare or through
// a package: pkg.Error and Error are the package's function (or type), never
// an Error method of one of its types, mocks included.
//
// # Per language
//
// The rules are shared; what differs is tabulated in a langRules value: which
// words mean the enclosing object (self, this), whether a bare name can be a
// member of the enclosing class (Java, C++), and how an import's module maps
// to indexed files (Go import paths to directories through the go.mod
// files, or without one by longest suffix of at least two elements or to a
// top-level package named by the path's last element — a GOPATH-era
// checkout's github.com/google/zoekt/shards is shards/; Python dotted and
// relative modules to module names, TypeScript relative specifiers to
// files, Java packages).
//
// The shared rules are in resolve.go (a file's pass, names, imports and
// members), types.go (the types a qualifier chain or a declared type
// denotes) and edges.go (the edges of a resolved occurrence, overrides);
// what one language needs alone is in golang.go, python.go and
// javascript.go (TypeScript too), and langs.go holds the rules of Ruby,
// PHP and C#.
//
// # The symbol table and the name cache
//
// A full run (or a large incremental one) resolves against every
// definition held in memory: MemSource, a compact, pointer-free table —
// 112-byte records of offsets into blocks of bytes, grouped by name in
// place — from which symbols are made anew when asked. On the Linux kernel
// (4.8 M symbols) the table as graph.Symbols and their strings was 1.7 GB
// that every collection scanned and marked; too large a table (past 4 GiB
// of strings) falls back to the store's lookups. The Index caches what it
// learns of a name (nameEntry) in two bounded generations: a name asked
// file after file stays, one asked once passes through.
//
// # Whole-graph edges
//
// Go interfaces are satisfied structurally: after the per-file pass,
// Implementations compares every interface's method names with every named
// type's (embedded types included) and emits implements edges; they are
// stored apart (file id 0) and recomputed when Go definitions change.
package resolve
