package resolve

import "github.com/cairn-dev/cairn/graph"

// Kotlin, Scala and Swift follow Java's rules: the enclosing object is
// this (self in Swift), a bare name may be a member of the enclosing type
// (or of the type an extension extends), and a package (Swift: a module,
// the target directory) is a namespace every file of it shares. Kotlin and
// Scala imports name a package and a member as Java's do; Swift imports
// whole modules, whose top-level names are then used bare, so a bare name
// found nowhere else is matched by spelling (name-only), as in Rust.
func init() {
	rules[graph.LangKotlin] = &langRules{selfWords: []string{"this"}, superWord: "super", implicitMembers: true,
		ctorNames: []string{"constructor"}}
	rules[graph.LangScala] = &langRules{selfWords: []string{"this"}, superWord: "super", implicitMembers: true}
	rules[graph.LangSwift] = &langRules{selfWords: []string{"self", "Self"}, superWord: "super", implicitMembers: true,
		ctorNames: []string{"init"}, bareNamesGlobal: true}
}

// javaLike reports the languages whose imports and packages work as
// Java's: `import a.b.C` is member C of package a.b.
func javaLike(l graph.Language) bool {
	return l == graph.LangJava || l == graph.LangKotlin || l == graph.LangScala
}
