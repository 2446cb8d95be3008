package treesitter

import (
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/swift"

	"github.com/cairn-dev/cairn/graph"
)

// Swift has no package clause: a module is a target, the directory below
// Sources/ or Tests/ of a Swift package (Sources/App/Models/Cart.swift is
// module App), else the file's directory (an Xcode project's group). Every
// file of a module shares its namespace, so an extension's members, in
// whichever file, get the extended type's symbol as their container.
func swiftModule(p string) string {
	parts := strings.Split(p, "/")
	for i := 0; i+2 < len(parts); i++ {
		if parts[i] == "Sources" || parts[i] == "Tests" {
			return parts[i+1]
		}
	}
	return path.Dir(p)
}

func init() {
	register(&langSpec{
		lang: graph.LangSwift, tsLang: swift.GetLanguage, file: "swift",
		comments:        set("comment", "multiline_comment"),
		bodyFields:      []string{"body"},
		stripDecorators: true,
		splitImport:     swiftImports,
		namespace:       func(p, _ string) []graph.Descriptor { return ns(swiftModule(p)) },
		packageOf:       func(p, _ string) string { return swiftModule(p) },
		exported: func(_ string, _ *graph.Symbol, d *rawDef, e *extraction) bool {
			return !hasModifier(d.node, e.src, "private") && !hasModifier(d.node, e.src, "fileprivate")
		},
		isTest: func(p string, s *graph.Symbol, e *extraction) bool {
			d := e.symDefs[len(e.symDefs)-1]
			if s.Kind.IsCallable() && hasModifier(d.node, e.src, "@Test") {
				return true // swift-testing
			}
			if !isSwiftTestFile(p) {
				return false
			}
			// XCTest: test… methods of a class, and the XCTestCase classes
			if s.Kind == graph.KindMethod && strings.HasPrefix(s.Name, "test") {
				return true
			}
			if s.Kind == graph.KindClass {
				for _, b := range supertypeNames(d.node, e.src) {
					if b == "XCTestCase" {
						return true
					}
				}
			}
			return false
		},
		refineKind: func(k graph.SymbolKind, name, container string, d *rawDef) graph.SymbolKind {
			if k == graph.KindFunction && container != "" {
				return graph.KindMethod // a function in an extension
			}
			return k
		},
		skipName: set("self", "Self", "_"),
	})
}

func isSwiftTestFile(p string) bool {
	b := strings.TrimSuffix(path.Base(p), ".swift")
	return strings.HasSuffix(b, "Tests") || strings.HasSuffix(b, "Test") || strings.Contains("/"+p, "/Tests/")
}

// swiftImports: `import Foundation` imports a module; `import struct
// Foo.Bar` one declaration of it.
func swiftImports(n *sitter.Node, src []byte) []graph.Import {
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		if c.Type() != "identifier" {
			continue
		}
		full := strings.Join(strings.Fields(c.Content(src)), "")
		if kindKeyword(n, src) {
			mod, name := splitDotted(full)
			return []graph.Import{{Module: mod, Name: name}}
		}
		return []graph.Import{{Module: full}}
	}
	return nil
}

// kindKeyword reports `import struct|class|func|… Module.Name`.
func kindKeyword(n *sitter.Node, src []byte) bool {
	f := strings.Fields(n.Content(src))
	for i, w := range f {
		if w == "import" && i+2 < len(f)+1 && i+1 < len(f) {
			switch f[i+1] {
			case "struct", "class", "enum", "protocol", "typealias", "func", "let", "var":
				return true
			}
		}
	}
	return false
}
