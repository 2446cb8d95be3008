package trace

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

var gapOrder = map[string]int{"dropped": 0, "not-persisted": 1, "never-written": 2, "never-read": 3}

// typeFields lists the fields of the type a carrier belongs to.
func (t *tracer) typeFields(c *Carrier) ([]graph.Symbol, error) {
	ss, err := t.r.SymbolsInFile(t.ctx, c.Path)
	if err != nil {
		return nil, err
	}
	var out []graph.Symbol
	for _, s := range ss {
		if s.Container == c.container && fieldKind(s.Kind) {
			out = append(out, s)
		}
	}
	return out, nil
}

// touches maps each function to the normalized names of the given fields
// it reads (kind EdgeReads) or writes (EdgeWrites).
func (t *tracer) touches(fields []graph.Symbol, kind graph.EdgeKind) (map[graph.SymbolID]map[string]bool, error) {
	ids := make([]graph.SymbolID, len(fields))
	name := map[graph.SymbolID]string{}
	for i, f := range fields {
		ids[i] = f.ID
		name[f.ID] = normalize(f.Name)
	}
	es, err := t.r.Edges(t.ctx, ids, graph.In, kind)
	if err != nil {
		return nil, err
	}
	out := map[graph.SymbolID]map[string]bool{}
	for _, e := range es {
		if out[e.From] == nil {
			out[e.From] = map[string]bool{}
		}
		out[e.From][name[e.To]] = true
	}
	return out, nil
}

func (t *tracer) certainty() string {
	if t.uncertain {
		return "unknown"
	}
	return "certain"
}

func (t *tracer) gaps() ([]Gap, error) {
	var out []Gap
	g1, err := t.droppedGaps()
	if err != nil {
		return nil, err
	}
	out = append(out, g1...)
	mappers := map[graph.SymbolID]bool{}
	for _, g := range g1 {
		if g.Func != nil {
			mappers[g.Func.ID] = true
		}
	}
	gl, err := t.literalGaps(mappers)
	if err != nil {
		return nil, err
	}
	out = append(out, gl...)
	g2, err := t.persistGaps()
	if err != nil {
		return nil, err
	}
	out = append(out, g2...)
	g3, err := t.unwrittenUnread()
	if err != nil {
		return nil, err
	}
	out = append(out, g3...)
	slices.SortStableFunc(out, func(a, b Gap) int { return gapOrder[a.Kind] - gapOrder[b.Kind] })
	return out, nil
}

// droppedGaps finds mappers: functions that read fields of one carrier's
// type and write the same-named fields of another's, but not this one.
func (t *tracer) droppedGaps() ([]Gap, error) {
	type typ struct {
		c      *Carrier
		fields []graph.Symbol
	}
	var types []typ
	seen := map[string]bool{}
	for _, c := range t.carriers {
		if c.Kind != "field" || c.container == "" || c.Symbol == "" || seen[c.Path+"|"+c.container] {
			continue
		}
		seen[c.Path+"|"+c.container] = true
		fs, err := t.typeFields(c)
		if err != nil {
			return nil, err
		}
		types = append(types, typ{c, fs})
	}
	if len(types) > 40 {
		return nil, nil
	}
	omitted, err := t.omittedGaps(func(yield func(*Carrier, []graph.Symbol)) {
		for _, ty := range types {
			yield(ty.c, ty.fields)
		}
	})
	if err != nil || len(types) < 2 {
		return omitted, err
	}
	reads := make([]map[graph.SymbolID]map[string]bool, len(types))
	writes := make([]map[graph.SymbolID]map[string]bool, len(types))
	for i, ty := range types {
		var err error
		if reads[i], err = t.touches(ty.fields, graph.EdgeReads); err != nil {
			return nil, err
		}
		if writes[i], err = t.touches(ty.fields, graph.EdgeWrites); err != nil {
			return nil, err
		}
	}
	var out []Gap
	for a := range types {
		for b := range types {
			if a == b {
				continue
			}
			for fn, rd := range reads[a] {
				wr := writes[b][fn]
				if wr == nil {
					continue
				}
				var shared []string
				for n := range rd {
					if wr[n] && n != t.key {
						shared = append(shared, n)
					}
				}
				if len(shared) == 0 || rd[t.key] && wr[t.key] {
					continue
				}
				sort.Strings(shared)
				sym := t.symbol(fn)
				if sym == nil {
					continue
				}
				A, B := types[a].c, types[b].c
				what := "copies " + strings.Join(shared, ", ")
				var msg string
				switch {
				case rd[t.key]:
					msg = fmt.Sprintf("%s maps %s to %s (%s) and reads %s but never sets %s", sym.QualifiedName(), A.container, B.container, what, A.Name, B.Name)
				default:
					msg = fmt.Sprintf("%s maps %s to %s (%s) but drops %s: %s is never set here", sym.QualifiedName(), A.container, B.container, what, A.Name, B.Name)
				}
				out = append(out, Gap{Kind: "dropped", Message: msg, Loc: t.loc(sym.Path, sym.NameRange), Func: t.funcOf(sym),
					Evidence: []Loc{A.Loc, B.Loc}, Certainty: t.certainty(), carrier: A, into: B.container})
			}
		}
	}
	out = append(out, omitted...)
	slices.SortStableFunc(out, func(a, b Gap) int { return strings.Compare(a.Path+a.Message, b.Path+b.Message) })
	return out, nil
}

// omittedGaps finds mappers that build a value of a type with no field for
// the key at all: a function that reads fields of a carrier's type, not
// this one, and writes at least two same-named fields of another type
// (ToResponse builds TaskResponse{ID: t.ID, Status: t.Status}, and
// TaskResponse has no ArtifactURL). The value is dropped there; the gap
// puts the mapper on the read path.
func (t *tracer) omittedGaps(types func(yield func(*Carrier, []graph.Symbol))) ([]Gap, error) {
	carrierType := map[string]bool{}
	for _, c := range t.carriers {
		if c.Kind == "field" && c.container != "" {
			carrierType[c.Path+"|"+c.container] = true
		}
	}
	var out []Gap
	var failed error
	types(func(c *Carrier, fields []graph.Symbol) {
		if failed != nil || !c.Primary {
			return
		}
		reads, err := t.touches(fields, graph.EdgeReads)
		if err != nil {
			failed = err
			return
		}
		fns := make([]graph.SymbolID, 0, len(reads))
		for fn := range reads {
			fns = append(fns, fn)
		}
		slices.Sort(fns)
		for _, fn := range fns {
			rd := reads[fn]
			if rd[t.key] || len(rd) < 2 {
				continue
			}
			es, err := t.r.Edges(t.ctx, []graph.SymbolID{fn}, graph.Out, graph.EdgeWrites)
			if err != nil {
				failed = err
				return
			}
			shared := map[string]map[string]bool{}
			owner := map[string]*graph.Symbol{}
			for _, e := range es {
				f := t.symbol(e.To)
				if f == nil || !fieldKind(f.Kind) || f.Container == "" || f.Container == c.container {
					continue
				}
				k := f.Path + "|" + f.Container
				if carrierType[k] || !rd[normalize(f.Name)] {
					continue // a carrier's type: the dropped rule's
				}
				if shared[k] == nil {
					shared[k] = map[string]bool{}
				}
				shared[k][normalize(f.Name)] = true
				owner[k] = f
			}
			keys := make([]string, 0, len(shared))
			for k := range shared {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if len(shared[k]) < 2 {
					continue
				}
				sym := t.symbol(fn)
				if sym == nil {
					continue
				}
				names := make([]string, 0, len(shared[k]))
				for n := range shared[k] {
					names = append(names, n)
				}
				sort.Strings(names)
				b := owner[k]
				msg := fmt.Sprintf("%s maps %s to %s (copies %s) but %s has no field for %s: the value is dropped here", sym.QualifiedName(), c.container, b.Container, strings.Join(names, ", "), b.Container, c.Name)
				out = append(out, Gap{Kind: "dropped", Message: msg, Loc: t.loc(sym.Path, sym.NameRange), Func: t.funcOf(sym),
					Evidence: []Loc{c.Loc, t.loc(b.Path, b.NameRange)}, Certainty: t.certainty(), carrier: c, into: b.Container})
			}
		}
	})
	return out, failed
}

// saveCalls store a whole object, every field with it.
var saveCalls = map[string]bool{"save": true, "Save": true, "Create": true, "Updates": true, "persist": true, "Persist": true, "merge": true, "saveAndFlush": true, "bulk_create": true, "add": true, "Insert": true, "InsertOne": true, "ReplaceOne": true}

// persistGaps finds values set in memory on a type that is stored in a
// table, with no write of the column reachable from there; and columns
// read but never written.
func (t *tracer) persistGaps() ([]Gap, error) {
	var out []Gap
	for _, col := range t.columns {
		var colWrites, colReads []*Site
		for _, s := range t.sites {
			if s.carrier == col && s.Access == "write" {
				colWrites = append(colWrites, s)
			}
			if s.carrier == col && s.Access == "read" {
				colReads = append(colReads, s)
			}
		}
		unsaved := 0
		for _, w := range t.sites {
			if w.Access != "write" || w.Load || !storedIn(w.carrier, col.Table) || w.Func == nil || w.Func.ID == "" {
				continue
			}
			if !fromEntry(w) {
				continue // nothing known calls it: whether a caller stores it is unknown
			}
			reach, err := t.around(w.Func.ID, 3)
			if err != nil {
				return nil, err
			}
			stored := false
			for _, cw := range colWrites {
				if cw.Func != nil && reach[cw.Func.ID] {
					stored = true
				}
			}
			if !stored {
				if ok, err := t.savesObject(reach); err != nil {
					return nil, err
				} else if ok {
					stored = true
				}
			}
			if stored {
				// stored on some path; but the writer itself may persist
				// the value before it sets the field, or set it on a copy
				why, err := t.unpersistedInWriter(w, colWrites)
				if err != nil {
					return nil, err
				}
				if why == "" {
					continue
				}
				unsaved++
				out = append(out, Gap{Kind: "not-persisted", Message: fmt.Sprintf("%s is set in %s but never persisted: %s", w.Carrier, w.Func.Name, why),
					Loc: w.Loc, Func: w.Func, Evidence: []Loc{w.Loc}, Certainty: t.certainty()})
				continue
			}
			unsaved++
			ev, others := t.tableWrites(reach, col.Table)
			msg := fmt.Sprintf("%s is set in %s but never stored: no write of %s is reachable from here", w.Carrier, w.Func.Name, col.Name)
			if len(others) > 0 {
				msg += "; " + strings.Join(others, "; ") + " without " + col.Column
			}
			if len(colWrites) > 0 {
				msg += fmt.Sprintf(" (%s is written only on other paths, e.g. %s:%d)", col.Name, colWrites[0].Path, colWrites[0].StartLine)
			}
			out = append(out, Gap{Kind: "not-persisted", Message: msg, Loc: w.Loc, Func: w.Func, Evidence: ev, Certainty: t.certainty()})
		}
		if len(colWrites) == 0 && len(colReads) > 0 {
			r := colReads[0]
			msg := fmt.Sprintf("%s is read (%s in %s) but nothing in the indexed code writes it", col.Name, r.How, funcName(r.Func))
			var ev []Loc
			for _, rr := range colReads {
				ev = append(ev, rr.Loc)
			}
			out = append(out, Gap{Kind: "never-written", Message: msg, Loc: r.Loc, Func: r.Func, Evidence: ev, Certainty: t.certainty()})
		}
	}
	slices.SortStableFunc(out, func(a, b Gap) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// storedIn: a field carrier of a type stored in table, or an unresolved
// spelling that may be one (done.URL with done := *task).
func storedIn(c *Carrier, table string) bool {
	if c == nil {
		return false
	}
	if c.Kind == "field" && c.Table == table && table != "" {
		return true
	}
	for _, o := range c.of {
		if storedIn(o, table) {
			return true
		}
	}
	return false
}

var (
	// reQualifier is the expression a field is selected from, at the end
	// of the text before it: "done" in "\tdone.", "h.task" in "h.task.".
	reQualifier = regexp.MustCompile(`([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*\.\s*$`)
	// reAssign is a plain assignment of one name to another: x := y,
	// x = y, x := &y (the same value), or x := *y, x = copy(y) (a copy).
	reAssign = regexp.MustCompile(`(?m)\b([A-Za-z_$][\w$]*)\s*:?=\s*([&*]?)([A-Za-z_$][\w$]*)\s*;?\s*$`)
)

// unpersistedInWriter applies order and aliasing within the function that
// writes the field, when that function persists the value itself (it
// calls what writes the column, or saves a whole object): the write is
// persisted only by such a call after it that is given the written value
// (the variable the field is selected from, or a name assigned to or from
// it without a copy). It returns why not, or "" when persisted, or when
// the writer persists nothing itself (a setter whose caller saves).
func (t *tracer) unpersistedInWriter(w *Site, colWrites []*Site) (string, error) {
	sym := t.symbol(w.Func.ID)
	if sym == nil {
		return "", nil
	}
	src := t.src(sym.Path)
	if src == nil || int(sym.Range.EndByte) > len(src) || w.Path != sym.Path {
		return "", nil
	}
	ls := t.lineStarts(w.Path)
	if w.StartLine < 1 || w.StartLine > len(ls) {
		return "", nil
	}
	at := ls[w.StartLine-1] + w.Column - 1
	persisting := map[graph.SymbolID]bool{}
	for _, cw := range colWrites {
		if cw.Func != nil {
			persisting[cw.Func.ID] = true
		}
	}
	es, err := t.callEdges(w.Func.ID, graph.Out)
	if err != nil {
		return "", err
	}
	type call struct {
		off  int
		name string
		args string
		line int
	}
	var calls []call
	seen := map[uint32]bool{}
	for _, e := range es {
		if e.Path != sym.Path || seen[e.Range.StartByte] {
			continue
		}
		persists := persisting[e.To]
		if !persists {
			r, err := t.reachable(e.To, 3)
			if err != nil {
				return "", err
			}
			for id := range r {
				if persisting[id] {
					persists = true
				}
			}
			if !persists {
				if ok, err := t.savesObject(r); err != nil {
					return "", err
				} else if ok {
					persists = true
				}
			}
		}
		if !persists {
			continue
		}
		seen[e.Range.StartByte] = true
		name := "a call"
		if s := t.symbol(e.To); s != nil {
			name = s.QualifiedName()
		}
		calls = append(calls, call{off: int(e.Range.StartByte), name: name, args: callText(src, int(e.Range.StartByte), int(e.Range.EndByte)), line: int(e.Range.StartLine)})
	}
	// whole-object saves the index has no definition of (an ORM's
	// task.save())
	if ff, err := t.fileFacts(sym.Path); err == nil {
		for _, o := range ff.Occurrences {
			if o.Role&graph.RoleCall != 0 && saveCalls[o.Name] && sym.Range.Contains(o.Range) && !seen[o.Range.StartByte] {
				seen[o.Range.StartByte] = true
				calls = append(calls, call{off: int(o.Range.StartByte), name: strings.TrimPrefix(o.Qualifier+"."+o.Name, "."),
					args: callText(src, int(o.Range.StartByte), int(o.Range.EndByte)), line: int(o.Range.StartLine)})
			}
		}
	} else {
		return "", err
	}
	if len(calls) == 0 {
		return "", nil // the writer persists nothing itself: its callers may
	}
	slices.SortFunc(calls, func(a, b call) int { return a.off - b.off })
	body := string(src[sym.Range.StartByte:sym.Range.EndByte])
	v := ""
	if m := reQualifier.FindStringSubmatch(string(src[max(int(sym.Range.StartByte), ls[w.StartLine-1]):at])); m != nil {
		v = strings.Split(m[1], ".")[0]
	}
	names := map[string]bool{}
	var copied string
	if v != "" {
		names[v] = true
		for _, m := range reAssign.FindAllStringSubmatch(body, -1) {
			switch {
			case m[2] == "*" && m[1] == v:
				copied = m[3] // done := *task: a copy of task
			case m[2] == "*":
			case m[1] == v:
				names[m[3]] = true
			case m[3] == v:
				names[m[1]] = true
			}
		}
	}
	last := calls[len(calls)-1]
	var later []call
	for _, c := range calls {
		if c.off > at {
			later = append(later, c)
		}
	}
	if len(later) == 0 {
		return fmt.Sprintf("it is set after the last call that stores it here (%s at line %d)", last.name, last.line), nil
	}
	if v == "" {
		return "", nil // what the field belongs to is unknown: a later store may take it
	}
	for _, c := range later {
		for n := range names {
			if regexp.MustCompile(`(^|[^\w$])` + regexp.QuoteMeta(n) + `($|[^\w$])`).MatchString(c.args) {
				return "", nil
			}
		}
	}
	if copied != "" {
		return fmt.Sprintf("it is set on %s, a copy of %s, and only %s is stored (%s at line %d)", v, copied, copied, later[0].name, later[0].line), nil
	}
	return fmt.Sprintf("%s is not given to a call that stores it (%s at line %d stores something else)", v, later[0].name, later[0].line), nil
}

// callText is a call's receiver and arguments as written: the text from
// the start of the line's expression before the callee's name to the
// closing parenthesis after it (at most 400 bytes).
func callText(src []byte, start, end int) string {
	lo := start
	for lo > 0 && src[lo-1] != '\n' && start-lo < 200 {
		lo--
	}
	hi, depth := end, 0
	for hi < len(src) && hi-end < 400 {
		switch src[hi] {
		case '(':
			depth++
		case ')':
			depth--
		}
		hi++
		if depth == 0 && hi > end && src[hi-1] == ')' {
			break
		}
	}
	return string(src[lo:hi])
}

func funcName(f *Func) string {
	if f == nil {
		return "?"
	}
	return f.Name
}

// fromEntry: some entry point other than the function itself reaches the
// site, or the site is in an entry point.
func fromEntry(s *Site) bool {
	for _, p := range s.Paths {
		if p.Entry.Kind != "root" || len(p.Hops) > 1 {
			return true
		}
	}
	return false
}

// around is what may run with id on the stack: its callers up to depth
// levels, and everything they and id call, depth levels down. A value set
// in a setter is stored when the setter's caller goes on to save it.
func (t *tracer) around(id graph.SymbolID, depth int) (map[graph.SymbolID]bool, error) {
	ups := map[graph.SymbolID]bool{id: true}
	frontier := []graph.SymbolID{id}
	for d := 0; d < depth && len(frontier) > 0; d++ {
		var next []graph.SymbolID
		for _, f := range frontier {
			es, err := t.callersOf(f)
			if err != nil {
				return nil, err
			}
			for _, e := range es {
				if !ups[e.From] {
					ups[e.From] = true
					next = append(next, e.From)
				}
			}
		}
		frontier = next
	}
	out := map[graph.SymbolID]bool{}
	for a := range ups {
		r, err := t.reachable(a, depth)
		if err != nil {
			return nil, err
		}
		for k := range r {
			out[k] = true
		}
	}
	return out, nil
}

// reachable is id and what it calls, depth levels down.
func (t *tracer) reachable(id graph.SymbolID, depth int) (map[graph.SymbolID]bool, error) {
	out := map[graph.SymbolID]bool{id: true}
	frontier := []graph.SymbolID{id}
	for d := 0; d < depth && len(frontier) > 0; d++ {
		var next []graph.SymbolID
		for _, f := range frontier {
			cs, err := t.callees(f)
			if err != nil {
				return nil, err
			}
			for _, c := range cs {
				if !out[c.id] {
					out[c.id] = true
					next = append(next, c.id)
				}
			}
		}
		frontier = next
	}
	return out, nil
}

// savesObject: a function among reach stores a whole object (ORM save).
func (t *tracer) savesObject(reach map[graph.SymbolID]bool) (bool, error) {
	for id := range reach {
		sym := t.symbol(id)
		if sym == nil {
			continue
		}
		ff, err := t.fileFacts(sym.Path)
		if err != nil {
			return false, err
		}
		for _, o := range ff.Occurrences {
			if o.Role&graph.RoleCall != 0 && saveCalls[o.Name] && sym.Range.Contains(o.Range) {
				return true, nil
			}
		}
	}
	return false, nil
}

// tableWrites finds the SQL writes of a table in the functions of reach.
func (t *tracer) tableWrites(reach map[graph.SymbolID]bool, table string) ([]Loc, []string) {
	re := regexp.MustCompile(`(?is)\b(update\s+"?` + regexp.QuoteMeta(table) + `"?\s+set|insert\s+(?:or\s+\w+\s+)?into\s+"?` + regexp.QuoteMeta(table) + `"?)\b`)
	var locs []Loc
	var what []string
	ids := make([]graph.SymbolID, 0, len(reach))
	for id := range reach {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		sym := t.symbol(id)
		if sym == nil {
			continue
		}
		src := t.src(sym.Path)
		if src == nil || int(sym.Range.EndByte) > len(src) {
			continue
		}
		body := src[sym.Range.StartByte:sym.Range.EndByte]
		for _, m := range re.FindAllIndex(body, -1) {
			line, col := t.lineCol(sym.Path, int(sym.Range.StartByte)+m[0])
			locs = append(locs, t.at(sym.Path, line, col))
			verb := strings.ToUpper(strings.Fields(string(body[m[0]:m[1]]))[0])
			what = append(what, fmt.Sprintf("%s (%s:%d) %ss %s", sym.QualifiedName(), path.Base(sym.Path), line, strings.ToLower(verb), table))
		}
	}
	return locs, what
}

// unwrittenUnread finds values read where nothing writes them (a client
// field whose server counterpart is never set) and values written that
// nothing reads.
func (t *tracer) unwrittenUnread() ([]Gap, error) {
	writes := map[*Carrier][]*Site{}
	reads := map[*Carrier][]*Site{}
	unresolvedReads := map[string]bool{}
	for _, s := range t.sites {
		if s.carrier == nil {
			continue
		}
		if s.Access == "write" {
			writes[s.carrier] = append(writes[s.carrier], s)
		} else {
			reads[s.carrier] = append(reads[s.carrier], s)
		}
		if s.Access == "read" && strings.Contains(s.carrier.Name, "(one of") {
			unresolvedReads[strings.Fields(s.carrier.Name)[0]] = true
		}
	}
	var out []Gap
	for _, c := range t.carriers {
		if c.Kind != "field" || c.Symbol == "" {
			continue
		}
		name := c.Name[strings.LastIndexByte(c.Name, '.')+1:]
		switch {
		case len(reads[c]) > 0 && len(writes[c]) == 0 && c.Wire != "":
			// a consumer of a wire field: who sends it?
			var producers []*Carrier
			for _, p := range t.carriers {
				if p != c && p.Kind == "field" && p.Lang != c.Lang && p.Wire != "" && normalize(p.Wire) == normalize(c.Wire) {
					producers = append(producers, p)
				}
			}
			var silent []*Carrier
			live := 0
			for _, p := range producers {
				built, err := t.typeBuilt(p)
				if err != nil {
					return nil, err
				}
				if !built {
					continue // a request type, filled by decoding
				}
				live++
				if len(writes[p]) == 0 {
					silent = append(silent, p)
				}
			}
			if live > 0 && len(silent) == live {
				for _, p := range silent {
					r := reads[c][0]
					out = append(out, Gap{Kind: "never-written",
						Message: fmt.Sprintf("%s (sent as %q) is never set, yet %s reads %s (%s:%d)", p.Name, p.Wire, funcName(r.Func), c.Name, r.Path, r.StartLine),
						Loc:     p.Loc, Evidence: []Loc{r.Loc}, Certainty: t.certainty()})
				}
			}
		case len(writes[c]) > 0 && len(reads[c]) == 0 && !unresolvedReads[name] && !t.tagged(c):
			w := writes[c][0]
			how := w.How
			out = append(out, Gap{Kind: "never-read",
				Message: fmt.Sprintf("%s is written (%s in %s) but nothing reads it", c.Name, how, funcName(w.Func)),
				Loc:     w.Loc, Func: w.Func, Evidence: []Loc{c.Loc}, Certainty: t.certainty()})
		}
	}
	return out, nil
}

// tagged: the field carries a serialization tag (encoders read it).
func (t *tracer) tagged(c *Carrier) bool {
	return c.Wire != "" && (c.Lang == "go" || c.Lang == "rust" || c.Lang == "java")
}

// typeBuilt: some code sets fields of the carrier's type (it is built,
// not only decoded).
func (t *tracer) typeBuilt(c *Carrier) (bool, error) {
	fs, err := t.typeFields(c)
	if err != nil {
		return false, err
	}
	w, err := t.touches(fs, graph.EdgeWrites)
	return len(w) > 0, err
}

// dropSites puts the mappers of dropped gaps on the read side: a function
// that builds the output without the value is where the read path loses
// it, so it is a read site (Site.Drops) as well as a gap — a reader of the
// read side must not have to look in the gaps to find it.
func (t *tracer) dropSites(gaps []Gap) error {
	seen := map[graph.SymbolID]bool{}
	for _, g := range gaps {
		if g.Kind != "dropped" || g.Func == nil || g.Func.ID == "" || g.carrier == nil || seen[g.Func.ID] {
			continue
		}
		seen[g.Func.ID] = true
		s := &Site{Access: "read", Carrier: g.carrier.Name, How: "builds " + g.into + " without it: drops it (gap)",
			Loc: g.Loc, Confidence: graph.ConfResolved.String(), Func: g.Func, Drops: true, carrier: g.carrier}
		s.Snippet = t.snippet(g.Path, g.StartLine)
		t.addSite(s, g.Path, -g.StartLine) // not an occurrence: keyed by line
		if t.past() {
			continue // the time bound: the site without its paths
		}
		if err := t.pathsTo(s); err != nil {
			return err
		}
	}
	return nil
}
