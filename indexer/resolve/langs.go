package resolve

import (
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/cairn-dev/cairn/graph"
)

// The rules of Ruby, PHP and C#, the languages added after the first nine.
//
//   - Ruby: self and @x (the extractor gives @x the qualifier self) are the
//     enclosing class or module; a bare name may be a method of it; a
//     capitalised bare name is a constant, looked up through the lexical
//     nesting (Bank::Account inside module Bank) and then globally, which
//     is what Zeitwerk's autoloading of constant paths amounts to; require
//     binds no name. Modules count as types: include, extend and prepend
//     make a class implement them, and their methods are members of the
//     class. A call of an attribute (a.balance, a.balance = 1) reads or
//     writes it; a bare name that is a method calls it.
//   - PHP: $this, self and static are the enclosing class, parent its
//     superclass; members are reached through -> and ::; names resolve
//     through the namespace and use imports.
//   - C#: this and base as in Java; a bare name may be a member of the
//     enclosing type; types resolve through the namespace, its parents and
//     the namespaces opened by using directives.
var (
	rubyRules = &langRules{selfWords: []string{"self"}, superWord: "super", implicitMembers: true, bareWritesAreLocal: true,
		ctorNames: []string{"initialize"}, builtinMembers: rubyBuiltinMembers, qualSeps: []string{"::", "&."},
		uniformAccess: true, bareConstants: true, bareNamesGlobal: true,
		selfReturning: words(`new find find_by find_by! find_or_create_by find_or_initialize_by create create! first last take sole`)}
	phpRules = &langRules{selfWords: []string{"$this", "self", "static"}, superWord: "parent", bareWritesAreLocal: true, bareNamesGlobal: true,
		ctorNames: []string{"__construct"}, qualSeps: []string{"?->", "->", "::"}}
	csharpRules = &langRules{selfWords: []string{"this"}, superWord: "base", implicitMembers: true, namespaceImports: true,
		builtinMembers: csharpBuiltinMembers}
)

var rubyBuiltinMembers = words(`each map select reject find detect collect inject reduce each_with_index each_with_object
	first last size length count empty? any? all? none? include? key? keys values merge fetch dig push pop shift unshift
	to_s to_i to_a to_h to_sym inspect freeze dup clone join split strip gsub sub downcase upcase start_with? end_with?
	nil? is_a? respond_to? send public_send tap then call new class sort sort_by min max sum uniq flatten compact group_by
	puts print raise format`)

var csharpBuiltinMembers = words(`ToString Equals GetHashCode GetType Add Remove Contains Clear Count Any All First FirstOrDefault
	Where Select SelectMany OrderBy ToList ToArray ToDictionary TryGetValue ContainsKey Keys Values Length Substring Split Trim
	StartsWith EndsWith Replace Format Join Dispose ConfigureAwait Wait Result Invoke`)

// splitQual splits a qualifier into steps, at "." and the language's other
// member separators.
func (c *fileCtx) splitQual(q string) []string {
	for _, sep := range c.rules.qualSeps {
		q = strings.ReplaceAll(q, sep, ".")
	}
	return splitQualifier(strings.TrimPrefix(q, "."))
}

// typeLike: a type, or a Ruby module (a mixin has members and is
// implemented by the classes that include it).
func typeLike(s *graph.Symbol) bool {
	return s.Kind.IsType() || s.Lang == graph.LangRuby && s.Kind == graph.KindModule
}

func isConstName(name string) bool {
	return name != "" && unicode.IsUpper(rune(name[0]))
}

// rubyConstant resolves a capitalised bare name as Ruby does: the
// constants of the enclosing modules and classes, innermost first, then
// the constant of that name anywhere (top level or nested: a unique
// definition by name is what an autoloader would load).
func (c *fileCtx) rubyConstant(name string, enc int32) []target {
	if idx := c.topByName[name]; len(idx) > 0 {
		var ss []graph.Symbol
		for _, i := range idx {
			ss = append(ss, c.ff.Symbols[i])
		}
		return one(dedupeIDs(ss), graph.ConfResolved)
	}
	all := filter(c.x.entry(name).byLang(graph.LangRuby), func(s *graph.Symbol) bool {
		return typeLike(s) || s.Kind == graph.KindConstant
	})
	if len(all) == 0 {
		return nil
	}
	// lexical nesting: Bank.Account's constants, then Bank's
	var nest []string
	for s := enc; s >= 0; s = c.ff.Symbols[s].Parent {
		if typeLike(&c.ff.Symbols[s]) {
			nest = append(nest, joinContainer(c.ff.Symbols[s].Container, c.ff.Symbols[s].Name))
		}
	}
	for _, n := range nest {
		if in := filter(all, func(s *graph.Symbol) bool { return s.Container == n }); len(in) > 0 {
			return one(dedupeIDs(in), graph.ConfResolved)
		}
	}
	if top := filter(all, func(s *graph.Symbol) bool { return s.Container == "" }); len(top) > 0 {
		return one(dedupeIDs(top), graph.ConfResolved)
	}
	all = dedupeIDs(all)
	if len(all) == 1 {
		return one(all, graph.ConfResolved)
	}
	return nameOnly(all)
}

func joinContainer(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// namespaceMember resolves a bare name through C#'s namespaces: the
// file's namespace and its parents, then the namespaces its using
// directives open.
func (c *fileCtx) namespaceMember(name string, all []graph.Symbol) []target {
	all = filter(all, func(s *graph.Symbol) bool { return s.Parent < 0 })
	if len(all) == 0 {
		return nil
	}
	var spaces []string
	for ns := c.ff.File.Package; ns != ""; {
		spaces = append(spaces, ns)
		i := strings.LastIndexByte(ns, '.')
		if i < 0 {
			break
		}
		ns = ns[:i]
	}
	for _, ns := range spaces {
		if in := filter(all, func(s *graph.Symbol) bool { return s.Package == ns }); len(in) > 0 {
			return one(dedupeIDs(in), graph.ConfResolved)
		}
	}
	var opened []graph.Symbol
	for _, im := range c.ff.Imports {
		if im.Name == "" {
			opened = append(opened, filter(all, func(s *graph.Symbol) bool { return s.Package == im.Module })...)
		}
	}
	if opened = dedupeIDs(opened); len(opened) == 1 {
		return one(opened, graph.ConfResolved)
	}
	return nameOnly(opened)
}

// uniformRole adjusts a Ruby occurrence's role to its targets: x.balance
// parses as a call, but of an attribute it is a read (and self.balance = v
// a write); a bare name that is a method is a call.
func uniformRole(role graph.Role, ts []target) graph.Role {
	if len(ts) == 0 {
		return role
	}
	attrs, methods := 0, 0
	for _, t := range ts {
		switch t.sym.Kind {
		case graph.KindField, graph.KindProperty, graph.KindVariable, graph.KindConstant:
			attrs++
		case graph.KindMethod, graph.KindFunction:
			methods++
		}
	}
	switch {
	case attrs == len(ts) && role&graph.RoleCall != 0:
		role &^= graph.RoleCall
		if role&graph.RoleWrite == 0 {
			role |= graph.RoleRead
		}
	case methods == len(ts) && role == graph.RoleRead:
		role = graph.RoleCall
	}
	return role
}

// rubyAttrWriters are the ActiveRecord methods whose keyword arguments,
// called on self (update(balance: 0) in a model), write the model's
// attributes of those names.
var rubyAttrWriters = map[string]bool{"update": true, "update!": true, "update_columns": true, "update_attributes": true,
	"assign_attributes": true, "update_column": true, "write_attribute": true}

// selfAttributeWrite resolves a keyword argument of a bare attribute
// writer in Ruby to the enclosing class's attribute.
func (c *fileCtx) selfAttributeWrite(steps []string, o *graph.Occurrence) []target {
	if !c.rules.uniformAccess || len(steps) != 1 || !rubyAttrWriters[strings.TrimSuffix(steps[0], "()")] {
		return nil
	}
	t := c.enclosingType(o.Enclosing)
	if t == nil {
		return nil
	}
	var ts []target
	for _, m := range c.x.members(t, o.Name, 4) {
		switch m.Kind {
		case graph.KindField, graph.KindProperty:
			ts = append(ts, target{sym: m, conf: graph.ConfResolved})
		}
	}
	return ts
}

// rubyRequireFiles is the file a require names: require_relative's
// ("./x", beside the file), else the indexed file whose path ends with
// the feature (lib/ on the load path).
func (x *Index) rubyRequireFiles(from *graph.File, mod string) []string {
	feature := mod
	if !strings.HasSuffix(feature, ".rb") {
		feature += ".rb"
	}
	if strings.HasPrefix(mod, ".") {
		if p := path.Join(path.Dir(from.Path), feature); x.files[p].Path != "" {
			return []string{p}
		}
		return nil
	}
	var out []string
	for p, f := range x.files {
		if f.Lang == graph.LangRuby && (p == feature || strings.HasSuffix(p, "/"+feature)) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}
