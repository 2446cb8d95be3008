package graph

// JSON views: the one shape of each published answer on every surface (CLI
// --json, MCP, the LSP's data, HTTP), described by schema/views.schema.json
// (schema.ViewsJSONSchema). Paths are repository-relative, lines 1-based
// and inclusive, columns 1-based byte offsets into the line.
//
// A location is always a Citation; a symbol at a place is always a
// SymbolView (which embeds its Citation); a use of a name is a RefView; a
// symbol reached through the graph is a HopView; one edge of a call path is
// an EdgeView. The constructors take a CiteFunc, which says how a path is
// cited (its revision and whether it changed since indexing): the engine
// passes its snapshot's, so every layer cites alike.

// Citation cites lines of one file at one revision.
type Citation struct {
	Path      string `json:"path" jsonschema:"repository-relative path"`
	StartLine int    `json:"start_line" jsonschema:"first line, 1-based"`
	EndLine   int    `json:"end_line" jsonschema:"last line, inclusive"`
	// Column, for a position (a reference, a call site), is the 1-based
	// byte column where it starts on StartLine; 0 cites whole lines.
	Column   int    `json:"column,omitempty" jsonschema:"for a position (a reference, a call site): 1-based byte column on start_line"`
	Revision string `json:"revision" jsonschema:"revision of the cited content: a commit, commit+content-hash for uncommitted content, content:hash outside git; read_span accepts it"`
	Stale    bool   `json:"stale" jsonschema:"the file changed since it was indexed: lines may have moved"`
}

// CiteFunc says how a path is cited: the revision of its indexed content
// (CiteRevision) and whether the file changed since it was indexed. A nil
// CiteFunc cites nothing (revision "", not stale).
type CiteFunc func(path string) (revision string, stale bool)

// Lines cites lines start..end of path.
func (c CiteFunc) Lines(path string, start, end int) Citation {
	cit := Citation{Path: path, StartLine: start, EndLine: end}
	if c != nil {
		cit.Revision, cit.Stale = c(path)
	}
	return cit
}

// At cites the position where r starts in path.
func (c CiteFunc) At(path string, r Range) Citation {
	cit := c.Lines(path, int(r.StartLine), int(r.StartLine))
	cit.Column = int(r.StartCol) + 1
	return cit
}

// MaxDoc bounds the doc comment a SymbolView carries, in bytes.
const MaxDoc = 400

// SymbolView is a definition at its place: the one shape of "a symbol at a
// place" (definitions, symbols, map entries, roots, candidates).
type SymbolView struct {
	SymbolID      SymbolID `json:"symbol_id" jsonschema:"exact id: pass it as symbol (or name) to other questions"`
	Name          string   `json:"name" jsonschema:"the name as declared"`
	QualifiedName string   `json:"qualified_name" jsonschema:"container.name, or name at top level"`
	Kind          string   `json:"kind"`
	Language      string   `json:"language"`
	// Citation is the whole definition (decorators included, its doc
	// comment not).
	Citation
	Container string `json:"container,omitempty" jsonschema:"qualified name of the enclosing definitions"`
	Package   string `json:"package,omitempty"`
	Signature string `json:"signature,omitempty" jsonschema:"the declaration head, one line"`
	Doc       string `json:"doc,omitempty" jsonschema:"doc comment (shortened)"`
	Exported  bool   `json:"exported"`
	Test      bool   `json:"test,omitempty" jsonschema:"defined in a test file"`
}

// ViewSymbol publishes a definition; its doc is cut at MaxDoc bytes.
func ViewSymbol(s *Symbol, cite CiteFunc) SymbolView {
	return SymbolView{
		SymbolID: s.ID, Name: s.Name, QualifiedName: s.QualifiedName(), Kind: s.Kind.String(), Language: s.Lang.String(),
		Citation:  cite.Lines(s.Path, int(s.Range.StartLine), int(s.Range.EndLine)),
		Container: s.Container, Package: s.Package, Signature: s.Signature, Doc: shorten(s.Doc, MaxDoc),
		Exported: s.Exported, Test: s.IsTest,
	}
}

// shorten cuts s at most n bytes, on a UTF-8 boundary, marking the cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// RefView is a use of a name at its place.
type RefView struct {
	// Citation is the position of the name (start_line, column).
	Citation
	SymbolID   SymbolID `json:"symbol_id,omitempty" jsonschema:"the definition the use resolved to; absent when unresolved (name-only)"`
	Name       string   `json:"name"`
	Role       string   `json:"role" jsonschema:"call, read, write, import, type, argument (a keyword argument), definition (joined by + when several)"`
	Qualifier  string   `json:"qualifier,omitempty" jsonschema:"the expression the name is selected from (s.store in s.store.Get)"`
	In         string   `json:"in,omitempty" jsonschema:"qualified name of the definition the use is written in"`
	Enclosing  SymbolID `json:"enclosing,omitempty" jsonschema:"symbol_id of that definition"`
	Confidence string   `json:"confidence" jsonschema:"precise or resolved: tied to the definition; name-only: only the spelling matched"`
}

// ViewRef publishes a reference.
func ViewRef(r *Reference, cite CiteFunc) RefView {
	v := RefView{
		Citation: cite.At(r.Path, r.Range), SymbolID: r.Symbol, Name: r.Name, Role: r.Role.String(),
		Qualifier: r.Qualifier, Confidence: r.Confidence.String(),
	}
	if r.EnclosingSymbol != nil {
		v.Enclosing = r.EnclosingSymbol.ID
		v.In = r.EnclosingSymbol.QualifiedName()
	}
	return v
}

// HopView is a symbol reached through the call or type graph.
type HopView struct {
	SymbolID SymbolID `json:"symbol_id"`
	Name     string   `json:"name" jsonschema:"qualified name (or a display name for symbols outside the index)"`
	Kind     string   `json:"kind,omitempty"`
	// Definition is absent for symbols outside the index (libraries).
	Definition *SymbolView `json:"definition,omitempty" jsonschema:"the definition, when indexed"`
	Depth      int         `json:"depth" jsonschema:"1: direct"`
	Edge       string      `json:"edge" jsonschema:"calls, implements, extends, overrides"`
	CallSite   *Citation   `json:"call_site,omitempty" jsonschema:"where the first edge of this hop is written"`
	Sites      int         `json:"sites" jsonschema:"edges between the same pair"`
	Confidence string      `json:"confidence" jsonschema:"the weakest along the path: precise, resolved, name-only"`
	Ambiguous  bool        `json:"ambiguous,omitempty" jsonschema:"an edge on the way had several possible targets"`
	Via        SymbolID    `json:"via" jsonschema:"the symbol one step closer to the root"`
}

// ViewHop publishes a hop.
func ViewHop(h *Hop, cite CiteFunc) HopView {
	v := HopView{SymbolID: h.Symbol, Depth: h.Depth, Edge: h.Via.Kind.String(), Sites: h.Sites,
		Confidence: h.Confidence.String(), Ambiguous: h.Ambiguous, Via: h.Next}
	if h.Def != nil {
		d := ViewSymbol(h.Def, cite)
		v.Name, v.Kind, v.Definition = d.QualifiedName, d.Kind, &d
	} else {
		v.Name = h.Symbol.Display()
		if h.Symbol.IsHeuristic() {
			v.Kind, v.Name = "module", ModuleDisplay(h.Symbol)
		}
	}
	if h.Via.Path != "" {
		c := cite.At(h.Via.Path, h.Via.Range)
		v.CallSite = &c
	}
	return v
}

// EdgeView is one edge of a call path.
type EdgeView struct {
	From       SymbolID `json:"from"`
	FromName   string   `json:"from_name"`
	To         SymbolID `json:"to"`
	ToName     string   `json:"to_name"`
	Kind       string   `json:"kind"`
	Confidence string   `json:"confidence"`
	Ambiguous  bool     `json:"ambiguous,omitempty"`
	// Site is where the edge is written.
	Site Citation `json:"site"`
}

// ViewEdge publishes an edge.
func ViewEdge(e *Edge, cite CiteFunc) EdgeView {
	return EdgeView{From: e.From, FromName: e.From.Display(), To: e.To, ToName: e.To.Display(), Kind: e.Kind.String(),
		Confidence: e.Confidence.String(), Ambiguous: e.Ambiguous, Site: cite.At(e.Path, e.Range)}
}

// CiteRevision is how every surface cites the revision of a file's indexed
// content: the indexed commit (12 hex digits) when the file equalled its
// blob there, the commit plus the content hash ("abc123def456+0a1b2c3d4e5f")
// when it was dirty, "content:<hash>" outside git.
func CiteRevision(m Meta, f File) string {
	rev := m.Revision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	h := f.Hash
	if len(h) > 12 {
		h = h[:12]
	}
	switch {
	case rev == "":
		return "content:" + h
	case f.Committed:
		return rev
	}
	return rev + "+" + h
}
