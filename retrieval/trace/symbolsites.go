package trace

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// symbolSites records the occurrences of the carriers: from the graph's
// read, write and call edges into them (each with the function it is in),
// then, when few files mention the carriers' names, from those files'
// occurrences, which adds the unresolved ones no edge was made for.
func (t *tracer) symbolSites() error {
	var ids []graph.SymbolID
	for id := range t.byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if len(ids) > 0 {
		es, err := t.r.Edges(t.ctx, ids, graph.In, graph.EdgeReads, graph.EdgeWrites, graph.EdgeCalls)
		if err != nil {
			return err
		}
		from := make([]graph.SymbolID, len(es))
		for i, e := range es {
			from[i] = e.From
		}
		t.prefetch(from)
		// a read+write occurrence gives two edges: the write speaks for it
		slices.SortStableFunc(es, func(a, b graph.Edge) int {
			if a.Kind == graph.EdgeWrites && b.Kind != graph.EdgeWrites {
				return -1
			}
			if b.Kind == graph.EdgeWrites && a.Kind != graph.EdgeWrites {
				return 1
			}
			return 0
		})
		for _, e := range es {
			c := t.byID[e.To]
			if c == nil {
				continue
			}
			var role graph.Role
			switch e.Kind {
			case graph.EdgeWrites:
				role = graph.RoleWrite
			case graph.EdgeReads:
				role = graph.RoleRead
			case graph.EdgeCalls:
				role = graph.RoleCall
			}
			name := c.Name[strings.LastIndexByte(c.Name, '.')+1:]
			o := graph.Occurrence{Name: name, Range: e.Range, Role: role, Symbol: e.To}
			conf := e.Confidence
			if e.Ambiguous {
				var cs []*Carrier
				for _, x := range t.byName[name] {
					if (x.Kind == "accessor") == (role == graph.RoleCall) {
						cs = append(cs, x)
					}
				}
				if len(cs) > 1 {
					c = t.unresolvedCarrier(name, cs)
				}
				conf = graph.ConfNameOnly
			}
			var fn *Func
			if sym := t.symbol(e.From); sym != nil && sym.Kind.IsCallable() {
				fn = t.funcOf(sym)
			} else if sym != nil && sym.Kind == graph.KindModule {
				fn = t.fileFunc(e.Path)
			}
			t.addSymbolSite(e.Path, &o, c, conf, fn)
		}
	}
	names := make([]string, 0, len(t.byName))
	for n := range t.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	byName := map[string][]string{}
	total := 0
	for _, name := range names {
		files, err := t.r.FilesMentioning(t.ctx, name)
		if err != nil {
			return err
		}
		byName[name] = files
		total += len(files)
	}
	if total > maxOccurrenceFiles {
		t.warn(fmt.Sprintf("%d files mention the carriers' names: only occurrences resolved (or linked by name) to them are counted", total))
		return nil
	}
	for _, name := range names {
		for _, p := range byName[name] {
			ff, err := t.fileFacts(p)
			if err != nil {
				return err
			}
			for i := range ff.Occurrences {
				o := &ff.Occurrences[i]
				if o.Name != name || o.Role&graph.RoleDefinition != 0 {
					continue
				}
				var c *Carrier
				conf := graph.ConfNameOnly
				switch {
				case o.Symbol != "" && t.byID[o.Symbol] != nil:
					c = t.byID[o.Symbol]
					conf = cmp.Or(o.Confidence, graph.ConfResolved)
					if !o.Symbol.IsHeuristic() {
						conf = graph.ConfPrecise
					}
				case o.Symbol != "":
					continue // something else of the same name
				default:
					// a call names an accessor; anything else a field
					var cs []*Carrier
					for _, c := range t.byName[name] {
						if (c.Kind == "accessor") == (o.Role&graph.RoleCall != 0) {
							cs = append(cs, c)
						}
					}
					if len(cs) == 0 {
						continue
					}
					if len(cs) == 1 {
						c = cs[0]
					} else {
						c = t.unresolvedCarrier(name, cs)
					}
				}
				t.addSymbolSite(p, o, c, conf, t.enclosingOcc(ff, o))
			}
		}
	}
	return nil
}

// maxOccurrenceFiles bounds the files whose occurrences are read one by
// one for unresolved uses of the carriers' names.
const maxOccurrenceFiles = 300

// loadCalls fill their pointer arguments from storage or the wire.
var loadCalls = map[string]string{"Scan": "row", "ScanRow": "row", "ScanStruct": "row", "Get": "row", "Select": "row", "QueryRow": "row", "Find": "row", "First": "row", "Take": "row",
	"Decode": "wire", "Unmarshal": "wire", "Bind": "wire", "BindJSON": "wire", "ShouldBindJSON": "wire"}

func (t *tracer) addSymbolSite(p string, o *graph.Occurrence, c *Carrier, conf graph.Confidence, fn *Func) {
	s := &Site{Carrier: c.Name, Loc: t.loc(p, o.Range), Confidence: conf.String(), carrier: c, spelled: o.Name}
	if c.Kind == "accessor" {
		s.spelled = "" // setArtifactURL spells the key by design
	}
	s.Snippet = t.snippet(p, int(o.Range.StartLine))
	s.Func = fn
	src := t.src(p)
	switch {
	case c.Kind == "accessor":
		if o.Role&graph.RoleCall == 0 {
			return
		}
		_, write, _ := accessorKey(o.Name)
		if !write && normalize(o.Name) == t.key {
			write = hasArgs(src, int(o.Range.EndByte))
		}
		s.Access, s.How = access(write), "accessor "+o.Name+"(…)"
	case o.Role&graph.RoleWrite != 0:
		s.Access, s.How = "write", "assignment"
		if isLiteralKey(src, int(o.Range.EndByte)) {
			s.How = "literal field"
		}
	case o.Role&graph.RoleRead != 0 || o.Role == 0:
		s.Access, s.How = "read", "read"
		if call, ok := addressPassed(src, int(o.Range.StartByte)); ok {
			s.Access, s.How = "write", "pointer passed to "+call+"(…)"
			if kind, ok := loadCalls[call]; ok {
				s.How = call + "(&…) fills it from the " + map[string]string{"row": "query result", "wire": "decoded input"}[kind]
				s.Load = kind == "row"
			}
		}
	default:
		return
	}
	t.addSite(s, p, int(o.Range.StartByte))
}

// hasArgs: the call whose name ends at end passes arguments.
func hasArgs(src []byte, end int) bool {
	rest := bytes.TrimLeft(src[min(end, len(src)):], " \t")
	if !bytes.HasPrefix(rest, []byte("(")) {
		return false
	}
	rest = bytes.TrimLeft(rest[1:], " \t\n")
	return !bytes.HasPrefix(rest, []byte(")"))
}

// isLiteralKey: "Name:" right after the identifier, as in a struct or
// object literal.
func isLiteralKey(src []byte, end int) bool {
	rest := bytes.TrimLeft(src[min(end, len(src)):], " \t")
	return bytes.HasPrefix(rest, []byte(":")) && !bytes.HasPrefix(rest, []byte(":="))
}

// addressPassed reports whether the selector ending in the identifier at
// start has its address taken as a call argument: Scan(&t.ArtifactURL).
func addressPassed(src []byte, start int) (call string, ok bool) {
	if start > len(src) {
		return "", false // the file is gone, shorter, or refused (repofs)
	}
	i := start
	// back over the receiver chain "t." / "row.t."
	for i > 0 {
		j := i
		if j > 0 && src[j-1] == '.' {
			j--
			for j > 0 && isWordByte(src[j-1]) {
				j--
			}
		}
		if j == i {
			break
		}
		i = j
	}
	b := bytes.TrimRight(src[:i], " \t")
	if len(b) == 0 || b[len(b)-1] != '&' {
		return "", false
	}
	name := enclosingCall(string(src[:i]), i)
	return name, name != ""
}
