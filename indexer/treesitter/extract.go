package treesitter

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/redact"
)

// Options configure an Extractor.
type Options struct {
	// Timeout bounds parsing plus query execution per file; 0 means
	// DefaultTimeout.
	Timeout time.Duration
}

// DefaultTimeout is the per-file parse limit.
const DefaultTimeout = 10 * time.Second

// TextWindowLines is the largest chunk of a text-only file.
const TextWindowLines = 150

// ErrTimeout is returned (wrapped) when a file exceeds the time limit.
var ErrTimeout = errors.New("parse time limit exceeded")

// Extractor turns source files into facts. It owns one parser per language
// and is not safe for concurrent use: give each worker its own.
type Extractor struct {
	opts    Options
	parsers map[graph.Language]*sitter.Parser
}

// New returns an Extractor.
func New(opts Options) *Extractor {
	opts.Timeout = cmp.Or(opts.Timeout, DefaultTimeout)
	return &Extractor{opts: opts, parsers: map[graph.Language]*sitter.Parser{}}
}

// Close frees the parsers.
func (x *Extractor) Close() {
	for _, p := range x.parsers {
		p.Close()
	}
	x.parsers = nil
}

// Supported reports whether lang has a grammar.
func Supported(lang graph.Language) bool { return specFor(lang) != nil }

// Extract parses src as lang and returns its facts. The returned FileFacts is
// always non-nil: on failure it carries the file with a non-OK status and no
// symbols, plus chunks so the text stays searchable. The error is non-nil only
// for failures worth reporting (time limit, panic); syntax errors are not
// errors, they make the status ParsePartial.
func (x *Extractor) Extract(ctx context.Context, p string, lang graph.Language, src []byte) (ff *graph.FileFacts, err error) {
	ff = &graph.FileFacts{File: graph.File{Path: p, Lang: lang, Size: int64(len(src)), Lines: countLines(src)}}
	spec := specFor(lang)
	if spec == nil {
		ff.File.Status = graph.ParseTextOnly
		ff.Chunks = textChunks(p, src)
		return ff, nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("extract %s: panic: %v\n%s", p, r, debug.Stack())
			*ff = graph.FileFacts{File: ff.File, Chunks: textChunks(p, src)}
			ff.File.Status = graph.ParseFailed
			ff.File.Error = fmt.Sprintf("panic: %v", r)
		}
	}()
	q, err := spec.query()
	if err != nil {
		// A broken embedded query is a bug in cairn; it costs the files of
		// that language their symbols, not the run.
		ff.File.Status = graph.ParseFailed
		ff.File.Error = err.Error()
		ff.Chunks = textChunks(p, src)
		return ff, err
	}
	parser := x.parsers[lang]
	if parser == nil {
		parser = sitter.NewParser()
		parser.SetLanguage(spec.tsLang())
		x.parsers[lang] = parser
	}
	deadline := time.Now().Add(x.opts.Timeout)
	parser.SetOperationLimit(int(x.opts.Timeout / time.Microsecond))
	tree, perr := parser.ParseCtx(ctx, nil, src)
	if perr != nil {
		parser.Reset()
		ff.Chunks = textChunks(p, src)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		ff.File.Status = graph.ParseTimeout
		ff.File.Error = fmt.Sprintf("parsing took longer than %s", x.opts.Timeout)
		return ff, fmt.Errorf("parse %s: %w", p, ErrTimeout)
	}
	defer tree.Close()
	root := tree.RootNode()
	e := &extraction{spec: spec, src: src, path: p, lang: lang, deadline: deadline}
	if err := e.run(q, root); err != nil {
		ff.Chunks = textChunks(p, src)
		ff.File.Status = graph.ParseTimeout
		ff.File.Error = err.Error()
		return ff, fmt.Errorf("extract %s: %w", p, err)
	}
	e.build(ff)
	if root.HasError() {
		ff.File.Status = graph.ParsePartial
		ff.File.Error = firstError(root)
	}
	return ff, nil
}

func countLines(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n := bytes.Count(b, []byte{'\n'})
	if b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// firstError describes the first syntax error in the tree.
func firstError(root *sitter.Node) string {
	var find func(n *sitter.Node) *sitter.Node
	find = func(n *sitter.Node) *sitter.Node {
		if n.IsError() || n.IsMissing() {
			return n
		}
		for i := 0; i < int(n.ChildCount()); i++ {
			c := n.Child(i)
			if c.HasError() {
				if r := find(c); r != nil {
					return r
				}
			}
		}
		return nil
	}
	if n := find(root); n != nil {
		kind := "syntax error"
		if n.IsMissing() {
			kind = "missing " + n.Type()
		}
		return fmt.Sprintf("%s at line %d", kind, n.StartPoint().Row+1)
	}
	return "syntax error"
}

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

// raw records collected from query matches

type span struct{ start, end uint32 }

type rawDef struct {
	node      *sitter.Node
	name      *sitter.Node
	kind      graph.SymbolKind
	receiver  string
	typ       string
	extends   []string
	implement []string
	pattern   uint16
	scopeOnly bool // @scope: a container that is not a symbol
	hoisted   bool // a field defined inside a method: never an enclosing scope
	r         graph.Range
	outer     span // range including wrappers (decorators, export)
}

type rawRef struct {
	node *sitter.Node
	role graph.Role
	weak graph.Role // roles that came only from generic captures
	// claimed: a specific pattern owns the node (an @ref.none capture on an
	// import path or package name), so generic reads do not apply.
	claimed bool
	qual    string
}

type rawBinding struct {
	name, typ string
	node      *sitter.Node
}

type extraction struct {
	spec     *langSpec
	src      []byte
	path     string
	lang     graph.Language
	deadline time.Time

	defs     []*rawDef
	refs     map[uint32]*rawRef // by identifier start byte
	imports  []graph.Import
	bindings []rawBinding
	bases    []baseRef
	comments []commentSpan
	symDefs  []*rawDef // parallel to FileFacts.Symbols
	pkg      string
	// bindingNames are identifiers that declare a local (parameters,
	// variables): not reads.
	bindingNames map[uint32]bool
}

type commentSpan struct {
	start, end         uint32
	startLine, endLine uint32 // 0-based rows
}

type baseRef struct {
	at      uint32
	text    string
	extends bool
}

func (e *extraction) run(cq *compiledQuery, root *sitter.Node) error {
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	qc.Exec(cq.q, root)
	e.refs = map[uint32]*rawRef{}
	e.bindingNames = map[uint32]bool{}
	defer func() {
		slices.SortFunc(e.comments, func(a, b commentSpan) int { return cmp.Compare(a.start, b.start) })
	}()
	defByKey := map[[2]uint32]*rawDef{}
	n := 0
	for {
		m, ok := qc.NextMatch()
		if !ok {
			break
		}
		if n++; n&1023 == 0 && time.Now().After(e.deadline) {
			return ErrTimeout
		}
		if len(m.Captures) == 0 {
			continue
		}
		if !cq.accept(m, e.src) {
			continue
		}
		e.match(cq, m, defByKey)
	}
	return nil
}

// name is the identifier n spells, without the sigils a language's
// spec strips (langSpec.ident).
func (e *extraction) name(n *sitter.Node) string {
	t := e.text(n)
	if e.spec.ident != nil {
		t = e.spec.ident(t)
	}
	return t
}

func (e *extraction) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return string(e.src[n.StartByte():n.EndByte()])
}

// match interprets one query match.
func (e *extraction) match(cq *compiledQuery, m *sitter.QueryMatch, defByKey map[[2]uint32]*rawDef) {
	var (
		def                 *rawDef
		name, qual          *sitter.Node
		refs                []sitter.QueryCapture
		isImport, isBinding bool
		im                  graph.Import
		bind                rawBinding
		scope               *sitter.Node
		extends, implements []string
		receiver, typ       string
		importNode          *sitter.Node
	)
	for _, c := range m.Captures {
		ci := cq.caps[c.Index]
		switch ci.class {
		case capDef:
			def = &rawDef{node: c.Node, kind: ci.kind, pattern: m.PatternIndex}
		case capName:
			name = c.Node
		case capReceiver:
			receiver = e.text(c.Node)
		case capType:
			typ = e.text(c.Node)
		case capExtends:
			extends = append(extends, oneLine(e.text(c.Node)))
			e.bases = append(e.bases, baseRef{at: c.Node.StartByte(), text: e.text(c.Node), extends: true})
		case capImplements:
			implements = append(implements, oneLine(e.text(c.Node)))
			e.bases = append(e.bases, baseRef{at: c.Node.StartByte(), text: e.text(c.Node)})
		case capRef:
			refs = append(refs, c)
		case capQual:
			qual = c.Node
		case capImport:
			isImport = true
			importNode = c.Node
		case capImportModule:
			im.Module = e.spec.unquote(e.text(c.Node))
		case capImportName:
			im.Name = e.text(c.Node)
		case capImportAlias:
			im.Alias = e.text(c.Node)
		case capBinding:
			isBinding = true
			bind.node = c.Node
		case capBindingName:
			bind.name = e.text(c.Node)
			e.bindingNames[c.Node.StartByte()] = true
		case capBindingType:
			bind.typ = e.text(c.Node)
		case capBindingCtor:
			bind.typ = e.text(c.Node) + "()"
		case capPackage:
			if e.pkg == "" {
				e.pkg = e.text(c.Node)
			}
		case capScope:
			scope = c.Node
		case capComment:
			cs := commentSpan{start: c.Node.StartByte(), end: c.Node.EndByte(),
				startLine: c.Node.StartPoint().Row, endLine: c.Node.EndPoint().Row}
			// Some grammars (Rust's ///) include the newline in the comment.
			if cs.end > cs.start && e.src[cs.end-1] == '\n' {
				cs.end--
				if cs.endLine > cs.startLine {
					cs.endLine--
				}
			}
			e.comments = append(e.comments, cs)
		}
	}
	if scope != nil && name != nil {
		def = &rawDef{node: scope, kind: graph.KindUnknown, scopeOnly: true, pattern: m.PatternIndex}
	}
	if def != nil && name != nil {
		def.name = name
		def.receiver = receiver
		def.typ = typ
		def.extends = extends
		def.implement = implements
		key := [2]uint32{name.StartByte(), def.node.StartByte()}
		if old, ok := defByKey[key]; ok {
			// Several patterns matched the same definition: the earlier
			// pattern in the query file decides its kind, later ones fill gaps.
			if def.pattern < old.pattern {
				old.kind, old.node, old.pattern, old.scopeOnly = def.kind, def.node, def.pattern, def.scopeOnly
				old.typ = def.typ
			} else if def.kind != old.kind {
				return
			}
			old.receiver = cmp.Or(old.receiver, def.receiver)
			old.typ = cmp.Or(old.typ, def.typ)
			old.extends = append(old.extends, def.extends...)
			old.implement = append(old.implement, def.implement...)
		} else {
			defByKey[key] = def
			e.defs = append(e.defs, def)
		}
	}
	for _, c := range refs {
		ci := cq.caps[c.Index]
		at := c.Node.StartByte()
		r := e.refs[at]
		if r == nil {
			r = &rawRef{node: c.Node}
			e.refs[at] = r
		}
		if ci.weak {
			r.weak |= ci.role
		} else {
			r.role |= ci.role
			r.claimed = true
		}
		if qual != nil && r.qual == "" {
			r.qual = shorten(e.text(qual))
		}
		if r.qual == "" && e.spec.implicitQual != nil {
			r.qual = e.spec.implicitQual[c.Node.Type()]
		}
	}
	if isImport && e.spec.splitImport != nil {
		for _, im := range e.spec.splitImport(importNode, e.src) {
			im.Range = nodeRange(importNode)
			e.imports = append(e.imports, im)
		}
	} else if isImport && (im.Module != "" || im.Name != "") {
		if e.spec.fixImport != nil {
			e.spec.fixImport(&im, importNode, e.src)
		}
		im.Range = nodeRange(importNode)
		e.imports = append(e.imports, im)
	}
	if isBinding && bind.name != "" {
		e.bindings = append(e.bindings, bind)
	}
}

// shorten collapses whitespace and caps a qualifier expression.
func shorten(s string) string {
	if strings.ContainsAny(s, "\n\t\r") {
		s = strings.Join(strings.Fields(s), " ")
	}
	if len(s) > 80 {
		s = s[:80]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}

func nodeRange(n *sitter.Node) graph.Range {
	sp, ep := n.StartPoint(), n.EndPoint()
	return graph.Range{
		StartByte: n.StartByte(), EndByte: n.EndByte(),
		StartLine: sp.Row + 1, StartCol: sp.Column,
		EndLine: ep.Row + 1, EndCol: ep.Column,
	}
}

// build turns the raw records into FileFacts.
func (e *extraction) build(ff *graph.FileFacts) {
	spec := e.spec
	pkg := e.pkg
	if spec.packageOf != nil {
		pkg = spec.packageOf(e.path, e.pkg)
	}
	ff.File.Package = pkg
	ns := spec.namespace(e.path, pkg)

	// Definitions: outer ranges, then a sweep for nesting.
	for _, d := range e.defs {
		d.r = nodeRange(d.node)
		outer := d.node
		for outer.Parent() != nil && spec.wrappers[outer.Parent().Type()] {
			outer = outer.Parent()
		}
		d.outer = span{outer.StartByte(), outer.EndByte()}
		if outer != d.node {
			d.r = nodeRange(outer)
		}
		// Attributes and decorators that are siblings (Rust #[derive],
		// TypeScript class-member decorators) belong to the definition.
		if len(spec.leadingSiblings) > 0 {
			for prev := outer.PrevNamedSibling(); prev != nil && spec.leadingSiblings[prev.Type()]; prev = prev.PrevNamedSibling() {
				pr := nodeRange(prev)
				d.outer.start = pr.StartByte
				d.r.StartByte, d.r.StartLine, d.r.StartCol = pr.StartByte, pr.StartLine, pr.StartCol
			}
		}
	}
	slices.SortStableFunc(e.defs, func(a, b *rawDef) int {
		return cmp.Or(cmp.Compare(a.outer.start, b.outer.start), cmp.Compare(b.outer.end, a.outer.end),
			cmp.Compare(a.name.StartByte(), b.name.StartByte()))
	})
	parents := make([]int, len(e.defs))
	var stack []int
	for i, d := range e.defs {
		for len(stack) > 0 && e.defs[stack[len(stack)-1]].outer.end <= d.outer.start {
			stack = stack[:len(stack)-1]
		}
		parents[i] = -1
		// A definition's parent must strictly contain it; a symbol never
		// contains a sibling with the same outer range (const A, B = …).
		for j := len(stack) - 1; j >= 0; j-- {
			pd := e.defs[stack[j]]
			if pd.outer != d.outer || pd.scopeOnly {
				parents[i] = stack[j]
				break
			}
		}
		stack = append(stack, i)
	}

	// Symbols (scopes are not symbols; map def index → symbol index).
	symIdx := make([]int32, len(e.defs))
	descs := make([][]graph.Descriptor, len(e.defs))
	containers := make([]string, len(e.defs))
	seenID := map[graph.SymbolID]bool{}
	for i, d := range e.defs {
		symIdx[i] = -1
		name := e.name(d.name)
		if d.kind == graph.KindField || d.kind == graph.KindProperty {
			// Fields assigned inside a method (self.x = … in __init__,
			// constructor parameter properties) belong to the type.
			for p := parents[i]; p >= 0 && e.defs[p].kind.IsCallable(); p = parents[p] {
				parents[i] = parents[p]
				d.hoisted = true
			}
		}
		var chain []graph.Descriptor
		var container string
		if p := parents[i]; p >= 0 {
			chain = slices.Clone(descs[p])
			container = containers[p]
			if e.defs[p].scopeOnly {
				container = strings.TrimPrefix(container+"."+name, ".")
			} else {
				container = joinContainer(container, e.text(e.defs[p].name))
			}
		} else {
			chain = slices.Clone(ns)
		}
		// The descriptors of the nearest enclosing namespace (or the file's).
		nsChain := slices.Clone(ns)
		for p := parents[i]; p >= 0; p = parents[p] {
			if k := e.defs[p].kind; k == graph.KindNamespace || k == graph.KindModule || k == graph.KindPackage {
				nsChain = slices.Clone(descs[p])
				break
			}
		}
		if d.scopeOnly {
			// impl blocks: members belong to the named type.
			tn := lastIdent(name)
			descs[i] = append(nsChain, graph.Descriptor{Name: tn, Suffix: graph.SuffixType})
			containers[i] = tn
			continue
		}
		if d.receiver != "" {
			rt := lastIdent(d.receiver)
			chain = append(nsChain, graph.Descriptor{Name: rt, Suffix: graph.SuffixType})
			container = rt
		}
		if p := parents[i]; p >= 0 && e.defs[p].scopeOnly {
			container = containers[p]
		}
		kind := d.kind
		if spec.refineKind != nil {
			kind = spec.refineKind(kind, name, container, d)
		}
		desc := graph.Descriptor{Name: name, Suffix: suffixFor(kind)}
		descs[i] = append(chain, desc)
		containers[i] = container
		sym := graph.Symbol{
			ID:         graph.NewSymbolID(e.lang, descs[i]...),
			Name:       name,
			Kind:       kind,
			Lang:       e.lang,
			Path:       e.path,
			Range:      d.r,
			NameRange:  nodeRange(d.name),
			Container:  container,
			Package:    pkg,
			Signature:  e.signature(d),
			Doc:        e.doc(d),
			Type:       d.typ,
			Extends:    d.extends,
			Implements: d.implement,
			Parent:     -1,
		}
		if p := parents[i]; p >= 0 {
			// nearest ancestor that is a symbol
			for q := p; q >= 0; q = parents[q] {
				if symIdx[q] >= 0 {
					sym.Parent = symIdx[q]
					break
				}
			}
		}
		if spec.uniqueIDs {
			// one symbol per ID: Ruby's attr_accessor :x and the @x
			// assigned in initialize are one attribute
			if seenID[sym.ID] {
				continue
			}
			seenID[sym.ID] = true
		}
		e.symDefs = append(e.symDefs, d)
		sym.Exported = spec.exported(name, &sym, d, e)
		sym.IsTest = spec.isTest != nil && spec.isTest(e.path, &sym, e)
		symIdx[i] = int32(len(ff.Symbols))
		ff.Symbols = append(ff.Symbols, sym)
	}

	// Supertypes captured outside a definition match belong to the innermost
	// type definition around them; those of an impl block to its type.
	e.attachBases(ff, symIdx)
	for _, d := range e.defs {
		if !d.scopeOnly || len(d.implement)+len(d.extends) == 0 {
			continue
		}
		tn := lastIdent(e.text(d.name))
		for i := range ff.Symbols {
			s := &ff.Symbols[i]
			if s.Name == tn && s.Kind.IsType() {
				for _, x := range d.implement {
					if !slices.Contains(s.Implements, x) {
						s.Implements = append(s.Implements, x)
					}
				}
				for _, x := range d.extends {
					if !slices.Contains(s.Extends, x) {
						s.Extends = append(s.Extends, x)
					}
				}
			}
		}
	}

	// Occurrences: definitions first, then references, sorted by position.
	defAt := map[uint32]int32{}
	for i, d := range e.defs {
		if symIdx[i] >= 0 {
			defAt[d.name.StartByte()] = symIdx[i]
		}
	}
	for i := range ff.Symbols {
		s := &ff.Symbols[i]
		ff.Occurrences = append(ff.Occurrences, graph.Occurrence{
			Name: s.Name, Range: s.NameRange, Role: graph.RoleDefinition, Enclosing: s.Parent, Symbol: s.ID,
		})
	}
	for at, r := range e.refs {
		if _, isDef := defAt[at]; isDef {
			continue
		}
		role := r.role
		if !r.claimed {
			role = r.weak
		}
		if role == 0 || (r.role == 0 && e.bindingNames[at]) {
			continue
		}
		name := e.name(r.node)
		if name == "" || spec.skipName[name] {
			continue
		}
		ff.Occurrences = append(ff.Occurrences, graph.Occurrence{
			Name: name, Range: nodeRange(r.node), Role: role, Qualifier: r.qual, Enclosing: -1,
		})
	}
	slices.SortFunc(ff.Occurrences, func(a, b graph.Occurrence) int {
		return cmp.Or(cmp.Compare(a.Range.StartByte, b.Range.StartByte), cmp.Compare(a.Role, b.Role))
	})
	e.assignEnclosing(ff)

	ff.Imports = e.imports
	slices.SortStableFunc(ff.Imports, func(a, b graph.Import) int { return cmp.Compare(a.Range.StartByte, b.Range.StartByte) })
	for _, b := range e.bindings {
		r := nodeRange(b.node)
		ff.Bindings = append(ff.Bindings, graph.Binding{Name: b.name, Type: b.typ, Scope: enclosingSymbol(ff.Symbols, r.StartByte, r.EndByte), Range: r})
	}
	// One binding per name and declaration; a typed capture beats an
	// untyped one of the same declaration.
	slices.SortStableFunc(ff.Bindings, func(a, b graph.Binding) int {
		return cmp.Or(cmp.Compare(a.Range.StartByte, b.Range.StartByte), strings.Compare(a.Name, b.Name), -cmp.Compare(len(a.Type), len(b.Type)))
	})
	ff.Bindings = slices.CompactFunc(ff.Bindings, func(a, b graph.Binding) bool {
		return a.Range.StartByte == b.Range.StartByte && a.Name == b.Name
	})
	ff.Chunks = e.chunks(ff)
}

func joinContainer(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// lastIdent returns the last identifier of a type expression:
// "*pkg.Server[T]" → "Server".
func lastIdent(s string) string {
	if i := strings.IndexAny(s, "[<("); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimLeft(s, "*&")
	if i := strings.LastIndexAny(s, ".:"); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

func suffixFor(k graph.SymbolKind) graph.DescriptorSuffix {
	switch {
	case k.IsType():
		return graph.SuffixType
	case k == graph.KindFunction || k == graph.KindMethod || k == graph.KindConstructor:
		return graph.SuffixMethod
	case k == graph.KindModule || k == graph.KindNamespace || k == graph.KindPackage:
		return graph.SuffixNamespace
	case k == graph.KindMacro:
		return graph.SuffixMacro
	}
	return graph.SuffixTerm
}

func (e *extraction) attachBases(ff *graph.FileFacts, symIdx []int32) {
	for _, b := range e.bases {
		best := int32(-1)
		for i := range ff.Symbols {
			s := &ff.Symbols[i]
			if s.Kind.IsType() && s.Range.StartByte <= b.at && b.at < s.Range.EndByte {
				best = int32(i) // symbols are sorted by start: the last hit is innermost
			}
		}
		if best < 0 {
			continue
		}
		s := &ff.Symbols[best]
		list := &s.Implements
		if b.extends {
			list = &s.Extends
		}
		if !slices.Contains(*list, b.text) {
			*list = append(*list, b.text)
		}
	}
}

func (e *extraction) hasBody(i int) bool { return e.spec.body(e.symDefs[i].node) != nil }

// assignEnclosing sets each occurrence's innermost enclosing symbol with one
// sweep over both position-sorted lists.
func (e *extraction) assignEnclosing(ff *graph.FileFacts) {
	syms := ff.Symbols
	var stack []int32
	si := 0
	for i := range ff.Occurrences {
		o := &ff.Occurrences[i]
		if o.Role&graph.RoleDefinition != 0 {
			continue
		}
		at := o.Range.StartByte
		for si < len(syms) && syms[si].Range.StartByte <= at {
			for len(stack) > 0 && syms[stack[len(stack)-1]].Range.EndByte <= syms[si].Range.StartByte {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, int32(si))
			si++
		}
		for len(stack) > 0 && syms[stack[len(stack)-1]].Range.EndByte <= at {
			stack = stack[:len(stack)-1]
		}
		o.Enclosing = -1
		for j := len(stack) - 1; j >= 0; j-- {
			s := &syms[stack[j]]
			if e.symDefs[stack[j]].hoisted {
				continue
			}
			if s.Range.StartByte <= at && at < s.Range.EndByte {
				o.Enclosing = stack[j]
				break
			}
		}
	}
}

// enclosingSymbol returns the innermost symbol containing [start, end).
func enclosingSymbol(syms []graph.Symbol, start, end uint32) int32 {
	best := int32(-1)
	for i := range syms {
		s := &syms[i]
		if s.Range.StartByte <= start && end <= s.Range.EndByte && (s.Kind.IsCallable()) {
			best = int32(i)
		}
	}
	return best
}

// signature is the definition's text before its body, on one line.
func (e *extraction) signature(d *rawDef) string {
	start := d.outer.start
	end := d.node.EndByte()
	if body := e.spec.body(d.node); body != nil {
		end = body.StartByte()
	} else if d.kind == graph.KindField || d.kind == graph.KindVariable || d.kind == graph.KindConstant ||
		d.kind == graph.KindEnumMember || d.kind == graph.KindProperty {
		// one declaration line is enough, after any decorator lines
		for e.spec.stripDecorators && start < end {
			line := e.src[start:end]
			if i := bytes.IndexByte(line, '\n'); i >= 0 {
				line = line[:i]
			}
			t := bytes.TrimSpace(line)
			if !(bytes.HasPrefix(t, []byte("@")) || bytes.HasPrefix(t, []byte("#["))) || int(start)+len(line) >= int(end) {
				break
			}
			start += uint32(len(line)) + 1
		}
		if i := bytes.IndexByte(e.src[start:end], '\n'); i >= 0 {
			end = start + uint32(i)
		}
	}
	if end < start {
		end = start
	}
	s := string(e.src[start:end])
	if e.spec.firstLineSignature {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[:i]
		}
	}
	// Drop decorators and annotations on their own lines before the head.
	if e.spec.stripDecorators {
		lines := strings.Split(s, "\n")
		for len(lines) > 1 && (strings.HasPrefix(strings.TrimSpace(lines[0]), "@") || strings.HasPrefix(strings.TrimSpace(lines[0]), "#[")) {
			lines = lines[1:]
		}
		s = strings.Join(lines, "\n")
	}
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimRight(s, " {:=")
	// redacted before the cut, which could leave a secret too short to
	// be recognised
	s = redact.Line(e.path, s, true)
	if len(s) > 300 {
		s = s[:300]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// doc returns the definition's documentation: a docstring when the language
// has them, else the comments directly above it.
func (e *extraction) doc(d *rawDef) string {
	if e.spec.docstring != nil {
		if s := e.spec.docstring(d.node, e.src); s != "" {
			return s
		}
	}
	_, first, last := e.docSpan(d)
	var b strings.Builder
	for _, c := range e.comments[first:last] {
		b.Write(e.src[c.start:c.end])
		b.WriteByte('\n')
	}
	return cleanComment(b.String())
}

// docSpan returns the start byte of the comment block directly above the
// definition (d.outer.start if none) and the indexes [first, last) of its
// comments: comments that each start their own line and end on the line
// before the next, the last one on the line before the definition.
func (e *extraction) docSpan(d *rawDef) (start uint32, first, last int) {
	start = d.outer.start
	line := uint32(d.r.StartLine - 1)
	i, _ := slices.BinarySearchFunc(e.comments, start, func(c commentSpan, at uint32) int { return cmp.Compare(c.start, at) })
	last, first = i, i
	for i--; i >= 0; i-- {
		c := e.comments[i]
		if c.endLine+1 != line || !startsLine(e.src, c.start) {
			break
		}
		start, line, first = c.start, c.startLine, i
	}
	return start, first, last
}

func startsLine(src []byte, at uint32) bool {
	for i := int(at) - 1; i >= 0; i-- {
		switch src[i] {
		case '\n':
			return true
		case ' ', '\t', '\r':
			continue
		}
		return false
	}
	return true
}

var commentPrefixes = []string{"///", "//!", "//", "/**", "/*", "*/", "*", "#", "--"}

func cleanComment(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		t = strings.TrimSuffix(t, "*/")
		for _, p := range commentPrefixes {
			if strings.HasPrefix(t, p) {
				t = t[len(p):]
				break
			}
		}
		t = strings.TrimSpace(t)
		if t != "" || len(out) > 0 {
			out = append(out, t)
		}
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.ToValidUTF8(strings.Join(out, "\n"), "\uFFFD")
}

// chunks cuts the file into function, type and file chunks.
func (e *extraction) chunks(ff *graph.FileFacts) []graph.Chunk {
	type cut struct {
		start, end uint32
		c          graph.Chunk
	}
	var cuts []cut
	isFunc := func(k graph.SymbolKind) bool { return k.IsCallable() }
	for i := range ff.Symbols {
		s := &ff.Symbols[i]
		if !(isFunc(s.Kind) || s.Kind.IsType()) {
			continue
		}
		if isFunc(s.Kind) && !e.hasBody(i) {
			continue // interface methods, declarations
		}
		nested := false
		for p := s.Parent; p >= 0; p = ff.Symbols[p].Parent {
			if isFunc(ff.Symbols[p].Kind) {
				nested = true
				break
			}
		}
		if nested {
			continue
		}
		// include the doc comment above
		start, _, _ := e.docSpan(e.symDefs[i])
		kind := graph.ChunkFunction
		if s.Kind.IsType() {
			kind = graph.ChunkType
		}
		r := byteRange(e.src, start, s.Range.EndByte)
		cuts = append(cuts, cut{start: start, end: s.Range.EndByte, c: graph.Chunk{
			Path: e.path, Range: r, Kind: kind, Symbol: s.ID, Name: s.QualifiedName(),
		}})
	}
	slices.SortStableFunc(cuts, func(a, b cut) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end)) })

	// A chunk's text leaves out the chunks nested in it.
	textOf := func(start, end uint32, inner []cut) string {
		var b strings.Builder
		pos := start
		for _, c := range inner {
			if c.start < pos || c.end > end {
				continue
			}
			b.Write(e.src[pos:c.start])
			b.WriteByte('\n')
			pos = c.end
		}
		b.Write(e.src[pos:end])
		return b.String()
	}
	var out []graph.Chunk
	var top []cut
	for i, c := range cuts {
		var inner []cut
		for _, o := range cuts[i+1:] {
			if o.start >= c.end {
				break
			}
			if o.end <= c.end {
				inner = append(inner, o)
			}
		}
		inner = outermost(inner, func(x cut) (uint32, uint32) { return x.start, x.end })
		c.c.Text = textOf(c.start, c.end, inner)
		c.c.Hash = hashText(c.c.Text)
		out = append(out, c.c)
		if len(top) == 0 || c.start >= top[len(top)-1].end {
			top = append(top, c)
		}
	}
	fileText := textOf(0, uint32(len(e.src)), top)
	fc := graph.Chunk{Path: e.path, Range: byteRange(e.src, 0, uint32(len(e.src))), Kind: graph.ChunkFile, Name: path.Base(e.path), Text: fileText, Hash: hashText(fileText)}
	return append([]graph.Chunk{fc}, out...)
}

func outermost[T any](xs []T, r func(T) (uint32, uint32)) []T {
	var out []T
	var end uint32
	for i, x := range xs {
		s, en := r(x)
		if i > 0 && s < end {
			continue
		}
		out = append(out, x)
		end = en
	}
	return out
}

func hashText(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:12])
}

// byteRange builds a Range for [start, end) by counting lines.
func byteRange(src []byte, start, end uint32) graph.Range {
	sl := uint32(bytes.Count(src[:start], []byte{'\n'})) + 1
	el := sl + uint32(bytes.Count(src[start:end], []byte{'\n'}))
	sc := start - uint32(bytes.LastIndexByte(src[:start], '\n')+1)
	ec := end - uint32(bytes.LastIndexByte(src[:end], '\n')+1)
	return graph.Range{StartByte: start, EndByte: end, StartLine: sl, EndLine: el, StartCol: sc, EndCol: ec}
}

// textChunks cuts a text file into windows of TextWindowLines lines.
func textChunks(p string, src []byte) []graph.Chunk {
	var out []graph.Chunk
	start := 0
	for start < len(src) || (start == 0 && len(src) == 0) {
		end := start
		for n := 0; n < TextWindowLines && end < len(src); n++ {
			i := bytes.IndexByte(src[end:], '\n')
			if i < 0 {
				end = len(src)
				break
			}
			end += i + 1
		}
		r := byteRange(src, uint32(start), uint32(end))
		text := string(src[start:end])
		name := path.Base(p)
		if start > 0 || end < len(src) {
			name = fmt.Sprintf("%s#L%d-%d", name, r.StartLine, r.EndLine)
		}
		out = append(out, graph.Chunk{Path: p, Range: r, Kind: graph.ChunkFile, Name: name, Text: text, Hash: hashText(text)})
		if end == start {
			break
		}
		start = end
	}
	return out
}

// TextChunks exposes the text-file chunker to the indexer for files whose
// parse failed before extraction.
func TextChunks(p string, src []byte) []graph.Chunk { return textChunks(p, src) }

var queryOnce sync.Map // graph.Language → *queryResult

type queryResult struct {
	once sync.Once
	cq   *compiledQuery
	err  error
}

// oneLine writes a supertype as one line with single spaces: a heritage
// clause spread over lines (TypeScript's extends WithRequired<\n  T,\n>)
// is one supertype, whichever store keeps it.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") && !strings.Contains(s, "  ") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// FillChunkTexts gives chunks stored without their text (path, byte range,
// kind and hash, in the order Extract made them) their text again from the
// file's content src, as Extract cut it: a chunk's text leaves out the
// outermost chunks nested in it, the whole-file chunk leaves out every
// outermost chunk. It reports false, leaving texts unset, when any text's
// hash differs from the stored one (src is not the content indexed).
func FillChunkTexts(src []byte, chunks []graph.Chunk) bool {
	texts := make([]string, len(chunks))
	for i := range chunks {
		c := &chunks[i]
		start, end := c.Range.StartByte, c.Range.EndByte
		if start > end || int(end) > len(src) {
			return false
		}
		var inner []graph.Chunk
		for j := range chunks {
			o := &chunks[j]
			if j == i || o.Kind == graph.ChunkFile {
				continue
			}
			if c.Kind != graph.ChunkFile && j < i {
				continue // (a chunk holds only the ones cut after it)
			}
			if o.Range.StartByte >= start && o.Range.StartByte < end && o.Range.EndByte <= end {
				inner = append(inner, *o)
			}
		}
		inner = outermost(inner, func(x graph.Chunk) (uint32, uint32) { return x.Range.StartByte, x.Range.EndByte })
		var b strings.Builder
		pos := start
		for _, o := range inner {
			if o.Range.StartByte < pos || o.Range.EndByte > end {
				continue
			}
			b.Write(src[pos:o.Range.StartByte])
			b.WriteByte('\n')
			pos = o.Range.EndByte
		}
		b.Write(src[pos:end])
		texts[i] = b.String()
		if hashText(texts[i]) != c.Hash {
			return false
		}
	}
	for i := range chunks {
		chunks[i].Text = texts[i]
	}
	return true
}
