package tools

import (
	"context"
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// grammar is the tree-sitter grammar that checks a file's syntax, nil for
// a file none here reads (it is kept unchecked).
func grammar(p string) *sitter.Language {
	switch ext := strings.ToLower(path.Ext(p)); ext {
	case ".go":
		return golang.GetLanguage()
	case ".py":
		return python.GetLanguage()
	case ".ts", ".mts", ".cts":
		return typescript.GetLanguage()
	case ".tsx":
		return tsx.GetLanguage()
	case ".js", ".jsx", ".mjs", ".cjs":
		return javascript.GetLanguage()
	}
	return nil
}

// syntaxProblem is one ERROR or MISSING node of a parse.
type syntaxProblem struct {
	Line    int    `json:"line"`
	Missing string `json:"missing,omitempty"` // the token a MISSING node stands for
}

// maxProblems bounds the problems one parse reports.
const maxProblems = 10

// syntaxProblems parses src and lists its ERROR and MISSING nodes (at most
// maxProblems, and the total); checked is false when no grammar reads the
// file.
func syntaxProblems(ctx context.Context, p string, src []byte) (probs []syntaxProblem, total int, checked bool, err error) {
	lang := grammar(p)
	if lang == nil {
		return nil, 0, false, nil
	}
	parser := sitter.NewParser()
	defer parser.Close()
	parser.SetLanguage(lang)
	tree, err := parser.ParseCtx(ctx, nil, src)
	if err != nil {
		return nil, 0, true, err
	}
	defer tree.Close()
	stack := []*sitter.Node{tree.RootNode()}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == nil || !n.HasError() && !n.IsMissing() {
			continue
		}
		if n.IsError() || n.IsMissing() {
			total++
			if len(probs) < maxProblems {
				sp := syntaxProblem{Line: int(n.StartPoint().Row) + 1}
				if n.IsMissing() {
					sp.Missing = n.Type()
				}
				probs = append(probs, sp)
			}
			if n.IsMissing() {
				continue
			}
		}
		for i := int(n.ChildCount()) - 1; i >= 0; i-- {
			stack = append(stack, n.Child(i))
		}
	}
	return probs, total, true, nil
}
