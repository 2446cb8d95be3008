package treesitter

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/cairn-dev/cairn/graph"
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

	// The lists are made at their final size, at most, once: grown by
	// appends they were a third of the parse phase's allocation.
	ff.Symbols = slices.Grow(ff.Symbols, len(e.defs))
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
	ff.Occurrences = slices.Grow(ff.Occurrences, len(ff.Symbols)+len(e.refs))
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
	ff.Bindings = slices.Grow(ff.Bindings, len(e.bindings))
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

// oneLine writes a supertype as one line with single spaces: a heritage
// clause spread over lines (TypeScript's extends WithRequired<\n  T,\n>)
// is one supertype, whichever store keeps it.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") && !strings.Contains(s, "  ") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
