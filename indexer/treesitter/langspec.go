package treesitter

import (
	"embed"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"

	"github.com/cairn-dev/cairn/graph"
)

//go:embed queries/*.scm queries/tags/*.scm
var queryFS embed.FS

// langSpec is what the generic extractor needs to know about one language
// beyond its query file.
type langSpec struct {
	lang   graph.Language
	tsLang func() *sitter.Language
	file   string // queries/<file>.scm
	// wrappers are parent node types whose range belongs to the definition
	// they wrap (decorators, export statements, templates).
	wrappers map[string]bool
	// comments are the node types of comments.
	comments map[string]bool
	// bodyFields name the child holding a definition's body; the signature
	// is the text before it.
	bodyFields []string
	// bodyTypes are the node types of a definition's body, for grammars
	// without field names (Kotlin): the first such child is the body.
	bodyTypes map[string]bool
	// splitImport turns an @import node into imports, for grammars whose
	// import paths are not split into module and name nodes (Kotlin,
	// Scala, Swift); when set, @import.module/name/alias are not used.
	splitImport func(n *sitter.Node, src []byte) []graph.Import
	// docstring extracts a docstring from a definition node, if the
	// language has them.
	docstring func(n *sitter.Node, src []byte) string
	// stripDecorators drops leading "@…" and "#[…]" lines from signatures.
	stripDecorators bool
	// leadingSiblings are node types that, directly before a definition,
	// belong to it (attributes, decorators).
	leadingSiblings map[string]bool
	// namespace returns the leading descriptors of symbols defined in path.
	namespace func(p, pkg string) []graph.Descriptor
	// packageOf derives the package/module name when the query found none.
	packageOf func(p, pkg string) string
	exported  func(name string, s *graph.Symbol, d *rawDef, e *extraction) bool
	isTest    func(p string, s *graph.Symbol, e *extraction) bool
	// refineKind adjusts a captured kind (a function in a class is a method).
	refineKind func(k graph.SymbolKind, name, container string, d *rawDef) graph.SymbolKind
	skipName   map[string]bool
	// ident strips a sigil from a name as written (Ruby's @x and :x).
	ident func(string) string
	// implicitQual gives references of these node types a qualifier they
	// do not spell: Ruby's @x is self's x.
	implicitQual map[string]string
	// uniqueIDs keeps the first of several definitions with one ID in a
	// file (Ruby's attr_accessor :x and @x = … in initialize).
	uniqueIDs bool
	// firstLineSignature: a signature is the definition's first line
	// (Ruby: a class's body has no delimiter the grammar gives a field).
	firstLineSignature bool
	// fixImport adjusts an import as captured (Ruby's require_relative).
	fixImport func(im *graph.Import, n *sitter.Node, src []byte)

	once sync.Once
	cq   *compiledQuery
	err  error
}

func (s *langSpec) query() (*compiledQuery, error) {
	s.once.Do(func() {
		src, err := queryFS.ReadFile("queries/" + s.file + ".scm")
		if err != nil {
			s.err = err
			return
		}
		s.cq, s.err = compileQuery(s.tsLang(), string(src))
		if s.err != nil {
			s.err = fmt.Errorf("compile %s query: %w", s.file, s.err)
		}
	})
	return s.cq, s.err
}

func (s *langSpec) body(n *sitter.Node) *sitter.Node {
	for _, f := range s.bodyFields {
		if b := n.ChildByFieldName(f); b != nil {
			return b
		}
	}
	if len(s.bodyTypes) > 0 {
		for i := 0; i < int(n.NamedChildCount()); i++ {
			if c := n.NamedChild(i); s.bodyTypes[c.Type()] {
				return c
			}
		}
	}
	return nil
}

func (s *langSpec) unquote(str string) string {
	str = strings.TrimSpace(str)
	if len(str) >= 2 {
		switch str[0] {
		case '"', '\'', '`':
			if str[len(str)-1] == str[0] {
				return str[1 : len(str)-1]
			}
		case '<':
			if str[len(str)-1] == '>' {
				return str[1 : len(str)-1]
			}
		}
	}
	return str
}

// CheckQueries compiles every embedded query; tests call it.
func CheckQueries() error {
	for _, s := range specs {
		if s == nil {
			continue
		}
		if _, err := s.query(); err != nil {
			return err
		}
	}
	for _, l := range slices.Sorted(maps.Keys(moreSpecs)) {
		if _, err := moreSpecs[l].query(); err != nil {
			return err
		}
	}
	return nil
}

func specFor(l graph.Language) *langSpec {
	if int(l) < len(specs) && specs[l] != nil {
		return specs[l]
	}
	return moreSpecs[l]
}

// moreSpecs holds the languages added after the first nine, each
// registered from its own file (langspec_<lang>.go) so that adding one
// touches no shared table.
var moreSpecs = map[graph.Language]*langSpec{}

func register(s *langSpec) {
	if _, dup := moreSpecs[s.lang]; dup {
		panic("treesitter: language registered twice: " + s.lang.String())
	}
	moreSpecs[s.lang] = s
}

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

func ns(name string) []graph.Descriptor {
	if name == "" {
		return nil
	}
	return []graph.Descriptor{{Name: name, Suffix: graph.SuffixNamespace}}
}

func upperFirst(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

func fileNamespace(p, _ string) []graph.Descriptor { return ns(p) }

// pythonModule turns a path into a dotted module name:
// "pkg/sub/__init__.py" → "pkg.sub", "pkg/mod.py" → "pkg.mod".
func pythonModule(p string) string {
	p = strings.TrimSuffix(strings.TrimSuffix(p, ".py"), ".pyi")
	p = strings.TrimSuffix(p, "/__init__")
	if p == "__init__" {
		return ""
	}
	return strings.ReplaceAll(p, "/", ".")
}

func isPythonTestFile(p string) bool {
	b := path.Base(p)
	return strings.HasPrefix(b, "test_") || strings.HasSuffix(b, "_test.py") || b == "conftest.py" ||
		strings.Contains("/"+p, "/tests/") || strings.Contains("/"+p, "/test/")
}

func isJSTestFile(p string) bool {
	b := path.Base(p)
	return strings.Contains(b, ".test.") || strings.Contains(b, ".spec.") ||
		strings.Contains("/"+p, "/__tests__/") || strings.Contains("/"+p, "/test/") || strings.Contains("/"+p, "/tests/")
}

// hasChildText reports whether n has a direct child of type typ whose text
// contains sub.
func hasChildText(n *sitter.Node, src []byte, typ, sub string) bool {
	for i := 0; i < int(n.ChildCount()); i++ {
		c := n.Child(i)
		if c.Type() == typ && strings.Contains(c.Content(src), sub) {
			return true
		}
	}
	return false
}

func pythonDocstring(n *sitter.Node, src []byte) string {
	body := n.ChildByFieldName("body")
	if body == nil || body.NamedChildCount() == 0 {
		return ""
	}
	first := body.NamedChild(0)
	if first.Type() != "expression_statement" || first.NamedChildCount() == 0 {
		return ""
	}
	str := first.NamedChild(0)
	if str.Type() != "string" {
		return ""
	}
	t := str.Content(src)
	t = strings.TrimLeft(t, "rRbBuUfF")
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(t, q) && strings.HasSuffix(t, q) && len(t) >= 2*len(q) {
			t = t[len(q) : len(t)-len(q)]
			break
		}
	}
	return strings.ToValidUTF8(dedent(t), "\uFFFD")
}

func dedent(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, "\n")
}

var specs = [...]*langSpec{
	graph.LangGo: {
		lang: graph.LangGo, tsLang: golang.GetLanguage, file: "go",
		comments:   set("comment"),
		bodyFields: []string{"body"},
		namespace: func(p, _ string) []graph.Descriptor {
			return ns(path.Dir(p))
		},
		exported: func(name string, _ *graph.Symbol, _ *rawDef, _ *extraction) bool { return upperFirst(name) },
		isTest: func(p string, s *graph.Symbol, _ *extraction) bool {
			if !strings.HasSuffix(p, "_test.go") || s.Kind != graph.KindFunction {
				return false
			}
			for _, pre := range []string{"Test", "Benchmark", "Fuzz", "Example"} {
				if strings.HasPrefix(s.Name, pre) {
					return true
				}
			}
			return false
		},
		skipName: set("_"),
	},
	graph.LangPython: {
		lang: graph.LangPython, tsLang: python.GetLanguage, file: "python",
		wrappers:        set("decorated_definition"),
		comments:        set("comment"),
		bodyFields:      []string{"body"},
		docstring:       pythonDocstring,
		stripDecorators: true,
		namespace:       func(p, _ string) []graph.Descriptor { return ns(pythonModule(p)) },
		packageOf:       func(p, _ string) string { return pythonModule(p) },
		exported: func(name string, _ *graph.Symbol, _ *rawDef, _ *extraction) bool {
			return !strings.HasPrefix(name, "_") || (strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__"))
		},
		isTest: func(p string, s *graph.Symbol, _ *extraction) bool {
			if !isPythonTestFile(p) {
				return false
			}
			return (s.Kind.IsCallable() && strings.HasPrefix(s.Name, "test")) || (s.Kind == graph.KindClass && strings.HasPrefix(s.Name, "Test"))
		},
		refineKind: func(k graph.SymbolKind, name, container string, d *rawDef) graph.SymbolKind {
			if k == graph.KindMethod && name == "__init__" {
				return graph.KindConstructor
			}
			if k == graph.KindVariable && strings.ToUpper(name) == name && strings.ToLower(name) != name {
				return graph.KindConstant
			}
			return k
		},
		skipName: set("self", "cls", "_"),
	},
	graph.LangTypeScript: jsSpec(graph.LangTypeScript, typescript.GetLanguage, "typescript"),
	graph.LangTSX:        jsSpec(graph.LangTSX, tsx.GetLanguage, "tsx"),
	graph.LangJavaScript: jsSpec(graph.LangJavaScript, javascript.GetLanguage, "javascript"),
	graph.LangJava: {
		lang: graph.LangJava, tsLang: java.GetLanguage, file: "java",
		comments:        set("line_comment", "block_comment"),
		bodyFields:      []string{"body"},
		stripDecorators: true,
		namespace:       func(_ string, pkg string) []graph.Descriptor { return ns(pkg) },
		exported: func(_ string, _ *graph.Symbol, d *rawDef, e *extraction) bool {
			return hasChildText(d.node, e.src, "modifiers", "public")
		},
		isTest: func(p string, s *graph.Symbol, e *extraction) bool {
			if s.Kind != graph.KindMethod {
				return false
			}
			return hasChildText(e.symDefs[len(e.symDefs)-1].node, e.src, "modifiers", "@Test")
		},
		refineKind: func(k graph.SymbolKind, name, container string, d *rawDef) graph.SymbolKind { return k },
	},
	graph.LangRust: {
		lang: graph.LangRust, tsLang: rust.GetLanguage, file: "rust",
		comments:        set("line_comment", "block_comment"),
		leadingSiblings: set("attribute_item"),
		stripDecorators: true,
		bodyFields:      []string{"body"},
		namespace:       fileNamespace,
		exported: func(_ string, _ *graph.Symbol, d *rawDef, e *extraction) bool {
			return hasChildText(d.node, e.src, "visibility_modifier", "pub")
		},
		isTest: func(p string, s *graph.Symbol, e *extraction) bool {
			if !s.Kind.IsCallable() {
				return false
			}
			d := e.symDefs[len(e.symDefs)-1]
			for prev := d.node.PrevNamedSibling(); prev != nil && prev.Type() == "attribute_item"; prev = prev.PrevNamedSibling() {
				if strings.Contains(prev.Content(e.src), "test") {
					return true
				}
			}
			return false
		},
		skipName: set("_", "self"),
	},
	graph.LangC: {
		lang: graph.LangC, tsLang: c.GetLanguage, file: "c",
		comments:   set("comment"),
		bodyFields: []string{"body"},
		namespace:  func(string, string) []graph.Descriptor { return nil },
		exported: func(_ string, _ *graph.Symbol, d *rawDef, e *extraction) bool {
			return !hasChildText(d.node, e.src, "storage_class_specifier", "static")
		},
	},
	graph.LangCpp: {
		lang: graph.LangCpp, tsLang: cpp.GetLanguage, file: "cpp",
		wrappers:   set("template_declaration"),
		comments:   set("comment"),
		bodyFields: []string{"body"},
		namespace:  func(string, string) []graph.Descriptor { return nil },
		exported: func(_ string, _ *graph.Symbol, d *rawDef, e *extraction) bool {
			return !hasChildText(d.node, e.src, "storage_class_specifier", "static")
		},
		skipName: set("this"),
	},
	graph.LangMarkdown: nil,
	graph.LangRuby:     rubySpec,
	graph.LangPHP:      phpSpec,
	graph.LangCSharp:   csharpSpec,
}

// jsWrappers are the nodes around a JavaScript/TypeScript definition that
// belong to it: `export`, and for `const f = () => …` or a class field
// `h = () => …` the declaration around the function value.
var jsWrappers = set("export_statement", "lexical_declaration", "variable_declaration",
	"variable_declarator", "ambient_declaration", "public_field_definition", "field_definition")

func jsSpec(l graph.Language, ts func() *sitter.Language, file string) *langSpec {
	return &langSpec{
		lang: l, tsLang: ts, file: file,
		wrappers:        jsWrappers,
		comments:        set("comment"),
		bodyFields:      []string{"body"},
		stripDecorators: true,
		leadingSiblings: set("decorator"),
		namespace:       fileNamespace,
		exported: func(name string, s *graph.Symbol, d *rawDef, e *extraction) bool {
			n := d.node
			for p := n.Parent(); p != nil && jsWrappers[p.Type()]; p = p.Parent() {
				if p.Type() == "export_statement" {
					return true
				}
				n = p
			}
			// Members of classes, interfaces and enums are visible unless
			// private; declarations in a namespace or a function body only
			// when exported.
			if p := n.Parent(); s.Parent >= 0 && p != nil && p.Type() != "statement_block" && p.Type() != "program" {
				return !strings.HasPrefix(name, "#") && !hasChildText(n, e.src, "accessibility_modifier", "private")
			}
			return false
		},
		isTest: func(p string, s *graph.Symbol, _ *extraction) bool {
			return isJSTestFile(p) && s.Kind.IsCallable()
		},
		refineKind: func(k graph.SymbolKind, name, container string, d *rawDef) graph.SymbolKind {
			if k == graph.KindMethod && name == "constructor" {
				return graph.KindConstructor
			}
			return k
		},
		skipName: set("this", "undefined", "_"),
	}
}

// ModuleSymbol is the symbol that stands for the file-level code of a file
// (imports, top-level statements): its namespace descriptors alone, the
// package directory for Go, the module for Python, the file elsewhere.
func ModuleSymbol(lang graph.Language, p, pkg string) graph.SymbolID {
	spec := specFor(lang)
	if spec == nil {
		return ""
	}
	if spec.packageOf != nil {
		pkg = spec.packageOf(p, pkg)
	}
	desc := spec.namespace(p, pkg)
	if len(desc) == 0 {
		desc = ns(p)
	}
	return graph.NewSymbolID(lang, desc...)
}
