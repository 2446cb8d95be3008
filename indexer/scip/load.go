package scip

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	scippb "github.com/scip-code/scip/bindings/go/scip"

	"github.com/cairn-dev/cairn/graph"
)

// Spec names one index and the repository directory its paths are
// relative to ("" for the repository root).
type Spec struct {
	File   string
	Subdir string
}

// ParseSpec parses "FILE[:SUBDIR]".
func ParseSpec(s string) Spec {
	if i := strings.LastIndexByte(s, ':'); i > 0 {
		return Spec{File: s[:i], Subdir: strings.Trim(path.Clean("/"+s[i+1:]), "/")}
	}
	return Spec{File: s}
}

// Occ is one occurrence as SCIP gives it (0-based lines, characters in the
// document's position encoding).
type Occ struct {
	StartLine, StartChar, EndLine, EndChar int32
	Symbol                                 string
	Roles                                  int32
	// Enclosing is the definition's enclosing range, when given.
	EncStartLine, EncStartChar, EncEndLine, EncEndChar int32
	HasEnclosing                                       bool
}

// SymInfo is what cairn keeps of a SymbolInformation.
type SymInfo struct {
	Kind           graph.SymbolKind
	Documentation  string
	Implementation []string // symbols this one implements
}

// Doc is one document of an index.
type Doc struct {
	Path     string // repository-relative
	Key      string // identifies the document version (index hash + path)
	Tool     string
	Encoding scippb.PositionEncoding
	Occs     []Occ
	Syms     map[string]*SymInfo
}

// Set is the documents of one or more indexes, by repository path.
type Set struct {
	Docs map[string]*Doc
	// Escaped counts documents skipped because their path leaves the
	// project; Problems describes them (and any other skipped input).
	Escaped  int
	Problems []string
}

// Load reads the indexes in specs.
func Load(ctx context.Context, specs []Spec) (*Set, error) {
	set := &Set{Docs: map[string]*Doc{}}
	for _, sp := range specs {
		if err := set.load(ctx, sp); err != nil {
			return nil, err
		}
	}
	return set, nil
}

func (set *Set) load(ctx context.Context, sp Spec) error {
	f, err := os.Open(sp.File)
	if err != nil {
		return fmt.Errorf("scip index: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("scip index %s: %w", sp.File, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))[:16]
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("scip index %s: %w", sp.File, err)
	}
	intern := map[string]string{}
	in := func(s string) string {
		if v, ok := intern[s]; ok {
			return v
		}
		intern[s] = s
		return s
	}
	tool := ""
	ndocs := 0
	last := "(none yet)"
	v := &scippb.IndexVisitor{
		VisitMetadata: func(_ context.Context, m *scippb.Metadata) error {
			if ti := m.GetToolInfo(); ti != nil {
				tool = ti.GetName() + " " + ti.GetVersion()
			}
			return nil
		},
		VisitDocument: func(_ context.Context, d *scippb.Document) error {
			ndocs++
			rel := d.GetRelativePath()
			last = rel
			clean := path.Clean(rel)
			if rel == "" || path.IsAbs(rel) || clean == ".." || strings.HasPrefix(clean, "../") {
				set.Escaped++
				if len(set.Problems) < 20 {
					set.Problems = append(set.Problems, fmt.Sprintf("%s: skipped document outside the project: %s", sp.File, rel))
				}
				return nil
			}
			p := clean
			if sp.Subdir != "" && sp.Subdir != "." {
				p = sp.Subdir + "/" + clean
			}
			doc := &Doc{Path: p, Key: sum + ":" + p, Tool: tool, Encoding: d.GetPositionEncoding(), Syms: map[string]*SymInfo{}}
			for i, o := range d.GetOccurrences() {
				r, ok := o.SourceRange()
				if !ok {
					return fmt.Errorf("occurrence %d has no range", i)
				}
				if err := r.Validate(); err != nil {
					return fmt.Errorf("occurrence %d: %w", i, err)
				}
				occ := Occ{StartLine: r.Start.Line, StartChar: r.Start.Character, EndLine: r.End.Line, EndChar: r.End.Character,
					Symbol: in(o.GetSymbol()), Roles: o.GetSymbolRoles()}
				if er, ok := o.EnclosingSourceRange(); ok {
					occ.EncStartLine, occ.EncStartChar, occ.EncEndLine, occ.EncEndChar = er.Start.Line, er.Start.Character, er.End.Line, er.End.Character
					occ.HasEnclosing = true
				}
				doc.Occs = append(doc.Occs, occ)
			}
			for _, si := range d.GetSymbols() {
				info := &SymInfo{Kind: kindOf(si.GetKind()), Documentation: strings.Join(si.GetDocumentation(), "\n")}
				for _, rel := range si.GetRelationships() {
					if rel.GetIsImplementation() {
						info.Implementation = append(info.Implementation, in(rel.GetSymbol()))
					}
				}
				doc.Syms[in(si.GetSymbol())] = info
			}
			if old, ok := set.Docs[p]; ok {
				// the same file in two indexes: keep both occurrence lists
				old.Occs = append(old.Occs, doc.Occs...)
				for k, v := range doc.Syms {
					old.Syms[k] = v
				}
				return nil
			}
			set.Docs[p] = doc
			return nil
		},
	}
	if err := v.ParseStreaming(ctx, bufio.NewReaderSize(f, 1<<20)); err != nil {
		return fmt.Errorf("scip index %s is malformed or truncated at document %d (after %q): %w", sp.File, ndocs, last, err)
	}
	if ndocs == 0 {
		return fmt.Errorf("scip index %s holds no documents", sp.File)
	}
	return nil
}

// kindOf maps SCIP symbol kinds to cairn's.
func kindOf(k scippb.SymbolInformation_Kind) graph.SymbolKind {
	switch k {
	case scippb.SymbolInformation_Function:
		return graph.KindFunction
	case scippb.SymbolInformation_Method, scippb.SymbolInformation_AbstractMethod, scippb.SymbolInformation_StaticMethod,
		scippb.SymbolInformation_MethodSpecification, scippb.SymbolInformation_TraitMethod, scippb.SymbolInformation_ProtocolMethod:
		return graph.KindMethod
	case scippb.SymbolInformation_Constructor:
		return graph.KindConstructor
	case scippb.SymbolInformation_Class:
		return graph.KindClass
	case scippb.SymbolInformation_Interface, scippb.SymbolInformation_Protocol:
		return graph.KindInterface
	case scippb.SymbolInformation_Struct:
		return graph.KindStruct
	case scippb.SymbolInformation_Trait:
		return graph.KindTrait
	case scippb.SymbolInformation_Enum:
		return graph.KindEnum
	case scippb.SymbolInformation_EnumMember:
		return graph.KindEnumMember
	case scippb.SymbolInformation_TypeAlias, scippb.SymbolInformation_Type:
		return graph.KindTypeAlias
	case scippb.SymbolInformation_Field, scippb.SymbolInformation_StaticField:
		return graph.KindField
	case scippb.SymbolInformation_Property, scippb.SymbolInformation_StaticProperty:
		return graph.KindProperty
	case scippb.SymbolInformation_Variable, scippb.SymbolInformation_StaticVariable:
		return graph.KindVariable
	case scippb.SymbolInformation_Constant:
		return graph.KindConstant
	case scippb.SymbolInformation_Module:
		return graph.KindModule
	case scippb.SymbolInformation_Namespace:
		return graph.KindNamespace
	case scippb.SymbolInformation_Package:
		return graph.KindPackage
	case scippb.SymbolInformation_Macro:
		return graph.KindMacro
	case scippb.SymbolInformation_Union:
		return graph.KindUnion
	}
	return graph.KindUnknown
}

// Has reports whether the set covers path (nil-safe).
func (set *Set) Doc(p string) *Doc {
	if set == nil {
		return nil
	}
	return set.Docs[p]
}
