package treesitter

import (
	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/bash"
	"github.com/smacker/go-tree-sitter/cue"
	"github.com/smacker/go-tree-sitter/dockerfile"
	"github.com/smacker/go-tree-sitter/elixir"
	"github.com/smacker/go-tree-sitter/elm"
	"github.com/smacker/go-tree-sitter/groovy"
	"github.com/smacker/go-tree-sitter/hcl"
	"github.com/smacker/go-tree-sitter/lua"
	"github.com/smacker/go-tree-sitter/ocaml"
	"github.com/smacker/go-tree-sitter/protobuf"

	"github.com/cairn-dev/cairn/graph"
)

// The tags tier (graph.TierTags): for every other grammar the binding
// ships that parses code, a small query (queries/tags/<lang>.scm) of
// definitions — functions, classes and modules, resources — and of
// identifiers as references with no resolution behind them (the resolver
// has no rules for these languages, so every use is name-only). Each file
// is its own namespace. SQL, YAML and TOML have grammars too but stay
// text: they are configuration and data, and context packs treat them so.
func init() {
	for _, t := range []struct {
		lang graph.Language
		ts   func() *sitter.Language
		file string
	}{
		{graph.LangShell, bash.GetLanguage, "bash"},
		{graph.LangLua, lua.GetLanguage, "lua"},
		{graph.LangElixir, elixir.GetLanguage, "elixir"},
		{graph.LangOCaml, ocaml.GetLanguage, "ocaml"},
		{graph.LangGroovy, groovy.GetLanguage, "groovy"},
		{graph.LangHCL, hcl.GetLanguage, "hcl"},
		{graph.LangProto, protobuf.GetLanguage, "protobuf"},
		{graph.LangDockerfile, dockerfile.GetLanguage, "dockerfile"},
		{graph.LangCUE, cue.GetLanguage, "cue"},
		{graph.LangElm, elm.GetLanguage, "elm"},
	} {
		register(&langSpec{
			lang: t.lang, tsLang: t.ts, file: "tags/" + t.file,
			namespace: fileNamespace,
			exported:  func(string, *graph.Symbol, *rawDef, *extraction) bool { return true },
		})
	}
}
