package resolve

import (
	"path"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

var jsBuiltinMembers = words(`push pop shift unshift slice splice concat join reverse sort indexOf lastIndexOf
	includes find findIndex filter map reduce reduceRight forEach some every flat flatMap fill keys values
	entries toString valueOf hasOwnProperty then catch finally resolve reject apply call bind
	split trim trimStart trimEnd toLowerCase toUpperCase startsWith endsWith replace replaceAll match
	matchAll padStart padEnd charAt charCodeAt substring substr repeat localeCompare normalize at
	get set has delete clear add size length test exec toFixed toISOString getTime stringify parse
	log warn error info debug assign freeze create defineProperty getPrototypeOf next return throw`)

// jsModuleMember finds the top-level definitions named name that a module
// exports, following re-exports (export * from, export { x } from) of
// barrel files a few levels deep.
func (c *fileCtx) jsModuleMember(cands []graph.Symbol, spec, name, from string, depth int) []graph.Symbol {
	files := c.jsModuleFiles(spec, from)
	in := filter(cands, func(s *graph.Symbol) bool { return s.Parent < 0 && files[s.Path] })
	if len(in) > 0 || depth >= 3 || c.x.Imports == nil || !strings.HasPrefix(spec, ".") {
		return in
	}
	paths := make([]string, 0, len(files))
	for f := range files {
		paths = append(paths, f)
	}
	slices.Sort(paths)
	for _, f := range paths {
		for _, im := range c.x.importsOf(f) {
			target := ""
			switch {
			case im.Alias == name && im.Name != "":
				target = im.Name // export { a as name } from
			case im.Name == name && im.Alias == "", im.Name == "" && im.Alias == "", im.Name == "*" && im.Alias == "":
				target = name // export { name } from, export * from
			default:
				continue
			}
			if got := c.jsModuleMember(c.x.entry(target).byLang(graph.LangTypeScript), im.Module, target, f, depth+1); len(got) > 0 {
				return got
			}
		}
	}
	return nil
}

// jsModuleFiles maps an import specifier, relative to the file from, to the
// files it can mean (TypeScript's ESM ".js" specifiers name ".ts" files).
func (c *fileCtx) jsModuleFiles(spec, from string) map[string]bool {
	return c.x.jsModuleFiles(spec, from)
}

func (x *Index) jsModuleFiles(spec, from string) map[string]bool {
	if !strings.HasPrefix(spec, ".") {
		return x.jsPackageFiles(spec)
	}
	out := map[string]bool{}
	base := path.Join(path.Dir(from), spec)
	base = strings.TrimSuffix(base, path.Ext(base))
	for _, ext := range []string{"", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".d.ts", "/index.ts", "/index.tsx", "/index.js"} {
		if _, ok := x.files[base+ext]; ok {
			out[base+ext] = true
		}
	}
	if _, ok := x.files[path.Join(path.Dir(from), spec)]; ok {
		out[path.Join(path.Dir(from), spec)] = true
	}
	return out
}

func isJSPath(p string) bool {
	switch path.Ext(p) {
	case ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts":
		return true
	}
	return false
}
