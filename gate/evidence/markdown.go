package evidence

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/gate/verify"
)

// Markdown is the change description a reviewer reads: the verdict line
// first, then Cause (the root cause, when the task state gave one), Fix
// (the summary, the files, the decisions) and Proof (every criterion, the
// tamper and scope findings, the risks, how to reproduce and what ran).
func (b *Bundle) Markdown() string {
	var w strings.Builder
	r := b.Report
	fmt.Fprintf(&w, "# %s\n\n", oneLine(b.Objective))
	fmt.Fprintf(&w, "**Verdict: %s**", strings.ToUpper(b.Verdict.String()))
	if b.Reason != "" {
		fmt.Fprintf(&w, " — %s", oneLine(b.Reason))
	}
	add, del := 0, 0
	for _, f := range b.Files {
		add, del = add+f.Added, del+f.Deleted
	}
	fmt.Fprintf(&w, "\n\nBase `%s`", short(b.Revisions.Base))
	if b.Revisions.Head != "" {
		fmt.Fprintf(&w, ", head `%s`", short(b.Revisions.Head))
	}
	fmt.Fprintf(&w, " (%s), contract `%s`, %d files (+%d −%d)", b.Revisions.Candidate, short(b.ContractHash), len(b.Files), add, del)
	if r != nil {
		fmt.Fprintf(&w, ", sandbox %s, %.1f s", r.Backend, r.Duration.Seconds())
	}
	w.WriteString(".\n\n")
	w.WriteString(b.Run.markdown())
	w.WriteString("## Cause\n\n")
	if b.RootCause != "" {
		modelSaid(&w, "diagnosis", b.RootCause)
		w.WriteString(backing(r))
	} else {
		w.WriteString("_Not recorded: no task state gave a root cause._\n")
	}

	w.WriteString("\n## Fix\n\n")
	if b.Summary != "" {
		modelSaid(&w, "summary", b.Summary)
	}
	if len(b.Files) == 0 {
		w.WriteString("_No file changed._\n")
	} else {
		w.WriteString("| file | change | + | − |\n|---|---|---:|---:|\n")
		for _, f := range b.Files {
			kind := statusWord(f.Status)
			if f.Test {
				kind += ", test"
			}
			if f.Binary {
				kind += ", binary"
			}
			fmt.Fprintf(&w, "| `%s` | %s | %d | %d |\n", f.Path, kind, f.Added, f.Deleted)
		}
	}
	if len(b.Decisions) > 0 {
		w.WriteString("\nDecisions:\n\n")
		for _, d := range b.Decisions {
			fmt.Fprintf(&w, "- %s\n", oneLine(d))
		}
	}

	w.WriteString("\n## Proof\n\n")
	if r != nil {
		w.WriteString("| criterion | check | ran | status | tests | time | note |\n|---|---|---|---|---|---:|---|\n")
		for _, c := range r.Criteria {
			fmt.Fprintf(&w, "| %s | %s | %s | **%s** | %s | %.1f s | %s |\n", cell(c.ID), c.Kind, cell(ran(c)), c.Status, testCounts(c), c.Duration.Seconds(), cell(c.Reason))
		}
		proofs(&w, r)
		w.WriteString("\n### Tamper and scope findings\n\n")
		if len(r.Tamper)+len(r.Scope) == 0 {
			w.WriteString("None.\n")
		}
		for _, f := range append(append([]verify.Finding(nil), r.Tamper...), r.Scope...) {
			fmt.Fprintf(&w, "- **%s** `%s`", f.Kind, f.Path)
			if f.Test != "" {
				fmt.Fprintf(&w, " %s", f.Test)
			}
			if f.Base != "" || f.Candidate != "" {
				fmt.Fprintf(&w, ": base %s; change %s", orNone(f.Base), orNone(f.Candidate))
			}
			w.WriteString("\n")
		}
	}
	w.WriteString("\n### Risks\n\n")
	rk := b.Risks
	if !rk.Available {
		fmt.Fprintf(&w, "_Unknown: %s._\n", strings.TrimSuffix(oneLine(rk.Unavailable), "."))
	} else {
		fmt.Fprintf(&w, "Level **%s**: %d dependents (%d direct), %d tests reach the change", rk.Level, rk.Dependents, rk.DirectDependents, rk.Tests)
		if rk.PublicAPI {
			fmt.Fprintf(&w, "; public API touched: %s", codeList(rk.PublicSymbols, 8))
		}
		w.WriteString(".\n")
		if len(rk.UntestedCallers) > 0 {
			fmt.Fprintf(&w, "Untested callers: %s.\n", codeList(rk.UntestedCallers, 10))
		}
		if rk.Truncated {
			w.WriteString("The walk stopped at its limit: there may be more dependents.\n")
		}
		if len(rk.Unknown) > 0 {
			fmt.Fprintf(&w, "Not analysed: %s.\n", strings.Join(rk.Unknown, "; "))
		}
	}

	w.WriteString("\n### How to reproduce\n\n```sh\n")
	w.WriteString(shellJoin(b.Reproduce.Command) + "\n")
	for _, c := range b.Reproduce.Checks {
		if len(c.Argv) == 0 {
			continue
		}
		fmt.Fprintf(&w, "# %s (%s), in a checkout of the change\n", c.ID, c.Kind)
		dir := ""
		if c.Dir != "" && c.Dir != "." {
			dir = "cd " + shellQuote(c.Dir) + " && "
		}
		fmt.Fprintf(&w, "%senv %s %s\n", dir, shellJoin(c.Env), shellJoin(c.Argv))
	}
	w.WriteString("```\n")
	e := b.Environment
	fmt.Fprintf(&w, "\nRan with %s, bwrap %s, sandbox %s, cairn %s, repository at `%s`", e.GoVersion, strings.TrimPrefix(e.BwrapVersion, "bubblewrap "),
		e.SandboxBackend, e.CairnVersion, short(e.RepositoryRevision))
	if len(e.Lockfiles) > 0 {
		fmt.Fprintf(&w, ", %d lockfiles hashed", len(e.Lockfiles))
	}
	if e.Model != nil {
		fmt.Fprintf(&w, ", model %s", e.Model.ID)
	}
	w.WriteString(".\n")
	w.WriteString(b.Isolation.markdown())
	return w.String()
}

func testCounts(c verify.Check) string {
	if len(c.Tests) == 0 {
		return "—"
	}
	n := map[verify.Outcome]int{}
	for _, t := range c.Tests {
		n[t.Outcome]++
	}
	var parts []string
	for _, o := range []verify.Outcome{verify.OutcomePass, verify.OutcomeFail, verify.OutcomeFlaky, verify.OutcomePreExisting, verify.OutcomeSkip, verify.OutcomeNotRun} {
		if n[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[o], o))
		}
	}
	return strings.Join(parts, ", ")
}

func statusWord(s string) string {
	switch s {
	case "A":
		return "added"
	case "D":
		return "deleted"
	case "M":
		return "modified"
	case "T":
		return "type changed"
	}
	return s
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cell is text safe in a Markdown table cell.
func cell(s string) string {
	s = oneLine(s)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

func codeList(xs []string, n int) string {
	var parts []string
	for i, x := range xs {
		if i == n {
			parts = append(parts, fmt.Sprintf("… %d more", len(xs)-n))
			break
		}
		parts = append(parts, "`"+x+"`")
	}
	return strings.Join(parts, ", ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%^", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}
