package trace

import (
	"fmt"
	"io"
	"strings"
)

func (l Loc) String() string {
	s := fmt.Sprintf("%s:%d", l.Path, l.StartLine)
	if l.Stale {
		s += " (stale)"
	}
	return s
}

// WriteText renders a trace for people: carriers, flows with their steps,
// gaps, then every site with its call paths.
func (r *Result) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	p := ew.printf
	rev := r.Revision
	if rev == "" {
		rev = "no-git"
	}
	if r.Dirty {
		rev += "+dirty"
	}
	p("trace %s (key %q) at %s\n", r.Target, r.Key, rev)
	if r.Unresolved != "" {
		p("note: %s\n", r.Unresolved)
	}
	p("\ncarriers (%d):\n", len(r.Carriers))
	for _, c := range r.Carriers {
		extra := ""
		if c.Wire != "" {
			extra += fmt.Sprintf(" wire %q", c.Wire)
		}
		if c.Column != "" && c.Kind != "column" {
			extra += fmt.Sprintf(" column %q", c.Column)
		}
		if c.Table != "" && c.Kind != "column" {
			extra += " stored in " + c.Table
		}
		mark := " "
		if c.Primary {
			mark = "*"
		}
		where := "(no definition found)"
		if c.Path != "" {
			where = c.Loc.String()
		}
		p(" %s %-8s %-32s %s%s\n", mark, c.Kind, c.Name, where, extra)
	}
	if len(r.Gaps) > 0 {
		p("\ngaps (%d):\n", len(r.Gaps))
		for _, g := range r.Gaps {
			cert := ""
			if g.Certainty != "certain" {
				cert = " [" + g.Certainty + ": some files could not be analysed]"
			}
			p("  %-13s %s\n                %s%s\n", g.Kind, g.Loc, g.Message, cert)
		}
	} else {
		p("\ngaps: none found\n")
	}
	p("\nflows (%d):\n", len(r.Flows))
	for _, f := range r.Flows {
		p("  %s path from %s %s\n", f.Kind, f.Entry.Kind, f.Entry.Label)
		for _, a := range f.AlsoFrom {
			p("    (also reached from %s %s)\n", a.Kind, a.Label)
		}
		for _, s := range f.Steps {
			via := ""
			if s.Via != "entry" && s.Via != "call" {
				via = " ⇢ " + s.Via
			}
			conf := ""
			if s.Confidence != "" && s.Via != "entry" {
				conf = " [" + s.Confidence + "]"
			}
			entry := ""
			if s.Entry != "" {
				entry = " (entry: " + s.Entry + ")"
			}
			p("    %s%s %s%s%s%s\n", strings.Repeat("  ", s.Depth), s.Name, s.Loc, via, conf, entry)
			for _, d := range s.Does {
				p("    %s  · %s\n", strings.Repeat("  ", s.Depth), d)
			}
			if s.Gap != "" {
				p("    %s  ✗ GAP %s\n", strings.Repeat("  ", s.Depth), s.Gap)
			}
		}
	}
	sites := func(title string, ss []Site) {
		alike := 0
		for _, s := range ss {
			alike += s.Alike
		}
		if alike > 0 {
			p("\n%s (%d listed, %d more alike):\n", title, len(ss), alike)
		} else {
			p("\n%s (%d):\n", title, len(ss))
		}
		for _, s := range ss {
			conf := s.Confidence
			if s.Normalized {
				conf += "; spelled otherwise than " + r.Target
			}
			p("  %s  %s  %s — %s [%s]\n", s.Loc, funcName(s.Func), s.Carrier, s.How, conf)
			if s.Snippet != "" {
				p("      %s\n", clip(s.Snippet, 110))
			}
			if s.Alike > 0 {
				p("      … and %d more like it in this file\n", s.Alike)
			}
			for _, cp := range s.Paths {
				var names []string
				for i, h := range cp.Hops {
					n := h.Name
					if i > 0 && h.Via != "call" {
						n = "⇢" + h.Via + "⇢ " + n
					}
					names = append(names, n)
				}
				p("      from %s %s: %s\n", cp.Entry.Kind, cp.Entry.Label, strings.Join(names, " → "))
			}
		}
	}
	sites("writes", r.Writes)
	sites("reads", r.Reads)
	if len(r.Unknown) > 0 {
		p("\nunknown (not analysed):\n")
		for _, u := range r.Unknown {
			p("  %s\n", u)
		}
	}
	return ew.err
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

// graphNodes numbers the steps of all flows for the diagram renderers.
type diagram struct {
	ids   map[string]string
	nodes []string
	edges [][3]string // from, to, label
	gaps  map[string]bool
}

func (r *Result) diagram() *diagram {
	d := &diagram{ids: map[string]string{}, gaps: map[string]bool{}}
	node := func(s Step) string {
		k := s.Name + "@" + s.Path
		if id, ok := d.ids[k]; ok {
			return id
		}
		id := fmt.Sprintf("n%d", len(d.nodes))
		d.ids[k] = id
		d.nodes = append(d.nodes, k)
		return id
	}
	seen := map[string]bool{}
	for _, f := range r.Flows {
		var stack []string
		entry := fmt.Sprintf("e%d", len(d.nodes))
		d.ids["entry:"+f.Entry.Kind+" "+f.Entry.Label] = entry
		d.nodes = append(d.nodes, "entry:"+f.Entry.Kind+" "+f.Entry.Label)
		for _, s := range f.Steps {
			id := node(s)
			if s.Gap != "" {
				d.gaps[id] = true
			}
			stack = append(stack[:min(len(stack), s.Depth)], id)
			from := entry
			if s.Depth > 0 {
				from = stack[s.Depth-1]
			}
			label := ""
			if s.Via != "call" && s.Via != "entry" {
				label = s.Via
			}
			k := from + ">" + id
			if !seen[k] {
				seen[k] = true
				d.edges = append(d.edges, [3]string{from, id, label})
			}
		}
	}
	return d
}

func (d *diagram) label(i int) (id, text string) {
	k := d.nodes[i]
	id = d.ids[k]
	if strings.HasPrefix(k, "entry:") {
		return id, strings.TrimPrefix(k, "entry:")
	}
	name, p, _ := strings.Cut(k, "@")
	return id, name + "\n" + p
}

// WriteMermaid renders the flows as a Mermaid flowchart; gap steps are
// marked.
func (r *Result) WriteMermaid(w io.Writer) error {
	ew := &errWriter{w: w}
	d := r.diagram()
	ew.printf("flowchart LR\n")
	for i := range d.nodes {
		id, text := d.label(i)
		text = strings.ReplaceAll(strings.ReplaceAll(text, "\"", "'"), "\n", "<br/>")
		if strings.HasPrefix(id, "e") {
			ew.printf("  %s([\"%s\"])\n", id, text)
		} else {
			ew.printf("  %s[\"%s\"]\n", id, text)
		}
	}
	for _, e := range d.edges {
		if e[2] != "" {
			ew.printf("  %s -->|\"%s\"| %s\n", e[0], strings.ReplaceAll(e[2], "\"", "'"), e[1])
		} else {
			ew.printf("  %s --> %s\n", e[0], e[1])
		}
	}
	for id := range d.gaps {
		ew.printf("  style %s stroke:#d00,stroke-width:3px\n", id)
	}
	return ew.err
}

// WriteDot renders the flows as a Graphviz digraph.
func (r *Result) WriteDot(w io.Writer) error {
	ew := &errWriter{w: w}
	d := r.diagram()
	q := func(s string) string {
		return "\"" + strings.ReplaceAll(strings.ReplaceAll(s, "\\", "\\\\"), "\"", "\\\"") + "\""
	}
	ew.printf("digraph trace {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n")
	for i := range d.nodes {
		id, text := d.label(i)
		attrs := "label=" + strings.ReplaceAll(q(text), "\n", "\\n")
		if strings.HasPrefix(id, "e") {
			attrs += ", shape=oval"
		}
		if d.gaps[id] {
			attrs += ", color=red, penwidth=3"
		}
		ew.printf("  %s [%s];\n", id, attrs)
	}
	for _, e := range d.edges {
		if e[2] != "" {
			ew.printf("  %s -> %s [label=%s];\n", e[0], e[1], q(e[2]))
		} else {
			ew.printf("  %s -> %s;\n", e[0], e[1])
		}
	}
	ew.printf("}\n")
	return ew.err
}
