package treesitter

import (
	"fmt"
	"regexp"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/cairn-dev/cairn/graph"
)

// capture classes
type capClass uint8

const (
	capIgnore capClass = iota
	capDef
	capName
	capReceiver
	capType
	capExtends
	capImplements
	capRef
	capQual
	capImport
	capImportModule
	capImportName
	capImportAlias
	capBinding
	capBindingName
	capBindingType
	capBindingCtor
	capPackage
	capScope
	capComment
)

type capInfo struct {
	class capClass
	kind  graph.SymbolKind // capDef
	role  graph.Role       // capRef
	weak  bool             // capRef: generic read
}

type compiledQuery struct {
	q    *sitter.Query
	caps []capInfo
	// preds[pattern] are the pattern's text predicates, parsed once (the
	// binding's FilterPredicates re-parses them and recompiles regexps on
	// every match).
	preds [][]predicate
}

type predicate struct {
	op       string // eq?, not-eq?, match?, not-match?
	capture  uint32
	other    int32 // capture compared against, or -1
	value    string
	re       *regexp.Regexp
	negative bool
}

var roleOfCapture = map[string]graph.Role{
	"call":     graph.RoleCall,
	"write":    graph.RoleWrite,
	"rw":       graph.RoleRead | graph.RoleWrite,
	"argument": graph.RoleArgument,
	"type":     graph.RoleTypeUse,
	"import":   graph.RoleImport,
	"read":     graph.RoleRead,
}

func compileQuery(lang *sitter.Language, src string) (*compiledQuery, error) {
	q, err := sitter.NewQuery([]byte(src), lang)
	if err != nil {
		return nil, err
	}
	cq := &compiledQuery{q: q, caps: make([]capInfo, q.CaptureCount())}
	for i := range cq.caps {
		name := q.CaptureNameForId(uint32(i))
		var ci capInfo
		switch {
		case strings.HasPrefix(name, "def."):
			k, err := graph.ParseSymbolKind(strings.TrimPrefix(name, "def."))
			if err != nil {
				return nil, fmt.Errorf("capture @%s: %w", name, err)
			}
			ci = capInfo{class: capDef, kind: k}
		case strings.HasPrefix(name, "ref."):
			r, ok := roleOfCapture[strings.TrimPrefix(name, "ref.")]
			if !ok && name != "ref.none" {
				return nil, fmt.Errorf("capture @%s: unknown role", name)
			}
			ci = capInfo{class: capRef, role: r, weak: name == "ref.read"}
		default:
			c, ok := map[string]capClass{
				"name": capName, "receiver": capReceiver, "type": capType, "extends": capExtends,
				"implements": capImplements, "qual": capQual, "import": capImport,
				"import.module": capImportModule, "import.name": capImportName, "import.alias": capImportAlias,
				"binding": capBinding, "binding.name": capBindingName, "binding.type": capBindingType,
				"binding.ctor": capBindingCtor, "package": capPackage, "scope": capScope,
				"comment": capComment,
			}[name]
			if !ok && !strings.HasPrefix(name, "_") {
				return nil, fmt.Errorf("unknown capture @%s", name)
			}
			ci = capInfo{class: c}
		}
		cq.caps[i] = ci
	}
	cq.preds = make([][]predicate, q.PatternCount())
	for pi := range cq.preds {
		for _, steps := range q.PredicatesForPattern(uint32(pi)) {
			if len(steps) < 3 || steps[0].Type != sitter.QueryPredicateStepTypeString || steps[1].Type != sitter.QueryPredicateStepTypeCapture {
				return nil, fmt.Errorf("pattern %d: unsupported predicate", pi)
			}
			pr := predicate{op: q.StringValueForId(steps[0].ValueId), capture: steps[1].ValueId, other: -1}
			if steps[2].Type == sitter.QueryPredicateStepTypeCapture {
				pr.other = int32(steps[2].ValueId)
			} else {
				pr.value = q.StringValueForId(steps[2].ValueId)
			}
			switch pr.op {
			case "eq?", "not-eq?":
				pr.negative = pr.op == "not-eq?"
			case "match?", "not-match?":
				pr.negative = pr.op == "not-match?"
				re, err := regexp.Compile(pr.value)
				if err != nil {
					return nil, fmt.Errorf("pattern %d: %w", pi, err)
				}
				pr.re = re
			default:
				return nil, fmt.Errorf("pattern %d: unsupported predicate #%s", pi, pr.op)
			}
			cq.preds[pi] = append(cq.preds[pi], pr)
		}
	}
	return cq, nil
}

// accept evaluates the pattern's predicates on a match. Every capture with
// the predicate's name must satisfy it.
func (cq *compiledQuery) accept(m *sitter.QueryMatch, src []byte) bool {
	preds := cq.preds[m.PatternIndex]
	for i := range preds {
		pr := &preds[i]
		var other []byte
		if pr.other >= 0 {
			found := false
			for _, c := range m.Captures {
				if c.Index == uint32(pr.other) {
					other, found = src[c.Node.StartByte():c.Node.EndByte()], true
					break
				}
			}
			if !found {
				continue
			}
		}
		for _, c := range m.Captures {
			if c.Index != pr.capture {
				continue
			}
			text := src[c.Node.StartByte():c.Node.EndByte()]
			var ok bool
			switch {
			case pr.re != nil:
				ok = pr.re.Match(text)
			case pr.other >= 0:
				ok = string(text) == string(other)
			default:
				ok = string(text) == pr.value
			}
			if ok == pr.negative {
				return false
			}
		}
	}
	return true
}
