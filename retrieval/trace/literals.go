package trace

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// A TypeScript mapper builds its output as an object literal typed by a
// view type: by the function's declared result (function toView(t: Task):
// TaskView { return {…} }, an arrow function's too), a variable's
// annotation (const v: TaskView = {…}), or satisfies / as TaskView. The
// literal's keys are writes the index cannot tie to the view's fields (an
// object literal names no type), so the dropped rule's field edges never
// see them: literalGaps reads the same facts another way.

var (
	// reLiteralCast: the type occurrence follows "satisfies" or "as".
	reLiteralCast = regexp.MustCompile(`(?:^|[^\w$.])(?:satisfies|as)\s+$`)
	// reLiteralInit: an annotation followed by an object literal (the
	// type's generic arguments or array brackets would come first).
	reLiteralInit = regexp.MustCompile(`^\s*=\s*\(?\s*\{`)
	// reQuotedKey: an object literal key written as a string.
	reQuotedKey = regexp.MustCompile(`["']([\w$-]+)["']\s*:`)
	// reSpread: a spread or Object.assign copies fields the facts do not
	// name one by one.
	// reReturnsLiteral: the function returns an object literal.
	reReturnsLiteral = regexp.MustCompile(`\breturn\s*\(?\s*\{|=>\s*\(\s*\{`)
	reSpread         = regexp.MustCompile(`\.\.\.\s*[\w$(]|\bObject\s*\.\s*assign\b`)
	reTypeName       = regexp.MustCompile(`[A-Za-z_$][\w$]*`)
)

func scriptLang(l graph.Language) bool {
	return l == graph.LangTypeScript || l == graph.LangTSX || l == graph.LangJavaScript
}

// literalGaps finds TypeScript and JavaScript mappers that read fields of
// a carrier's type and build, as an object literal typed by a view type,
// a value of a type that has a field for the key (in any spelling) without
// setting that key: the function writes no key of that name at all, by
// the literal, a member assignment or a quoted key, and spreads nothing
// into it. Functions in skip (found by the field-edge rule) are left out.
func (t *tracer) literalGaps(skip map[graph.SymbolID]bool) ([]Gap, error) {
	var out []Gap
	done := map[graph.SymbolID]bool{}
	seen := map[string]bool{}
	for _, c := range t.carriers {
		if c.Kind != "field" || c.container == "" || c.Symbol == "" || !scriptLangName(c.Lang) || seen[c.Path+"|"+c.container] {
			continue
		}
		seen[c.Path+"|"+c.container] = true
		if len(seen) > 40 {
			break
		}
		fs, err := t.typeFields(c)
		if err != nil {
			return nil, err
		}
		reads, err := t.touches(fs, graph.EdgeReads)
		if err != nil {
			return nil, err
		}
		fns := make([]graph.SymbolID, 0, len(reads))
		for fn := range reads {
			fns = append(fns, fn)
		}
		slices.Sort(fns)
		for _, fn := range fns {
			if skip[fn] || done[fn] {
				continue
			}
			g, err := t.literalGap(c, fn, reads[fn])
			if err != nil {
				return nil, err
			}
			if g != nil {
				done[fn] = true
				out = append(out, *g)
			}
		}
	}
	return out, nil
}

func scriptLangName(l string) bool {
	return l == graph.LangTypeScript.String() || l == graph.LangTSX.String() || l == graph.LangJavaScript.String()
}

// literalGap applies the rule to one function that reads the fields rd of
// c's type.
func (t *tracer) literalGap(c *Carrier, fn graph.SymbolID, rd map[string]bool) (*Gap, error) {
	sym := t.symbol(fn)
	if sym == nil || !sym.Kind.IsCallable() || !scriptLang(sym.Lang) {
		return nil, nil
	}
	ff, err := t.fileFacts(sym.Path)
	if err != nil {
		return nil, err
	}
	src := t.src(sym.Path)
	if src == nil || int(sym.Range.EndByte) > len(src) {
		return nil, nil
	}
	body := src[sym.Range.StartByte:sym.Range.EndByte]
	if reSpread.Match(body) {
		return nil, nil
	}
	// the keys the function sets, by any means
	written := map[string]bool{}
	for _, o := range ff.Occurrences {
		if o.Role&graph.RoleWrite != 0 && sym.Range.Contains(o.Range) {
			written[normalize(o.Name)] = true
		}
	}
	for _, m := range reQuotedKey.FindAllSubmatch(body, -1) {
		written[normalize(string(m[1]))] = true
	}
	if written[t.key] {
		return nil, nil
	}
	result := map[string]bool{} // the declared result's type names
	if reReturnsLiteral.Match(body) {
		for _, id := range reTypeName.FindAllString(sym.Type, -1) {
			result[id] = true
		}
	}
	// the view types that type an object literal here
	var views []*graph.Symbol
	for _, o := range ff.Occurrences {
		if o.Role&graph.RoleTypeUse == 0 || o.Symbol == "" || !sym.Range.Contains(o.Range) || int(o.Range.EndByte) > len(src) {
			continue
		}
		typed := result[o.Name] ||
			reLiteralCast.Match(src[max(int(sym.Range.StartByte), int(o.Range.StartByte)-16):o.Range.StartByte]) ||
			reLiteralInit.Match(src[o.Range.EndByte:min(len(src), int(o.Range.EndByte)+16)])
		if !typed {
			continue
		}
		v := t.symbol(o.Symbol)
		if v == nil || v.Kind.IsCallable() || fieldKind(v.Kind) || v.QualifiedName() == c.container && v.Path == c.Path ||
			slices.ContainsFunc(views, func(w *graph.Symbol) bool { return w.ID == v.ID }) {
			continue
		}
		views = append(views, v)
	}
	for _, v := range views {
		ss, err := t.r.SymbolsInFile(t.ctx, v.Path)
		if err != nil {
			return nil, err
		}
		var field *graph.Symbol
		var shared []string
		for i, s := range ss {
			if s.Container != v.QualifiedName() || !fieldKind(s.Kind) {
				continue
			}
			n := normalize(s.Name)
			switch {
			case n == t.key:
				field = &ss[i]
			case written[n] && rd[n]:
				shared = append(shared, n)
			}
		}
		if field == nil || len(shared) == 0 {
			continue // no field for the value, or not a mapper of c's type
		}
		sort.Strings(shared)
		what := "copies " + strings.Join(shared, ", ")
		var msg string
		if rd[t.key] {
			msg = fmt.Sprintf("%s maps %s to %s (%s) and reads %s but its object literal never sets %s", sym.QualifiedName(), c.container, v.QualifiedName(), what, c.Name, field.QualifiedName())
		} else {
			msg = fmt.Sprintf("%s maps %s to %s (%s) but drops %s: its object literal never sets %s", sym.QualifiedName(), c.container, v.QualifiedName(), what, c.Name, field.QualifiedName())
		}
		return &Gap{Kind: "dropped", Message: msg, Loc: t.loc(sym.Path, sym.NameRange), Func: t.funcOf(sym),
			Evidence: []Loc{c.Loc, t.loc(field.Path, field.NameRange)}, Certainty: t.certainty(), carrier: c, into: v.QualifiedName()}, nil
	}
	return nil, nil
}
