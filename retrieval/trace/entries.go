package trace

import (
	"bytes"
	"cmp"
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// EntryKinds are the kinds of entry point EntryPoints lists unless asked
// for others: what a person onboarding looks for first (tests, UI event
// handlers and route loaders are entry points of a trace, but too many to
// list for a repository).
var EntryKinds = []string{"http", "main", "cli", "job"}

// EntryOptions ask EntryPoints which entry points to list.
type EntryOptions struct {
	// Under keeps entry points defined in this file or under this
	// directory ("" is the whole repository).
	Under string
	// Kinds keeps these kinds (http, main, cli, job, test, ui, loader);
	// none is EntryKinds.
	Kinds []string
	// Limit is the most entry points listed (default 500); Counts count
	// them all.
	Limit int
	// Files, Root and Cite are as for Trace.
	Files Files
	Root  string
	Cite  graph.CiteFunc
}

// Entries lists a repository's entry points.
type Entries struct {
	// EntryPoints are sorted by kind (http, loader, ui, cli, job, main,
	// test, as a trace ranks them), then path and line.
	EntryPoints []Entry `json:"entry_points"`
	// Counts counts the entry points found by kind, listed or not.
	Counts map[string]int `json:"counts"`
	// Truncated says Limit cut the list.
	Truncated bool `json:"truncated,omitempty"`
}

// Where EntryPoints looks. The rules are entryOf's, the ones a trace
// applies to the functions its call paths reach; EntryPoints only chooses
// which functions to ask about, from what the index stores:
//
//   - registrations: a function referenced on a line that binds a route,
//     a command or a job (mux.HandleFunc("GET /x", h.Get), r.GET, app.get,
//     RunE: run, Action: serve, set_defaults(func=f), c.AddFunc(spec, f),
//     add_job, cron.schedule, every(…).do(f)), in the files holding an
//     occurrence of one of registrationNames;
//   - heads: a function whose decorators or annotations (the lines of its
//     definition above its name) bind a route, a command or a job
//     (@app.route, @router.get, @GetMapping, @GET, @click.command,
//     @shared_task, @Scheduled …), in the files holding an occurrence of
//     one of decoratorNames;
//   - signatures: a Go function taking an http.ResponseWriter, a
//     *gin.Context, an echo.Context or a *fiber.Ctx, in the files that
//     mention those types — unless the project's own code calls it (a
//     helper such as writeError(w, err)): a trace starts a path at such a
//     function, a list of entry points leaves it out;
//   - Rails: the controller actions config/routes.rb binds
//     (get "/x", to: "accounts#show"); ASP.NET's [HttpGet] attributes are
//     heads, app.MapGet("/x", h) and Laravel's Route::get('/x', …) are
//     registrations;
//   - Kotlin, Scala and Swift (entrylang.go): Ktor's routing blocks and
//     Vapor's app.get("x") { req in … }, one entry per route with the
//     function the closure is written in; Vapor's use: handler is a
//     registration; Play's conf/routes binds controller actions as Rails's
//     routes.rb does; Spring's annotations in Kotlin are heads as in Java;
//   - mains: a top-level definition named main, a C# method named Main,
//     a main(args: Array[String]) / main(args: Array<String>) in a Scala or
//     Kotlin object, Scala's @main def and object … extends App, Swift's
//     @main type and the top-level code of main.swift.
//
// Files categorised as tests or vendored are left out.
var (
	registrationNames = []string{"HandleFunc", "Handle", "HandlerFunc", "Path", "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "Any",
		"Get", "Post", "Put", "Patch", "Delete", "get", "post", "put", "patch", "delete", "all", "route",
		"RunE", "Run", "Action", "set_defaults", "AddFunc", "AddJob", "add_job", "schedule", "Schedule", "do",
		"any", "MapGet", "MapPost", "MapPut", "MapPatch", "MapDelete"}
	decoratorNames = []string{"route", "get", "post", "put", "patch", "delete", "api_route", "websocket",
		"GetMapping", "PostMapping", "PutMapping", "PatchMapping", "DeleteMapping", "RequestMapping", "GET", "POST", "PUT", "PATCH", "DELETE",
		"command", "group", "shared_task", "periodic_task", "task", "Scheduled", "actor", "job",
		"HttpGet", "HttpPost", "HttpPut", "HttpPatch", "HttpDelete"}
	signatureNames = []string{"ResponseWriter", "Context", "Ctx", "HttpServletRequest"}
)

// lineRule is a regular expression and the literals a line must hold
// (any of them) for it to match: a line without one is not matched at all,
// which keeps the scan of large files cheap.
type lineRule struct {
	re  *regexp.Regexp
	any [][]byte
}

func rule(re *regexp.Regexp, any ...string) lineRule {
	r := lineRule{re: re}
	for _, a := range any {
		r.any = append(r.any, []byte(a))
	}
	return r
}

var (
	registrationRules = []lineRule{
		rule(reRouteCall, routeLiterals()...),
		rule(reCLIReg, "Run", "Action", "set_defaults"),
		rule(reJobReg, "AddFunc(", "AddJob(", "add_job(", "chedule(", "every("),
	}
	headRules = []lineRule{
		rule(reRouteDeco, "@"), rule(reSpringMap, "@"), rule(reJaxRS, "@"),
		rule(reCLIDeco, "@", "Run"), rule(reJobDeco, "@"), rule(reASPNet, "[Http"),
	}
)

// routeLiterals are ".Name(" for every registration call reRouteCall
// names.
func routeLiterals() []string {
	var out []string
	for _, n := range []string{"HandleFunc", "Handle", "HandlerFunc", "Path", "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "Any",
		"Get", "Post", "Put", "Patch", "Delete", "Head", "Options", "get", "post", "put", "patch", "delete", "all", "route"} {
		out = append(out, "."+n+"(", "::"+n+"(")
	}
	for _, n := range []string{"any", "MapGet", "MapPost", "MapPut", "MapPatch", "MapDelete"} {
		out = append(out, "."+n+"(", "::"+n+"(")
	}
	return out
}

// matchedLines lists the lines of p where any of the rules matches.
func (t *tracer) matchedLines(p string, rules []lineRule) map[int]bool {
	src := t.src(p)
	out := map[int]bool{}
	for line, start := 1, 0; start < len(src); line++ {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		l := src[start:end]
		for _, r := range rules {
			if slices.ContainsFunc(r.any, func(a []byte) bool { return bytes.Contains(l, a) }) && r.re.Match(l) {
				out[line] = true
				break
			}
		}
		start = end + 1
	}
	return out
}

// EntryPoints lists the repository's entry points: HTTP routes, mains,
// CLI commands and jobs (see EntryKinds), each classified as a trace
// classifies the functions its call paths start from.
func EntryPoints(ctx context.Context, r graph.Reader, o EntryOptions) (*Entries, error) {
	m, err := r.Meta(ctx)
	if err != nil {
		return nil, err
	}
	t := newTracer(ctx, r, Options{Files: o.Files, Root: o.Root, Cite: o.Cite}, m)
	kinds := o.Kinds
	if len(kinds) == 0 {
		kinds = EntryKinds
	}
	under := strings.Trim(o.Under, "/")
	in := func(p string) bool {
		return under == "" || under == "." || p == under || strings.HasPrefix(p, under+"/")
	}
	// the candidate files, each with why it is one
	const (
		byRegistration = 1 << iota
		byDecorator
		bySignature
	)
	why := map[string]int{}
	for _, names := range []struct {
		list []string
		bit  int
	}{{registrationNames, byRegistration}, {decoratorNames, byDecorator}, {signatureNames, bySignature}} {
		for _, name := range names.list {
			files, err := r.FilesMentioning(ctx, name)
			if err != nil {
				return nil, err
			}
			for _, p := range files {
				if in(p) {
					why[p] |= names.bit
				}
			}
		}
	}
	var cands []graph.SymbolID
	var direct []Entry // entries of no definition of their own: closure routes, main.swift
	seen := map[graph.SymbolID]bool{}
	add := func(id graph.SymbolID) {
		if id != "" && !seen[id] {
			seen[id] = true
			cands = append(cands, id)
		}
	}
	mains, err := r.SymbolsByName(ctx, "main")
	if err != nil {
		return nil, err
	}
	for _, s := range mains {
		if s.Name == "main" && s.Container == "" && s.Kind.IsCallable() && in(s.Path) {
			add(s.ID)
		}
	}
	csMains, err := r.SymbolsByName(ctx, "Main")
	if err != nil {
		return nil, err
	}
	for _, s := range csMains {
		if s.Name == "Main" && s.Lang == graph.LangCSharp && s.Kind == graph.KindMethod && in(s.Path) {
			add(s.ID)
		}
	}
	if err := t.langEntryCandidates(mains, in, add); err != nil {
		return nil, err
	}
	// Rails: the actions config/routes.rb binds
	rails, err := t.railsRoutes()
	if err != nil {
		return nil, err
	}
	for _, rr := range rails {
		acts, err := r.SymbolsByName(ctx, rr.action)
		if err != nil {
			return nil, err
		}
		for _, s := range acts {
			if s.Lang == graph.LangRuby && s.Name == rr.action && lastName(s.Container) == railsController(rr.controller) && in(s.Path) {
				add(s.ID)
			}
		}
	}
	paths := make([]string, 0, len(why))
	for p := range why {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := t.file(p)
		if err != nil {
			return nil, err
		}
		if f.Category.Has(graph.FileTest) || f.Category.Has(graph.FileVendored) {
			continue
		}
		// the lines worth a look, each kind of rule scanned over the
		// whole text once; a file without any is not read further
		var regLines, headLines map[int]bool
		if why[p]&byRegistration != 0 {
			regLines = t.matchedLines(p, registrationRules)
		}
		if why[p]&byDecorator != 0 {
			headLines = t.matchedLines(p, headRules)
		}
		sig := why[p]&bySignature != 0 && f.Lang == graph.LangGo
		closures := why[p]&byRegistration != 0 && len(t.scanRoutes(p, f.Lang)) > 0
		if len(regLines) == 0 && len(headLines) == 0 && !sig && !closures {
			continue
		}
		ff, err := t.fileFacts(p)
		if err != nil {
			return nil, err
		}
		if closures {
			direct = append(direct, t.closureEntries(ff)...)
		}
		if len(regLines) > 0 {
			for i := range ff.Occurrences {
				o := &ff.Occurrences[i]
				if o.Symbol != "" && o.Role&(graph.RoleDefinition|graph.RoleCall) == 0 && regLines[int(o.Range.StartLine)] {
					add(o.Symbol)
				}
			}
		}
		for i := range ff.Symbols {
			s := &ff.Symbols[i]
			if !s.Kind.IsCallable() {
				continue
			}
			if sig && reHTTPSig.MatchString(s.Signature) {
				add(s.ID)
				continue
			}
			for l := int(s.Range.StartLine); len(headLines) > 0 && l <= int(s.NameRange.StartLine); l++ {
				if headLines[l] {
					add(s.ID)
					break
				}
			}
		}
	}
	if slices.Contains(kinds, "main") {
		sm, err := t.swiftMains(in)
		if err != nil {
			return nil, err
		}
		direct = append(direct, sm...)
	}
	res := &Entries{EntryPoints: []Entry{}, Counts: map[string]int{}}
	listed := map[string]bool{}
	for i := 0; i < len(cands)+len(direct); i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var e *Entry
		if i < len(cands) {
			var err error
			id := cands[i]
			if e, err = t.entryOf(id); err != nil {
				return nil, err
			}
		} else {
			e = &direct[i-len(cands)]
		}
		if e == nil || !slices.Contains(kinds, e.Kind) || !in(e.Func.Path) {
			continue
		}
		if key := e.Kind + "\x00" + e.Label + "\x00" + e.Func.Path + "\x00" + string(e.Func.ID); listed[key] {
			continue
		} else {
			listed[key] = true
		}
		id := e.Func.ID
		if e.Kind == "http" && e.Registered == nil && strings.HasPrefix(e.Label, "HTTP handler ") {
			// a handler by its signature alone that the project's own
			// code calls is a helper (writeError(w, err)), not an entry
			calls, err := t.r.Edges(ctx, []graph.SymbolID{id}, graph.In, graph.EdgeCalls)
			if err != nil {
				return nil, err
			}
			if len(calls) > 0 {
				continue
			}
		}
		if f, err := t.file(e.Func.Path); err == nil && (f.Category.Has(graph.FileTest) || f.Category.Has(graph.FileVendored)) {
			continue
		}
		res.Counts[e.Kind]++
		res.EntryPoints = append(res.EntryPoints, *e)
	}
	slices.SortStableFunc(res.EntryPoints, func(a, b Entry) int {
		return cmp.Or(entryRank[b.Kind]-entryRank[a.Kind], strings.Compare(a.Func.Path, b.Func.Path), a.Func.StartLine-b.Func.StartLine)
	})
	if limit := cmp.Or(o.Limit, 500); len(res.EntryPoints) > limit {
		res.EntryPoints, res.Truncated = res.EntryPoints[:limit], true
	}
	return res, nil
}
