package resolve

import (
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// qualifierType follows a qualifier chain to the types it can denote. It
// returns a module instead when the chain names an imported module. known
// reports that the qualifier was understood — its types found, or found to
// lie outside the repository (a standard-library type, a library base
// class) — so that an unresolved member must not be guessed by name.
func (c *fileCtx) qualifierType(steps []string, enc int32) (types []graph.Symbol, module string, conf graph.Confidence, known bool) {
	if len(steps) == 0 || len(steps) > 5 {
		return nil, "", 0, false
	}
	head := steps[0]
	conf = graph.ConfResolved
	call := strings.HasSuffix(head, "()")
	headName := strings.TrimSuffix(head, "()")
	switch {
	case slices.Contains(c.rules.selfWords, headName):
		t := c.enclosingType(enc)
		if t == nil {
			return nil, "", 0, false
		}
		types, known = []graph.Symbol{*t}, true
	case c.rules.superWord != "" && (head == c.rules.superWord || headName == c.rules.superWord):
		if t := c.enclosingType(enc); t != nil {
			types, known = c.x.supertypes(t), true
		}
	default:
		if bt, ok := c.bindingType(headName, enc); ok {
			if bt == "" {
				return nil, "", 0, false // an untyped local: nothing known
			}
			types, known = c.typeOfText(bt, enc), true
			break
		}
		if mod := c.moduleOf(steps); mod != "" {
			n := c.moduleSteps(steps)
			if n == len(steps) {
				return nil, mod, conf, true
			}
			// pkg.Type.member or pkg.var.member
			ts := c.moduleMember(mod, strings.TrimSuffix(steps[n], "()"))
			types, known = c.symbolsToTypes(ts, strings.HasSuffix(steps[n], "()")), true
			steps = steps[n:]
			break
		}
		// a type or a top-level value named by the head
		ts := c.resolveBare(headName, enc, graph.RoleRead)
		types = c.symbolsToTypes(ts, call)
		known = len(ts) > 0 && len(types) > 0
		for _, t := range ts {
			if t.conf < conf {
				conf = t.conf
			}
		}
	}
	for _, step := range steps[1:] {
		if len(types) == 0 {
			return nil, "", 0, known
		}
		name := strings.TrimSuffix(step, "()")
		var ms []graph.Symbol
		var embedded []graph.Symbol
		for i := range types {
			ms = append(ms, c.x.members(&types[i], name, 4)...)
			// Go's embedded fields are named by their type: l.Mem.Save()
			for _, ext := range types[i].Extends {
				if _, n := typeName(ext); n == name {
					embedded = append(embedded, c.typeInContext(ext, &types[i])...)
				}
			}
		}
		if len(ms) == 0 && len(embedded) > 0 {
			types = embedded
			continue
		}
		if len(ms) == 0 && c.rules.selfReturning[name] {
			continue // Account.find(id): still an Account
		}
		types = c.symbolsToTypes(one(ms, conf), strings.HasSuffix(step, "()"))
		if len(ms) > 0 && len(types) == 0 {
			known = false // an untyped field or result: nothing known further
		}
	}
	if len(types) > MaxCandidates {
		return nil, "", 0, false
	}
	return dedupeIDs(types), "", conf, known
}

// symbolsToTypes turns resolved symbols into the types of their values:
// a type stays itself (a static access, or a constructor when called), a
// field or variable gives its declared type, a function its result type.
func (c *fileCtx) symbolsToTypes(ts []target, called bool) []graph.Symbol {
	var out []graph.Symbol
	for _, t := range ts {
		s := t.sym
		switch {
		case s.Kind.IsType() || s.Kind == graph.KindNamespace || s.Kind == graph.KindModule:
			out = append(out, s) // members are reached through it
		case s.Kind.IsCallable():
			if s.Kind == graph.KindConstructor {
				if ty := c.x.ownerType(&s); ty != nil {
					out = append(out, *ty)
				}
				continue
			}
			if s.Type != "" {
				out = append(out, c.typeInContext(s.Type, &s)...)
			}
		default:
			if s.Type != "" {
				out = append(out, c.typeInContext(s.Type, &s)...)
			}
		}
	}
	return out
}

// typeOfText resolves a binding's type text in this file: a declared type,
// or "f()" — the result of calling f.
func (c *fileCtx) typeOfText(text string, enc int32) []graph.Symbol {
	if c.depth > 4 {
		return nil
	}
	c.depth++
	defer func() { c.depth-- }()
	if strings.HasSuffix(text, "()") {
		callee := strings.TrimSuffix(text, "()")
		steps := c.splitQual(callee)
		var ts []target
		if len(steps) == 1 {
			ts = c.resolveBare(steps[0], enc, graph.RoleCall)
		} else {
			ts = c.resolveMember(&graph.Occurrence{Name: strings.TrimSuffix(steps[len(steps)-1], "()"),
				Qualifier: strings.Join(steps[:len(steps)-1], "."), Enclosing: enc})
		}
		return c.symbolsToTypes(ts, true)
	}
	return symbolsOf(c.typeRef(text, enc))
}

func symbolsOf(ts []target) []graph.Symbol {
	out := make([]graph.Symbol, len(ts))
	for i, t := range ts {
		out[i] = t.sym
	}
	return out
}

// typeRef resolves a type as written in this file.
func (c *fileCtx) typeRef(text string, enc int32) []target {
	qual, name := typeName(text)
	if name == "" {
		return nil
	}
	if qual != "" {
		if mod := c.moduleOf(c.splitQual(qual)); mod != "" {
			return c.typesIn(c.moduleMember(mod, name))
		}
		// Outer.Inner or an unknown package: by name
		return nameOnly(c.sameLang(c.x.typesNamed(name)))
	}
	return c.typesIn(c.resolveBare(name, enc, graph.RoleTypeUse))
}

// heritageRefs resolves a supertype as written: the type it names, and
// in TypeScript, when that is a type alias or not defined in the
// repository (Omit, Pick, a WithRequired helper), the type given as its
// first argument too — interface A extends Omit<B, 'id'> is a B, for the
// reader looking for B's implementations. Each group is one reference's
// candidates.
func (c *fileCtx) heritageRefs(text string, enc int32) [][]target {
	var out [][]target
	for depth := 0; depth < 3 && text != ""; depth++ {
		ts := c.typeRef(text, enc)
		if len(ts) > 0 {
			out = append(out, ts)
		}
		lang := c.ff.File.Lang
		if lang != graph.LangTypeScript && lang != graph.LangTSX {
			break
		}
		for _, t := range ts {
			if t.sym.Kind != graph.KindTypeAlias {
				return out
			}
		}
		text = firstTypeArg(text)
	}
	return out
}

// firstTypeArg returns the first type argument of a generic type as
// written ("WithRequired<QueryOptions<A, B>, 'k'>" → "QueryOptions<A, B>"),
// or "".
func firstTypeArg(text string) string {
	open := strings.IndexAny(text, "<[")
	if open <= 0 {
		return ""
	}
	inner := strings.TrimSpace(text[open+1:])
	if j := topLevelIndex(inner, ','); j >= 0 {
		return strings.TrimSpace(inner[:j])
	}
	return strings.TrimSpace(strings.TrimRight(inner, ">] "))
}

func (c *fileCtx) typesIn(ts []target) []target {
	var out []target
	for _, t := range ts {
		if typeLike(&t.sym) {
			out = append(out, t)
		}
	}
	return out
}

// typeInContext resolves a type text found on symbol s (a field's declared
// type, a function's result type) in s's own file: with that file's imports
// and package, not this file's.
func (c *fileCtx) typeInContext(text string, s *graph.Symbol) []graph.Symbol {
	if s.Path == c.ff.File.Path {
		return symbolsOf(c.typeRef(text, -1))
	}
	other := c.x.contextOf(s.Path, c.r)
	if other == nil {
		return nil
	}
	other.depth = c.depth + 1
	if other.depth > 6 {
		return nil
	}
	return symbolsOf(other.typeRef(text, -1))
}

// ownerType returns the type a member belongs to.
func (x *Index) ownerType(m *graph.Symbol) *graph.Symbol {
	if m.Container == "" {
		return nil
	}
	for _, t := range x.typesNamed(lastComponent(m.Container)) {
		if strings.HasPrefix(string(m.ID), string(t.ID)) {
			t := t
			return &t
		}
	}
	return nil
}
