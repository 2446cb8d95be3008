// Package impact answers "what breaks if this changes?" for a symbol or a
// diff.
//
// The changed symbols are either the definitions a name resolves to or,
// for a diff (gitrepo.Diff against a revision, the index or HEAD),
// the innermost definitions whose lines the hunks touch, on the indexed
// content. Each comes as a Change with why it was chosen ("named", "lines
// 3-5 changed", "file deleted"), which the result states as the changed
// symbol's Why. A diff git cannot make is ErrDiff. Every symbol of the
// result is a graph.SymbolView (without its doc) cited through
// Options.Cite, with how the change reaches it. From them a breadth-first walk follows dependency edges
// backwards (calls, references, type uses, reads, writes), each symbol
// once at its shallowest depth with the weakest confidence on its way and
// whether an ambiguous edge was crossed, and the symbol it uses one edge
// closer to the change (Uses: its predecessor in the walk), so the
// dependents form a graph. A method is also reached through
// the interface or base methods it implements or overrides, since their
// callers dispatch to it; implementations and overrides of the changed
// symbols are listed apart, as they share the contract.
//
// Dependents are listed to Depth levels; the walk goes on (calls and
// references only) to TestDepth looking for tests, because a test that
// reaches the change through helpers exercises it (12 levels by default:
// table-driven Go suites reach code through config structs, closures and
// assertion helpers; on golang.org/x/tools, breaking AddNamedImport fails
// tests nine calls above it).
//
// A method is also reached by name alone: a call spelled like it on a
// receiver of unknown type (codec.encode(…), where nothing says what codec
// is) has no edge in the graph, yet may dispatch to it; the walk takes it
// as a call of confidence name-only (a name called so more than 64 times is
// counted in a warning, not walked), and the risk says how many direct
// dependents are name-only. Only in the dynamically typed languages: in Go,
// Java and Rust the resolver types receivers from declarations, so a call
// it left unresolved is a library's method (tx.Commit() on a *sql.Tx).
//
// A test is what its runner runs as the project configures it, not merely
// a function in a test file: go test's names by graph.GoTestKind (the go
// tool's rule, shared with gate/verify), pytest's collection by the
// rootdir's ini-file (pytest.ini, .pytest.ini, pyproject.toml, tox.ini,
// setup.cfg, first found upwards; python_files, python_classes,
// python_functions, testpaths, with pytest's defaults): a test method of a
// base or mixin class pytest does not collect runs once per collected
// subclass that does not override it (unittest.TestCase subclasses are
// collected whatever their name; a Test class with an __init__ is not).
// The changed symbols count as well, so a diff that changes or adds a test
// selects it. Each selected test carries its Chain, the edges from the
// test down to the change; Chain answers the same question for any two
// symbols, and engine's Paths uses it when no call path joins them, so
// that path always shows why impact selected a test.
//
// Tests come with selectors in their runner's terms — go test -run
// patterns per package (from the nearest go.mod; a TestMain that reaches
// the change selects the whole package; benchmarks go to -bench), pytest
// node ids, Maven or Gradle test filters, cargo test names, test files for
// JavaScript runners — grouped into commands that run exactly the affected
// tests. Long selections are grouped so commands stay usable: a Go package
// with more than 64 selected tests runs whole, a test file with more than
// 16 selected node ids is named as a file, and a pytest command longer than
// 4,000 bytes is split (Tests still names each test).
//
// CODEOWNERS and the runners' markers (go.mod, package.json, …) are read
// through Options.Files, the repository boundary (internal/repofs).
//
// Owners come from CODEOWNERS (.github/, the root, docs/ or .gitlab/;
// gitignore-style patterns, the last match wins). The risk summary scores
// fan-in, public API, breadth, shared contracts and dependents with no
// test above them, and says why.
package impact
