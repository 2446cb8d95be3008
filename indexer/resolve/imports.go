package resolve

import (
	"path"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// ImportedDirs maps one import of the file from to the directories of the
// repository's files it names, by the rules the resolver follows when it
// resolves a name through that import; nil is an import of something
// outside the index (a library, the standard library):
//
//   - Go: the directory a go.mod of the repository claims for the import
//     path (SetGoModules); without any go.mod, the Go directory sharing
//     the longest suffix of at least two path elements with it;
//   - Python: the module's file (relative imports made absolute against
//     the file's own module), or the package's __init__.py; from pkg
//     import mod names pkg/mod.py when there is one;
//   - JavaScript and TypeScript: a relative specifier's file (with the
//     extensions and index files the resolver tries), a bare one's
//     monorepo package directory;
//   - Java, Kotlin and Scala: the directories of the files declaring the
//     imported package (or the package of the imported class); Swift: the
//     files of the imported module (a target directory);
//   - C and C++: an included header beside the file, else the indexed
//     file whose path ends with it;
//   - Ruby: a require_relative's file beside the file, a require's
//     indexed file ending with the feature (lib/ on the load path);
//   - PHP and C#: the files declaring the namespace a use or using names;
//   - Rust and the text-only kinds: none (nil).
func (x *Index) ImportedDirs(from *graph.File, im graph.Import) []string {
	files := x.importedFiles(from, im)
	var out []string
	for _, f := range files {
		if d := path.Dir(f); !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

func (x *Index) importedFiles(from *graph.File, im graph.Import) []string {
	mod := im.Module
	if mod == "" {
		return nil
	}
	switch from.Lang {
	case graph.LangGo:
		return x.goImportFiles(mod)
	case graph.LangPython:
		full := pythonModuleOf(from, mod)
		var tries []string
		if im.Name != "" && im.Name != "*" {
			tries = append(tries, full+"."+im.Name, full+"."+im.Name+".__init__")
		}
		tries = append(tries, full, full+".__init__")
		for _, m := range tries {
			if p, ok := x.pyModules[m]; ok {
				return []string{p}
			}
		}
		return nil
	case graph.LangTypeScript, graph.LangTSX, graph.LangJavaScript:
		out := x.jsModuleFiles(mod, from.Path)
		return sortedKeys(out)
	case graph.LangSwift:
		return x.packageFiles(from.Lang, mod)
	case graph.LangJava, graph.LangKotlin, graph.LangScala:
		pkg := mod
		if im.Name == "" && strings.Contains(mod, ".") {
			// import a.b.C: the class C of package a.b, unless a.b.C is
			// itself a package
			if x.packageFiles(from.Lang, mod) == nil {
				pkg = mod[:strings.LastIndexByte(mod, '.')]
			}
		}
		return x.packageFiles(from.Lang, pkg)
	case graph.LangRuby:
		return x.rubyRequireFiles(from, mod)
	case graph.LangPHP, graph.LangCSharp:
		// use A\B\C (module A\B, name C) and using A.B (module only): the
		// files declaring the namespace
		return x.packageFiles(from.Lang, mod)
	case graph.LangC, graph.LangCpp:
		if p := path.Join(path.Dir(from.Path), mod); x.files[p].Path != "" {
			return []string{p}
		}
		var out []string
		for p := range x.files {
			if strings.HasSuffix(p, "/"+mod) || p == mod {
				out = append(out, p)
			}
		}
		slices.Sort(out)
		return out
	}
	return nil
}

// goImportFiles is a Go import path's directory, as one file of it.
func (x *Index) goImportFiles(importPath string) []string {
	dir, ok := x.goImportDir(importPath)
	if !ok {
		if len(x.goMods) > 0 {
			return nil
		}
		ip := strings.Split(importPath, "/")
		best := 0
		for d := range x.goDirs {
			ds := strings.Split(d, "/")
			n := 0
			for n < len(ip) && n < len(ds) && ip[len(ip)-1-n] == ds[len(ds)-1-n] {
				n++
			}
			if n >= min(2, len(ip)) && (n > best || n == best && d < dir) {
				best, dir = n, d
			}
		}
		if best == 0 {
			if x.goTopLevel(ip, ip[len(ip)-1]) {
				dir = ip[len(ip)-1]
			} else if x.goTopLevel(ip, ".") {
				dir = "."
			} else {
				return nil
			}
		}
	}
	if !x.goDirs[dir] {
		return nil
	}
	return []string{path.Join(dir, "(go)")}
}

// packageFiles lists the files of one language family declaring package
// pkg (built once).
func (x *Index) packageFiles(lang graph.Language, pkg string) []string {
	x.pkgOnce.Do(func() {
		x.pkgs = map[graph.Language]map[string][]string{}
		for p, f := range x.files {
			if f.Package == "" {
				continue
			}
			fam := langFamily(f.Lang)
			if x.pkgs[fam] == nil {
				x.pkgs[fam] = map[string][]string{}
			}
			x.pkgs[fam][f.Package] = append(x.pkgs[fam][f.Package], p)
		}
	})
	return x.pkgs[langFamily(lang)][pkg]
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
