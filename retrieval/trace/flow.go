package trace

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// callees lists the functions id calls, in call order (first call site),
// and the handlers of the HTTP requests it makes.
func (t *tracer) callees(id graph.SymbolID) ([]callee, error) {
	if cs, ok := t.calleesCache[id]; ok {
		return cs, nil
	}
	outs, err := t.callEdges(id, graph.Out)
	if err != nil {
		return nil, err
	}
	var cs []callee
	seen := map[graph.SymbolID]bool{}
	slices.SortStableFunc(outs, func(a, b graph.Edge) int { return int(a.Range.StartByte) - int(b.Range.StartByte) })
	for _, e := range outs {
		if seen[e.To] || e.To == id {
			continue
		}
		seen[e.To] = true
		at := t.loc(e.Path, e.Range)
		cs = append(cs, callee{id: e.To, via: "call", at: &at, off: int(e.Range.StartByte), conf: e.Confidence})
	}
	https, err := t.serverOf(id)
	if err != nil {
		return nil, err
	}
	cs = append(cs, https...)
	slices.SortStableFunc(cs, func(a, b callee) int { return a.off - b.off })
	t.calleesCache[id] = cs
	return cs, nil
}

// maxFlows bounds the flows walked.
const maxFlows = 16

var entryRank = map[string]int{"http": 5, "loader": 5, "ui": 4, "cli": 3, "job": 3, "main": 3, "test": 1, "root": 0}

// flows walks down from every entry point that reaches a site (or a gap)
// and keeps, in call order, the functions that touch the value or lead to
// one that does.
func (t *tracer) flows(gaps []Gap) ([]Flow, error) {
	marks := map[graph.SymbolID][]string{}
	for _, s := range t.sites {
		if s.Func != nil && s.Func.ID != "" {
			marks[s.Func.ID] = append(marks[s.Func.ID], describe(s))
		}
	}
	gapAt := map[graph.SymbolID]string{}
	for _, g := range gaps {
		if g.Func != nil && g.Func.ID != "" && gapAt[g.Func.ID] == "" {
			gapAt[g.Func.ID] = g.Kind + ": " + g.Message
		}
	}
	var entries []Entry
	seenEntry := map[graph.SymbolID]bool{}
	for _, s := range t.sites {
		for _, p := range s.Paths {
			if id := p.Entry.Func.ID; id != "" && !seenEntry[id] {
				seenEntry[id] = true
				entries = append(entries, p.Entry)
			}
		}
	}
	// the most specific entries first; tests and roots only up to a few
	slices.SortStableFunc(entries, func(a, b Entry) int { return entryRank[b.Kind] - entryRank[a.Kind] })
	var picked []Entry
	tests, roots := 0, 0
	for _, e := range entries {
		switch e.Kind {
		case "test":
			if tests++; tests > 3 {
				continue
			}
		case "root":
			if roots++; roots > 6 {
				continue
			}
		}
		if len(picked) == maxFlows {
			t.warn(fmt.Sprintf("%d entry points reach the value: flows are shown from the first %d", len(entries), maxFlows))
			break
		}
		picked = append(picked, e)
	}
	var flows []Flow
	for _, e := range picked {
		visited := map[graph.SymbolID]bool{}
		budget := 300
		var rec func(h Hop, depth int) ([]Step, error)
		rec = func(h Hop, depth int) ([]Step, error) {
			visited[h.ID] = true
			budget--
			step := Step{Hop: h, Depth: depth, Does: marks[h.ID], Gap: gapAt[h.ID]}
			if en, _ := t.entryOf(h.ID); en != nil && depth > 0 {
				step.Entry = en.Kind + " " + en.Label
			}
			var sub []Step
			if depth < t.o.Depth && budget > 0 {
				cs, err := t.callees(h.ID)
				if err != nil {
					return nil, err
				}
				for _, c := range cs {
					if visited[c.id] {
						continue
					}
					sym := t.symbol(c.id)
					if sym == nil {
						continue
					}
					ch := Hop{Func: *t.funcOf(sym), Via: c.via, At: c.at, Confidence: c.conf.String()}
					st, err := rec(ch, depth+1)
					if err != nil {
						return nil, err
					}
					sub = append(sub, st...)
				}
			}
			if len(sub) == 0 && len(marks[h.ID]) == 0 && gapAt[h.ID] == "" {
				return nil, nil
			}
			return append([]Step{step}, sub...), nil
		}
		steps, err := rec(Hop{Func: e.Func, Via: "entry"}, 0)
		if err != nil {
			return nil, err
		}
		if len(steps) == 0 {
			continue
		}
		flows = append(flows, Flow{Kind: t.flowKind(steps), Entry: e, Steps: steps})
	}
	return dedupeFlows(flows), nil
}

// flowKind: a flow that stores the value (or sets it on a persisted type)
// is a write path; the others read it.
func (t *tracer) flowKind(steps []Step) string {
	ids := map[graph.SymbolID]bool{}
	for _, s := range steps {
		ids[s.ID] = true
	}
	for _, s := range t.sites {
		if s.Func == nil || !ids[s.Func.ID] || s.Access != "write" {
			continue
		}
		if s.Persist || !s.Load && s.carrier != nil && s.carrier.Kind == "field" && s.carrier.Table != "" {
			return "write"
		}
	}
	return "read"
}

// dedupeFlows drops a flow whose functions another flow passes through
// from its own entry, and merges flows over the same functions.
func dedupeFlows(fs []Flow) []Flow {
	set := func(f Flow) map[graph.SymbolID]bool {
		m := map[graph.SymbolID]bool{}
		for _, s := range f.Steps {
			if len(s.Does) > 0 || s.Gap != "" {
				m[s.ID] = true
			}
		}
		return m
	}
	sets := make([]map[graph.SymbolID]bool, len(fs))
	for i := range fs {
		sets[i] = set(fs[i])
	}
	subset := func(a, b map[graph.SymbolID]bool) bool {
		for k := range a {
			if !b[k] {
				return false
			}
		}
		return true
	}
	passes := func(f Flow, id graph.SymbolID) bool {
		for _, s := range f.Steps {
			if s.ID == id {
				return true
			}
		}
		return false
	}
	dropped := make([]bool, len(fs))
	for i := range fs {
		for j := range fs {
			if i == j || dropped[j] || dropped[i] {
				continue
			}
			if !subset(sets[i], sets[j]) {
				continue
			}
			same := subset(sets[j], sets[i])
			switch {
			case same && passes(fs[j], fs[i].Entry.Func.ID) && entryRank[fs[i].Entry.Kind] >= entryRank[fs[j].Entry.Kind]:
				// j only leads into i: keep the more specific entry
				dropped[j] = true
				fs[i].AlsoFrom = append(fs[i].AlsoFrom, fs[j].Entry)
				fs[i].AlsoFrom = append(fs[i].AlsoFrom, fs[j].AlsoFrom...)
			case passes(fs[j], fs[i].Entry.Func.ID):
				dropped[i] = true
			}
		}
	}
	var out []Flow
	tests := 0
	for i, f := range fs {
		if dropped[i] {
			continue
		}
		if f.Entry.Kind == "test" {
			if tests++; tests > 3 {
				continue
			}
		}
		out = append(out, f)
	}
	slices.SortStableFunc(out, func(a, b Flow) int {
		if (a.Entry.Kind == "test") != (b.Entry.Kind == "test") {
			if a.Entry.Kind == "test" {
				return 1
			}
			return -1
		}
		if a.Kind != b.Kind {
			return strings.Compare(b.Kind, a.Kind) // write paths first
		}
		return 0
	})
	return out
}

// describe says in a few words what a site does.
func describe(s *Site) string {
	return fmt.Sprintf("%s %s: %s (%s:%d)", s.Access, s.Carrier, s.How, path.Base(s.Path), s.StartLine)
}
