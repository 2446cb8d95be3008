package impact

import (
	"path"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// Kotlin, Scala and Swift tests, as their usual runners select them:
//
//	Kotlin  gradle test --tests 'pkg.CartTest.adds'    (a class: 'pkg.CartTest')
//	Scala   sbt "testOnly pkg.CartSpec"                 (suites run whole)
//	Swift   swift test --filter 'CartTests/testAdd'     (a class: 'CartTests')
//
// each from the nearest directory holding the build file (build.gradle.kts
// or build.gradle, build.sbt, Package.swift).

type otherSel struct{ base, sel string }

// jvmSwiftSelector is the selector of one Kotlin, Scala or Swift test.
func jvmSwiftSelector(d *graph.Symbol) string {
	cls, method := d.Container, d.Name
	if d.Kind.IsType() {
		cls, method = joinDot(d.Container, d.Name), ""
	}
	if cls == "" {
		cls = strings.TrimSuffix(path.Base(d.Path), path.Ext(d.Path))
	}
	switch d.Lang {
	case graph.LangSwift:
		if method == "" {
			return cls
		}
		return cls + "/" + method
	case graph.LangScala:
		return joinDot(d.Package, cls) // ScalaTest runs suites, not single tests
	}
	return joinDot(joinDot(d.Package, cls), method)
}

func joinDot(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "." + b
}

// buildRoot is the directory a test's runner is started in.
func (s *selectors) buildRoot(d *graph.Symbol) string {
	dir := path.Dir(d.Path)
	var markers []string
	switch d.Lang {
	case graph.LangKotlin:
		markers = []string{"build.gradle.kts", "build.gradle", "settings.gradle.kts"}
	case graph.LangScala:
		markers = []string{"build.sbt"}
	case graph.LangSwift:
		markers = []string{"Package.swift"}
	}
	for _, m := range markers {
		if b := s.nearest(dir, m); b != "" {
			return b
		}
	}
	return ""
}

func otherCommands(other map[graph.Language][]otherSel) []string {
	var out []string
	for _, lang := range []graph.Language{graph.LangKotlin, graph.LangScala, graph.LangSwift} {
		byBase := map[string][]string{}
		for _, o := range other[lang] {
			byBase[o.base] = append(byBase[o.base], o.sel)
		}
		bases := sortedKeys(byBase)
		for _, base := range bases {
			sels := uniq(byBase[base])
			sort.Strings(sels)
			switch lang {
			case graph.LangKotlin:
				var ts []string
				for _, sel := range sels {
					ts = append(ts, "--tests '"+sel+"'")
				}
				out = append(out, cdPrefix(base)+"gradle test "+strings.Join(ts, " "))
			case graph.LangScala:
				out = append(out, cdPrefix(base)+`sbt "testOnly `+strings.Join(sels, " ")+`"`)
			case graph.LangSwift:
				for _, sel := range sels {
					out = append(out, cdPrefix(base)+"swift test --filter '"+sel+"'")
				}
			}
		}
	}
	return out
}
