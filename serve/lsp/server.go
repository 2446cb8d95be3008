package lsp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/must"
	"github.com/cairn-dev/cairn/internal/repofs"
)

// Options configure a Server.
type Options struct {
	// Engine opens the repository's engine when the client initializes:
	// its Root "" takes the client's rootUri, its IndexDir "" is
	// <root>/.cairn, and its Log nil is Log. On a shared store (Store,
	// RepoName, ANN) the server only reads: no watcher, no re-index of
	// edits (`cairn watch --store …` keeps that index fresh).
	Engine engine.Options
	// Debounce delays re-indexing after edits; default 300ms.
	Debounce time.Duration
	// Watch runs the watch loop in the server (engine.Watch) once the
	// repository is known.
	Watch bool
	// Version is reported to the client.
	Version string
	Log     *slog.Logger
}

// Server is one LSP session over a connection.
type Server struct {
	opts Options
	c    *conn
	eng  *engine.Engine

	mu       sync.Mutex
	docs     map[string]text     // open documents by repository-relative path
	raw      map[string]string   // their text as the editor has it
	bufs     map[string]bufFacts // their facts, extracted in memory (buffer.go)
	pending  map[string]bool     // paths waiting for re-index
	timer    *time.Timer
	inflight map[string]context.CancelFunc
	shutdown bool
	wg       sync.WaitGroup
	reindex  chan struct{}
}

// Serve runs an LSP session on r/w until the client exits or ctx ends.
func Serve(ctx context.Context, r io.Reader, w io.Writer, opts Options) error {
	opts.Debounce = cmp.Or(opts.Debounce, 300*time.Millisecond)
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, c: newConn(r, w), docs: map[string]text{}, raw: map[string]string{}, bufs: map[string]bufFacts{}, pending: map[string]bool{},
		inflight: map[string]context.CancelFunc{}, reindex: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.reindexLoop(ctx)
	defer func() {
		cancel()
		s.wg.Wait()
		if s.eng != nil {
			s.eng.Close()
		}
	}()
	msgs := make(chan *message)
	errc := make(chan error, 1)
	go func() {
		for {
			m, err := s.c.read()
			if err != nil {
				var re *respError
				if errors.As(err, &re) && m != nil {
					s.c.reply(nil, nil, re)
					continue
				}
				errc <- err
				return
			}
			select {
			case msgs <- m:
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-errc:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case m := <-msgs:
			if m.Method == "exit" {
				return nil
			}
			if m.ID == nil {
				s.notification(ctx, m)
				continue
			}
			if m.Method == "initialize" || m.Method == "shutdown" {
				// in order: nothing may run before initialize finished
				res, err := s.call(ctx, m)
				s.c.reply(m.ID, res, err)
				continue
			}
			s.wg.Add(1)
			rctx, rcancel := context.WithCancel(ctx)
			key := string(*m.ID)
			s.mu.Lock()
			s.inflight[key] = rcancel
			s.mu.Unlock()
			go func() {
				defer s.wg.Done()
				defer rcancel()
				res, err := s.call(rctx, m)
				s.mu.Lock()
				delete(s.inflight, key)
				s.mu.Unlock()
				if rctx.Err() != nil && ctx.Err() == nil && err != nil {
					err = &respError{Code: codeRequestCancelled, Message: "request cancelled"}
				}
				s.c.reply(m.ID, res, err)
			}()
		}
	}
}

func (s *Server) notification(ctx context.Context, m *message) {
	switch m.Method {
	case "$/cancelRequest":
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			s.mu.Lock()
			if cancel, ok := s.inflight[string(p.ID)]; ok {
				cancel()
			}
			s.mu.Unlock()
		}
	case "textDocument/didOpen":
		var p didOpenParams
		if json.Unmarshal(m.Params, &p) == nil {
			if rel, ok := s.relPath(p.TextDocument.URI); ok {
				s.mu.Lock()
				s.docs[rel], s.raw[rel] = splitText(p.TextDocument.Text), p.TextDocument.Text
				s.mu.Unlock()
				s.schedule(ctx, rel) // indexes it if it changed since
			}
		}
	case "textDocument/didChange":
		var p didChangeParams
		if json.Unmarshal(m.Params, &p) == nil && len(p.ContentChanges) > 0 {
			if rel, ok := s.relPath(p.TextDocument.URI); ok {
				t := p.ContentChanges[len(p.ContentChanges)-1].Text // full sync
				s.mu.Lock()
				s.docs[rel], s.raw[rel] = splitText(t), t
				s.mu.Unlock()
				// answers follow the unsaved buffer (buffer.go); the
				// index follows the file when it is saved
			}
		}
	case "textDocument/didSave":
		var p struct {
			TextDocument textDocumentIdentifier `json:"textDocument"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			if rel, ok := s.relPath(p.TextDocument.URI); ok {
				s.schedule(ctx, rel)
			}
		}
	case "textDocument/didClose":
		var p struct {
			TextDocument textDocumentIdentifier `json:"textDocument"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			if rel, ok := s.relPath(p.TextDocument.URI); ok {
				s.mu.Lock()
				delete(s.docs, rel)
				delete(s.raw, rel)
				delete(s.bufs, rel)
				s.mu.Unlock()
			}
		}
	}
}

// schedule queues rel for re-indexing after the debounce delay.
func (s *Server) schedule(ctx context.Context, rel string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.eng == nil || s.eng.Shared() {
		return // a shared store is written by cairn index/watch --store
	}
	s.pending[rel] = true
	if s.timer != nil {
		s.timer.Stop()
	}
	s.timer = time.AfterFunc(s.opts.Debounce, func() {
		select {
		case s.reindex <- struct{}{}:
		default:
		}
	})
}

// reindexLoop runs the incremental indexer on the pending paths, one run at
// a time; requests keep being answered from the previous generation.
func (s *Server) reindexLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.reindex:
		}
		s.mu.Lock()
		var paths []string
		for p := range s.pending {
			paths = append(paths, p)
		}
		clear(s.pending)
		eng := s.eng
		s.mu.Unlock()
		if len(paths) == 0 || eng == nil {
			continue
		}
		slices.Sort(paths)
		start := time.Now()
		res, err := eng.Reindex(ctx, paths, 30*time.Second)
		if err != nil {
			s.logMessage(1, fmt.Sprintf("cairn: re-indexing %s failed: %v", strings.Join(paths, ", "), err))
			continue
		}
		s.opts.Log.Info("re-indexed", "paths", paths, "parsed", res.Parsed, "generation", res.Meta.Generation, "took", time.Since(start))
		s.c.notify("cairn/indexed", map[string]any{"paths": paths, "generation": res.Meta.Generation, "parsed": res.Parsed})
	}
}

func (s *Server) logMessage(typ int, msg string) {
	s.c.notify("window/logMessage", map[string]any{"type": typ, "message": msg})
}

type handler func(ctx context.Context, snap *engine.Snapshot, params json.RawMessage) (any, error)

func (s *Server) call(ctx context.Context, m *message) (any, *respError) {
	switch m.Method {
	case "initialize":
		return s.initialize(ctx, m.Params)
	case "shutdown":
		s.mu.Lock()
		s.shutdown = true
		s.mu.Unlock()
		return nil, nil
	}
	s.mu.Lock()
	eng, down := s.eng, s.shutdown
	s.mu.Unlock()
	if eng == nil {
		return nil, &respError{Code: codeNotInitialized, Message: "initialize first"}
	}
	if down {
		return nil, &respError{Code: codeInvalidRequest, Message: "the server is shutting down"}
	}
	h, ok := map[string]handler{
		"textDocument/definition":           s.definition,
		"textDocument/references":           s.references,
		"textDocument/hover":                s.hover,
		"textDocument/documentSymbol":       s.documentSymbol,
		"workspace/symbol":                  s.workspaceSymbol,
		"textDocument/prepareCallHierarchy": s.prepareCallHierarchy,
		"callHierarchy/incomingCalls":       s.incomingCalls,
		"callHierarchy/outgoingCalls":       s.outgoingCalls,
		"textDocument/implementation":       s.implementation,
	}[m.Method]
	if !ok {
		return nil, &respError{Code: codeMethodNotFound, Message: "method not supported: " + m.Method}
	}
	snap, err := eng.Acquire(ctx)
	if err != nil {
		return nil, toRespError(err)
	}
	defer snap.Release()
	res, err := h(ctx, snap, m.Params)
	if err != nil {
		return nil, toRespError(err)
	}
	return res, nil
}

// toRespError maps engine categories to LSP errors; the category travels
// in data.
func toRespError(err error) *respError {
	var re *respError
	if errors.As(err, &re) {
		return re
	}
	e := engine.Classify(err)
	code := codeRequestFailed
	switch e.Category {
	case engine.InvalidArgument, engine.OutsideRepository:
		code = codeInvalidParams
	case engine.Internal:
		code = codeInternalError
	}
	data := map[string]any{"category": e.Category}
	if len(e.Candidates) > 0 {
		data["candidates"] = e.Candidates
	}
	return &respError{Code: code, Message: e.Error(), Data: data}
}

func (s *Server) initialize(ctx context.Context, raw json.RawMessage) (any, *respError) {
	var p initializeParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, &respError{Code: codeInvalidParams, Message: err.Error()}
	}
	root := s.opts.Engine.Root
	if root == "" {
		u := p.RootURI
		if u == "" && len(p.WorkspaceFolders) > 0 {
			u = p.WorkspaceFolders[0].URI
		}
		if u != "" {
			root = uriPath(u)
		} else {
			root = p.RootPath
		}
	}
	if root == "" {
		return nil, &respError{Code: codeInvalidParams, Message: "no rootUri and no --repo: cannot tell which repository to serve"}
	}
	eo := s.opts.Engine
	eo.Root = root
	eo.Log = cmp.Or(eo.Log, s.opts.Log)
	eng, err := engine.Open(ctx, eo)
	if err != nil {
		return nil, &respError{Code: codeInvalidParams, Message: err.Error()}
	}
	s.mu.Lock()
	if s.eng != nil {
		s.eng.Close()
	}
	s.eng = eng
	s.mu.Unlock()
	if s.opts.Watch && !eng.Shared() {
		if err := eng.Watch(ctx); err != nil {
			s.opts.Log.Warn("serving without an embedded watcher", "reason", err)
		}
	}
	return map[string]any{
		"capabilities": map[string]any{
			"positionEncoding":        "utf-16",
			"textDocumentSync":        map[string]any{"openClose": true, "change": 1, "save": map[string]any{"includeText": false}},
			"definitionProvider":      true,
			"referencesProvider":      true,
			"hoverProvider":           true,
			"documentSymbolProvider":  true,
			"workspaceSymbolProvider": true,
			"callHierarchyProvider":   true,
			"implementationProvider":  true,
		},
		"serverInfo": map[string]any{"name": "cairn", "version": cmp.Or(s.opts.Version, "dev")},
	}, nil
}

// ---- paths and positions

// relPath maps a file URI to a repository-relative path inside the root.
func (s *Server) relPath(uri string) (string, bool) {
	s.mu.Lock()
	eng := s.eng
	s.mu.Unlock()
	if eng == nil {
		return "", false
	}
	p := uriPath(uri)
	if p == "" {
		return "", false
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		p = filepath.Join(r, filepath.Base(p))
	}
	rel, err := filepath.Rel(eng.Root(), p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func uriPath(u string) string {
	pu, err := url.Parse(u)
	if err != nil || pu.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(pu.Path)
}

func (s *Server) uri(root, rel string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(root, filepath.FromSlash(rel)))}).String()
}

// lines returns a file's current lines: the open buffer, else the disk.
func (s *Server) lines(root, rel string, cache map[string]text) text {
	if t, ok := cache[rel]; ok {
		return t
	}
	s.mu.Lock()
	t, ok := s.docs[rel]
	s.mu.Unlock()
	if !ok {
		if b, err := repofs.New(root).ReadFile(rel); err == nil { // the repository boundary
			t = splitText(string(b))
		}
	}
	cache[rel] = t
	return t
}

// rangeOf converts an index range (1-based lines, byte columns) of rel.
func (s *Server) rangeOf(root, rel string, r graph.Range, cache map[string]text) lspRange {
	t := s.lines(root, rel, cache)
	sl, el := int(r.StartLine)-1, int(r.EndLine)-1
	return lspRange{
		Start: position{Line: max(sl, 0), Character: utf16Col(t.line(sl), int(r.StartCol))},
		End:   position{Line: max(el, 0), Character: utf16Col(t.line(el), int(r.EndCol))},
	}
}

func (s *Server) loc(root, rel string, r graph.Range, cache map[string]text) location {
	return location{URI: s.uri(root, rel), Range: s.rangeOf(root, rel, r, cache)}
}

// at finds what the identifier at a document position denotes: the
// occurrence there (from the index), the name to ask the engine (the
// occurrence's symbol id when resolved, else its qualified spelling when
// that names definitions, else the word) and its definitions.
type target struct {
	rel  string
	occ  *graph.Occurrence
	word string
	name string
	defs []graph.Symbol
	// views are the engine's views of defs (aligned): the text shown
	// (signatures, docs) comes from them, the ranges from defs.
	views []graph.SymbolView
	span  graph.Range
}

func (s *Server) at(ctx context.Context, snap *engine.Snapshot, p textDocumentPositionParams) (*target, error) {
	rel, ok := s.relPath(p.TextDocument.URI)
	if !ok {
		return nil, engine.Errorf(engine.OutsideRepository, "%s is not in the repository", p.TextDocument.URI)
	}
	if _, _, err := engine.RepoPath(snap.Root, rel); err != nil {
		return nil, err
	}
	lines := s.lines(snap.Root, rel, map[string]text{})
	line := lines.line(p.Position.Line)
	col := byteCol(line, p.Position.Character)
	t := &target{rel: rel}
	live := s.live(ctx, snap)
	ff, err := snap.R.FileFacts(ctx, rel)
	if bf := live[rel]; bf != nil {
		// the buffer moved on from the index: its own occurrences
		ff, err = bf, nil
	}
	if err == nil {
		for i := range ff.Occurrences {
			o := &ff.Occurrences[i]
			r := o.Range
			if int(r.StartLine)-1 == p.Position.Line && int(r.StartCol) <= col && col <= int(r.EndCol) {
				t.occ, t.word, t.span = o, o.Name, r
				break
			}
		}
	}
	if t.occ == nil {
		// not indexed there (the buffer moved on): the word under the cursor
		st, en := col, col
		for st > 0 && isIdent(line[st-1]) {
			st--
		}
		for en < len(line) && isIdent(line[en]) {
			en++
		}
		if st == en {
			return nil, engine.Errorf(engine.NotFound, "no identifier at %s:%d:%d", rel, p.Position.Line+1, p.Position.Character+1)
		}
		t.word = line[st:en]
		ln := uint32(p.Position.Line + 1)
		t.span = graph.Range{StartLine: ln, EndLine: ln, StartCol: uint32(st), EndCol: uint32(en)}
	}
	names := []string{}
	if t.occ != nil && t.occ.Symbol != "" {
		names = append(names, string(t.occ.Symbol))
	}
	if t.occ != nil && t.occ.Qualifier != "" && !strings.ContainsAny(t.occ.Qualifier, "().[] ") {
		names = append(names, t.occ.Qualifier+"."+t.word)
	}
	t.name = t.word
	for _, n := range append(names, t.word) {
		res, err := snap.Definitions(ctx, engine.DefinitionsOptions{Name: n})
		if category(err) == engine.NotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		t.name, t.defs, t.views = n, res.Symbols, res.Definitions
		break
	}
	t.defs, t.views = s.follow(ctx, snap, live, t.defs, t.views, t.word)
	return t, nil
}

// category is err's engine category ("" for nil).
func category(err error) engine.Category {
	if err == nil {
		return ""
	}
	return engine.Classify(err).Category
}

func isIdent(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// ---- handlers

func (s *Server) definition(ctx context.Context, snap *engine.Snapshot, raw json.RawMessage) (any, error) {
	var p textDocumentPositionParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, engine.Errorf(engine.InvalidArgument, "%v", err)
	}
	t, err := s.at(ctx, snap, p)
	if err != nil {
		return nil, err
	}
	cache := map[string]text{}
	out := []location{}
	for _, d := range t.defs {
		out = append(out, s.loc(snap.Root, d.Path, d.NameRange, cache))
	}
	return out, nil
}

func (s *Server) references(ctx context.Context, snap *engine.Snapshot, raw json.RawMessage) (any, error) {
	var p referenceParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, engine.Errorf(engine.InvalidArgument, "%v", err)
	}
	t, err := s.at(ctx, snap, p.textDocumentPositionParams)
	if err != nil {
		return nil, err
	}
	res, err := snap.References(ctx, engine.ReferencesOptions{Name: t.name, IncludeDefinitions: p.Context.IncludeDeclaration})
	if category(err) == engine.NotFound {
		return []location{}, nil
	}
	if err != nil {
		return nil, err
	}
	cache := map[string]text{}
	out := []location{}
	live := s.live(ctx, snap)
	for _, r := range res.Refs {
		if live[r.Path] == nil {
			out = append(out, s.loc(snap.Root, r.Path, r.Range, cache))
		}
	}
	// in an edited buffer, its own occurrences of the name
	for _, rel := range sortedKeys(live) {
		for _, o := range live[rel].Occurrences {
			if o.Name == t.word && (p.Context.IncludeDeclaration || o.Role&graph.RoleDefinition == 0) {
				out = append(out, s.loc(snap.Root, rel, o.Range, cache))
			}
		}
	}
	return out, nil
}

func (s *Server) hover(ctx context.Context, snap *engine.Snapshot, raw json.RawMessage) (any, error) {
	var p textDocumentPositionParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, engine.Errorf(engine.InvalidArgument, "%v", err)
	}
	t, err := s.at(ctx, snap, p)
	if err != nil {
		var e *engine.Error
		if errors.As(err, &e) && e.Category == engine.NotFound {
			return nil, nil
		}
		return nil, err
	}
	if len(t.defs) == 0 {
		return nil, nil
	}
	var b strings.Builder
	for i, d := range t.defs[:min(len(t.defs), 3)] {
		if i > 0 {
			b.WriteString("\n---\n")
		}
		v := t.views[i]
		sig := cmp.Or(v.Signature, v.QualifiedName)
		fmt.Fprintf(&b, "```%s\n%s\n```\n", v.Language, sig)
		if v.Doc != "" {
			b.WriteString("\n" + v.Doc + "\n")
		}
		callers, err := snap.Callers(ctx, engine.HopsOptions{Name: string(d.ID), Depth: 1})
		if err != nil {
			return nil, err
		}
		n := len(callers.Results)
		rev, stale := snap.Cite(ctx, d.Path)
		fmt.Fprintf(&b, "\n%s · %d caller%s · `%s:%d` @ %s", d.Kind, n, plural(n), d.Path, d.Range.StartLine, rev)
		if stale {
			b.WriteString(" (stale)")
		}
		if owners := engine.Owners(ctx, snap.Root, d.Path); len(owners) > 0 {
			fmt.Fprintf(&b, " · owners: %s", strings.Join(owners, ", "))
		}
		b.WriteString("\n")
	}
	if len(t.defs) > 3 {
		fmt.Fprintf(&b, "\n…and %d more definitions\n", len(t.defs)-3)
	}
	h := &hover{}
	h.Contents.Kind, h.Contents.Value = "markdown", b.String()
	r := s.rangeOf(snap.Root, t.rel, t.span, map[string]text{})
	h.Range = &r
	return h, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func lspKind(k graph.SymbolKind) int {
	switch k {
	case graph.KindPackage:
		return skPackage
	case graph.KindModule:
		return skModule
	case graph.KindNamespace:
		return skNamespace
	case graph.KindClass, graph.KindTrait:
		return skClass
	case graph.KindStruct, graph.KindUnion:
		return skStruct
	case graph.KindInterface:
		return skInterface
	case graph.KindEnum:
		return skEnum
	case graph.KindEnumMember:
		return skEnumMember
	case graph.KindTypeAlias:
		return skClass
	case graph.KindFunction, graph.KindMacro:
		return skFunction
	case graph.KindMethod:
		return skMethod
	case graph.KindConstructor:
		return skConstructor
	case graph.KindField:
		return skField
	case graph.KindProperty:
		return skProperty
	case graph.KindConstant:
		return skConstant
	}
	return skVariable
}

func (s *Server) documentSymbol(ctx context.Context, snap *engine.Snapshot, raw json.RawMessage) (any, error) {
	var p struct {
		TextDocument textDocumentIdentifier `json:"textDocument"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, engine.Errorf(engine.InvalidArgument, "%v", err)
	}
	rel, ok := s.relPath(p.TextDocument.URI)
	if !ok {
		return nil, engine.Errorf(engine.OutsideRepository, "%s is not in the repository", p.TextDocument.URI)
	}
	if _, _, err := engine.RepoPath(snap.Root, rel); err != nil {
		return nil, err
	}
	var syms []graph.Symbol // in source order, outer before inner
	var details []string
	if bf := s.live(ctx, snap)[rel]; bf != nil {
		// an edited buffer: its own definitions
		syms = slices.Clone(bf.Symbols)
		slices.SortStableFunc(syms, func(a, b graph.Symbol) int {
			return cmp.Or(cmp.Compare(a.Range.StartByte, b.Range.StartByte), cmp.Compare(b.Range.EndByte, a.Range.EndByte))
		})
		for _, d := range syms {
			details = append(details, d.Signature)
		}
	} else {
		res, err := snap.Symbols(ctx, engine.SymbolsOptions{File: rel})
		if err != nil {
			return nil, err
		}
		syms = res.Defs
		for _, v := range res.Symbols {
			details = append(details, v.Signature)
		}
	}
	cache := map[string]text{}
	// nest by containment: a stack of open ancestors
	type node struct {
		sym graph.Symbol
		ds  *documentSymbol
	}
	var roots []*documentSymbol
	var stack []node
	for i, sym := range syms {
		ds := &documentSymbol{Name: sym.Name, Detail: details[i], Kind: lspKind(sym.Kind),
			Range: s.rangeOf(snap.Root, rel, sym.Range, cache), SelectionRange: s.rangeOf(snap.Root, rel, sym.NameRange, cache)}
		for len(stack) > 0 && !stack[len(stack)-1].sym.Range.Contains(sym.Range) {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			roots = append(roots, ds)
		} else {
			parent := stack[len(stack)-1].ds
			parent.Children = append(parent.Children, *ds)
			ds = &parent.Children[len(parent.Children)-1]
		}
		stack = append(stack, node{sym, ds})
	}
	out := make([]documentSymbol, 0, len(roots))
	for _, r := range roots {
		out = append(out, *r)
	}
	return out, nil
}

func (s *Server) workspaceSymbol(ctx context.Context, snap *engine.Snapshot, raw json.RawMessage) (any, error) {
	var p struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, engine.Errorf(engine.InvalidArgument, "%v", err)
	}
	const most = 100
	var syms []graph.Symbol
	if q := strings.TrimSpace(p.Query); q == "" {
		res, err := snap.Map(ctx, engine.MapOptions{Limit: most})
		if err != nil {
			return nil, err
		}
		syms = res.Defs
	} else {
		res, err := snap.Symbols(ctx, engine.SymbolsOptions{Query: q, Fuzzy: true, Limit: most})
		if err != nil {
			return nil, err
		}
		syms = res.Defs
	}
	cache := map[string]text{}
	out := []symbolInformation{}
	for _, d := range syms[:min(len(syms), most)] {
		out = append(out, symbolInformation{Name: d.Name, Kind: lspKind(d.Kind), ContainerName: d.Container,
			Location: s.loc(snap.Root, d.Path, d.NameRange, cache)})
	}
	return out, nil
}

// item is a call hierarchy item for d, with the text of its view v.
func (s *Server) item(snap *engine.Snapshot, d *graph.Symbol, v *graph.SymbolView, cache map[string]text) callHierarchyItem {
	data := must.JSON(map[string]string{"symbol_id": string(d.ID)})
	return callHierarchyItem{Name: d.QualifiedName(), Kind: lspKind(d.Kind), Detail: v.Signature, URI: s.uri(snap.Root, d.Path),
		Range: s.rangeOf(snap.Root, d.Path, d.Range, cache), SelectionRange: s.rangeOf(snap.Root, d.Path, d.NameRange, cache), Data: data}
}

func (s *Server) prepareCallHierarchy(ctx context.Context, snap *engine.Snapshot, raw json.RawMessage) (any, error) {
	var p textDocumentPositionParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, engine.Errorf(engine.InvalidArgument, "%v", err)
	}
	t, err := s.at(ctx, snap, p)
	if err != nil {
		return nil, err
	}
	cache := map[string]text{}
	out := []callHierarchyItem{}
	for i := range t.defs {
		out = append(out, s.item(snap, &t.defs[i], &t.views[i], cache))
	}
	return out, nil
}

// itemSymbol reads the symbol id a call-hierarchy item carries.
func itemSymbol(raw json.RawMessage) (graph.SymbolID, error) {
	var p struct {
		Item struct {
			Data struct {
				SymbolID string `json:"symbol_id"`
			} `json:"data"`
		} `json:"item"`
	}
	if err := json.Unmarshal(raw, &p); err != nil || p.Item.Data.SymbolID == "" {
		return "", engine.Errorf(engine.InvalidArgument, "call hierarchy item without cairn data: prepare it first")
	}
	return graph.SymbolID(p.Item.Data.SymbolID), nil
}

// calls asks the engine for the direct callers (In) or callees (Out) of
// the item's symbol, each with every call site between the pair.
func (s *Server) calls(ctx context.Context, snap *engine.Snapshot, raw json.RawMessage, dir graph.Direction) (*engine.HopsResult, error) {
	id, err := itemSymbol(raw)
	if err != nil {
		return nil, err
	}
	o := engine.HopsOptions{Name: string(id), Depth: 1, Sites: true}
	var res *engine.HopsResult
	if dir == graph.In {
		res, err = snap.Callers(ctx, o)
	} else {
		res, err = snap.Callees(ctx, o)
	}
	if category(err) == engine.NotFound {
		return &engine.HopsResult{}, nil // gone since the item was prepared
	}
	return res, err
}

func (s *Server) incomingCalls(ctx context.Context, snap *engine.Snapshot, raw json.RawMessage) (any, error) {
	res, err := s.calls(ctx, snap, raw, graph.In)
	if err != nil {
		return nil, err
	}
	cache := map[string]text{}
	out := []callHierarchyIncomingCall{}
	for i, h := range res.Hops {
		if h.Def == nil {
			continue // file-level code: no item to show
		}
		c := callHierarchyIncomingCall{From: s.item(snap, h.Def, res.Results[i].Definition, cache)}
		for _, e := range res.Edges[i] {
			c.FromRanges = append(c.FromRanges, s.rangeOf(snap.Root, e.Path, e.Range, cache))
		}
		out = append(out, c)
	}
	return out, nil
}

func (s *Server) outgoingCalls(ctx context.Context, snap *engine.Snapshot, raw json.RawMessage) (any, error) {
	res, err := s.calls(ctx, snap, raw, graph.Out)
	if err != nil {
		return nil, err
	}
	cache := map[string]text{}
	out := []callHierarchyOutgoingCall{}
	for i, h := range res.Hops {
		if h.Def == nil {
			continue // outside the index
		}
		c := callHierarchyOutgoingCall{To: s.item(snap, h.Def, res.Results[i].Definition, cache)}
		for _, e := range res.Edges[i] {
			c.FromRanges = append(c.FromRanges, s.rangeOf(snap.Root, e.Path, e.Range, cache))
		}
		out = append(out, c)
	}
	return out, nil
}

func (s *Server) implementation(ctx context.Context, snap *engine.Snapshot, raw json.RawMessage) (any, error) {
	var p textDocumentPositionParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, engine.Errorf(engine.InvalidArgument, "%v", err)
	}
	t, err := s.at(ctx, snap, p)
	if err != nil {
		return nil, err
	}
	out := []location{}
	if len(t.defs) == 0 {
		return out, nil
	}
	// All: the protocol cannot ask which definition an unresolved
	// identifier means.
	res, err := snap.Implementations(ctx, engine.HopsOptions{Name: t.name, Depth: engine.DefaultImplementationsDepth, All: true})
	if err != nil {
		return nil, err
	}
	cache := map[string]text{}
	for _, h := range res.Hops {
		if h.Def != nil {
			out = append(out, s.loc(snap.Root, h.Def.Path, h.Def.NameRange, cache))
		}
	}
	return out, nil
}
