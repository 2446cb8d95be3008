package treesitter

import (
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/ruby"

	"github.com/cairn-dev/cairn/graph"
)

// Ruby, PHP and C#: the languages added after the first nine, each with its
// query file and the rules below.

// rubySpec: classes and modules are open and global, so symbols carry no
// file or package namespace (Bank::Account is one ID in every file that
// reopens it). Modules are KindModule; the resolver lets them be mixed in
// (include/extend/prepend are recorded as Implements).
var rubySpec = &langSpec{
	lang: graph.LangRuby, tsLang: ruby.GetLanguage, file: "ruby",
	comments:   set("comment"),
	bodyFields: []string{"body"},
	namespace:  func(string, string) []graph.Descriptor { return nil },
	exported: func(name string, s *graph.Symbol, d *rawDef, e *extraction) bool {
		return !afterVisibility(d.node, e.src, "private", "protected")
	},
	isTest: func(p string, s *graph.Symbol, e *extraction) bool {
		if !isRubyTestFile(p) {
			return false
		}
		d := e.symDefs[len(e.symDefs)-1]
		if d.node.Type() == "call" {
			return true // it "…" do, test "…" do
		}
		return s.Kind == graph.KindMethod && strings.HasPrefix(s.Name, "test_")
	},
	refineKind: func(k graph.SymbolKind, name, container string, d *rawDef) graph.SymbolKind {
		switch {
		case k == graph.KindMethod && name == "initialize":
			return graph.KindConstructor
		case k == graph.KindMethod && container == "":
			return graph.KindFunction
		}
		return k
	},
	ident: func(s string) string {
		s = strings.TrimLeft(s, "@:$")
		if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
			s = s[1 : len(s)-1]
		}
		return s
	},
	implicitQual:       map[string]string{"instance_variable": "self"},
	uniqueIDs:          true,
	firstLineSignature: true,
	skipName:           set("self", "_", "nil", "true", "false"),
	fixImport: func(im *graph.Import, n *sitter.Node, src []byte) {
		if m := n.ChildByFieldName("method"); m != nil && m.Content(src) == "require_relative" && !strings.HasPrefix(im.Module, ".") {
			im.Module = "./" + im.Module
		}
	},
}

// afterVisibility reports whether a bare private/protected line precedes n
// in its class body (Ruby's visibility sections).
func afterVisibility(n *sitter.Node, src []byte, words ...string) bool {
	for p := n.PrevNamedSibling(); p != nil; p = p.PrevNamedSibling() {
		if p.Type() == "identifier" {
			t := p.Content(src)
			for _, w := range words {
				if t == w {
					return true
				}
			}
			if t == "public" {
				return false
			}
		}
	}
	return false
}

func isRubyTestFile(p string) bool {
	b := path.Base(p)
	return strings.HasSuffix(b, "_spec.rb") || strings.HasSuffix(b, "_test.rb") ||
		strings.HasPrefix(b, "test_") && strings.HasSuffix(b, ".rb")
}

// phpSpec: symbols live in the file's namespace (namespace App\Models;).
var phpSpec = &langSpec{
	lang: graph.LangPHP, tsLang: php.GetLanguage, file: "php",
	comments:        set("comment"),
	bodyFields:      []string{"body"},
	stripDecorators: true,
	namespace:       func(_ string, pkg string) []graph.Descriptor { return ns(pkg) },
	exported: func(_ string, s *graph.Symbol, d *rawDef, e *extraction) bool {
		n := d.node
		if n.Type() == "property_element" && n.Parent() != nil {
			n = n.Parent()
		}
		return !hasChildText(n, e.src, "visibility_modifier", "private") && !hasChildText(n, e.src, "visibility_modifier", "protected")
	},
	isTest: func(p string, s *graph.Symbol, e *extraction) bool {
		if s.Kind != graph.KindMethod {
			return false
		}
		if strings.HasSuffix(path.Base(p), "Test.php") && strings.HasPrefix(s.Name, "test") {
			return true
		}
		// #[Test] attributes and @test doc comments
		d := e.symDefs[len(e.symDefs)-1]
		return hasChildText(d.node, e.src, "attribute_list", "Test") || strings.Contains(s.Doc, "@test")
	},
	refineKind: func(k graph.SymbolKind, name, container string, d *rawDef) graph.SymbolKind {
		if k == graph.KindMethod && name == "__construct" {
			return graph.KindConstructor
		}
		return k
	},
	skipName: set("this", "self", "static", "parent", "class", "null", "true", "false"),
	fixImport: func(im *graph.Import, _ *sitter.Node, _ []byte) {
		// use \App\Models\Account: the namespace without its separators at the ends
		im.Module = strings.Trim(im.Module, "\\")
	},
}

// csharpSpec: symbols live in the file's (first) namespace.
var csharpSpec = &langSpec{
	lang: graph.LangCSharp, tsLang: csharp.GetLanguage, file: "csharp",
	comments:        set("comment"),
	bodyFields:      []string{"body", "accessors"},
	leadingSiblings: set("attribute_list"),
	stripDecorators: true,
	namespace:       func(_ string, pkg string) []graph.Descriptor { return ns(pkg) },
	exported: func(_ string, s *graph.Symbol, d *rawDef, e *extraction) bool {
		n := d.node
		for n != nil && n.Type() != "field_declaration" && n.Type() != "event_field_declaration" && !strings.HasSuffix(n.Type(), "_declaration") {
			n = n.Parent()
		}
		if n == nil {
			return false
		}
		return hasChildText(n, e.src, "modifier", "public") || hasChildText(n, e.src, "modifier", "internal") ||
			n.Type() == "enum_member_declaration" || (n.Parent() != nil && n.Parent().Parent() != nil && n.Parent().Parent().Type() == "interface_declaration")
	},
	isTest: func(p string, s *graph.Symbol, e *extraction) bool {
		if s.Kind != graph.KindMethod {
			return false
		}
		d := e.symDefs[len(e.symDefs)-1]
		for i := 0; i < int(d.node.NamedChildCount()); i++ {
			c := d.node.NamedChild(i)
			if c.Type() != "attribute_list" {
				continue
			}
			for j := 0; j < int(c.NamedChildCount()); j++ {
				a := c.NamedChild(j)
				if n := a.ChildByFieldName("name"); n != nil && csharpTestAttrs[lastIdent(n.Content(e.src))] {
					return true
				}
			}
		}
		return false
	},
	refineKind: func(k graph.SymbolKind, name, container string, d *rawDef) graph.SymbolKind { return k },
	skipName:   set("this", "base", "var", "_"),
}

// csharpTestAttrs mark test methods in xUnit, NUnit and MSTest.
var csharpTestAttrs = set("Fact", "Theory", "Test", "TestCase", "TestCaseSource", "TestMethod", "DataTestMethod")
