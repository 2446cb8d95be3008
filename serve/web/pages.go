package web

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/agent/state"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/graph"
)

// Every page takes one snapshot, asks the engine the page's questions —
// each one engine call, the one the CLI and the MCP tools make for it —
// and renders the answers; nothing here filters, ranks or resolves.

var funcs = template.FuncMap{
	"src": srcURL,
	"sym": func(id graph.SymbolID) string { return "/symbol?name=" + url.QueryEscape(string(id)) },
	"short": func(rev string) string {
		if len(rev) > 12 {
			return rev[:12]
		}
		return rev
	},
	"when": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") },
	"join": strings.Join,
	"add":  func(a, b int) int { return a + b },
	// first and beyond cut long lists: the first n items, and how many
	// are left out
	"first": func(n int, list any) any {
		v := reflect.ValueOf(list)
		if v.Kind() != reflect.Slice || v.Len() <= n {
			return list
		}
		return v.Slice(0, n).Interface()
	},
	"beyond": func(n int, list any) int {
		v := reflect.ValueOf(list)
		if v.Kind() != reflect.Slice {
			return 0
		}
		return max(0, v.Len()-n)
	},
	"listCap": func() int { return listCap },
}

// listCap is how many items of a long list a page shows; the JSON API
// (linked beside the cut) has them all.
const listCap = 100

func srcURL(p string, line int) string {
	u := "/source?path=" + url.QueryEscape(p)
	if line > 0 {
		u += "&line=" + strconv.Itoa(line) + "#L" + strconv.Itoa(line)
	}
	return u
}

// page is what every template gets.
type page struct {
	Title string
	Nav   string
	Index indexInfo
	Error *errorView
	Data  any
}

type indexInfo struct {
	Root       string
	Generation int64
	Revision   string
	Dirty      bool
	IndexedAt  time.Time
}

// withSnapshot runs ask on a snapshot and renders the template name with
// its answer; an error renders the error page with the engine's category
// and the matching status.
func (s *Server) withSnapshot(w http.ResponseWriter, r *http.Request, name, title string, ask func(ctx context.Context, snap *engine.Snapshot) (any, error)) {
	snap, err := s.eng.Acquire(r.Context())
	if err != nil {
		s.render(w, http.StatusOK, name, page{Title: title, Nav: name}, err)
		return
	}
	defer snap.Release()
	p := page{Title: title, Nav: name, Index: indexInfo{Root: snap.Root, Generation: snap.Meta.Generation, Revision: snap.Meta.Revision,
		Dirty: snap.Meta.Dirty, IndexedAt: snap.Meta.IndexedAt}}
	data, err := ask(r.Context(), snap)
	p.Data = data
	s.render(w, http.StatusOK, name, p, err)
}

func (s *Server) render(w http.ResponseWriter, code int, name string, p page, err error) {
	if err != nil {
		e := engine.Classify(err)
		p.Error = &errorView{Category: string(e.Category), Message: e.Error(), Candidates: e.Candidates}
		code = statusOf(e.Category)
		if errors.Is(err, errNoRun) {
			code = http.StatusNotFound
		}
	}
	var b bytes.Buffer
	if err := s.pages.ExecuteTemplate(&b, name+".html", p); err != nil {
		s.opts.Log.Error("render page", "page", name, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

// ---- /

type homeData struct {
	Status *engine.StatusResult
	// Under narrows the page to a directory (a package graph node's link).
	Under string
	Dirs  []dirGroup
	Langs []count
	Entry *engine.EntryPointsResult
	Pkgs  *engine.PackageGraphResult
	Graph template.HTML
	Nodes int
	Kinds []count
}

type dirGroup struct {
	Dir     string
	Symbols []engine.MapEntry
}

type count struct {
	Name string
	N    int
}

func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	under := r.URL.Query().Get("under")
	title := "Repository"
	if under != "" {
		title = under + "/"
	}
	s.withSnapshot(w, r, "home", title, func(ctx context.Context, snap *engine.Snapshot) (any, error) {
		st, err := snap.Status(ctx, engine.StatusOptions{})
		if err != nil {
			return nil, err
		}
		d := &homeData{Status: st, Under: under}
		for k, n := range st.Languages {
			d.Langs = append(d.Langs, count{k, n})
		}
		slices.SortFunc(d.Langs, func(a, b count) int { return cmp.Or(b.N-a.N, strings.Compare(a.Name, b.Name)) })
		if st.Files == 0 {
			return d, nil
		}
		// three independent questions, asked at once: on a large index
		// each is seconds the first time in a generation (then cached)
		var m *engine.MapResult
		var errs [3]error
		var wg sync.WaitGroup
		wg.Add(3)
		go func() { defer wg.Done(); m, errs[0] = snap.Map(ctx, engine.MapOptions{Under: under, Limit: 60}) }()
		go func() {
			defer wg.Done()
			d.Entry, errs[1] = snap.EntryPoints(ctx, engine.EntryPointsOptions{Under: under, Limit: listCap})
		}()
		go func() {
			defer wg.Done()
			d.Pkgs, errs[2] = snap.PackageGraph(ctx, engine.PackageGraphOptions{Under: under, Limit: MaxNodes})
		}()
		wg.Wait()
		if err := cmp.Or(errs[0], errs[1], errs[2]); err != nil {
			return d, err
		}
		for k, n := range d.Entry.Counts {
			d.Kinds = append(d.Kinds, count{k, n})
		}
		slices.SortFunc(d.Kinds, func(a, b count) int { return cmp.Or(b.N-a.N, strings.Compare(a.Name, b.Name)) })
		g := packageGraph(d.Pkgs)
		d.Graph, d.Nodes = g.SVG(), len(g.Nodes)
		// the central symbols by directory, in the order of each
		// directory's most central symbol
		at := map[string]int{}
		for _, e := range m.Symbols {
			dir := path.Dir(e.Path)
			i, ok := at[dir]
			if !ok {
				i = len(d.Dirs)
				at[dir] = i
				d.Dirs = append(d.Dirs, dirGroup{Dir: dir})
			}
			d.Dirs[i].Symbols = append(d.Dirs[i].Symbols, e)
		}
		return d, nil
	})
}

// packageGraph draws the package dependency graph: a node per directory
// (or collapsed directory), linked to the page of that directory, an edge
// per import between them (its tooltip says how many import statements it
// stands for); the nodes the engine left out are one "N more" node.
func packageGraph(res *engine.PackageGraphResult) Graph {
	g := Graph{Max: MaxNodes + 1} // the engine cut it at MaxNodes; one more node counts the rest
	for _, p := range res.Packages {
		sub := fmt.Sprintf("%d files · %s", p.Files, strings.Join(p.Languages, ", "))
		label := p.Path + "/"
		if p.Collapsed > 1 {
			label = fmt.Sprintf("%s/ (%d dirs)", p.Path, p.Collapsed)
		}
		g.Nodes = append(g.Nodes, Node{ID: "pkg:" + p.Path, Label: label, Sub: sub, Class: "package", Href: "/?under=" + url.QueryEscape(p.Path)})
	}
	if res.Omitted > 0 {
		g.Nodes = append(g.Nodes, Node{ID: "pkg:more", Label: fmt.Sprintf("%d more", res.Omitted), Sub: "smaller packages", Class: "more", Folded: res.Omitted})
	}
	for _, e := range res.Imports {
		g.Edges = append(g.Edges, Edge{From: "pkg:" + e.From, To: "pkg:" + e.To, Class: "imports",
			Title: fmt.Sprintf("%s/ imports %s/ (%d import statements)", e.From, e.To, e.Imports)})
	}
	return g
}

// ---- /search

type searchData struct {
	Query string
	Res   *engine.SearchResult
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	s.withSnapshot(w, r, "search", "Search", func(ctx context.Context, snap *engine.Snapshot) (any, error) {
		d := &searchData{Query: q}
		if strings.TrimSpace(q) == "" {
			return d, nil
		}
		res, err := snap.Search(ctx, engine.SearchOptions{Query: q, Limit: 30})
		d.Res = res
		return d, err
	})
}

// ---- /symbol

type symbolData struct {
	Name        string
	Depth       int
	Definitions []graph.SymbolView // several: the page asks which
	Def         *graph.SymbolView
	Source      *engine.Span
	Callers     *engine.HopsResult
	Callees     *engine.HopsResult
	Impls       *engine.HopsResult
	Refs        map[string][]graph.RefView
	Roles       []string
	RefsTotal   int
	Graph       template.HTML
	Nodes       int
	// Tests are the tests that reach the definition (Impact's), with
	// the commands that run them.
	Tests *engine.ImpactResult
}

func intParam(r *http.Request, name string, def int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, engine.Errorf(engine.InvalidArgument, "%s must be a number (got %q)", name, v)
	}
	return n, nil
}

func (s *Server) symbol(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	name := cmp.Or(q.Get("name"), q.Get("id"))
	s.withSnapshot(w, r, "symbol", name, func(ctx context.Context, snap *engine.Snapshot) (any, error) {
		depth, err := intParam(r, "depth", 1)
		if err != nil {
			return nil, err
		}
		d := &symbolData{Name: name, Depth: depth}
		if name == "" {
			return nil, engine.Errorf(engine.InvalidArgument, "name a symbol: /symbol?name=NAME (or a symbol_id)")
		}
		defs, err := snap.Definitions(ctx, engine.DefinitionsOptions{Name: name, Path: q.Get("path"), Kind: q.Get("kind")})
		if err != nil {
			return d, err
		}
		if len(defs.Definitions) != 1 {
			d.Definitions = defs.Definitions
			return d, nil
		}
		d.Def = &defs.Definitions[0]
		id := string(d.Def.SymbolID)
		if d.Source, err = snap.ReadSpan(ctx, d.Def.Path, d.Def.StartLine, d.Def.EndLine, ""); err != nil {
			return d, err
		}
		one := engine.HopsOptions{Name: id, Depth: depth}
		if d.Callers, err = snap.Callers(ctx, one); err != nil {
			return d, err
		}
		if d.Callees, err = snap.Callees(ctx, one); err != nil {
			return d, err
		}
		if d.Impls, err = snap.Implementations(ctx, engine.HopsOptions{Name: id, Depth: engine.DefaultImplementationsDepth}); err != nil {
			return d, err
		}
		refs, err := snap.References(ctx, engine.ReferencesOptions{Name: id})
		if err != nil {
			return d, err
		}
		d.Refs, d.RefsTotal = map[string][]graph.RefView{}, len(refs.References)
		for _, ref := range refs.References {
			if _, ok := d.Refs[ref.Role]; !ok {
				d.Roles = append(d.Roles, ref.Role)
			}
			d.Refs[ref.Role] = append(d.Refs[ref.Role], ref)
		}
		if d.Tests, err = snap.Impact(ctx, engine.ImpactOptions{Name: id, Depth: 1}); err != nil {
			return d, err
		}
		g := hopGraph(*d.Def, d.Callers, d.Callees)
		d.Graph, d.Nodes = g.SVG(), len(g.Nodes)
		return d, nil
	})
}

// hopGraph draws callers left of the symbol and callees right of it, a
// column per depth; an edge's style is its confidence.
func hopGraph(root graph.SymbolView, callers, callees *engine.HopsResult) Graph {
	g := Graph{Nodes: []Node{{ID: string(root.SymbolID), Label: root.QualifiedName, Sub: root.Path, Class: "root", Ranked: true,
		Href: srcURL(root.Path, root.StartLine)}}}
	add := func(res *engine.HopsResult, side string, sign int) {
		for _, h := range res.Results {
			id := side + string(h.SymbolID)
			n := Node{ID: id, Label: h.Name, Sub: h.Kind, Rank: sign * h.Depth, Ranked: true}
			if h.Definition != nil {
				n.Href, n.Sub = "/symbol?name="+url.QueryEscape(string(h.SymbolID)), h.Definition.Path
			}
			g.Nodes = append(g.Nodes, n)
			via := side + string(h.Via)
			if h.Via == root.SymbolID {
				via = string(root.SymbolID)
			}
			e := Edge{From: via, To: id, Class: h.Confidence, Label: ""}
			if sign < 0 {
				e.From, e.To = id, via
			}
			g.Edges = append(g.Edges, e)
		}
	}
	add(callers, "in:", -1)
	add(callees, "out:", 1)
	return g
}

// ---- /trace

type traceData struct {
	Target string
	Res    *engine.TraceResult
	Graph  template.HTML
	Nodes  int
	// the sites listed at first; the others behind a "N more"
	Writes, Reads, MoreWrites, MoreReads []engine.TraceSite
}

// shownSites is how many write or read sites a trace page lists open.
const shownSites = 20

func splitSites(s []engine.TraceSite) (shown, more []engine.TraceSite) {
	if len(s) <= shownSites {
		return s, nil
	}
	return s[:shownSites], s[shownSites:]
}

func (s *Server) trace(w http.ResponseWriter, r *http.Request) {
	target := r.URL.Query().Get("target")
	s.withSnapshot(w, r, "trace", "Trace "+target, func(ctx context.Context, snap *engine.Snapshot) (any, error) {
		d := &traceData{Target: target}
		if target == "" {
			return d, nil
		}
		depth, err := intParam(r, "depth", 0)
		if err != nil {
			return d, err
		}
		if d.Res, err = snap.Trace(ctx, engine.TraceOptions{Target: target, Depth: depth}); err != nil {
			return d, err
		}
		d.Writes, d.MoreWrites = splitSites(d.Res.Writes)
		d.Reads, d.MoreReads = splitSites(d.Res.Reads)
		g := flowGraph(&d.Res.Result)
		d.Graph, d.Nodes = g.SVG(), len(g.Nodes)
		return d, nil
	})
}

// flowGraph draws a trace's flows: each entry point, then the functions
// reached in call order; a step where the value is lost is a gap node,
// and the edge into it a gap edge. Every function links to its source.
func flowGraph(res *engine.Trace) Graph {
	var g Graph
	// a gap step's kind: the gap found in the same function
	kinds := map[string]string{}
	for _, gp := range res.Gaps {
		if gp.Func != nil {
			kinds[gp.Func.Name+"@"+gp.Path] = gp.Kind
		}
	}
	ids := map[string]int{}
	node := func(key string, n Node) string {
		if i, ok := ids[key]; ok {
			if strings.HasPrefix(n.Class, "gap") {
				g.Nodes[i].Class = n.Class
			}
			return g.Nodes[i].ID
		}
		n.ID = fmt.Sprintf("n%d", len(g.Nodes))
		ids[key] = len(g.Nodes)
		g.Nodes = append(g.Nodes, n)
		return n.ID
	}
	for _, f := range res.Flows {
		e := f.Entry
		entry := node("entry:"+e.Kind+" "+e.Label, Node{Label: e.Kind + " " + e.Label, Sub: e.Func.Path, Class: "entry " + f.Kind,
			Href: srcURL(e.Func.Path, e.Func.StartLine)})
		var stack []string
		for _, st := range f.Steps {
			class := f.Kind
			if st.Gap != "" {
				class = strings.TrimSpace("gap " + kinds[st.Name+"@"+st.Path])
			}
			id := node(st.Name+"@"+st.Path, Node{Label: st.Name, Sub: st.Path, Class: class, Href: srcURL(st.Path, st.StartLine)})
			stack = append(stack[:min(len(stack), st.Depth)], id)
			from := entry
			if st.Depth > 0 {
				from = stack[st.Depth-1]
			}
			label := ""
			if st.Via != "call" && st.Via != "entry" {
				label = st.Via
			}
			ec := st.Confidence
			if st.Gap != "" {
				ec += " gap"
			}
			g.Edges = append(g.Edges, Edge{From: from, To: id, Label: label, Class: ec})
		}
	}
	return g
}

// ---- /impact

type impactData struct {
	Target, Diff string
	Res          *engine.ImpactResult
	ByDepth      []depthGroup
	Graph        template.HTML
	Nodes        int
}

type depthGroup struct {
	Depth      int
	Dependents []any
}

func (s *Server) impact(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	target, diff := q.Get("target"), q.Get("diff")
	s.withSnapshot(w, r, "impact", "Impact "+cmp.Or(target, diff), func(ctx context.Context, snap *engine.Snapshot) (any, error) {
		d := &impactData{Target: target, Diff: diff}
		if target == "" && diff == "" {
			return d, nil
		}
		depth, err := intParam(r, "depth", 0)
		if err != nil {
			return d, err
		}
		if d.Res, err = snap.Impact(ctx, engine.ImpactOptions{Name: target, Diff: diff, Depth: depth, Path: q.Get("path"), Kind: q.Get("kind"),
			All: q.Get("all") == "true"}); err != nil {
			return d, err
		}
		for _, dep := range d.Res.Dependents {
			if n := len(d.ByDepth); n == 0 || d.ByDepth[n-1].Depth != dep.Depth {
				d.ByDepth = append(d.ByDepth, depthGroup{Depth: dep.Depth})
			}
			d.ByDepth[len(d.ByDepth)-1].Dependents = append(d.ByDepth[len(d.ByDepth)-1].Dependents, dep)
		}
		g := dependentGraph(d.Res)
		d.Graph, d.Nodes = g.SVG(), len(g.Nodes)
		return d, nil
	})
}

// dependentGraph draws the dependents by depth: the changed symbols in
// the right-most column, each dependent a column further left per depth,
// joined to the symbol it uses one edge closer to the change (its Uses;
// one the drawing does not hold — an interface method above a dependent —
// is replaced by the changed symbol the dependency runs through), the edge
// styled by its confidence. Each node links to its symbol page.
func dependentGraph(res *engine.ImpactResult) Graph {
	var g Graph
	ids := map[graph.SymbolID]bool{}
	byName := map[string]string{}
	for _, c := range res.Changed {
		id := string(c.SymbolID)
		if ids[c.SymbolID] {
			continue
		}
		ids[c.SymbolID] = true
		byName[c.QualifiedName] = id
		g.Nodes = append(g.Nodes, Node{ID: id, Label: c.QualifiedName, Sub: c.Path, Class: "root", Ranked: true, Href: "/symbol?name=" + url.QueryEscape(id)})
	}
	if len(g.Nodes) == 0 {
		return g
	}
	for _, dep := range res.Dependents {
		if ids[dep.SymbolID] {
			continue
		}
		ids[dep.SymbolID] = true
		g.Nodes = append(g.Nodes, Node{ID: string(dep.SymbolID), Label: dep.QualifiedName, Sub: dep.Path, Rank: -dep.Depth, Ranked: true,
			Href: "/symbol?name=" + url.QueryEscape(string(dep.SymbolID))})
	}
	for _, dep := range res.Dependents {
		to := string(dep.Uses)
		if !ids[dep.Uses] {
			to = cmp.Or(byName[dep.Through], g.Nodes[0].ID)
		}
		label := ""
		if dep.Via != "calls" {
			label = dep.Via
		}
		g.Edges = append(g.Edges, Edge{From: string(dep.SymbolID), To: to, Label: label, Class: dep.Confidence})
	}
	return g
}

// ---- /context

type contextData struct {
	Task   string
	Budget int
	Pack   any
}

func (s *Server) context(w http.ResponseWriter, r *http.Request) {
	task := r.URL.Query().Get("task")
	s.withSnapshot(w, r, "context", "Context", func(ctx context.Context, snap *engine.Snapshot) (any, error) {
		budget, err := intParam(r, "budget", 8000)
		d := &contextData{Task: task, Budget: budget}
		if err != nil || strings.TrimSpace(task) == "" {
			return d, err
		}
		pack, err := snap.Context(ctx, engine.ContextOptions{Task: task, Budget: budget, Format: "json"})
		if err != nil {
			return d, err
		}
		d.Pack = pack
		return d, nil
	})
}

// ---- /source

type sourceData struct {
	Path    string
	Line    int
	Span    *engine.Span
	Lines   []numbered
	Symbols []graph.SymbolView
}

type numbered struct {
	N    int
	Text string
	Here bool
	// Defs are the definitions that start on the line.
	Defs []graph.SymbolView
}

func (s *Server) source(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Query().Get("path")
	s.withSnapshot(w, r, "source", p, func(ctx context.Context, snap *engine.Snapshot) (any, error) {
		line, err := intParam(r, "line", 0)
		if err != nil {
			return nil, err
		}
		if p == "" {
			return nil, engine.Errorf(engine.InvalidArgument, "name a file: /source?path=PATH&line=N")
		}
		start := 1
		if line > engine.MaxSpanLines*3/4 {
			start = line - engine.MaxSpanLines/4
		}
		sp, err := snap.ReadSpan(ctx, p, start, 0, "")
		if err != nil {
			return nil, err
		}
		d := &sourceData{Path: sp.Path, Line: line, Span: sp}
		syms, err := snap.Symbols(ctx, engine.SymbolsOptions{File: sp.Path})
		if err != nil {
			return d, err
		}
		d.Symbols = syms.Symbols
		starts := map[int][]graph.SymbolView{}
		for _, v := range syms.Symbols {
			starts[v.StartLine] = append(starts[v.StartLine], v)
		}
		for i, t := range sp.Lines {
			n := sp.StartLine + i
			d.Lines = append(d.Lines, numbered{N: n, Text: t, Here: n == line, Defs: starts[n]})
		}
		return d, nil
	})
}

// ---- /runs

func (s *Server) runs(w http.ResponseWriter, r *http.Request) {
	runs, err := state.List(s.opts.RunsDir)
	s.render(w, http.StatusOK, "runs", page{Title: "Agent runs", Nav: "runs", Data: runs}, err)
}

type runData struct {
	View       *state.View
	Events     []eventLine
	Evidence   string // evidence/evidence.json, indented
	Change     string // evidence/CHANGE.md
	Patch      string // evidence/change.patch
	Criteria   []criterion
	Checkpoint *state.TaskState
}

type eventLine struct {
	state.Event
	Summary string
}

// criterion is one line of the verification report in evidence.json.
type criterion struct {
	ID, Kind, Status, Detail string
}

// maxShown caps what a run page shows of one file.
const maxShown = 256 << 10

func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	p := page{Title: "Run " + id, Nav: "runs"}
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`+"\x00") {
		s.render(w, http.StatusOK, "run", p, engine.Errorf(engine.InvalidArgument, "run id %q", id))
		return
	}
	dir := filepath.Join(s.opts.RunsDir, id)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		s.render(w, http.StatusOK, "run", p, engine.Errorf(engine.NotFound, "no run %s in %s", id, s.opts.RunsDir))
		return
	}
	v, err := state.Read(dir)
	if err != nil {
		s.render(w, http.StatusOK, "run", p, err)
		return
	}
	d := &runData{View: v, Checkpoint: v.Checkpoint}
	for _, ev := range v.Events {
		d.Events = append(d.Events, eventLine{Event: ev, Summary: clip(string(ev.Data), 240)})
	}
	ev := os.DirFS(filepath.Join(dir, "evidence"))
	d.Change, d.Patch = readShown(ev, "CHANGE.md"), readShown(ev, "change.patch")
	if raw := readShown(ev, "evidence.json"); raw != "" {
		var b bytes.Buffer
		if json.Indent(&b, []byte(raw), "", "  ") == nil {
			d.Evidence = b.String()
		} else {
			d.Evidence = raw
		}
		d.Criteria = criteriaOf([]byte(raw))
	}
	p.Data = d
	s.render(w, http.StatusOK, "run", p, nil)
}

func readShown(fsys fs.FS, name string) string {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return ""
	}
	if len(b) > maxShown {
		return string(b[:maxShown]) + "\n… (cut at " + strconv.Itoa(maxShown) + " bytes)"
	}
	return string(b)
}

// criteriaOf reads the report's criteria from an evidence bundle
// (schema/evidence.schema.json's report: criteria[], at the top or under
// "report"); none when the bundle has another shape.
func criteriaOf(raw []byte) []criterion {
	type check struct {
		ID     string `json:"id"`
		Kind   string `json:"kind"`
		Status string `json:"status"`
		Text   string `json:"text"`
		Reason string `json:"reason"`
	}
	var b struct {
		Criteria []check `json:"criteria"`
		Report   struct {
			Criteria []check `json:"criteria"`
		} `json:"report"`
	}
	if json.Unmarshal(raw, &b) != nil {
		return nil
	}
	var out []criterion
	for _, c := range append(b.Criteria, b.Report.Criteria...) {
		out = append(out, criterion{ID: c.ID, Kind: c.Kind, Status: c.Status, Detail: strings.TrimSpace(c.Text + " " + c.Reason)})
	}
	return out
}
