// Package treesitter extracts facts from source files with tree-sitter
// grammars (github.com/smacker/go-tree-sitter): definitions, occurrences with
// roles, imports, local type bindings and chunks.
//
// # Queries
//
// Each language has one query file, embedded from queries/<lang>.scm. Its
// captures follow a small naming scheme that the generic extractor
// interprets, so adding a construct is a query change, not a code change:
//
//	@def.<kind>      a definition node (kind: function, method, class, struct,
//	                 interface, trait, enum, enum_member, type, field, property,
//	                 variable, constant, macro, module, namespace, constructor,
//	                 union); the same match carries
//	@name            the defining identifier,
//	@receiver        an explicit container (a Go receiver type, a C++ Foo::),
//	@type            the declared type, or a function's result type,
//	@extends         a supertype / embedded type (repeatable),
//	@implements      an implemented interface (repeatable).
//	@ref.<role>      an identifier used with a role: read, write, rw (read and
//	                 write: x += 1, x.f++), call, type, import, argument (a
//	                 keyword argument: @qual is the callee), none; the same
//	                 match may carry @qual, the expression it was selected from.
//	@import          an import, with @import.module, @import.name, @import.alias.
//	@binding         a local name with a type, with @binding.name and either
//	                 @binding.type (declared) or @binding.ctor (the callee or
//	                 composite-literal type its value comes from).
//	@package         the file's package or module name.
//	@scope           a container that is not a symbol itself (a Rust impl
//	                 block), with @name giving the type its members belong to.
//
// When several specific captures name the same identifier their roles are
// united (`new Foo()` is call+type, `x.f += 1` read+write); the generic
// "every identifier is a read" patterns at the end of each file only apply
// to identifiers no specific pattern claimed. @ref.none claims an identifier
// without a role (import paths, package clauses), so it is not a read.
// Predicates (#eq?, #match? and their negations) are evaluated by the
// extractor with regular expressions compiled once per query.
//
// # Languages
//
// Go, Python, TypeScript, TSX, JavaScript, Java, Rust, C, C++, Ruby, PHP
// and C# (langspec.go, langspec_more.go). A few rules go beyond the query:
// Ruby's @x, :x and PHP's $x are named without their sigil (langSpec.ident)
// and Ruby's @x gets the qualifier self (implicitQual), so @balance,
// self.balance and attr_accessor :balance are one attribute; Ruby keeps one
// symbol per ID in a file (attr_accessor :x and @x = … in initialize);
// Ruby symbols carry no file namespace (classes are open and global), PHP
// and C# symbols the file's namespace (C#: its first one); RSpec and
// declarative tests (it "…" do) are test functions named by their string.
//
// # Tiers and the Kotlin, Scala and Swift specs
//
// First-class languages (graph.TierFirstClass) have a full query and a
// langSpec: the twelve above, and
// Kotlin, Scala and Swift. The last three register their specs from files
// of their own (langspec_jvm.go, langspec_swift.go). Kotlin's grammar has
// no field names, so its bodies are found by node type (langSpec.bodyTypes);
// Kotlin, Scala and Swift imports are split into module and name by code
// (langSpec.splitImport), as their grammars give one dotted identifier. A
// Swift extension is an @scope: its members get the extended type's symbol
// as container; Swift's namespace is the module (the target directory
// under Sources/ or Tests/, else the file's directory), so an extension in
// another file of the module still names the same type.
//
// The tags tier (graph.TierTags, langspec_tags.go, queries/tags/*.scm)
// covers the other code grammars the binding ships — shell, Lua, Elixir,
// OCaml, Groovy, HCL, protobuf, Dockerfile, CUE and Elm — with definitions
// and identifiers as references; the resolver has no rules for them, so
// every use stays name-only. SQL, YAML and TOML are configuration and stay
// text (graph.TierText), as does every language without a grammar.
//
// # What the code adds
//
// Nesting (a symbol's container and parent, an occurrence's enclosing
// definition) is computed from byte ranges after the query has run, with one
// sorted sweep. Signatures are the text of a definition before its body; doc
// comments are the comments directly above a definition, or a Python
// docstring. Symbol IDs follow graph.NewSymbolID: a namespace descriptor for
// the package, module or file, then the containers, then the name.
//
// # Chunks
//
// Every top-level function, method and type gets a chunk (its doc comment
// included); nested functions stay inside their parent's chunk. A type's chunk
// text leaves out its methods' chunks, and the file chunk holds what no other
// chunk covers (package clause, imports, top-level statements), so no text is
// indexed twice. Text-only files are cut into windows of at most
// TextWindowLines lines.
//
// # Files
//
// extract.go runs a language's query over a tree and builds the file's
// facts (definitions, references, bindings, imports, enclosing symbols);
// query.go compiles a query and classifies its captures; doc_comments.go
// cuts signatures and doc comments; chunks.go cuts the chunks and the
// text windows; langspec.go and langspec_more.go hold each language's
// grammar and rules.
//
// # Failure
//
// Parsing has a per-file time limit (Options.Timeout); a file that exceeds it
// gets ParseTimeout and no facts. A file with syntax errors is extracted as far
// as tree-sitter recovers and marked ParsePartial. A panic in extraction is
// recovered, counted as ParseFailed, and costs that file only. Every parser,
// tree, query and cursor is closed explicitly.
package treesitter
