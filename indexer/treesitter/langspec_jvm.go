package treesitter

import (
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/kotlin"
	"github.com/smacker/go-tree-sitter/scala"

	"github.com/cairn-dev/cairn/graph"
)

// Kotlin and Scala: packages as Java has them (the package clause names
// the namespace), imports split like Java's (module = the package part,
// name = the last element or "*").

func init() {
	register(&langSpec{
		lang: graph.LangKotlin, tsLang: kotlin.GetLanguage, file: "kotlin",
		comments:        set("line_comment", "multiline_comment"),
		bodyTypes:       set("class_body", "enum_class_body", "function_body"),
		stripDecorators: true,
		splitImport:     kotlinImports,
		namespace:       func(_ string, pkg string) []graph.Descriptor { return ns(pkg) },
		exported: func(_ string, _ *graph.Symbol, d *rawDef, e *extraction) bool {
			return !hasModifier(d.node, e.src, "private") && !hasModifier(d.node, e.src, "internal")
		},
		isTest:   jvmIsTest,
		skipName: set("this", "it", "_"),
	})
	register(&langSpec{
		lang: graph.LangScala, tsLang: scala.GetLanguage, file: "scala",
		comments:        set("comment", "block_comment"),
		bodyFields:      []string{"body"},
		stripDecorators: true,
		splitImport:     scalaImports,
		namespace:       func(_ string, pkg string) []graph.Descriptor { return ns(pkg) },
		exported: func(_ string, _ *graph.Symbol, d *rawDef, e *extraction) bool {
			return !hasModifier(d.node, e.src, "private") && !hasModifier(d.node, e.src, "protected")
		},
		isTest:   jvmIsTest,
		skipName: set("this", "_"),
	})
}

// hasModifier reports whether a definition's modifiers (a "modifiers"
// child, Kotlin and Swift, or modifier children, Scala) contain word.
func hasModifier(n *sitter.Node, src []byte, word string) bool {
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		switch c.Type() {
		case "modifiers", "access_modifier", "visibility_modifier":
			for _, f := range strings.Fields(c.Content(src)) {
				if f == word || strings.HasPrefix(f, word+"[") {
					return true
				}
			}
		}
	}
	return false
}

// kotlinImports splits `import a.b.C`, `import a.b.*` and
// `import a.b.C as D`.
func kotlinImports(n *sitter.Node, src []byte) []graph.Import {
	var full, alias string
	star := false
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		switch c.Type() {
		case "identifier":
			full = strings.Join(strings.Fields(c.Content(src)), "")
		case "wildcard_import":
			star = true
		case "import_alias":
			if c.NamedChildCount() > 0 {
				alias = c.NamedChild(int(c.NamedChildCount()) - 1).Content(src)
			}
		}
	}
	if full == "" {
		return nil
	}
	if star {
		return []graph.Import{{Module: full, Name: "*"}}
	}
	mod, name := splitDotted(full)
	return []graph.Import{{Module: mod, Name: name, Alias: alias}}
}

// scalaImports splits `import a.b.C`, `import a.b._`, `import a.b.*`,
// `import a.b.{C, D => E}` and `import a.b.C as D` (Scala 3) into one
// import per name.
func scalaImports(n *sitter.Node, src []byte) []graph.Import {
	var parts []string
	var out []graph.Import
	var sel *sitter.Node
	star, alias := false, ""
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		switch c.Type() {
		case "identifier", "operator_identifier":
			parts = append(parts, c.Content(src))
		case "namespace_wildcard", "wildcard":
			star = true
		case "namespace_selectors":
			sel = c
		case "as_renamed_identifier", "arrow_renamed_identifier":
			if nm := c.ChildByFieldName("name"); nm != nil {
				parts = append(parts, nm.Content(src))
			}
			if a := c.ChildByFieldName("alias"); a != nil {
				alias = a.Content(src)
			}
		}
	}
	mod := strings.Join(parts, ".")
	switch {
	case star:
		return []graph.Import{{Module: mod, Name: "*"}}
	case sel != nil:
		for i := 0; i < int(sel.NamedChildCount()); i++ {
			c := sel.NamedChild(i)
			switch c.Type() {
			case "identifier":
				out = append(out, graph.Import{Module: mod, Name: c.Content(src)})
			case "arrow_renamed_identifier", "as_renamed_identifier":
				nm, a := c.ChildByFieldName("name"), c.ChildByFieldName("alias")
				if nm != nil {
					im := graph.Import{Module: mod, Name: nm.Content(src)}
					if a != nil && a.Content(src) != "_" {
						im.Alias = a.Content(src)
					}
					out = append(out, im)
				}
			case "namespace_wildcard", "wildcard":
				out = append(out, graph.Import{Module: mod, Name: "*"})
			}
		}
		return out
	case mod == "":
		return nil
	}
	m, name := splitDotted(mod)
	return []graph.Import{{Module: m, Name: name, Alias: alias}}
}

// splitDotted splits "a.b.C" into "a.b" and "C"; a single name is a
// module of its own.
func splitDotted(s string) (mod, name string) {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

// jvmIsTest: a function annotated @Test (JUnit 4/5, kotlin.test,
// ScalaTest's JUnit runner) in any file; in a test file (*Test.kt,
// *Spec.scala, *Suite.scala, *Test.scala, src/test/), a class extending a
// test style (kotest's StringSpec/FunSpec…, ScalaTest's AnyFunSuite/
// AnyFlatSpec…, munit's FunSuite) or XCTest-like base, and in those
// files the functions named test….
func jvmIsTest(p string, s *graph.Symbol, e *extraction) bool {
	d := e.symDefs[len(e.symDefs)-1]
	if s.Kind.IsCallable() && hasModifier(d.node, e.src, "@Test") {
		return true
	}
	if s.Kind.IsCallable() && hasAnnotation(d.node, e.src, "Test") {
		return true
	}
	if !isJVMTestFile(p) {
		return false
	}
	if s.Kind.IsType() {
		for _, b := range supertypeNames(d.node, e.src) {
			if strings.HasSuffix(b, "Spec") || strings.HasSuffix(b, "Suite") || strings.HasSuffix(b, "Test") ||
				strings.HasSuffix(b, "Specification") || b == "TestCase" {
				return true
			}
		}
	}
	return false
}

// supertypeNames lists the last identifiers of the supertypes written in a
// type declaration's head (Kotlin delegation specifiers, Scala's extends
// clause, Swift's inheritance specifiers); the symbol's Extends are not
// filled yet when tests are decided.
func supertypeNames(n *sitter.Node, src []byte) []string {
	var out []string
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		switch c.Type() {
		case "delegation_specifier", "inheritance_specifier":
			out = append(out, lastIdent(c.Content(src)))
		case "extends_clause":
			for _, f := range strings.FieldsFunc(strings.TrimPrefix(c.Content(src), "extends"), func(r rune) bool {
				return r == ' ' || r == '\n' || r == '\t'
			}) {
				if f != "with" {
					out = append(out, lastIdent(f))
				}
			}
		}
	}
	return out
}

// hasAnnotation finds an annotation @name before a definition (Scala's
// annotations are children of the definition).
func hasAnnotation(n *sitter.Node, src []byte, name string) bool {
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		if c.Type() == "annotation" || c.Type() == "attribute" {
			t := strings.TrimPrefix(strings.TrimSpace(c.Content(src)), "@")
			if t == name || strings.HasPrefix(t, name+"(") || strings.HasSuffix(t, "."+name) {
				return true
			}
		}
	}
	return false
}

func isJVMTestFile(p string) bool {
	b := path.Base(p)
	stem := strings.TrimSuffix(b, path.Ext(b))
	return strings.HasSuffix(stem, "Test") || strings.HasSuffix(stem, "Tests") || strings.HasSuffix(stem, "Spec") ||
		strings.HasSuffix(stem, "Suite") || strings.Contains("/"+p, "/src/test/") || strings.Contains("/"+p, "/test/")
}
