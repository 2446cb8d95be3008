package graph

// JSON views: the shapes of results on every surface (CLI --json, MCP, HTTP).
// Paths are repository-relative, lines 1-based and inclusive.

// SymbolView is a definition as published.
type SymbolView struct {
	Symbol    SymbolID `json:"symbol"`
	Name      string   `json:"name"`
	Kind      string   `json:"kind"`
	Language  string   `json:"language"`
	Path      string   `json:"path"`
	StartLine uint32   `json:"start_line"`
	EndLine   uint32   `json:"end_line"`
	Container string   `json:"container,omitempty"`
	Package   string   `json:"package,omitempty"`
	Signature string   `json:"signature,omitempty"`
	Doc       string   `json:"doc,omitempty"`
	Exported  bool     `json:"exported"`
	Test      bool     `json:"test,omitempty"`
	Stale     bool     `json:"stale,omitempty"`
}

// ViewSymbol converts a Symbol for output.
func ViewSymbol(s *Symbol) SymbolView {
	return SymbolView{
		Symbol: s.ID, Name: s.Name, Kind: s.Kind.String(), Language: s.Lang.String(), Path: s.Path,
		StartLine: s.Range.StartLine, EndLine: s.Range.EndLine, Container: s.Container, Package: s.Package,
		Signature: s.Signature, Doc: s.Doc, Exported: s.Exported, Test: s.IsTest,
	}
}

// RefView is a reference as published.
type RefView struct {
	Symbol     SymbolID `json:"symbol,omitempty"`
	Name       string   `json:"name"`
	Path       string   `json:"path"`
	StartLine  uint32   `json:"start_line"`
	EndLine    uint32   `json:"end_line"`
	StartCol   uint32   `json:"start_col"`
	Role       string   `json:"role"`
	Qualifier  string   `json:"qualifier,omitempty"`
	Enclosing  SymbolID `json:"enclosing,omitempty"`
	InFunction string   `json:"in,omitempty"`
	Confidence string   `json:"confidence"`
	Stale      bool     `json:"stale,omitempty"`
}

// ViewRef converts a Reference for output.
func ViewRef(r *Reference) RefView {
	v := RefView{
		Symbol: r.Symbol, Name: r.Name, Path: r.Path, StartLine: r.Range.StartLine, EndLine: r.Range.EndLine,
		StartCol: r.Range.StartCol, Role: r.Role.String(), Qualifier: r.Qualifier, Confidence: r.Confidence.String(),
	}
	if r.EnclosingSymbol != nil {
		v.Enclosing = r.EnclosingSymbol.ID
		v.InFunction = r.EnclosingSymbol.QualifiedName()
	}
	return v
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
