package impact

import (
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// selectors turns tests into the commands that run exactly them, per the
// conventions of each language's usual runner.
type selectors struct {
	files Files
	found map[string]string // dir+"|"+marker → nearest dir holding the marker
	lang  map[graph.SymbolID]graph.Language
	info  map[graph.SymbolID]*graph.Symbol
}

func newSelectors(files Files) *selectors {
	return &selectors{files: files, found: map[string]string{}, lang: map[graph.SymbolID]graph.Language{}, info: map[graph.SymbolID]*graph.Symbol{}}
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

// selector names one test for its runner.
func (s *selectors) selector(d *graph.Symbol) string {
	if d == nil {
		return ""
	}
	s.lang[d.ID] = d.Lang
	s.info[d.ID] = d
	switch d.Lang {
	case graph.LangGo:
		mod := s.nearest(path.Dir(d.Path), "go.mod")
		pkg := "./" + rel(mod, path.Dir(d.Path))
		if pkg == "./" || pkg == "./." {
			pkg = "."
		}
		flag := "-run"
		if strings.HasPrefix(d.Name, "Benchmark") {
			flag = "-run '^$' -bench"
		}
		return strings.TrimSpace(cdPrefix(mod) + "go test " + pkg + " " + flag + " '^" + regexp.QuoteMeta(d.Name) + "$'")
	case graph.LangPython:
		id := d.Path
		if d.Container != "" {
			id += "::" + strings.ReplaceAll(d.Container, ".", "::")
		}
		return id + "::" + d.Name
	case graph.LangJava:
		cls := d.Container
		if i := strings.LastIndexByte(cls, '.'); i >= 0 {
			cls = cls[i+1:]
		}
		if cls == "" {
			cls = strings.TrimSuffix(path.Base(d.Path), ".java")
		}
		return cls + "#" + d.Name
	case graph.LangRust:
		return d.Name
	}
	return d.Path
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
			base := s.nearest(path.Dir(d.Path), "pyproject.toml")
			if base == "" {
				base = "."
			}
			pyIDs[base] = append(pyIDs[base], rel(base, t.Selector))
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
		out = append(out, cdPrefix(base)+"python -m pytest "+strings.Join(uniq(pyIDs[base]), " "))
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
	return out
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
