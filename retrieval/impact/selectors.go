package impact

import (
	"context"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// selectors turns tests into the commands that run exactly them, per the
// conventions of each language's usual runner.
type selectors struct {
	files  Files
	r      graph.Reader
	found  map[string]string // dir+"|"+marker → nearest dir holding the marker
	lang   map[graph.SymbolID]graph.Language
	info   map[graph.SymbolID]*graph.Symbol
	pytest map[string]*pytestConfig // dir → the configuration governing it
	facts  map[string]*graph.FileFacts
	unit   map[graph.SymbolID]bool // class → a unittest.TestCase subclass
}

func newSelectors(files Files, r graph.Reader) *selectors {
	return &selectors{files: files, r: r, found: map[string]string{}, lang: map[graph.SymbolID]graph.Language{}, info: map[graph.SymbolID]*graph.Symbol{},
		pytest: map[string]*pytestConfig{}, facts: map[string]*graph.FileFacts{}, unit: map[graph.SymbolID]bool{}}
}

// nearest returns the closest directory at or above dir (repository-
// relative) holding a file named marker, "." for the root, or "" if none.
func (s *selectors) nearest(dir, marker string) string {
	k := dir + "|" + marker
	if v, ok := s.found[k]; ok {
		return v
	}
	v := ""
	for d := dir; ; d = path.Dir(d) {
		if _, err := s.files.ReadFile(path.Join(d, marker)); err == nil {
			v = d
			break
		}
		if d == "." || d == "/" || d == "" {
			break
		}
	}
	s.found[k] = v
	return v
}

func rel(base, p string) string {
	if base == "." || base == "" {
		return p
	}
	return strings.TrimPrefix(strings.TrimPrefix(p, base), "/")
}

// collect returns the selectors that run d, nil when its runner does not
// run d as a test: Go's test functions by go test's rule
// (graph.GoTestKind), Python's by pytest's collection as configured
// (pycollect), others as the indexer marked them.
func (s *selectors) collect(ctx context.Context, d *graph.Symbol) ([]string, error) {
	s.lang[d.ID] = d.Lang
	s.info[d.ID] = d
	switch d.Lang {
	case graph.LangGo:
		if d.Kind != graph.KindFunction || graph.GoTestKind(d.Path, d.Name) == graph.GoNotTest {
			return nil, nil
		}
		mod := s.nearest(path.Dir(d.Path), "go.mod")
		pkg := "./" + rel(mod, path.Dir(d.Path))
		if pkg == "./" || pkg == "./." {
			pkg = "."
		}
		flag := "-run"
		if graph.GoTestKind(d.Path, d.Name) == graph.GoBenchmark {
			flag = "-run '^$' -bench"
		}
		return []string{strings.TrimSpace(cdPrefix(mod) + "go test " + pkg + " " + flag + " '^" + regexp.QuoteMeta(d.Name) + "$'")}, nil
	case graph.LangPython:
		return s.pycollect(ctx, d)
	}
	if !d.IsTest {
		return nil, nil
	}
	switch d.Lang {
	case graph.LangJava:
		cls := d.Container
		if i := strings.LastIndexByte(cls, '.'); i >= 0 {
			cls = cls[i+1:]
		}
		if cls == "" {
			cls = strings.TrimSuffix(path.Base(d.Path), ".java")
		}
		return []string{cls + "#" + d.Name}, nil
	case graph.LangRust:
		return []string{d.Name}, nil
	case graph.LangRuby:
		base := s.nearest(path.Dir(d.Path), "Gemfile")
		if strings.HasSuffix(d.Path, "_spec.rb") {
			return []string{rel(base, d.Path) + ":" + strconv.Itoa(int(d.Range.StartLine))}, nil // rspec FILE:LINE
		}
		return []string{rel(base, d.Path) + " -n " + d.Name}, nil // minitest
	case graph.LangPHP:
		return []string{d.Container + "::" + d.Name}, nil
	case graph.LangCSharp:
		return []string{strings.TrimPrefix(d.Package+"."+d.Container+"."+d.Name, ".")}, nil
	case graph.LangKotlin, graph.LangScala, graph.LangSwift:
		return []string{jvmSwiftSelector(d)}, nil
	}
	return []string{d.Path}, nil
}

// Long selections are grouped: a Go package with more than maxRunNames
// selected tests runs whole, a test file with more than maxFileIDs selected
// node ids is named as a file, and a pytest command line longer than
// maxCommand is split into several.
const (
	maxRunNames = 64
	maxFileIDs  = 16
	maxCommand  = 4000
)

// pytestArgs groups node ids into the arguments of pytest commands: the
// ids in file order, a file's ids replaced by the file when there are more
// than maxFileIDs of them, split so that no line passes maxCommand.
func pytestArgs(ids []string) []string {
	byFile := map[string][]string{}
	for _, id := range ids {
		f, _, _ := strings.Cut(id, "::")
		byFile[f] = append(byFile[f], id)
	}
	var out []string
	var line strings.Builder
	add := func(arg string) {
		if line.Len() > 0 && line.Len()+1+len(arg) > maxCommand {
			out = append(out, line.String())
			line.Reset()
		}
		if line.Len() > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(arg)
	}
	for _, f := range sortedKeys(byFile) {
		fids := byFile[f]
		sort.Strings(fids)
		whole := len(fids) > maxFileIDs
		for _, id := range fids {
			if id == f {
				whole = true // the file itself is selected
			}
		}
		if whole {
			add(f)
			continue
		}
		for _, id := range fids {
			add(id)
		}
	}
	if line.Len() > 0 {
		out = append(out, line.String())
	}
	return out
}

func cdPrefix(dir string) string {
	if dir == "" || dir == "." {
		return ""
	}
	return "cd " + dir + " && "
}

// commands groups tests into one command per package (Go), module root
// (Python, Java, Rust) or package.json (JavaScript, TypeScript).
func (s *selectors) commands(tests []Test) []string {
	goPkgs := map[string][]string{} // "cd mod && go test ./pkg" → names
	var goOrder []string
	pyIDs := map[string][]string{}
	jsFiles := map[string]map[string]bool{}
	javaSel := map[string][]string{}
	rustNames := map[string][]string{}
	rspec := map[string][]string{}    // Gemfile dir → FILE:LINE
	minitest := map[string][]string{} // "cd dir && ruby -Itest FILE" → names
	phpunit := map[string][]string{}  // file → methods
	dotnet := []string{}
	other := map[graph.Language][]otherSel{}
	for _, t := range tests {
		d := s.info[t.SymbolID]
		if d == nil {
			continue
		}
		switch d.Lang {
		case graph.LangGo:
			mod := s.nearest(path.Dir(d.Path), "go.mod")
			pkg := "./" + rel(mod, path.Dir(d.Path))
			k := cdPrefix(mod) + "go test " + pkg
			if _, ok := goPkgs[k]; !ok {
				goOrder = append(goOrder, k)
			}
			goPkgs[k] = append(goPkgs[k], regexp.QuoteMeta(d.Name))
		case graph.LangPython:
			base := s.pytestFor(path.Dir(d.Path)).Root
			ids := t.Selectors
			if len(ids) == 0 {
				ids = []string{t.Selector}
			}
			for _, id := range ids {
				pyIDs[base] = append(pyIDs[base], rel(base, id))
			}
		case graph.LangTypeScript, graph.LangTSX, graph.LangJavaScript:
			base := s.nearest(path.Dir(d.Path), "package.json")
			if jsFiles[base] == nil {
				jsFiles[base] = map[string]bool{}
			}
			jsFiles[base][rel(base, d.Path)] = true
		case graph.LangJava:
			base := s.nearest(path.Dir(d.Path), "pom.xml")
			if base == "" {
				base = s.nearest(path.Dir(d.Path), "build.gradle")
			}
			javaSel[base] = append(javaSel[base], t.Selector)
		case graph.LangRust:
			base := s.nearest(path.Dir(d.Path), "Cargo.toml")
			rustNames[base] = append(rustNames[base], d.Name)
		case graph.LangRuby:
			base := s.nearest(path.Dir(d.Path), "Gemfile")
			if strings.HasSuffix(d.Path, "_spec.rb") {
				rspec[base] = append(rspec[base], t.Selector)
			} else {
				k := cdPrefix(base) + "ruby -Itest " + rel(base, d.Path)
				minitest[k] = append(minitest[k], regexp.QuoteMeta(d.Name))
			}
		case graph.LangPHP:
			phpunit[d.Path] = append(phpunit[d.Path], d.Name)
		case graph.LangCSharp:
			dotnet = append(dotnet, "FullyQualifiedName~"+t.Selector)
		case graph.LangKotlin, graph.LangScala, graph.LangSwift:
			other[d.Lang] = append(other[d.Lang], otherSel{s.buildRoot(d), t.Selector})
		}
	}
	var out []string
	for _, k := range goOrder {
		var tests, benches []string
		whole := false
		for _, n := range uniq(goPkgs[k]) {
			switch {
			case n == "TestMain":
				whole = true // package setup reaches the change: every test runs through it
			case strings.HasPrefix(n, "Benchmark"):
				benches = append(benches, n)
			default:
				tests = append(tests, n)
			}
		}
		c := k
		switch {
		case whole:
		case len(tests) > maxRunNames:
			// too many to name: the package runs whole (the tests list
			// names each)
		case len(tests) > 0:
			c += " -run '^(" + strings.Join(tests, "|") + ")$'"
		default:
			c += " -run '^$'"
		}
		if len(benches) > 0 {
			c += " -bench '^(" + strings.Join(benches, "|") + ")$' -benchtime 1x"
		}
		out = append(out, c)
	}
	for _, base := range sortedKeys(pyIDs) {
		for _, args := range pytestArgs(uniq(pyIDs[base])) {
			out = append(out, cdPrefix(base)+"python -m pytest "+args)
		}
	}
	for _, base := range sortedKeys(jsFiles) {
		var fs []string
		for f := range jsFiles[base] {
			fs = append(fs, f)
		}
		sort.Strings(fs)
		out = append(out, cdPrefix(base)+s.jsRunner(base)+" "+strings.Join(fs, " "))
	}
	for _, base := range sortedKeys(javaSel) {
		if s.nearest(base, "pom.xml") == base && base != "" {
			out = append(out, cdPrefix(base)+"mvn -q test -Dtest='"+strings.Join(uniq(javaSel[base]), ",")+"'")
		} else {
			var ts []string
			for _, sel := range uniq(javaSel[base]) {
				ts = append(ts, "--tests '"+strings.ReplaceAll(sel, "#", ".")+"'")
			}
			out = append(out, cdPrefix(base)+"gradle test "+strings.Join(ts, " "))
		}
	}
	for _, base := range sortedKeys(rustNames) {
		for _, n := range uniq(rustNames[base]) {
			out = append(out, cdPrefix(base)+"cargo test "+n)
		}
	}
	for _, base := range sortedKeys(rspec) {
		out = append(out, cdPrefix(base)+"bundle exec rspec "+strings.Join(uniq(rspec[base]), " "))
	}
	for _, k := range sortedKeys(minitest) {
		out = append(out, k+" -n '/^("+strings.Join(uniq(minitest[k]), "|")+")$/'")
	}
	for _, f := range sortedKeys(phpunit) {
		out = append(out, "vendor/bin/phpunit --filter '/::("+strings.Join(uniq(phpunit[f]), "|")+")$/' "+f)
	}
	if len(dotnet) > 0 {
		sort.Strings(dotnet)
		out = append(out, "dotnet test --filter '"+strings.Join(uniq(dotnet), "|")+"'")
	}
	return append(out, otherCommands(other)...)
}

// jsRunner picks the test runner a package.json declares.
func (s *selectors) jsRunner(base string) string {
	b, _ := s.files.ReadFile(path.Join(base, "package.json"))
	switch {
	case strings.Contains(string(b), "\"vitest\""):
		return "npx vitest run"
	case strings.Contains(string(b), "\"jest\""):
		return "npx jest"
	case strings.Contains(string(b), "\"mocha\""):
		return "npx mocha"
	}
	return "node --test"
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
