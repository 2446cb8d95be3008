package trace

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// Roles of a function on a value's path, in the order a reader follows a
// value through the code.
const (
	RoleGap      = "gap"      // where the path breaks (a mapper that drops it, a write never stored)
	RoleWrite    = "write"    // sets the value in memory
	RolePersist  = "persist"  // stores it (SQL, ORM, a whole-object save)
	RoleQuery    = "query"    // reads it back from storage
	RoleMapper   = "mapper"   // copies it from one representation to another on the read path
	RoleConsumer = "consumer" // reads it at the end of the read path
)

// Evidence is one function on the value's write or read path, as a
// task's context admits it: where it is, its role and why, in words.
type Evidence struct {
	Target string
	Role   string
	// Symbol is the function (empty for top-level code); Path and Line
	// the site (the function's name for a gap).
	Symbol graph.SymbolID
	Name   string
	Path   string
	Line   int
	// Reason says which path the function is on and what it does with
	// the value: "read path of Task.ArtifactURL: ToResponse drops it → gap".
	Reason string
	// Variant: the site spells the key otherwise than the target.
	Variant bool
}

// Evidence lists the functions a reader of the value's paths needs, at
// most limit, each once: the gaps' functions first (the mapper that drops
// the value, the writer whose value is never stored; never-read and
// never-written gaps follow from such a break elsewhere), then one write site,
// one persistence write, one read query, one mapper and one consumer, then
// the others in that order; sites spelled as the target before variants.
func (r *Result) Evidence(limit int) []Evidence {
	var out []Evidence
	seen := map[string]bool{}
	add := func(e Evidence) bool {
		k := string(e.Symbol)
		if k == "" {
			k = fmt.Sprintf("%s:%d", e.Path, e.Line)
		}
		if len(out) >= limit || seen[k] {
			return false
		}
		seen[k] = true
		e.Target = r.Target
		out = append(out, e)
		return true
	}
	for _, g := range r.Gaps {
		if g.Func == nil || g.Func.ID == "" || g.Kind != "dropped" && g.Kind != "not-persisted" {
			continue // never-read and never-written follow from a break elsewhere
		}
		side := "write path"
		what := g.Kind
		switch g.Kind {
		case "dropped":
			side, what = "read path", "drops it"
		case "not-persisted":
			what = "sets it but it is never stored"
		}
		add(Evidence{Role: RoleGap, Symbol: g.Func.ID, Name: g.Func.Name, Path: g.Path, Line: g.StartLine,
			Reason: fmt.Sprintf("%s of %s: %s %s → gap (%s)", side, r.Target, g.Func.Name, what, g.Kind)})
	}
	roled := r.roles()
	order := []string{RoleWrite, RolePersist, RoleQuery, RoleMapper, RoleConsumer}
	// one of each role first, then the rest in the same order
	for pass := 0; pass < 2; pass++ {
		for _, role := range order {
			for _, e := range roled[role] {
				if add(e) && pass == 0 {
					break
				}
			}
		}
	}
	return out
}

// roles sorts the sites by their role on the value's path, exact
// spellings before variants within each (the sites are in that order).
func (r *Result) roles() map[string][]Evidence {
	writers, readers := map[graph.SymbolID]bool{}, map[graph.SymbolID]bool{}
	for _, s := range r.Writes {
		if s.Func != nil && !s.Load {
			writers[s.Func.ID] = true
		}
	}
	for _, s := range r.Reads {
		if s.Func != nil {
			readers[s.Func.ID] = true
		}
	}
	// the functions only read flows pass through: a write there copies
	// the value along the read path (a client store filling its state)
	onFlow := map[string]map[graph.SymbolID]bool{"read": {}, "write": {}}
	for _, f := range r.Flows {
		for _, st := range f.Steps {
			if onFlow[f.Kind] != nil {
				onFlow[f.Kind][st.ID] = true
			}
		}
	}
	readSide := func(s Site) bool {
		return s.Func != nil && onFlow["read"][s.Func.ID] && !onFlow["write"][s.Func.ID]
	}
	out := map[string][]Evidence{}
	site := func(role string, s Site, side, what string) {
		e := Evidence{Role: role, Path: s.Path, Line: s.StartLine, Variant: s.Normalized}
		name := "top-level code"
		if s.Func != nil {
			e.Symbol, e.Name, name = s.Func.ID, s.Func.Name, s.Func.Name
		}
		e.Reason = fmt.Sprintf("%s of %s: %s %s %s (%s)", side, r.Target, name, what, s.Carrier, s.How)
		if s.Normalized {
			e.Reason += ", variant spelling " + s.Variant
		}
		out[role] = append(out[role], e)
	}
	for _, s := range r.Writes {
		switch {
		case s.Load:
			site(RoleQuery, s, "read path", "loads")
		case s.Persist:
			site(RolePersist, s, "write path", "stores")
		case readSide(s) && readers[s.Func.ID]:
			site(RoleMapper, s, "read path", "maps it into")
		default:
			site(RoleWrite, s, "write path", "writes")
		}
	}
	for _, s := range r.Reads {
		switch {
		case s.Drops:
			continue // a gap's already
		case strings.HasPrefix(s.How, "SQL") || strings.Contains(s.How, "query") || strings.Contains(s.How, "SELECT"):
			site(RoleQuery, s, "read path", "queries")
		case s.Func != nil && onFlow["write"][s.Func.ID] && !onFlow["read"][s.Func.ID]:
			site(RoleWrite, s, "write path", "takes it from")
		case s.Func != nil && writers[s.Func.ID]:
			site(RoleMapper, s, "read path", "maps")
		default:
			site(RoleConsumer, s, "read path", "reads")
		}
	}
	return out
}
