package graph

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// BlobHash returns the git blob SHA-1 of content: the content hash cairn
// stores for files, so that a file can be compared with its blob at a
// revision without reading the repository's objects.
func BlobHash(content []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(content)) + "\x00"))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// Range is a half-open byte range [StartByte, EndByte) with the line and
// column of both ends. Lines are 1-based; columns are 0-based byte offsets
// into the line. Converters for other encodings live at the edges (LSP's
// UTF-16 positions in package lsp).
type Range struct {
	StartByte, EndByte uint32
	StartLine, EndLine uint32
	StartCol, EndCol   uint32
}

// Contains reports whether r covers o.
func (r Range) Contains(o Range) bool { return r.StartByte <= o.StartByte && o.EndByte <= r.EndByte }

// Overlaps reports whether r and o share at least one line.
func (r Range) OverlapsLines(o Range) bool {
	return r.StartLine <= o.EndLine && o.StartLine <= r.EndLine
}

// Lines returns the number of lines r touches.
func (r Range) Lines() int { return int(r.EndLine-r.StartLine) + 1 }

func (r Range) String() string {
	return fmt.Sprintf("%d:%d-%d:%d", r.StartLine, r.StartCol, r.EndLine, r.EndCol)
}

// Symbol is a definition.
type Symbol struct {
	ID        SymbolID
	Name      string
	Kind      SymbolKind
	Lang      Language
	Path      string // repository-relative, '/'-separated
	Range     Range  // the whole definition with decorators, without its doc comment
	NameRange Range  // the defining identifier
	// Container is the qualified name of the enclosing definitions, e.g.
	// "Server" for a method, "Outer.Inner" for a nested class.
	Container string
	// Package is the package, module or namespace of the definition as the
	// language spells it: "http", "django.db.models.base", "java.util".
	Package   string
	Signature string // the declaration head, one line, without the body
	Doc       string // the doc comment, comment markers stripped
	// Type is the declared type of a field or variable, or the result type of
	// a function, as written in the source ("*Server", "List[str]").
	Type string
	// Extends and Implements name the supertypes as written: base classes,
	// Go embedded types and embedded interfaces go to Extends.
	Extends    []string
	Implements []string
	Exported   bool
	IsTest     bool
	// Parent is the index of the enclosing symbol in the same FileFacts, or -1.
	Parent int32
}

// QualifiedName is Container.Name, or Name at top level.
func (s *Symbol) QualifiedName() string {
	if s.Container == "" {
		return s.Name
	}
	return s.Container + "." + s.Name
}

// Occurrence is one appearance of a name in a file.
type Occurrence struct {
	Name  string
	Range Range // the identifier
	Role  Role
	// Qualifier is the expression the name was selected from, when short:
	// "s.store" for s.store.Load(), "self" for self.x, "pkg" for pkg.F.
	Qualifier string
	// Enclosing is the index, in the file's Symbols, of the innermost
	// definition containing the occurrence, or -1 at file level.
	Enclosing int32
	// Symbol is the resolved symbol, when known: always for definitions,
	// for references after resolution or SCIP ingestion. A name that
	// resolved to several candidates keeps Symbol empty (its edges carry
	// every candidate, marked ambiguous).
	Symbol SymbolID
	// Confidence says how Symbol was found; zero when unresolved. With an
	// empty Symbol it says the use was resolved to something outside the
	// index (Outside).
	Confidence Confidence
}

// Outside reports a use the resolver found to name nothing of the index:
// a member of an external package or of a value whose type is external
// (errors.New, timer.Stop() with timer := time.NewTimer(d)). It is no use of
// any definition spelled like it.
func (o *Occurrence) Outside() bool { return o.Symbol == "" && o.Confidence != 0 }

// Import is one imported name or module.
type Import struct {
	// Module is the imported module, package or file as written:
	// "net/http", "django.db", "./store", "java.util", "stdio.h".
	Module string
	// Name is the imported member, "" for a whole-module import, "*" for a
	// wildcard, "default" for a JavaScript default import.
	Name string
	// Alias is the local name bound by the import, if it differs.
	Alias string
	Range Range
}

// LocalName is the name the import binds in the importing file.
func (im *Import) LocalName() string {
	if im.Alias != "" {
		return im.Alias
	}
	if im.Name != "" && im.Name != "*" {
		return im.Name
	}
	m := im.Module
	m = strings.TrimSuffix(m, "/")
	if i := strings.LastIndexAny(m, "/.:"); i >= 0 {
		m = m[i+1:]
	}
	return m
}

// Binding records the declared or inferred type of a local name (a
// parameter, receiver or local variable) inside one definition, for receiver
// resolution: in `func (s *Server) F() { s.mux.Handle() }` the binding
// s → "*Server" tells the resolver which Handle is meant.
type Binding struct {
	Name  string
	Type  string // as written, or "Ctor()" for a value returned by a call to Ctor
	Scope int32  // index of the enclosing symbol in the file, or -1
	Range Range
}

// Edge is a relation between two symbols, with the evidence for it.
type Edge struct {
	From, To   SymbolID
	Kind       EdgeKind
	Confidence Confidence
	// Ambiguous marks a name-only edge whose name matched several candidates;
	// every candidate gets an edge, none is picked silently.
	Ambiguous bool
	Path      string // where the evidence is
	Range     Range
}

// Chunk is a unit of text for search and context.
type Chunk struct {
	Path   string
	Range  Range
	Kind   ChunkKind
	Symbol SymbolID // for function and type chunks
	Name   string   // display name: qualified symbol name or file name
	Hash   string   // hex content hash of Text
	// Text is what search indexes: the chunk's source with nested chunks
	// left out. Stores need not persist it; it is rebuilt from the file.
	Text string
}

// File records how one file was indexed.
type File struct {
	Path string
	Lang Language
	// Category is what the indexer decided the file is: test, vendored,
	// docs (see FileCategory).
	Category FileCategory
	Hash     string // git blob SHA-1 of the content, hex
	Size     int64
	ModTime  int64 // Unix nanoseconds at indexing time
	Lines    int
	Status   ParseStatus
	Error    string // why Status is not ParseOK
	// Package is the file's package/module as the language names it.
	Package string
	// Committed reports that the content equals the file's blob at the
	// indexed revision (Meta.Revision); otherwise the file was dirty and is
	// cited by its content hash.
	Committed bool
	// SCIP identifies the SCIP document merged into the file's facts ("" if
	// none): its references are precise, and heuristics leave it alone.
	SCIP string
}

// Skip records a file or directory the walker left out and why.
type Skip struct {
	Path   string
	Reason SkipReason
	Detail string
	Dir    bool
}

// FileFacts are all facts extracted from one file.
type FileFacts struct {
	File        File
	Symbols     []Symbol
	Occurrences []Occurrence
	Imports     []Import
	Bindings    []Binding
	Chunks      []Chunk
	// Edges are relations known precisely from a SCIP index (implementations)
	// that the resolver passes through.
	Edges []Edge
}
