package impact

import (
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// WriteText renders an impact analysis for people.
func (r *Result) WriteText(w io.Writer, maxList int) error {
	var err error
	p := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	rev := r.Revision
	if rev == "" {
		rev = "no-git"
	}
	if r.Dirty {
		rev += "+dirty"
	}
	p("impact of %s at %s\n", r.Target, rev)
	p("risk: %s\n", r.Risk.Level)
	for _, why := range r.Risk.Reasons {
		p("  - %s\n", why)
	}
	p("\nchanged (%d):\n", len(r.Changed))
	for _, c := range r.Changed {
		why := ""
		if c.Why != "" {
			why = "  (" + c.Why + ")"
		}
		p("  %-9s %s  %s:%d%s\n", c.Kind, c.QualifiedName, c.Path, c.StartLine, why)
	}
	for _, rm := range r.Removed {
		p("  removed   %s\n", rm)
	}
	if len(r.Implementations) > 0 {
		p("\nimplementations and overrides (%d):\n", len(r.Implementations))
		for _, s := range r.Implementations {
			p("  %s  %s:%d  [%s, %s]\n", s.QualifiedName, s.Path, s.StartLine, s.Via, s.Confidence)
		}
	}
	p("\ndependents (%d):\n", len(r.Dependents))
	for i, d := range r.Dependents {
		if maxList > 0 && i == maxList {
			p("  … %d more (--json lists all)\n", len(r.Dependents)-maxList)
			break
		}
		amb := ""
		if d.Ambiguous {
			amb = ", ambiguous"
		}
		through := ""
		if d.Through != "" && len(r.Changed) > 1 {
			through = " via " + d.Through
		}
		p("  %d %s  %s:%d  [%s, %s%s]%s\n", d.Depth, d.QualifiedName, d.Path, d.StartLine, d.Via, d.Confidence, amb, through)
	}
	p("\ntests (%d):\n", len(r.Tests))
	for i, t := range r.Tests {
		if maxList > 0 && i == maxList {
			p("  … %d more\n", len(r.Tests)-maxList)
			break
		}
		if len(t.Chain) == 0 {
			p("  %s  %s:%d  (changed: %s)\n", t.QualifiedName, t.Path, t.StartLine, t.Why)
		} else {
			p("  %s  %s:%d  (depth %d, %s)\n      why: %s\n", t.QualifiedName, t.Path, t.StartLine, t.Depth, t.Confidence, ChainText(t.Chain))
		}
	}
	if len(r.Commands) > 0 {
		p("\nrun the affected tests:\n")
		for _, c := range r.Commands {
			p("  %s\n", c)
		}
	}
	if len(r.Packages) > 0 {
		pkgs := r.Packages
		more := ""
		if maxList > 0 && len(pkgs) > maxList {
			// the kernel's kfree touches 1,351 directories: a line of 30 kB
			pkgs, more = pkgs[:maxList], fmt.Sprintf(", … %d more (--json lists all)", len(pkgs)-maxList)
		}
		p("\npackages (%d): %s%s\n", len(r.Packages), strings.Join(pkgs, ", "), more)
	}
	if len(r.Owners) > 0 {
		p("\nowners:\n")
		for _, o := range r.Owners {
			mark := ""
			if o.Changed {
				mark = " (changed code)"
			}
			p("  %s  %s  %d files%s\n", strings.Join(o.Owners, " "), o.Pattern, o.Paths, mark)
		}
	}
	if len(r.Risk.Untested) > 0 {
		p("\nuntested dependents: %s\n", strings.Join(r.Risk.Untested, ", "))
	}
	for _, u := range r.Unknown {
		p("\nunknown: %s\n", u)
	}
	for _, wn := range r.Warnings {
		p("warning: %s\n", wn)
	}
	return err
}

// ChainText renders a chain of edges on one line, each edge with its kind
// and, when weaker than resolved, its confidence: "TestA -calls-> helper
// -calls-> Iface.M <-implements- Impl.M".
func ChainText(chain []graph.EdgeView) string {
	var b strings.Builder
	at := ""
	for i, e := range chain {
		label := e.Kind
		if e.Confidence == graph.ConfNameOnly.String() {
			label += " " + e.Confidence
		}
		if e.Ambiguous {
			label += " ambiguous"
		}
		switch {
		case i == 0 && e.From == chainStart(chain):
			b.WriteString(e.FromName)
			at = string(e.From)
		case i == 0:
			b.WriteString(e.ToName)
			at = string(e.To)
		}
		if string(e.From) == at {
			fmt.Fprintf(&b, " -%s-> %s", label, e.ToName)
			at = string(e.To)
		} else {
			fmt.Fprintf(&b, " <-%s- %s", label, e.FromName)
			at = string(e.From)
		}
	}
	return b.String()
}

// chainStart is where a chain starts: the end of its first edge that the
// second does not share.
func chainStart(chain []graph.EdgeView) graph.SymbolID {
	if len(chain) < 2 {
		return chain[0].From
	}
	if chain[0].To == chain[1].From || chain[0].To == chain[1].To {
		return chain[0].From
	}
	return chain[0].To
}
