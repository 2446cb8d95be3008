package graph

import (
	"fmt"
	"strings"
)

// Language is a source language cairn recognises.
type Language uint8

const (
	LangUnknown Language = iota
	LangGo
	LangPython
	LangTypeScript
	LangTSX
	LangJavaScript
	LangJava
	LangRust
	LangC
	LangCpp
	// Text-only kinds: indexed for search and context as whole-file chunks,
	// without symbols.
	LangMarkdown
	LangText
	LangJSON
	LangYAML
	LangTOML
	LangSQL
	LangShell
	LangHTML
	LangCSS
	LangXML
	LangProto
	LangConfig // ini, properties, env, cfg
	// Parsed languages added after the text-only kinds (the values are
	// stored: append, never renumber).
	LangRuby
	LangPHP
	LangCSharp
	// First-class languages added after the first nine (issue 54).
	LangKotlin
	LangScala
	LangSwift
	// Tags-tier languages: definitions and name-only references.
	LangLua
	LangElixir
	LangOCaml
	LangGroovy
	LangHCL
	LangDockerfile
	LangCUE
	LangElm
	// GraphQL was LangProto; it is text, not protobuf.
	LangGraphQL
	langMax
)

var langNames = [...]string{
	LangUnknown:    "unknown",
	LangGo:         "go",
	LangPython:     "python",
	LangTypeScript: "typescript",
	LangTSX:        "tsx",
	LangJavaScript: "javascript",
	LangJava:       "java",
	LangRust:       "rust",
	LangC:          "c",
	LangCpp:        "cpp",
	LangMarkdown:   "markdown",
	LangText:       "text",
	LangJSON:       "json",
	LangYAML:       "yaml",
	LangTOML:       "toml",
	LangSQL:        "sql",
	LangShell:      "shell",
	LangHTML:       "html",
	LangCSS:        "css",
	LangXML:        "xml",
	LangProto:      "proto",
	LangConfig:     "config",
	LangRuby:       "ruby",
	LangPHP:        "php",
	LangCSharp:     "csharp",
	LangKotlin:     "kotlin",
	LangScala:      "scala",
	LangSwift:      "swift",
	LangLua:        "lua",
	LangElixir:     "elixir",
	LangOCaml:      "ocaml",
	LangGroovy:     "groovy",
	LangHCL:        "hcl",
	LangDockerfile: "dockerfile",
	LangCUE:        "cue",
	LangElm:        "elm",
	LangGraphQL:    "graphql",
}

func (l Language) String() string {
	if int(l) < len(langNames) {
		return langNames[l]
	}
	return fmt.Sprintf("Language(%d)", l)
}

// HasParser reports whether symbols are extracted for l (as opposed to
// text-only indexing): l is first-class or in the tags tier.
func (l Language) HasParser() bool { return l.Tier() != TierText }

// Tier says how deeply cairn analyses a language.
type Tier uint8

const (
	// TierText: indexed as text (search, context), no symbols.
	TierText Tier = iota
	// TierTags: definitions and name-only references from a small
	// tree-sitter query; no imports, types or resolution.
	TierTags
	// TierFirstClass: definitions with kinds, containers, signatures and
	// docs, references with roles, imports, resolution, inheritance,
	// tests and entry points.
	TierFirstClass
)

var tierNames = [...]string{TierText: "text", TierTags: "tags", TierFirstClass: "first-class"}

func (t Tier) String() string {
	if int(t) < len(tierNames) {
		return tierNames[t]
	}
	return fmt.Sprintf("Tier(%d)", t)
}

// tiers lists the languages with a grammar; every other one is TierText.
// A set rather than a range, so languages can be appended in any order.
var tiers = map[Language]Tier{
	LangGo: TierFirstClass, LangPython: TierFirstClass, LangTypeScript: TierFirstClass,
	LangTSX: TierFirstClass, LangJavaScript: TierFirstClass, LangJava: TierFirstClass,
	LangRust: TierFirstClass, LangC: TierFirstClass, LangCpp: TierFirstClass,
	LangRuby: TierFirstClass, LangPHP: TierFirstClass, LangCSharp: TierFirstClass,
	LangKotlin: TierFirstClass, LangScala: TierFirstClass, LangSwift: TierFirstClass,
	LangShell: TierTags, LangProto: TierTags, LangLua: TierTags, LangElixir: TierTags,
	LangOCaml: TierTags, LangGroovy: TierTags, LangHCL: TierTags, LangDockerfile: TierTags,
	LangCUE: TierTags, LangElm: TierTags,
}

// Tier reports l's analysis tier.
func (l Language) Tier() Tier { return tiers[l] }

// IsConfig reports whether l is a configuration or schema format, the files
// context packs admit as "config".
func (l Language) IsConfig() bool {
	switch l {
	case LangJSON, LangYAML, LangTOML, LangSQL, LangXML, LangProto, LangConfig, LangHCL, LangCUE, LangGraphQL:
		return true
	}
	return false
}

// ParseLanguage is the inverse of Language.String.
func ParseLanguage(s string) (Language, error) {
	for i, n := range langNames {
		if n == s {
			return Language(i), nil
		}
	}
	return LangUnknown, fmt.Errorf("unknown language %q", s)
}

// SymbolKind classifies a definition.
type SymbolKind uint8

const (
	KindUnknown SymbolKind = iota
	KindPackage
	KindModule
	KindNamespace
	KindClass
	KindStruct
	KindInterface
	KindTrait
	KindEnum
	KindEnumMember
	KindTypeAlias
	KindFunction
	KindMethod
	KindConstructor
	KindField
	KindProperty
	KindVariable
	KindConstant
	KindMacro
	KindUnion
	kindMax
)

var kindNames = [...]string{
	KindUnknown:     "unknown",
	KindPackage:     "package",
	KindModule:      "module",
	KindNamespace:   "namespace",
	KindClass:       "class",
	KindStruct:      "struct",
	KindInterface:   "interface",
	KindTrait:       "trait",
	KindEnum:        "enum",
	KindEnumMember:  "enum_member",
	KindTypeAlias:   "type",
	KindFunction:    "function",
	KindMethod:      "method",
	KindConstructor: "constructor",
	KindField:       "field",
	KindProperty:    "property",
	KindVariable:    "variable",
	KindConstant:    "constant",
	KindMacro:       "macro",
	KindUnion:       "union",
}

func (k SymbolKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("SymbolKind(%d)", k)
}

// ParseSymbolKind is the inverse of SymbolKind.String. It also accepts a few
// common synonyms ("func", "type", "var", "const").
func ParseSymbolKind(s string) (SymbolKind, error) {
	s = strings.ToLower(s)
	switch s {
	case "func":
		return KindFunction, nil
	case "var":
		return KindVariable, nil
	case "const":
		return KindConstant, nil
	case "alias":
		return KindTypeAlias, nil
	}
	for i, n := range kindNames {
		if n == s {
			return SymbolKind(i), nil
		}
	}
	return KindUnknown, fmt.Errorf("unknown symbol kind %q (want one of %s)", s, strings.Join(kindNames[1:], ", "))
}

// IsCallable reports whether symbols of this kind can be called.
func (k SymbolKind) IsCallable() bool {
	return k == KindFunction || k == KindMethod || k == KindConstructor || k == KindMacro
}

// IsType reports whether symbols of this kind declare a type.
func (k SymbolKind) IsType() bool {
	switch k {
	case KindClass, KindStruct, KindInterface, KindTrait, KindEnum, KindTypeAlias, KindUnion:
		return true
	}
	return false
}

// Role is a bit set describing what an occurrence does with its symbol.
type Role uint8

const (
	RoleDefinition Role = 1 << iota
	RoleRead
	RoleWrite
	RoleCall
	RoleImport
	RoleTypeUse
	// RoleArgument: a keyword argument names a parameter of the callee
	// (Python's f(x, encoding=e)); it writes no field or key of the
	// caller's objects. The resolver adds RoleWrite when the callee is a
	// class whose field it names (Task(url=u)).
	RoleArgument
)

var roleNames = []struct {
	r Role
	n string
}{
	{RoleDefinition, "definition"},
	{RoleRead, "read"},
	{RoleWrite, "write"},
	{RoleCall, "call"},
	{RoleImport, "import"},
	{RoleTypeUse, "type"},
	{RoleArgument, "argument"},
}

// String renders the set as names joined with '+', e.g. "read+write".
func (r Role) String() string {
	if r == 0 {
		return "reference"
	}
	var b strings.Builder
	for _, rn := range roleNames {
		if r&rn.r != 0 {
			if b.Len() > 0 {
				b.WriteByte('+')
			}
			b.WriteString(rn.n)
		}
	}
	return b.String()
}

// ParseRole parses one role name or a '+'-joined set.
func ParseRole(s string) (Role, error) {
	var r Role
	for _, part := range strings.Split(s, "+") {
		found := false
		for _, rn := range roleNames {
			if rn.n == part {
				r |= rn.r
				found = true
			}
		}
		if !found && part != "reference" {
			return 0, fmt.Errorf("unknown role %q", part)
		}
	}
	return r, nil
}

// Confidence says how an edge or resolved occurrence was derived.
type Confidence uint8

const (
	// ConfNameOnly: matched by name alone; possibly ambiguous.
	ConfNameOnly Confidence = iota + 1
	// ConfResolved: import-, scope- and receiver-aware heuristic resolution.
	ConfResolved
	// ConfPrecise: from a compiler-grade SCIP index.
	ConfPrecise
)

func (c Confidence) String() string {
	switch c {
	case ConfNameOnly:
		return "name-only"
	case ConfResolved:
		return "resolved"
	case ConfPrecise:
		return "precise"
	}
	return "unknown"
}

// ParseConfidence is the inverse of Confidence.String.
func ParseConfidence(s string) (Confidence, error) {
	switch s {
	case "name-only":
		return ConfNameOnly, nil
	case "resolved":
		return ConfResolved, nil
	case "precise":
		return ConfPrecise, nil
	}
	return 0, fmt.Errorf("unknown confidence %q", s)
}

// EdgeKind is the type of a relation between two symbols.
type EdgeKind uint8

const (
	EdgeCalls EdgeKind = iota + 1
	EdgeReferences
	EdgeImplements
	EdgeExtends
	EdgeOverrides
	EdgeImports
	EdgeReads
	EdgeWrites
	EdgeContains
	EdgeTests
	EdgeTypeUse
	edgeMax
)

var edgeNames = [...]string{
	EdgeCalls:      "calls",
	EdgeReferences: "references",
	EdgeImplements: "implements",
	EdgeExtends:    "extends",
	EdgeOverrides:  "overrides",
	EdgeImports:    "imports",
	EdgeReads:      "reads",
	EdgeWrites:     "writes",
	EdgeContains:   "contains",
	EdgeTests:      "tests",
	EdgeTypeUse:    "type_use",
}

func (k EdgeKind) String() string {
	if int(k) < len(edgeNames) && edgeNames[k] != "" {
		return edgeNames[k]
	}
	return fmt.Sprintf("EdgeKind(%d)", k)
}

// ParseEdgeKind is the inverse of EdgeKind.String.
func ParseEdgeKind(s string) (EdgeKind, error) {
	for i, n := range edgeNames {
		if n != "" && n == s {
			return EdgeKind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown edge kind %q", s)
}

// ChunkKind says what a chunk covers.
type ChunkKind uint8

const (
	// ChunkFile: the parts of a file outside its function and class chunks
	// (imports, top-level statements), or the whole of a text-only file.
	ChunkFile ChunkKind = iota + 1
	// ChunkFunction: a function or method with its doc comment.
	ChunkFunction
	// ChunkType: a class, struct or interface declaration, excluding the
	// bodies of its methods (which are chunks of their own).
	ChunkType
)

func (k ChunkKind) String() string {
	switch k {
	case ChunkFile:
		return "file"
	case ChunkFunction:
		return "function"
	case ChunkType:
		return "type"
	}
	return fmt.Sprintf("ChunkKind(%d)", k)
}

// ParseStatus says how completely a file was analysed.
type ParseStatus uint8

const (
	// ParseOK: parsed without syntax errors.
	ParseOK ParseStatus = iota
	// ParsePartial: the parser recovered from syntax errors; facts cover what
	// it recovered.
	ParsePartial
	// ParseTimeout: parsing exceeded the per-file time limit; no facts.
	ParseTimeout
	// ParseFailed: the parser or extractor failed (error or recovered panic).
	ParseFailed
	// ParseCrashed: a previous run crashed while parsing this file; it is
	// quarantined until its content changes.
	ParseCrashed
	// ParseTextOnly: a text file indexed for search without symbols.
	ParseTextOnly
)

var parseNames = [...]string{"ok", "partial", "timeout", "failed", "crashed", "text"}

func (s ParseStatus) String() string {
	if int(s) < len(parseNames) {
		return parseNames[s]
	}
	return fmt.Sprintf("ParseStatus(%d)", s)
}

// Analysed reports whether the file's symbols are known (fully or partially).
// Answers that cover a file that is not analysed say "unknown", not "none".
func (s ParseStatus) Analysed() bool { return s == ParseOK || s == ParsePartial }

// SkipReason says why the walker left a file out of the index.
type SkipReason uint8

const (
	SkipNone SkipReason = iota
	SkipGitignore
	SkipCairnignore
	SkipDefaultIgnore
	SkipBinary
	SkipMinified
	SkipGenerated
	SkipLockfile
	SkipOversized
	SkipLongLines
	SkipSymlinkOutside
	SkipSymlinkLoop
	SkipSymlinkDuplicate
	SkipUnreadable
	SkipUnknownType
	SkipSpecial
	skipMax
)

var skipNames = [...]string{
	SkipNone:             "none",
	SkipGitignore:        "gitignore",
	SkipCairnignore:      "cairnignore",
	SkipDefaultIgnore:    "default-ignore",
	SkipBinary:           "binary",
	SkipMinified:         "minified",
	SkipGenerated:        "generated",
	SkipLockfile:         "lockfile",
	SkipOversized:        "oversized",
	SkipLongLines:        "long-lines",
	SkipSymlinkOutside:   "symlink-outside-repo",
	SkipSymlinkLoop:      "symlink-loop",
	SkipSymlinkDuplicate: "symlink-duplicate",
	SkipUnreadable:       "unreadable",
	SkipUnknownType:      "unknown-type",
	SkipSpecial:          "special-file",
}

func (r SkipReason) String() string {
	if int(r) < len(skipNames) {
		return skipNames[r]
	}
	return fmt.Sprintf("SkipReason(%d)", r)
}

// ParseSkipReason is the inverse of SkipReason.String.
func ParseSkipReason(s string) (SkipReason, error) {
	for i, n := range skipNames {
		if n == s {
			return SkipReason(i), nil
		}
	}
	return 0, fmt.Errorf("unknown skip reason %q", s)
}

// SkipReasons lists every reason in a stable order.
func SkipReasons() []SkipReason {
	out := make([]SkipReason, 0, skipMax-1)
	for r := SkipNone + 1; r < skipMax; r++ {
		out = append(out, r)
	}
	return out
}

// FileCategory is what the indexer decided a file is, besides its language:
// a set of flags, decided once when the file is indexed (package
// indexer/walk has one function per flag) and stored with the file, so that
// search, packs and impact read the decision instead of re-deriving it from
// the path. A zero category is the project's own source code.
//
// Generated files have no flag: the walker skips them (SkipGenerated), so no
// indexed file is generated.
type FileCategory uint8

const (
	// FileTest: a test file by the conventions of the languages cairn
	// indexes (foo_test.go, test_foo.py, foo.spec.ts, tests/, testdata/ …).
	FileTest FileCategory = 1 << iota
	// FileVendored: a copy of another project kept in the repository
	// (vendor/, third_party/, node_modules/ … at any depth).
	FileVendored
	// FileDocs: not source code of a parsed language — prose, configuration,
	// templates, data.
	FileDocs
	fileCategoryMax
)

var fileCategoryNames = [...]string{"test", "vendored", "docs"}

// Has reports whether c has every flag of f.
func (c FileCategory) Has(f FileCategory) bool { return c&f == f }

// String lists c's flags joined by "|", "code" for none.
func (c FileCategory) String() string {
	if c == 0 {
		return "code"
	}
	var parts []string
	for i, name := range fileCategoryNames {
		if c&(1<<i) != 0 {
			parts = append(parts, name)
		}
	}
	if rest := c &^ (fileCategoryMax - 1); rest != 0 {
		parts = append(parts, fmt.Sprintf("FileCategory(%#x)", uint8(rest)))
	}
	return strings.Join(parts, "|")
}
