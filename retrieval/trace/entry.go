package trace

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

var (
	// a route bound to a handler: mux.HandleFunc("POST /tasks/{id}", h.Complete),
	// r.GET("/x", f), app.post('/x', f), router.Get("/x", f)
	// (and Laravel's Route::get('/x', …), ASP.NET's app.MapGet("/x", h))
	reRouteCall = regexp.MustCompile("(?:\\.|::)(HandleFunc|Handle|HandlerFunc|Path|GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|Any|Get|Post|Put|Patch|Delete|Head|Options|get|post|put|patch|delete|all|route|any|MapGet|MapPost|MapPut|MapPatch|MapDelete)\\(\\s*[\"'`]([^\"'`]*)[\"'`]")
	// ASP.NET controller actions: [HttpGet("/x")], [HttpPost]
	reASPNet = regexp.MustCompile(`\[\s*Http(Get|Post|Put|Patch|Delete)\b(?:\(\s*(?:template:\s*)?"([^"]*)")?`)
	// Rails routes: get "/x", to: "accounts#show"; post "/x" => "a#b"
	reRailsRoute = regexp.MustCompile(`^\s*(get|post|put|patch|delete|match)\s*\(?\s*["']([^"']*)["']\s*,\s*(?:to:\s*|=>\s*)["']([\w/]+)#(\w+)["']`)
	// decorators and annotations above a definition
	reRouteDeco = regexp.MustCompile(`@[\w.]*?\.?(route|get|post|put|patch|delete|api_route|websocket)\(\s*["']([^"']*)["']`)
	// Spring's mappings; Kotlin writes an array as [ ], Java as { }
	reSpringMap = regexp.MustCompile(`@(Get|Post|Put|Patch|Delete|Request)Mapping(?:\(\s*(?:(?:value|path)\s*=\s*)?[\[{]?\s*"([^"]*)")?`)
	reJaxRS     = regexp.MustCompile(`@(GET|POST|PUT|PATCH|DELETE)\b`)
	reJaxPath   = regexp.MustCompile(`@Path\(\s*"([^"]*)"`)
	reCLIDeco   = regexp.MustCompile(`@[\w.]*\b(command|group)\b|\b(RunE|Run)\s*:`)
	reJobDeco   = regexp.MustCompile(`@(shared_task|periodic_task|[\w.]*\.task|Scheduled|celery\.task|dramatiq\.actor|job)\b`)
	// a command or job bound to a function: cobra's RunE: run, urfave/cli's
	// Action: serve, argparse's set_defaults(func=handler); cron's
	// c.AddFunc("@hourly", sweep), APScheduler's add_job(f, …),
	// node-cron's cron.schedule("* * * * *", f), schedule's every(…).do(f)
	reCLIReg   = regexp.MustCompile(`\b(RunE|Run|Action)\s*:|\.set_defaults\(\s*func\s*=`)
	reJobReg   = regexp.MustCompile(`\.(AddFunc|AddJob|add_job|schedule|Schedule)\(|\bevery\(.*\.do\(`)
	reTestDeco = regexp.MustCompile(`@(Test|ParameterizedTest|pytest\.mark\.\w+)\b`)
	reUIName   = regexp.MustCompile(`^(on|handle)[A-Z]`)
	reLoader   = regexp.MustCompile(`(?i)(^loader$|loader$|^load\w*(route|page|view)$)`)
	// a Go function returning an *http.Response is a client (a
	// RoundTripper, a request helper), not a handler
	reHTTPClient = regexp.MustCompile(`\*http\.Response\b`)
	reHTTPSig    = regexp.MustCompile(`http\.ResponseWriter|\*gin\.Context|echo\.Context|\*fiber\.Ctx|HttpServletRequest|\bRequest\b.*\bResponse\b`)
	// a client request: fetch(`/tasks/${id}`), axios.post("/x"), api.get('/x')
	reClient   = regexp.MustCompile("\\b(fetch|axios(?:\\.(?:get|post|put|patch|delete))?|(?:api|http|client|request|ky)\\.(?:get|post|put|patch|delete))\\s*\\(\\s*([`\"'])([^`\"']*)")
	reMethod   = regexp.MustCompile(`method\s*:\s*["'](\w+)["']`)
	reOrigin   = regexp.MustCompile(`^https?://[^/]+`)
	reParam    = regexp.MustCompile(`\$\{[^}]*\}|\{[^}/]*\}|<[^>/]*>|:[A-Za-z_]\w*`)
	reHTTPVerb = regexp.MustCompile(`^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(/\S*)$`)
)

// route is an HTTP route served by a handler.
type route struct {
	method, path string // path normalized: parameters are "*"
	label        string
	handler      graph.SymbolID
}

// clientCall is a request a client function makes.
type clientCall struct {
	method, path string
	fn           *Func
	at           Loc
	off          int
}

// normPath normalizes a URL path for matching: parameters become "*".
func normPath(p string) string {
	p = reOrigin.ReplaceAllString(p, "")
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	p = reParam.ReplaceAllString(p, "*")
	if len(p) > 1 {
		p = strings.TrimRight(p, "/")
	}
	return p
}

func pathsMatch(a, b string) bool {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	if len(as) != len(bs) {
		return false
	}
	for i := range as {
		if as[i] != bs[i] && as[i] != "*" && bs[i] != "*" {
			return false
		}
	}
	return true
}

func methodsMatch(a, b string) bool { return a == b || a == "ANY" || b == "ANY" }

// isRoutePath: a registration's pattern is a URL path ("/tasks/{id}"),
// optionally after a method ("GET /tasks"); x.get("width", f) binds no
// route.
func isRoutePath(p string) bool {
	if v := reHTTPVerb.FindStringSubmatch(p); v != nil {
		p = v[2]
	}
	return strings.HasPrefix(p, "/")
}

// methodOf maps a registration call name to an HTTP method.
func methodOf(call string) string {
	switch u := strings.ToUpper(strings.TrimPrefix(call, "Map")); u {
	case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS":
		return u
	}
	return "ANY"
}

// entryOf classifies a function as an entry point (nil when it is not one
// by its name, decorators, signature or registration).
func (t *tracer) entryOf(id graph.SymbolID) (*Entry, error) {
	if e, ok := t.entryCache[id]; ok {
		return e, nil
	}
	t.entryCache[id] = nil
	s := t.symbol(id)
	if s == nil {
		return nil, nil
	}
	f := *t.funcOf(s)
	mk := func(kind, label string) *Entry {
		e := &Entry{Kind: kind, Label: label, Func: f}
		t.entryCache[id] = e
		return e
	}
	// registrations: a reference to the function on a route or command line
	refs, err := t.r.Edges(t.ctx, []graph.SymbolID{id}, graph.In, graph.EdgeReferences)
	if err != nil {
		return nil, err
	}
	for _, e := range refs {
		if strings.HasSuffix(e.Path, ".swift") {
			if r := t.scannedRouteAt(e.Path, int(e.Range.StartLine), s.Name); r != nil {
				label := r.method + " " + r.path
				en := mk("http", label)
				reg := t.loc(e.Path, e.Range)
				en.Registered = &reg
				t.routes = append(t.routes, route{method: r.method, path: normPath(r.path), label: label, handler: id})
				return en, nil
			}
		}
		line := t.lineText(e.Path, int(e.Range.StartLine))
		if m := reRouteCall.FindStringSubmatch(line); m != nil && isRoutePath(m[2]) {
			method, p := methodOf(m[1]), m[2]
			if v := reHTTPVerb.FindStringSubmatch(p); v != nil {
				method, p = v[1], v[2]
			}
			en := mk("http", strings.TrimSpace(method+" "+p))
			if method == "ANY" {
				en.Label = p
			}
			reg := t.loc(e.Path, e.Range)
			en.Registered = &reg
			t.routes = append(t.routes, route{method: method, path: normPath(p), label: en.Label, handler: id})
			return en, nil
		}
		if reCLIReg.MatchString(line) {
			en := mk("cli", s.Name)
			reg := t.loc(e.Path, e.Range)
			en.Registered = &reg
			return en, nil
		}
		if reJobReg.MatchString(line) {
			en := mk("job", s.QualifiedName())
			reg := t.loc(e.Path, e.Range)
			en.Registered = &reg
			return en, nil
		}
	}
	// decorators and annotations: the lines of the definition above its name
	h := t.headText(s)
	if m := reRouteDeco.FindStringSubmatch(h); m != nil && isRoutePath(m[2]) {
		method := methodOf(m[1])
		label := strings.TrimSpace(strings.TrimPrefix(method+" ", "ANY ") + m[2])
		t.routes = append(t.routes, route{method: method, path: normPath(m[2]), label: label, handler: id})
		return mk("http", label), nil
	}
	if m := reSpringMap.FindStringSubmatch(h); m != nil {
		method := methodOf(m[1])
		label := strings.TrimSpace(strings.TrimPrefix(method+" ", "ANY ") + m[2])
		t.routes = append(t.routes, route{method: method, path: normPath(m[2]), label: label, handler: id})
		return mk("http", label), nil
	}
	if m := reJaxRS.FindStringSubmatch(h); m != nil {
		p := ""
		if pm := reJaxPath.FindStringSubmatch(h); pm != nil {
			p = pm[1]
		}
		t.routes = append(t.routes, route{method: m[1], path: normPath(p), label: m[1] + " " + p, handler: id})
		return mk("http", m[1]+" "+p), nil
	}
	if m := reASPNet.FindStringSubmatch(h); m != nil {
		method := strings.ToUpper(m[1])
		label := strings.TrimSpace(method + " " + m[2])
		t.routes = append(t.routes, route{method: method, path: normPath(m[2]), label: label, handler: id})
		return mk("http", label), nil
	}
	if s.Lang == graph.LangRuby && strings.HasSuffix(s.Container, "Controller") {
		rs, err := t.railsRoutes()
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if r.action == s.Name && railsController(r.controller) == lastName(s.Container) {
				label := r.method + " " + r.path
				t.routes = append(t.routes, route{method: r.method, path: normPath(r.path), label: label, handler: id})
				en := mk("http", label)
				en.Registered = &r.at
				return en, nil
			}
		}
	}
	if pr, err := t.playAction(s); err != nil {
		return nil, err
	} else if pr != nil {
		label := strings.TrimPrefix(pr.method+" ", "ANY ") + pr.path
		t.routes = append(t.routes, route{method: pr.method, path: normPath(pr.path), label: label, handler: id})
		en := mk("http", label)
		en.Registered = &pr.at
		return en, nil
	}
	switch {
	case s.IsTest || reTestDeco.MatchString(h):
		return mk("test", s.QualifiedName()), nil
	case s.Name == "main" && s.Container == "":
		return mk("main", s.Path+" main"), nil
	case s.Name == "Main" && s.Lang == graph.LangCSharp && s.Kind == graph.KindMethod:
		return mk("main", s.QualifiedName()), nil
	case isLangMain(s, h):
		return mk("main", s.QualifiedName()), nil
	case reJobDeco.MatchString(h):
		return mk("job", s.QualifiedName()), nil
	case reCLIDeco.MatchString(h):
		return mk("cli", s.QualifiedName()), nil
	case reHTTPSig.MatchString(s.Signature) && s.Lang == graph.LangGo && !reHTTPClient.MatchString(s.Signature):
		return mk("http", "HTTP handler "+s.QualifiedName()), nil
	}
	if r := t.firstClosureRoute(s); r != nil {
		// a function binding routes to closures (Ktor's routing { … },
		// Vapor's app.get("x") { req in … }) starts a path as its first
		// route; EntryPoints lists each route
		label := r.method + " " + r.path
		en := mk("http", label)
		reg := t.at(s.Path, r.line, r.col)
		en.Registered = &reg
		return en, nil
	}
	if s.Lang == graph.LangTypeScript || s.Lang == graph.LangTSX || s.Lang == graph.LangJavaScript {
		switch {
		case reUIName.MatchString(s.Name):
			return mk("ui", "UI event "+s.Name), nil
		case reLoader.MatchString(s.Name):
			return mk("loader", "route loader "+s.Name), nil
		}
	}
	return nil, nil
}

// loadClients scans client code for HTTP requests.
func (t *tracer) loadClients() error {
	if t.httpLoaded {
		return nil
	}
	t.httpLoaded = true
	seen := map[string]bool{}
	for _, name := range []string{"fetch", "axios"} {
		files, err := t.r.FilesMentioning(t.ctx, name)
		if err != nil {
			return err
		}
		for _, p := range files {
			if seen[p] {
				continue
			}
			seen[p] = true
			ff, err := t.fileFacts(p)
			if err != nil {
				return err
			}
			switch ff.File.Lang {
			case graph.LangTypeScript, graph.LangTSX, graph.LangJavaScript:
			default:
				continue
			}
			src := string(t.src(p))
			for _, m := range reClient.FindAllStringSubmatchIndex(src, -1) {
				call, raw := src[m[2]:m[3]], src[m[6]:m[7]]
				method := "GET"
				if i := strings.LastIndexByte(call, '.'); i >= 0 {
					method = strings.ToUpper(call[i+1:])
				} else if mm := reMethod.FindStringSubmatch(src[m[1]:min(len(src), m[1]+300)]); mm != nil {
					method = strings.ToUpper(mm[1])
				}
				if !strings.Contains(raw, "/") {
					continue
				}
				line, col := t.lineCol(p, m[0])
				t.clients = append(t.clients, clientCall{method: method, path: normPath(raw), fn: t.enclosingOffset(ff, m[0]),
					at: t.at(p, line, col), off: m[0]})
			}
		}
	}
	return nil
}

// clientsOf lists the client requests a route serves.
func (t *tracer) clientsOf(id graph.SymbolID) ([]clientCall, string, error) {
	if err := t.loadClients(); err != nil {
		return nil, "", err
	}
	var out []clientCall
	label := ""
	for _, r := range t.routes {
		if r.handler != id {
			continue
		}
		for _, c := range t.clients {
			if methodsMatch(c.method, r.method) && pathsMatch(c.path, r.path) && c.fn.ID != "" {
				out = append(out, c)
				label = r.label
			}
		}
	}
	return out, label, nil
}

// serverOf lists the handlers that serve a client function's requests.
func (t *tracer) serverOf(fn graph.SymbolID) ([]callee, error) {
	if err := t.loadClients(); err != nil {
		return nil, err
	}
	var out []callee
	for _, c := range t.clients {
		if c.fn.ID != fn {
			continue
		}
		for _, r := range t.routes {
			if methodsMatch(c.method, r.method) && pathsMatch(c.path, r.path) {
				at := c.at
				out = append(out, callee{id: r.handler, via: "http " + r.label, at: &at, off: c.off, conf: graph.ConfNameOnly})
			}
		}
	}
	return out, nil
}

// callee is one function a function reaches.
type callee struct {
	id   graph.SymbolID
	via  string
	at   *Loc
	off  int
	conf graph.Confidence
}

type upNode struct {
	id     graph.SymbolID
	parent int
	via    string
	at     *Loc
	conf   graph.Confidence
}

// callersOf returns the call edges into id, read once per trace (the
// sites of one function, and functions up the same paths, share them).
func (t *tracer) callersOf(id graph.SymbolID) ([]graph.Edge, error) {
	if es, ok := t.callersCache[id]; ok {
		return es, nil
	}
	es, err := t.callEdges(id, graph.In)
	if err != nil {
		return nil, err
	}
	t.callersCache[id] = es
	return es, nil
}

// pathsTo finds call paths from entry points to a site's function,
// shortest first, crossing from HTTP handlers to the client code that
// requests their routes.
func (t *tracer) pathsTo(s *Site) error {
	if s.Func == nil || s.Func.ID == "" {
		return nil
	}
	// the paths depend on the site's function only
	if ps, ok := t.pathsCache[s.Func.ID]; ok {
		s.Paths = ps
		return nil
	}
	defer func() { t.pathsCache[s.Func.ID] = s.Paths }()
	nodes := []upNode{{id: s.Func.ID, parent: -1, conf: graph.ConfPrecise}}
	seen := map[graph.SymbolID]bool{s.Func.ID: true}
	depth := map[int]int{0: 0}
	const budget = 400
	for i := 0; i < len(nodes) && len(s.Paths) < t.o.Paths; i++ {
		n := nodes[i]
		e, err := t.entryOf(n.id)
		if err != nil {
			return err
		}
		ins, err := t.callersOf(n.id)
		if err != nil {
			return err
		}
		var ups []callee
		for _, ed := range ins {
			at := t.loc(ed.Path, ed.Range)
			ups = append(ups, callee{id: ed.From, via: "call", at: &at, conf: ed.Confidence})
		}
		if e != nil && e.Kind == "http" {
			cs, label, err := t.clientsOf(n.id)
			if err != nil {
				return err
			}
			for _, c := range cs {
				at := c.at
				ups = append(ups, callee{id: c.fn.ID, via: "http " + label, at: &at, conf: graph.ConfNameOnly})
			}
		}
		if e == nil && len(ups) == 0 {
			sym := t.symbol(n.id)
			if sym != nil {
				e = &Entry{Kind: "root", Label: sym.QualifiedName() + " (nothing calls it)", Func: *t.funcOf(sym)}
			}
		}
		if e != nil {
			s.Paths = append(s.Paths, t.pathFrom(nodes, i, *e))
		}
		if depth[i] >= t.o.Depth || len(nodes) >= budget {
			continue
		}
		slices.SortStableFunc(ups, func(a, b callee) int { return strings.Compare(string(a.id), string(b.id)) })
		for _, u := range ups {
			if seen[u.id] {
				continue
			}
			seen[u.id] = true
			depth[len(nodes)] = depth[i] + 1
			nodes = append(nodes, upNode{id: u.id, parent: i, via: u.via, at: u.at, conf: u.conf})
		}
	}
	return nil
}

// pathFrom builds the path from node i (the entry) down to the site.
// A node's via, at and conf describe its edge toward the site, so in
// entry-first order they tell how hop k reaches hop k+1.
func (t *tracer) pathFrom(nodes []upNode, i int, e Entry) CallPath {
	cp := CallPath{Entry: e}
	for j := i; j >= 0; j = nodes[j].parent {
		var f Func
		if sym := t.symbol(nodes[j].id); sym != nil {
			f = *t.funcOf(sym)
		} else {
			f = Func{Name: graph.ModuleDisplay(nodes[j].id), ID: nodes[j].id}
		}
		h := Hop{Func: f, Via: "entry"}
		if k := len(cp.Hops); k > 0 {
			from := nodes[cp.nodeOf(nodes, i, k-1)]
			h.Via, h.At, h.Confidence = from.via, from.at, from.conf.String()
		}
		cp.Hops = append(cp.Hops, h)
	}
	return cp
}

// nodeOf is the node of hop k of a path starting at node i.
func (cp CallPath) nodeOf(nodes []upNode, i, k int) int {
	j := i
	for ; k > 0; k-- {
		j = nodes[j].parent
	}
	return j
}

func (e Entry) String() string { return fmt.Sprintf("%s %s", e.Kind, e.Label) }

// railsRoute is one route of a Rails config/routes.rb.
type railsRoute struct {
	method, path, controller, action string
	at                               Loc
}

// railsRoutes reads the routes files of the repository once: the lines
// binding a path to "controller#action" (resources blocks are not
// expanded).
func (t *tracer) railsRoutes() ([]railsRoute, error) {
	if t.railsLoaded {
		return t.rails, nil
	}
	t.railsLoaded = true
	files, err := t.r.FilesMentioning(t.ctx, "draw")
	if err != nil {
		return nil, err
	}
	for _, p := range files {
		if !strings.HasSuffix(p, "routes.rb") {
			continue
		}
		for i, line := range strings.Split(string(t.src(p)), "\n") {
			m := reRailsRoute.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			method := strings.ToUpper(m[1])
			if method == "MATCH" {
				method = "ANY"
			}
			t.rails = append(t.rails, railsRoute{method: method, path: m[2], controller: m[3], action: m[4],
				at: t.at(p, i+1, strings.Index(line, m[1])+1)})
		}
	}
	return t.rails, nil
}

// railsController names the class of a route's controller: "accounts" →
// AccountsController, "admin/user_sessions" → UserSessionsController.
func railsController(c string) string {
	if i := strings.LastIndexByte(c, '/'); i >= 0 {
		c = c[i+1:]
	}
	var b strings.Builder
	for _, w := range strings.Split(c, "_") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String() + "Controller"
}

func lastName(container string) string {
	if i := strings.LastIndexByte(container, '.'); i >= 0 {
		return container[i+1:]
	}
	return container
}
