package trace

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/internal/diagram"
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
	if r.Partial != "" {
		p("partial: %s\n", r.Partial)
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
		variants := 0
		for _, s := range ss {
			if s.Normalized {
				variants++
			}
		}
		count := strconv.Itoa(len(ss))
		if variants > 0 {
			count = fmt.Sprintf("%d: %d spelled %s, then %d spelling variants", len(ss), len(ss)-variants, r.Target, variants)
		}
		if alike > 0 {
			p("\n%s (%s listed, %d more alike):\n", title, count, alike)
		} else {
			p("\n%s (%s):\n", title, count)
		}
		for _, s := range ss {
			conf := s.Confidence
			if s.Normalized {
				conf += "; variant spelling " + s.Variant + " of " + r.Target
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

// diagram draws the flows and the sites: each flow's entry point (an
// oval), the functions of its steps (boxes, a gap step marked) joined as
// they call each other, and every write and read site (a note) joined to
// the function it is in. A function is one node however many flows reach
// it, an entry one node however many flows start there.
func (r *Result) diagram() *diagram.Graph {
	g := diagram.New()
	g.Name, g.LeftToRight = "trace", true
	fn := func(name, path string) string {
		key := "func:" + name + "@" + path
		g.Node(key, name+"\n"+path, diagram.Box)
		return key
	}
	for _, f := range r.Flows {
		entry := "entry:" + f.Entry.Kind + " " + f.Entry.Label
		g.Node(entry, f.Entry.Kind+" "+f.Entry.Label, diagram.Oval)
		var stack []string
		for _, s := range f.Steps {
			id := fn(s.Name, s.Path)
			if s.Gap != "" {
				g.Mark(id)
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
			g.Edge(from, id, label)
		}
	}
	for _, ss := range [][]Site{r.Writes, r.Reads} {
		for _, s := range ss {
			key := "site:" + s.Access + " " + s.Loc.String()
			label := s.Access + " " + s.Carrier
			if s.How != "" {
				label += ": " + s.How
			}
			g.Node(key, label+"\n"+s.Loc.String(), diagram.Note)
			if s.Func != nil {
				g.Edge(fn(s.Func.Name, s.Func.Path), key, s.Access)
			}
		}
	}
	return g
}

// WriteMermaid renders the flows and sites as a Mermaid flowchart; gap
// steps are marked.
func (r *Result) WriteMermaid(w io.Writer) error { return r.diagram().WriteMermaid(w) }

// WriteDot renders the flows and sites as a Graphviz digraph; gap steps
// are marked.
func (r *Result) WriteDot(w io.Writer) error { return r.diagram().WriteDot(w) }
