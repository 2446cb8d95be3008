package graph

import (
	"fmt"
	"strings"

	"github.com/scip-code/scip/bindings/go/scip"
)

// SymbolID names a symbol in SCIP symbol syntax:
//
//	<scheme> ' ' <manager> ' ' <package-name> ' ' <version> ' ' <descriptor>+
//
// for example "scip-go gomod golang.org/x/tools v0.52.0 `golang.org/x/tools/go/analysis`/Analyzer#".
// Heuristic symbols use the scheme "cairn", the language as manager and '.'
// placeholders for package name and version; their first descriptor is the
// namespace of the defining package, module or file (see [NewSymbolID]).
type SymbolID string

// HeuristicScheme is the SCIP scheme of symbols cairn derives itself.
const HeuristicScheme = "cairn"

// DescriptorSuffix is the kind of one SCIP descriptor.
type DescriptorSuffix uint8

const (
	SuffixNamespace     DescriptorSuffix = iota + 1 // name/
	SuffixType                                      // name#
	SuffixTerm                                      // name.
	SuffixMethod                                    // name(disambiguator).
	SuffixTypeParameter                             // [name]
	SuffixParameter                                 // (name)
	SuffixMeta                                      // name:
	SuffixMacro                                     // name!
)

// Descriptor is one component of a symbol's path.
type Descriptor struct {
	Name          string
	Suffix        DescriptorSuffix
	Disambiguator string // methods only
}

// NewSymbolID builds a heuristic symbol for language lang from descriptors.
// Names that are not simple SCIP identifiers are escaped with backticks.
func NewSymbolID(lang Language, descs ...Descriptor) SymbolID {
	var b strings.Builder
	b.Grow(64)
	b.WriteString(HeuristicScheme)
	b.WriteByte(' ')
	writePackageField(&b, lang.String())
	b.WriteString(" . . ")
	for _, d := range descs {
		writeDescriptor(&b, d)
	}
	return SymbolID(b.String())
}

// AppendDescriptor returns id extended by one descriptor (for example a method
// of a type). It works for any global symbol, precise or heuristic.
func (id SymbolID) AppendDescriptor(d Descriptor) SymbolID {
	var b strings.Builder
	b.Grow(len(id) + len(d.Name) + 4)
	b.WriteString(string(id))
	writeDescriptor(&b, d)
	return SymbolID(b.String())
}

func writePackageField(b *strings.Builder, s string) {
	if s == "" {
		b.WriteByte('.')
		return
	}
	b.WriteString(strings.ReplaceAll(s, " ", "  "))
}

func writeDescriptor(b *strings.Builder, d Descriptor) {
	switch d.Suffix {
	case SuffixNamespace:
		writeIdent(b, d.Name)
		b.WriteByte('/')
	case SuffixType:
		writeIdent(b, d.Name)
		b.WriteByte('#')
	case SuffixTerm:
		writeIdent(b, d.Name)
		b.WriteByte('.')
	case SuffixMethod:
		writeIdent(b, d.Name)
		b.WriteByte('(')
		if d.Disambiguator != "" {
			writeIdent(b, d.Disambiguator)
		}
		b.WriteString(").")
	case SuffixTypeParameter:
		b.WriteByte('[')
		writeIdent(b, d.Name)
		b.WriteByte(']')
	case SuffixParameter:
		b.WriteByte('(')
		writeIdent(b, d.Name)
		b.WriteByte(')')
	case SuffixMeta:
		writeIdent(b, d.Name)
		b.WriteByte(':')
	case SuffixMacro:
		writeIdent(b, d.Name)
		b.WriteByte('!')
	}
}

func isIdentChar(c byte) bool {
	return c == '_' || c == '+' || c == '-' || c == '$' ||
		(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func writeIdent(b *strings.Builder, s string) {
	simple := s != ""
	for i := 0; i < len(s) && simple; i++ {
		simple = isIdentChar(s[i])
	}
	if simple {
		b.WriteString(s)
		return
	}
	b.WriteByte('`')
	b.WriteString(strings.ReplaceAll(s, "`", "``"))
	b.WriteByte('`')
}

// LocalSymbol is the symbol of a function-local name (a parameter or
// variable): SCIP's document-local form.
func LocalSymbol(name string) SymbolID { return SymbolID("local " + name) }

// IsLocal reports whether id is a document-local symbol ("local N").
func (id SymbolID) IsLocal() bool { return strings.HasPrefix(string(id), "local ") }

// IsHeuristic reports whether id was derived by cairn rather than a SCIP indexer.
func (id SymbolID) IsHeuristic() bool {
	return strings.HasPrefix(string(id), HeuristicScheme+" ")
}

// ParsedSymbol is a SymbolID taken apart.
type ParsedSymbol struct {
	Scheme, Manager, Package, Version string
	Descriptors                       []Descriptor
}

// Parse takes id apart using the SCIP bindings' grammar.
func (id SymbolID) Parse() (ParsedSymbol, error) {
	if id.IsLocal() {
		return ParsedSymbol{Scheme: "local", Descriptors: []Descriptor{{Name: strings.TrimPrefix(string(id), "local "), Suffix: SuffixTerm}}}, nil
	}
	s, err := scip.ParseSymbol(string(id))
	if err != nil {
		return ParsedSymbol{}, fmt.Errorf("parse symbol %q: %w", string(id), err)
	}
	p := ParsedSymbol{Scheme: s.Scheme}
	if s.Package != nil {
		p.Manager, p.Package, p.Version = s.Package.Manager, s.Package.Name, s.Package.Version
	}
	for _, d := range s.Descriptors {
		p.Descriptors = append(p.Descriptors, Descriptor{
			Name:          d.Name,
			Suffix:        suffixFromSCIP(d.Suffix),
			Disambiguator: d.Disambiguator,
		})
	}
	return p, nil
}

func suffixFromSCIP(s scip.Descriptor_Suffix) DescriptorSuffix {
	switch s {
	case scip.Descriptor_Namespace:
		return SuffixNamespace
	case scip.Descriptor_Type:
		return SuffixType
	case scip.Descriptor_Term:
		return SuffixTerm
	case scip.Descriptor_Method:
		return SuffixMethod
	case scip.Descriptor_TypeParameter:
		return SuffixTypeParameter
	case scip.Descriptor_Parameter:
		return SuffixParameter
	case scip.Descriptor_Meta:
		return SuffixMeta
	case scip.Descriptor_Macro:
		return SuffixMacro
	}
	return SuffixTerm
}

// Display returns a short human name: the descriptors after the namespace,
// joined with '.', e.g. "Server.Serve" for "… `net/http`/Server#Serve().".
func (id SymbolID) Display() string {
	p, err := id.Parse()
	if err != nil {
		return string(id)
	}
	var parts []string
	for _, d := range p.Descriptors {
		switch d.Suffix {
		case SuffixNamespace, SuffixParameter, SuffixTypeParameter:
			continue
		}
		parts = append(parts, d.Name)
	}
	if len(parts) == 0 && len(p.Descriptors) > 0 {
		return p.Descriptors[len(p.Descriptors)-1].Name
	}
	return strings.Join(parts, ".")
}
