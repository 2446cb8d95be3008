package impact

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/ini.v1"

	"github.com/cairn-dev/cairn/graph"
)

// pytestConfig is what pytest collects, as a project configures it: the
// rootdir's ini-file (the first of pytest.ini, .pytest.ini, pyproject.toml
// with [tool.pytest.ini_options], tox.ini with [pytest], setup.cfg with
// [tool:pytest], looking up from the test's directory — pytest's own
// order) and its python_files, python_classes, python_functions and
// testpaths, with pytest's defaults.
type pytestConfig struct {
	Root      string // the rootdir, repository-relative ("." for the root)
	Files     []string
	Classes   []string
	Functions []string
	TestPaths []string
}

var pytestDefaults = pytestConfig{
	Root: ".", Files: []string{"test_*.py", "*_test.py"}, Classes: []string{"Test"}, Functions: []string{"test"},
}

// pytestFor finds the configuration that governs the tests in dir.
func (s *selectors) pytestFor(dir string) *pytestConfig {
	if c, ok := s.pytest[dir]; ok {
		return c
	}
	var c *pytestConfig
	for d := dir; ; d = path.Dir(d) {
		if c = s.pytestIn(d); c != nil {
			break
		}
		if d == "." || d == "/" || d == "" {
			break
		}
	}
	if c == nil {
		def := pytestDefaults
		if py := s.nearest(dir, "pyproject.toml"); py != "" {
			def.Root = py // no pytest section: pytest's rootdir is still the project's
		}
		c = &def
	}
	s.pytest[dir] = c
	return c
}

// pytestIn reads the ini-file of directory d, nil when d holds none that
// configures pytest.
func (s *selectors) pytestIn(d string) *pytestConfig {
	opts := map[string]string{}
	found := false
	for _, name := range []string{"pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"} {
		b, err := s.files.ReadFile(path.Join(d, name))
		if err != nil {
			continue
		}
		switch name {
		case "pyproject.toml":
			var doc struct {
				Tool struct {
					Pytest struct {
						Options map[string]any `toml:"ini_options"`
					} `toml:"pytest"`
				} `toml:"tool"`
			}
			if _, err := toml.Decode(string(b), &doc); err != nil || doc.Tool.Pytest.Options == nil {
				continue
			}
			found = true
			for k, v := range doc.Tool.Pytest.Options {
				switch v := v.(type) {
				case string:
					opts[k] = v
				case []any:
					var parts []string
					for _, x := range v {
						if s, ok := x.(string); ok {
							parts = append(parts, s)
						}
					}
					opts[k] = strings.Join(parts, " ")
				}
			}
		default:
			f, err := ini.LoadSources(ini.LoadOptions{AllowPythonMultilineValues: true, IgnoreInlineComment: false, Insensitive: false}, b)
			if err != nil {
				continue
			}
			section := "pytest"
			if name == "setup.cfg" {
				section = "tool:pytest"
			}
			sec, err := f.GetSection(section)
			if err != nil {
				if name == "pytest.ini" || name == ".pytest.ini" {
					found = true // pytest.ini is the rootdir's ini-file even without a section
				} else {
					continue
				}
			} else {
				found = true
				for _, k := range sec.Keys() {
					opts[k.Name()] = k.Value()
				}
			}
		}
		if found {
			break
		}
	}
	if !found {
		return nil
	}
	c := pytestDefaults
	c.Root = d
	for key, dst := range map[string]*[]string{"python_files": &c.Files, "python_classes": &c.Classes, "python_functions": &c.Functions, "testpaths": &c.TestPaths} {
		if v, ok := opts[key]; ok {
			*dst = strings.Fields(v)
		}
	}
	return &c
}

// matchName is pytest's rule for python_classes and python_functions: a
// pattern with a glob character is matched as a glob, any other is a
// prefix.
func matchName(patterns []string, name string) bool {
	for _, p := range patterns {
		if strings.ContainsAny(p, "*?[") {
			if ok, _ := path.Match(p, name); ok {
				return true
			}
		} else if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// collectsFile reports whether pytest, run from the rootdir as configured,
// collects the test module p (repository-relative): its base name matches
// python_files, and it lies under one of the testpaths when they are set.
func (c *pytestConfig) collectsFile(p string) bool {
	b := path.Base(p)
	if b == "conftest.py" {
		return false
	}
	ok := false
	for _, g := range c.Files {
		if m, _ := path.Match(g, b); m {
			ok = true
			break
		}
	}
	if !ok || len(c.TestPaths) == 0 {
		return ok
	}
	r := rel(c.Root, p)
	for _, tp := range c.TestPaths {
		tp = strings.TrimSuffix(strings.TrimPrefix(path.Clean(tp), "./"), "/")
		if tp == "." || r == tp || strings.HasPrefix(r, tp+"/") {
			return true
		}
		if m, _ := doublestar.Match(tp+"/**", r); m {
			return true
		}
	}
	return false
}

// pycollect returns the pytest node ids that run d, nil when pytest as
// configured collects none. A module-level function is a test when its
// module is collected and its name matches python_functions. A method runs
// once per collected class that has it: its own class and every subclass
// that does not override it (a base or mixin class pytest never collects,
// StoreIOBase, is run only through TestStoreIOJSON(StoreIOBase)). A class is
// collected when its module is and it is a unittest.TestCase subclass (any
// name; its methods named test*), or its name matches python_classes and
// it has no __init__; a nested class only inside a collected one.
func (s *selectors) pycollect(ctx context.Context, d *graph.Symbol) ([]string, error) {
	cfg := s.pytestFor(path.Dir(d.Path))
	switch {
	case d.Kind == graph.KindClass:
		ok, err := s.collectsClass(ctx, d, 0)
		if !ok || err != nil {
			return nil, err
		}
		return []string{d.Path + "::" + strings.ReplaceAll(d.QualifiedName(), ".", "::")}, nil
	case !d.Kind.IsCallable() || d.Kind == graph.KindConstructor:
		return nil, nil
	case d.Container == "":
		if cfg.collectsFile(d.Path) && matchName(cfg.Functions, d.Name) {
			return []string{d.Path + "::" + d.Name}, nil
		}
		return nil, nil
	}
	cls, err := s.symbolNamed(ctx, d.Path, d.Container)
	if err != nil || cls == nil || cls.Kind != graph.KindClass {
		return nil, err
	}
	classes := []*graph.Symbol{cls}
	subs, err := graph.Implementations(ctx, s.r, []graph.SymbolID{cls.ID}, 5)
	if err != nil {
		return nil, err
	}
	for _, h := range subs {
		if h.Def != nil && h.Def.Kind == graph.KindClass && h.Via.Kind == graph.EdgeExtends {
			classes = append(classes, h.Def)
		}
	}
	var ids []string
	for _, k := range classes {
		if k != cls {
			own, err := s.symbolNamed(ctx, k.Path, k.QualifiedName()+"."+d.Name)
			if err != nil {
				return nil, err
			}
			if own != nil {
				continue // overridden: the subclass runs its own
			}
		}
		ok, err := s.collectsClass(ctx, k, 0)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		unit, err := s.isUnittest(ctx, k, 0)
		if err != nil {
			return nil, err
		}
		if unit && !strings.HasPrefix(d.Name, "test") || !unit && !matchName(s.pytestFor(path.Dir(k.Path)).Functions, d.Name) {
			continue
		}
		ids = append(ids, k.Path+"::"+strings.ReplaceAll(k.QualifiedName(), ".", "::")+"::"+d.Name)
	}
	return uniq(ids), nil
}

// collectsClass reports whether pytest collects class k.
func (s *selectors) collectsClass(ctx context.Context, k *graph.Symbol, depth int) (bool, error) {
	if !s.pytestFor(path.Dir(k.Path)).collectsFile(k.Path) || depth > 8 {
		return false, nil
	}
	if k.Container != "" {
		outer, err := s.symbolNamed(ctx, k.Path, k.Container)
		if err != nil || outer == nil || outer.Kind != graph.KindClass {
			return false, err
		}
		if ok, err := s.collectsClass(ctx, outer, depth+1); !ok || err != nil {
			return false, err
		}
	}
	unit, err := s.isUnittest(ctx, k, 0)
	if err != nil || unit {
		return unit, err
	}
	if !matchName(s.pytestFor(path.Dir(k.Path)).Classes, k.Name) {
		return false, nil
	}
	init, err := s.symbolNamed(ctx, k.Path, k.QualifiedName()+".__init__")
	return init == nil, err // pytest skips a test class with an __init__
}

// isUnittest reports whether class k derives from unittest.TestCase (a
// base spelled …TestCase, directly or through the repository's classes).
func (s *selectors) isUnittest(ctx context.Context, k *graph.Symbol, depth int) (bool, error) {
	if v, ok := s.unit[k.ID]; ok {
		return v, nil
	}
	s.unit[k.ID] = false // cycles
	for _, b := range k.Extends {
		if i := strings.IndexAny(b, "[("); i >= 0 {
			b = b[:i]
		}
		if b = b[strings.LastIndexByte(b, '.')+1:]; strings.HasSuffix(b, "TestCase") {
			s.unit[k.ID] = true
			return true, nil
		}
	}
	if depth > 8 {
		return false, nil
	}
	es, err := s.r.Edges(ctx, []graph.SymbolID{k.ID}, graph.Out, graph.EdgeExtends)
	if err != nil {
		return false, err
	}
	for _, e := range es {
		ss, err := s.r.SymbolsByID(ctx, e.To)
		if err != nil {
			return false, err
		}
		for i := range ss {
			if ok, err := s.isUnittest(ctx, &ss[i], depth+1); ok || err != nil {
				s.unit[k.ID] = ok
				return ok, err
			}
		}
	}
	return false, nil
}

// symbolNamed finds the definition of file p with the qualified name q.
func (s *selectors) symbolNamed(ctx context.Context, p, q string) (*graph.Symbol, error) {
	ff, ok := s.facts[p]
	if !ok {
		var err error
		if ff, err = s.r.FileFacts(ctx, p); err != nil {
			return nil, fmt.Errorf("read facts of %s: %w", p, err)
		}
		s.facts[p] = ff
	}
	if ff == nil {
		return nil, nil
	}
	for i := range ff.Symbols {
		if ff.Symbols[i].QualifiedName() == q {
			return &ff.Symbols[i], nil
		}
	}
	return nil, nil
}
