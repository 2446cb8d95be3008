package graph

import (
	"context"
	"path"
	"slices"
	"strings"
)

// SplitQualified splits "pkg.Type.Method" (or "pkg::f", "Type#m") into the
// qualifier "pkg.Type" and the name "Method".
func SplitQualified(q string) (qual, name string) {
	q = strings.TrimSpace(q)
	q = strings.ReplaceAll(q, "::", ".")
	q = strings.ReplaceAll(q, "#", ".")
	q = strings.TrimSuffix(q, "()")
	if i := strings.LastIndexByte(q, '.'); i > 0 && i < len(q)-1 {
		return q[:i], q[i+1:]
	}
	return "", q
}

// QualifierMatches reports whether sym can be what qual.name names: qual is
// a suffix (on dot boundaries) of the symbol's package-qualified container,
// e.g. "http" for net/http.ListenAndServe, "Server" or "http.Server" for
// Server.Serve, "models" for a Python function in django/db/models.py.
func QualifierMatches(sym *Symbol, qual string) bool {
	if qual == "" {
		return true
	}
	lq := strings.ToLower(qual)
	for _, cand := range qualifierForms(sym) {
		lc := strings.ToLower(cand)
		if lc == lq || strings.HasSuffix(lc, "."+lq) {
			return true
		}
	}
	return false
}

// qualifierForms lists the dotted spellings of a symbol's qualifier.
func qualifierForms(sym *Symbol) []string {
	var pkgs []string
	if sym.Package != "" {
		pkgs = append(pkgs, strings.ReplaceAll(sym.Package, "/", "."))
	}
	// A Go package is also named by its directory; a file by its base name.
	dir := path.Dir(sym.Path)
	if dir != "." {
		pkgs = append(pkgs, strings.ReplaceAll(dir, "/", "."))
	}
	base := strings.TrimSuffix(path.Base(sym.Path), path.Ext(sym.Path))
	pkgs = append(pkgs, strings.ReplaceAll(strings.TrimSuffix(sym.Path, path.Ext(sym.Path)), "/", "."), base)
	var out []string
	if sym.Container != "" {
		out = append(out, sym.Container)
		for _, p := range pkgs {
			out = append(out, p+"."+sym.Container)
		}
	} else {
		out = append(out, pkgs...)
	}
	return out
}

// FindDefinitions resolves a plain or qualified name to definitions. Exact-
// case matches win over case-insensitive ones; the result is in path order.
func FindDefinitions(ctx context.Context, r Reader, name string) ([]Symbol, error) {
	qual, base := SplitQualified(name)
	cands, err := r.SymbolsByName(ctx, base)
	if err != nil {
		return nil, err
	}
	var exact, folded []Symbol
	for i := range cands {
		s := &cands[i]
		if !QualifierMatches(s, qual) {
			continue
		}
		if s.Name == base {
			exact = append(exact, *s)
		} else {
			folded = append(folded, *s)
		}
	}
	if len(exact) > 0 {
		return exact, nil
	}
	return folded, nil
}

// Reference is an occurrence found by a references query, with its file.
type Reference struct {
	Occurrence
	Path string
	// EnclosingSymbol is the definition the occurrence sits in, if any.
	EnclosingSymbol *Symbol
	// Confidence says how the occurrence was tied to the definitions asked
	// for: precise or resolved when its symbol is known, name-only when only
	// its spelling matched.
	Confidence Confidence
}

// RefOptions narrow a references query.
type RefOptions struct {
	// IncludeDefinitions keeps definition occurrences in the result.
	IncludeDefinitions bool
	// Roles, when non-zero, keeps occurrences having any of these roles.
	Roles Role
}

// FindReferences returns the definitions a name resolves to
// (FindDefinitions) and their uses (ReferencesTo).
func FindReferences(ctx context.Context, r Reader, name string, opts RefOptions) ([]Symbol, []Reference, error) {
	defs, err := FindDefinitions(ctx, r, name)
	if err != nil {
		return nil, nil, err
	}
	refs, err := ReferencesTo(ctx, r, defs, name, opts)
	return defs, refs, err
}

// ReferencesTo returns the uses of defs, in path and position order, by one
// rule: an occurrence resolved to one of defs counts (confidence precise
// from SCIP, else resolved); one resolved to any other symbol does not; an
// unresolved occurrence spelled like defs' names counts as name-only (x.Serve
// when asked for Server.Serve is kept, since x may well be a Server), unless
// the resolver found it names something outside the index
// (Occurrence.Outside), a SCIP index covering the file gave it no symbol
// (no guesses among precise facts), or, in Go, its form rules the definitions out (a
// selector x.F is no package-level definition, a bare F no method). With no
// defs (a library's name), the uses are the unresolved occurrences spelled
// like name, and when name is qualified (reflect.PtrTo, np.asscalar) those
// selected from that very qualifier: nothing in the index defines it, and
// the qualifier as written is the package the code imported.
func ReferencesTo(ctx context.Context, r Reader, defs []Symbol, name string, opts RefOptions) ([]Reference, error) {
	qual, base := SplitQualified(name)
	names := []string{base}
	ids := map[SymbolID]bool{}
	if len(defs) > 0 {
		names = names[:0]
		for _, d := range defs {
			ids[d.ID] = true
			if !slices.Contains(names, d.Name) {
				names = append(names, d.Name)
			}
		}
	}
	type at struct {
		path  string
		start uint32
	}
	seen := map[at]bool{}
	var out []Reference
	for _, n := range names {
		files, err := r.FilesMentioning(ctx, n)
		if err != nil {
			return nil, err
		}
		for _, p := range files {
			ff, err := r.FileFacts(ctx, p)
			if err != nil {
				return nil, err
			}
			for _, o := range ff.Occurrences {
				if o.Name != n || seen[at{p, o.Range.StartByte}] {
					continue
				}
				if o.Role&RoleDefinition != 0 && !opts.IncludeDefinitions {
					continue
				}
				if opts.Roles != 0 && o.Role&opts.Roles == 0 {
					continue
				}
				ref := Reference{Occurrence: o, Path: p}
				switch {
				case o.Symbol != "" && ids[o.Symbol]:
					ref.Confidence = ConfResolved
					if !o.Symbol.IsHeuristic() {
						ref.Confidence = ConfPrecise
					}
				case o.Symbol != "":
					continue // resolved to another definition
				case o.Outside() && len(defs) > 0:
					continue // resolved to something outside the index
				case ff.File.SCIP != "" && len(defs) > 0:
					continue // the SCIP index covering the file gave it no symbol: no guess
				case len(defs) == 0 && qual != "" && o.Qualifier != qual:
					continue // a library's name: selected from the qualifier asked for
				case ff.File.Lang == LangGo && !goCouldBe(defs, &o):
					continue
				default:
					ref.Confidence = ConfNameOnly
				}
				if o.Enclosing >= 0 && int(o.Enclosing) < len(ff.Symbols) {
					s := ff.Symbols[o.Enclosing]
					ref.EnclosingSymbol = &s
				}
				seen[at{p, o.Range.StartByte}] = true
				out = append(out, ref)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Reference) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return int(a.Range.StartByte) - int(b.Range.StartByte)
	})
	return out, nil
}

// goCouldBe reports whether an unresolved Go use may be one of defs by its
// form: a selector x.F is never a package-level definition (the resolver
// resolves a package qualifier through the file's imports, and pkg.F of a
// package outside the index is Outside), and a bare F is never a method.
func goCouldBe(defs []Symbol, o *Occurrence) bool {
	if len(defs) == 0 {
		return true
	}
	for i := range defs {
		d := &defs[i]
		if d.Lang != LangGo {
			return true
		}
		method := d.Kind == KindMethod || d.Container != ""
		if method == (o.Qualifier != "") {
			return true
		}
	}
	return false
}
