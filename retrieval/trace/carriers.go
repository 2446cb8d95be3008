package trace

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// fieldKinds are the symbol kinds that hold a value.
func fieldKind(k graph.SymbolKind) bool {
	switch k {
	case graph.KindField, graph.KindProperty, graph.KindVariable, graph.KindConstant, graph.KindEnumMember:
		return true
	}
	return false
}

var reTag = regexp.MustCompile(`(\w+):"([^"]*)"`)

func (t *tracer) addCarrier(s *graph.Symbol, primary bool) {
	if _, ok := t.byID[s.ID]; ok {
		return
	}
	c := &Carrier{Kind: "field", Name: s.QualifiedName(), Lang: s.Lang.String(), Symbol: s.ID, Primary: primary,
		Loc: t.loc(s.Path, s.NameRange), container: s.Container}
	if s.Container == "" {
		c.Kind = "variable"
	}
	if s.Kind.IsCallable() {
		c.Kind = "accessor"
	}
	// tags on the field's line: json:"artifact_url,omitempty" db:"artifact_url"
	if src := t.src(s.Path); src != nil && int(s.Range.EndByte) <= len(src) {
		line := t.lineText(s.Path, int(s.NameRange.StartLine))
		for _, m := range reTag.FindAllStringSubmatch(line, -1) {
			name := strings.Split(m[2], ",")[0]
			switch m[1] {
			case "json", "yaml", "msgpack", "xml", "form", "bson", "mapstructure":
				if name != "" && name != "-" && c.Wire == "" {
					c.Wire = name
				}
			case "db", "sql", "pg":
				if name != "" && name != "-" {
					c.Column = name
				}
			case "gorm":
				for _, part := range strings.Split(m[2], ";") {
					if col, ok := strings.CutPrefix(part, "column:"); ok {
						c.Column = col
					}
				}
			}
		}
	}
	if c.Wire == "" && (s.Lang == graph.LangTypeScript || s.Lang == graph.LangTSX || s.Lang == graph.LangJavaScript) && s.Container != "" {
		c.Wire = s.Name // a TypeScript member is its JSON key
	}
	t.carriers = append(t.carriers, c)
	t.byID[s.ID] = c
	t.byName[s.Name] = append(t.byName[s.Name], c)
}

// findCarriers collects the fields, properties and variables spelling the
// key, in every language.
func (t *tracer) findCarriers() error {
	seen := map[graph.SymbolID]bool{}
	var cands, accessors []graph.Symbol
	for _, sp := range spellings(t.key) {
		ss, err := t.r.SymbolsByName(t.ctx, sp)
		if err != nil {
			return err
		}
		for _, s := range ss {
			if seen[s.ID] || normalize(s.Name) != t.key {
				continue
			}
			seen[s.ID] = true
			switch {
			case fieldKind(s.Kind):
				cands = append(cands, s)
			case s.Kind.IsCallable() && s.Container != "":
				// a builder or fluent accessor named like the field: status("new")
				accessors = append(accessors, s)
			}
		}
	}
	if len(cands) == 0 && t.qual != "" {
		// "Task.Artifact" for Task.ArtifactURL: a field of the type whose
		// name starts with the words asked for
		types, err := t.r.SymbolsByName(t.ctx, t.qual[strings.LastIndexByte(t.qual, '.')+1:])
		if err != nil {
			return err
		}
		for _, ty := range types {
			if !ty.Kind.IsType() {
				continue
			}
			ss, err := t.r.SymbolsInFile(t.ctx, ty.Path)
			if err != nil {
				return err
			}
			for _, s := range ss {
				if s.Container == ty.Name && fieldKind(s.Kind) && strings.HasPrefix(normalize(s.Name)+" ", t.key+" ") {
					if nk := normalize(s.Name); nk != t.key {
						t.key = nk
						return t.findCarriers()
					}
					// spelled as asked, but not found by name (a name the
					// store's index spells otherwise): take it as it is,
					// never ask again for the same key
					cands = append(cands, s)
				}
			}
		}
	}
	for i := range cands {
		p := t.qual == "" || typeMatches(cands[i].Container, t.qual)
		if t.dotted != "" {
			p = false
		}
		t.addCarrier(&cands[i], p)
	}
	for i := range accessors {
		t.addCarrier(&accessors[i], t.qual == "" || typeMatches(accessors[i].Container, t.qual))
	}
	// setters, getters and builder methods of the key
	for _, pre := range []string{"set", "get", "with", "is", "has"} {
		for _, sp := range spellings(pre + " " + t.key) {
			if strings.Contains(sp, "-") {
				continue
			}
			ss, err := t.r.SymbolsByName(t.ctx, sp)
			if err != nil {
				return err
			}
			for _, s := range ss {
				if !seen[s.ID] && s.Kind.IsCallable() && s.Container != "" {
					seen[s.ID] = true
					t.addCarrier(&s, t.qual == "" || typeMatches(s.Container, t.qual))
				}
			}
		}
	}
	return nil
}

// unresolvedCarrier stands for "one of these fields": an occurrence whose
// receiver's type is unknown.
func (t *tracer) unresolvedCarrier(name string, cs []*Carrier) *Carrier {
	var owners []string
	for _, c := range cs {
		owners = append(owners, c.container)
	}
	return &Carrier{Kind: cs[0].Kind, Name: name + " (one of " + strings.Join(owners, ", ") + ")", of: cs}
}

// column returns the carrier of table.column, creating it.
func (t *tracer) column(table, col string) *Carrier {
	k := strings.ToLower(table)
	if c, ok := t.columns[k]; ok {
		return c
	}
	c := &Carrier{Kind: "column", Name: table + "." + col, Table: table, Column: col, Lang: "sql",
		Primary: t.qual != "" && typeMatches(table, t.qual) || t.qual == ""}
	t.columns[k] = c
	t.carriers = append(t.carriers, c)
	return c
}

func (t *tracer) keyCarrier(kind, name string, lang graph.Language) *Carrier {
	for _, c := range t.carriers {
		if c.Kind == kind && c.Name == name {
			return c
		}
	}
	c := &Carrier{Kind: kind, Name: name, Lang: lang.String(), Primary: t.qual == ""}
	t.carriers = append(t.carriers, c)
	return c
}

// persistedTypes links types to the tables their values are loaded from:
// a struct scanned from a SELECT of the table, or tagged with its columns
// and named like it.
func (t *tracer) persistedTypes() {
	seen := map[string]bool{}
	var tables []string
	for _, c := range t.columns {
		if !seen[c.Table] {
			seen[c.Table] = true
			tables = append(tables, c.Table)
		}
	}
	// when several tables match a type (edges and gen_edges for Edge), the
	// one named closest to it wins: the shortest name, then the first in
	// order — never whichever a map happened to yield last
	slices.SortFunc(tables, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	for _, c := range t.carriers {
		if c.Kind != "field" || c.container == "" {
			continue
		}
		for _, tbl := range tables {
			if typeMatches(c.container, tbl) && (c.Column != "" || normalize(c.Name[strings.LastIndexByte(c.Name, '.')+1:]) == t.key) {
				c.Table = tbl
				break
			}
		}
	}
	// a row scanned into a field, in a function that selects from a table
	for _, s := range t.sites {
		if !s.Load || s.carrier == nil || s.carrier.Kind != "field" || s.Func == nil {
			continue
		}
		for _, o := range t.sites {
			if o.carrier != nil && o.carrier.Kind == "column" && o.Func != nil && o.Func.ID == s.Func.ID && o.Load && s.carrier.Table == "" {
				s.carrier.Table = o.carrier.Table // the first one found; a table named like the type won above
			}
		}
	}
}

// scope keeps, when the target named a type or table, the carriers that
// are linked to what it named: the same JSON key or column across a
// language or serialization boundary, or a function that touches both
// (a mapper, a loader, a handler). Other fields that merely share the
// name, and their sites, are left out.
func (t *tracer) scope() {
	linked := map[*Carrier]bool{}
	for _, c := range t.carriers {
		if c.Primary && c.Kind != "key" && c.Kind != "config" {
			linked[c] = true
		}
	}
	if t.qual == "" || len(linked) == 0 {
		return
	}
	siteFns := map[*Carrier]map[graph.SymbolID]bool{}
	for _, s := range t.sites {
		if s.Func == nil || s.Func.ID == "" {
			continue
		}
		if siteFns[s.carrier] == nil {
			siteFns[s.carrier] = map[graph.SymbolID]bool{}
		}
		siteFns[s.carrier][s.Func.ID] = true
	}
	for round := 0; round < 4; round++ {
		wires := map[string][]*Carrier{}
		fns := map[graph.SymbolID]bool{}
		tables := map[string]bool{}
		for c := range linked {
			for _, k := range []string{c.Wire, c.Column} {
				if k != "" {
					wires[normalize(k)] = append(wires[normalize(k)], c)
				}
			}
			for f := range siteFns[c] {
				fns[f] = true
			}
			if c.Table != "" {
				tables[strings.ToLower(c.Table)] = true
			}
			if c.container != "" {
				tables[strings.ToLower(c.container)] = true
			}
		}
		grew := false
		for _, c := range t.carriers {
			if linked[c] {
				continue
			}
			ok := false
			for _, l := range wires[normalize(c.Wire)] {
				if c.Wire != "" && (l.Lang != c.Lang || t.tagged(c) && t.tagged(l)) {
					ok = true
				}
			}
			for l := range linked {
				if l.container != "" && strings.HasPrefix(c.container, l.container+".") {
					ok = true // a nested builder or value class of the type
				}
			}
			if (c.Kind == "key" || c.Kind == "config") && len(wires[normalize(c.Name)]) > 0 {
				ok = true // the same key as a linked field's JSON name or column
			}
			if c.Kind == "column" {
				for tb := range tables {
					if typeMatches(c.Table, tb) {
						ok = true
					}
				}
			}
			for f := range siteFns[c] {
				if fns[f] {
					ok = true
				}
			}
			if ok {
				linked[c] = true
				grew = true
			}
		}
		if !grew {
			break
		}
	}
	// sites of unresolved spellings count when their function touches a
	// linked carrier too
	fns := map[graph.SymbolID]bool{}
	for c := range linked {
		for f := range siteFns[c] {
			fns[f] = true
		}
	}
	var keep []*Carrier
	for _, c := range t.carriers {
		if linked[c] {
			keep = append(keep, c)
			continue
		}
		delete(t.byID, c.Symbol)
		if c.Kind == "column" {
			delete(t.columns, strings.ToLower(c.Table))
		}
	}
	dropped := len(t.carriers) - len(keep)
	t.carriers = keep
	var sites []*Site
	for _, s := range t.sites {
		if linked[s.carrier] || s.carrier != nil && len(s.carrier.of) > 0 && (s.Func != nil && fns[s.Func.ID] || slices.ContainsFunc(s.carrier.of, func(c *Carrier) bool { return linked[c] })) {
			sites = append(sites, s)
		}
	}
	t.sites = sites
	if dropped > 0 {
		t.warn(fmt.Sprintf("%d other fields or keys share the name but are not linked to %s (no shared key, column or function): left out; trace the bare name to see them all", dropped, t.target))
	}
}
