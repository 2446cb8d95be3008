package trace

import (
	"bytes"
	"cmp"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// Entry points of Kotlin, Scala and Swift.
//
// Mains are definitions (a main taking Array[String] or Array<String> in an
// object, Scala's object … extends App and @main def, Swift's @main type)
// and entryOf classifies them; main.swift's top-level code has no
// definition and is listed as the file's top level.
//
// Ktor and Vapor bind most routes to a closure, which is no definition:
// such a route is listed with the function the closure is written in and
// the line that binds it, one entry per route (scanRoutes reads the file
// once, with the prefixes of Ktor's route("/a") { … } blocks and Vapor's
// grouped/group calls). A Vapor route bound with use: handler is a
// registration of handler, as r.GET("/x", h) is. Play's conf/routes binds
// a path to a controller action (GET /x controllers.Home.index), read as
// Rails's config/routes.rb is.
var (
	// Ktor: get("/x") {, post {, route("/a") { (not x.get("a"), a map's)
	reKtorRoute = regexp.MustCompile(`(?:^|[^.\w])(get|post|put|patch|delete|head|options|route)\s*(?:\(\s*"([^"]*)"[^)]*\))?\s*\{`)
	// Vapor: app.get("a", ":id", use: h), routes.post { req in, app.on(.GET, "x")
	reVaporRoute = regexp.MustCompile(`\b(\w+)\.(get|post|put|patch|delete)(?:\(((?:[^()]|\(\))*)\))?\s*(\{)?`)
	// use: show, use: self.show, use: controller.show, use: Todos().show
	reVaporUse   = regexp.MustCompile(`\buse:\s*(?:[\w]+(?:\(\))?\.)*(\w+)`)
	reVaporGroup = regexp.MustCompile(`\b(?:let|var)\s+(\w+)\s*=\s*(\w+)\.grouped\(([^()]*)\)|\b(\w+)\.group\(([^()]*)\)\s*\{\s*(\w+)\s+in\b`)
	reSwiftStr   = regexp.MustCompile(`"([^"\\]*)"`)
	reStrLit     = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	// Play: GET /items/:id controllers.HomeController.show(id: Long)
	rePlayRoute = regexp.MustCompile(`^\s*(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|\*)\s+(/\S*)\s+@?([\w.]+)\.(\w+)\s*(?:\(|$)`)
	reAtMain    = regexp.MustCompile(`(?m)^\s*@main\b`)
)

// scannedRoute is a route a Ktor or Vapor file binds on a line.
type scannedRoute struct {
	method, path string
	line, col    int
	off          int    // the byte offset of the binding call
	use          string // the handler's name (Vapor's use:), or "" for a closure
}

// scanRoutes finds the routes a Kotlin file using Ktor or a Swift file
// using Vapor binds (nil for other files), once per file.
func (t *tracer) scanRoutes(p string, lang graph.Language) []scannedRoute {
	if rs, ok := t.scanned[p]; ok {
		return rs
	}
	var rs []scannedRoute
	switch src := t.src(p); {
	case lang == graph.LangKotlin && bytes.Contains(src, []byte("io.ktor")):
		rs = scanKtor(src)
	case lang == graph.LangSwift && bytes.Contains(src, []byte("Vapor")):
		rs = scanVapor(src)
	}
	if t.scanned == nil {
		t.scanned = map[string][]scannedRoute{}
	}
	t.scanned[p] = rs
	return rs
}

// eachLine calls fn with every line of src, its number and offset.
func eachLine(src []byte, fn func(line []byte, n, off int)) {
	for n, start := 1, 0; start < len(src); n++ {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src) - start
		}
		fn(src[start:start+end], n, start)
		start += end + 1
	}
}

// joinRoute joins a prefix and a path segment with one slash.
func joinRoute(prefix, p string) string {
	j := strings.TrimRight(prefix, "/") + "/" + strings.TrimLeft(p, "/")
	if len(j) > 1 {
		j = strings.TrimRight(j, "/")
	}
	return j
}

// scanKtor follows the braces of a Ktor file: route("/a") { … } blocks
// prefix the routes inside them.
func scanKtor(src []byte) []scannedRoute {
	type block struct {
		depth  int
		prefix string
	}
	var out []scannedRoute
	stack := []block{{depth: -1}}
	depth := 0
	eachLine(src, func(l []byte, n, off int) {
		code := reStrLit.ReplaceAll(l, []byte(`""`))
		if i := bytes.Index(code, []byte("//")); i >= 0 {
			code = code[:i]
		}
		// the matches use the original line (for the strings) but only
		// where the stripped line still has a brace to open
		if bytes.IndexByte(code, '{') >= 0 {
			for _, m := range reKtorRoute.FindAllSubmatchIndex(l, -1) {
				call, p := string(l[m[2]:m[3]]), ""
				if m[4] >= 0 {
					p = string(l[m[4]:m[5]])
				}
				prefix := stack[len(stack)-1].prefix
				if call == "route" {
					// the block opens at this line's depth + 1
					stack = append(stack, block{depth: depth + 1, prefix: joinRoute(prefix, p)})
					continue
				}
				out = append(out, scannedRoute{method: strings.ToUpper(call), path: joinRoute(prefix, p), line: n, col: m[2] + 1, off: off + m[2]})
			}
		}
		for _, c := range code {
			switch c {
			case '{':
				depth++
			case '}':
				depth--
				for len(stack) > 1 && depth < stack[len(stack)-1].depth {
					stack = stack[:len(stack)-1]
				}
			}
		}
	})
	return out
}

// scanVapor reads a Vapor file's route calls, with the prefixes of the
// route builders made by grouped("a") and group("a") { b in }.
func scanVapor(src []byte) []scannedRoute {
	prefix := map[string]string{}
	segments := func(args []byte) string {
		p := "/"
		for _, m := range reSwiftStr.FindAllSubmatch(args, -1) {
			p = joinRoute(p, string(m[1]))
		}
		return p
	}
	var out []scannedRoute
	eachLine(src, func(l []byte, n, off int) {
		for _, m := range reVaporGroup.FindAllSubmatch(l, -1) {
			if len(m[1]) > 0 {
				prefix[string(m[1])] = joinRoute(prefix[string(m[2])], segments(m[3]))
			} else {
				prefix[string(m[6])] = joinRoute(prefix[string(m[4])], segments(m[5]))
			}
		}
		for _, m := range reVaporRoute.FindAllSubmatchIndex(l, -1) {
			var args []byte
			if m[6] >= 0 {
				args = l[m[6]:m[7]]
			}
			r := scannedRoute{method: strings.ToUpper(string(l[m[4]:m[5]])), line: n, col: m[4] + 1, off: off + m[4]}
			if u := reVaporUse.FindSubmatch(args); u != nil {
				r.use = string(u[1])
				args = args[:bytes.Index(args, []byte("use:"))]
			} else if m[8] < 0 {
				continue // neither a handler nor a closure: not a route
			}
			if len(bytes.TrimSpace(args)) > 0 && !bytes.Contains(args, []byte(`"`)) {
				continue // dict.get(key) {…}: no path segments
			}
			r.path = joinRoute(prefix[string(l[m[2]:m[3]])], segments(args))
			out = append(out, r)
		}
	})
	return out
}

// closureEntries lists the routes bound to closures in file p, each with
// the function the closure is written in.
func (t *tracer) closureEntries(ff *graph.FileFacts) []Entry {
	var out []Entry
	for _, r := range t.scanRoutes(ff.File.Path, ff.File.Lang) {
		if r.use != "" {
			continue
		}
		f := t.enclosingOffset(ff, r.off)
		reg := t.at(ff.File.Path, r.line, r.col)
		label := r.method + " " + r.path
		t.routes = append(t.routes, route{method: r.method, path: normPath(r.path), label: label, handler: f.ID})
		out = append(out, Entry{Kind: "http", Label: label, Func: *f, Registered: &reg})
	}
	return out
}

// scannedRouteAt is the route bound with use: name on line of file p.
func (t *tracer) scannedRouteAt(p string, line int, name string) *scannedRoute {
	f, err := t.file(p)
	if err != nil || f.Lang != graph.LangSwift {
		return nil
	}
	for _, r := range t.scanRoutes(p, f.Lang) {
		if r.line == line && r.use == name {
			return &r
		}
	}
	return nil
}

// firstClosureRoute is the first route bound to a closure inside s.
func (t *tracer) firstClosureRoute(s *graph.Symbol) *scannedRoute {
	if s.Lang != graph.LangKotlin && s.Lang != graph.LangSwift {
		return nil
	}
	for _, r := range t.scanRoutes(s.Path, s.Lang) {
		if r.use == "" && r.off >= int(s.Range.StartByte) && r.off < int(s.Range.EndByte) {
			return &r
		}
	}
	return nil
}

// scalaAppBases are the traits an object extends to be a program: the
// standard library's App, cats-effect's IOApp and ZIO's ZIOAppDefault.
var scalaAppBases = []string{"App", "IOApp", "IOApp.Simple", "ZIOAppDefault", "ZIOApp"}

// isLangMain: a JVM main in a Scala or Kotlin object, Scala's @main def
// and object … extends App, Swift's @main type.
func isLangMain(s *graph.Symbol, head string) bool {
	switch s.Lang {
	case graph.LangScala:
		return s.Name == "main" && s.Kind == graph.KindMethod && strings.Contains(s.Signature, "Array[String]") ||
			s.Kind.IsCallable() && reAtMain.MatchString(head) ||
			strings.HasPrefix(s.Signature, "object ") && slices.ContainsFunc(s.Extends, func(e string) bool { return slices.Contains(scalaAppBases, e) })
	case graph.LangKotlin:
		return s.Name == "main" && s.Kind == graph.KindMethod && strings.Contains(s.Signature, "Array<String>")
	case graph.LangSwift:
		return !s.Kind.IsCallable() && reAtMain.MatchString(head)
	}
	return false
}

// playRoute is a line of Play's conf/routes.
type playRoute struct {
	method, path, controller, action string
	at                               Loc
}

// playControllerNames are names a Play controller mentions: the base
// classes and Action.
var playControllerNames = []string{"Controller", "BaseController", "AbstractController", "InjectedController", "Action"}

// playRoutes reads the conf/routes files of the Play applications (the
// directories holding app/controllers), once.
func (t *tracer) playRoutes() ([]playRoute, error) {
	if t.playLoaded {
		return t.play, nil
	}
	roots := map[string]bool{}
	if t.meta.Languages[graph.LangScala]+t.meta.Languages[graph.LangJava] > 0 {
		for _, name := range playControllerNames {
			files, err := t.r.FilesMentioning(t.ctx, name)
			if err != nil {
				return nil, err
			}
			for _, p := range files {
				if !strings.HasSuffix(p, ".scala") && !strings.HasSuffix(p, ".java") {
					continue
				}
				if i := strings.Index("/"+p, "/app/controllers/"); i >= 0 {
					roots[path.Join(p[:i], "conf/routes")] = true
				}
			}
		}
	}
	t.playLoaded = true
	for p := range roots {
		src := t.readFile(p) // not indexed: no language reads it
		eachLine(src, func(l []byte, n, _ int) {
			m := rePlayRoute.FindSubmatch(l)
			if m == nil {
				return
			}
			method := string(m[1])
			if method == "*" {
				method = "ANY"
			}
			t.play = append(t.play, playRoute{method: method, path: string(m[2]), controller: lastName(string(m[3])), action: string(m[4]),
				at: t.at(p, n, bytes.Index(l, m[1])+1)})
		})
	}
	slices.SortFunc(t.play, func(a, b playRoute) int {
		return cmp.Or(strings.Compare(a.at.Path, b.at.Path), a.at.StartLine-b.at.StartLine)
	})
	return t.play, nil
}

// playAction is the route Play binds to s, a controller action.
func (t *tracer) playAction(s *graph.Symbol) (*playRoute, error) {
	if s.Lang != graph.LangScala && s.Lang != graph.LangJava || !strings.Contains("/"+s.Path, "/app/controllers/") {
		return nil, nil
	}
	rs, err := t.playRoutes()
	if err != nil {
		return nil, err
	}
	for i := range rs {
		if rs[i].action == s.Name && rs[i].controller == lastName(s.Container) {
			return &rs[i], nil
		}
	}
	return nil, nil
}

// headText is the text of s's definition down to its name's line: its
// decorators, annotations and attributes.
func (t *tracer) headText(s *graph.Symbol) string {
	var head strings.Builder
	for l := int(s.Range.StartLine); l <= int(s.NameRange.StartLine); l++ {
		head.WriteString(t.lineText(s.Path, l))
		head.WriteByte('\n')
	}
	return head.String()
}

// langEntryCandidates adds the definitions that may be Kotlin, Scala or
// Swift mains (mains holds the definitions named main) and the
// controller actions Play's routes bind.
func (t *tracer) langEntryCandidates(mains []graph.Symbol, in func(string) bool, add func(graph.SymbolID)) error {
	for _, s := range mains {
		if s.Name == "main" && (s.Lang == graph.LangKotlin || s.Lang == graph.LangScala) && s.Kind == graph.KindMethod && in(s.Path) {
			add(s.ID)
		}
	}
	// @main is an occurrence of main; App, IOApp … of what an object extends
	for _, name := range []string{"main", "App", "IOApp", "ZIOAppDefault", "ZIOApp"} {
		files, err := t.r.FilesMentioning(t.ctx, name)
		if err != nil {
			return err
		}
		for _, p := range files {
			if !in(p) || !strings.HasSuffix(p, ".scala") && !strings.HasSuffix(p, ".sc") && !strings.HasSuffix(p, ".swift") {
				continue
			}
			ff, err := t.fileFacts(p)
			if err != nil {
				return err
			}
			for i := range ff.Symbols {
				if s := &ff.Symbols[i]; s.Container == "" && isLangMain(s, t.headText(s)) {
					add(s.ID)
				}
			}
		}
	}
	play, err := t.playRoutes()
	if err != nil {
		return err
	}
	for _, pr := range play {
		acts, err := t.r.SymbolsByName(t.ctx, pr.action)
		if err != nil {
			return err
		}
		for _, s := range acts {
			if (s.Lang == graph.LangScala || s.Lang == graph.LangJava) && s.Name == pr.action && lastName(s.Container) == pr.controller && in(s.Path) {
				add(s.ID)
			}
		}
	}
	return nil
}

// swiftMains lists the main.swift files: their top-level code is the
// program (looked for only when the index holds Swift).
func (t *tracer) swiftMains(in func(string) bool) ([]Entry, error) {
	if t.meta.Languages[graph.LangSwift] == 0 {
		return nil, nil
	}
	files, err := t.r.Files(t.ctx)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, f := range files {
		if f.Lang == graph.LangSwift && path.Base(f.Path) == "main.swift" && in(f.Path) {
			out = append(out, Entry{Kind: "main", Label: f.Path + " (top level)", Func: *t.fileFunc(f.Path)})
		}
	}
	return out, nil
}
