package task

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"
)

// idPattern is what a criterion id may be: it names the check in reports,
// events and file names, so it stays short and plain.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// build validates a shape-checked raw contract and converts it.
func build(raw *rawContract, lines map[string]int) (*Contract, Errors) {
	v := validator{lines: lines}
	c := &Contract{
		Objective:  strings.TrimSpace(raw.Objective),
		Base:       strings.TrimSpace(raw.Base),
		Scope:      raw.Scope,
		Forbidden:  raw.Forbidden,
		Budgets:    raw.Budgets,
		Escalation: raw.Escalation,
		Allow:      raw.Allow,
	}
	if c.Objective == "" {
		v.fail("objective", "required: say what must be true when the task is done")
	}
	if c.Base == "" {
		c.Base = "HEAD"
	}
	if msg := badRevision(c.Base); msg != "" {
		v.fail("base", "%s", msg)
	}
	v.globs("scope.write", c.Scope.Write)
	v.globs("scope.protected", c.Scope.Protected)
	v.globs("allow.harness", c.Allow.Harness)
	for i, name := range c.Allow.Tests {
		if strings.TrimSpace(name) == "" || strings.ContainsAny(name, "\n\r\x00") {
			v.fail(fmt.Sprintf("allow.tests[%d]", i), "%q: give a test's name as a tests criterion names it (TestX, test_x, a jest title)", name)
		}
	}
	seen := map[string]int{}
	for i, rc := range raw.Criteria {
		p := fmt.Sprintf("criteria[%d]", i)
		cr := Criterion{ID: strings.TrimSpace(rc.ID), Text: strings.TrimSpace(rc.Text)}
		switch first, dup := seen[cr.ID]; {
		case cr.ID == "":
			v.fail(p+".id", "required")
		case !idPattern.MatchString(cr.ID):
			v.fail(p+".id", "%q: use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)", cr.ID)
		case dup:
			v.fail(p+".id", "%q is already the id of criteria[%d]", cr.ID, first)
		default:
			seen[cr.ID] = i
		}
		if cr.Text == "" {
			v.fail(p+".text", "required: the sentence a reviewer reads")
		}
		cr.Check = v.check(p+".check", &rc.Check)
		c.Criteria = append(c.Criteria, cr)
	}
	for i, f := range c.Forbidden {
		if strings.TrimSpace(f) == "" {
			v.fail(fmt.Sprintf("forbidden[%d]", i), "empty")
		}
	}
	b := c.Budgets
	for _, n := range []struct {
		name string
		val  float64
	}{{"steps", float64(b.Steps)}, {"input_tokens", float64(b.InputTokens)}, {"output_tokens", float64(b.OutputTokens)}, {"cost_usd", b.CostUSD}, {"wall_s", float64(b.WallS)}} {
		if n.val < 0 || math.IsNaN(n.val) || math.IsInf(n.val, 0) {
			v.fail("budgets."+n.name, "must be a finite number ≥ 0 (0: the harness's default)")
		}
	}
	if c.Escalation.MaxGateFailures < 0 {
		v.fail("escalation.max_gate_failures", "must be ≥ 0")
	}
	return c, v.errs
}

type validator struct {
	errs  Errors
	lines map[string]int
}

func (v *validator) fail(path, format string, args ...any) {
	v.errs = append(v.errs, &FieldError{Path: path, Line: v.lines[path], Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) globs(path string, globs []string) {
	for i, g := range globs {
		if msg := badGlob(g); msg != "" {
			v.fail(fmt.Sprintf("%s[%d]", path, i), "%q: %s", g, msg)
		}
	}
}

func (v *validator) check(path string, r *rawCheck) Check {
	kinds := r.kinds()
	if len(kinds) != 1 {
		names := make([]string, len(kinds))
		for i, k := range kinds {
			names[i] = k.String()
		}
		got := "none"
		if len(names) > 0 {
			got = strings.Join(names, " and ")
		}
		v.fail(path, "exactly one of tests, command, regression, impact_tests, scope; got %s", got)
		return Check{}
	}
	c := Check{Kind: kinds[0]}
	switch c.Kind {
	case CheckTests:
		c.Selector = strings.TrimSpace(*r.Tests)
		if c.Selector == "" {
			v.fail(path+".tests", "empty selector: give the runner's own (./pkg/..., a pytest node id, a jest file)")
		}
	case CheckCommand:
		c.Argv = *r.Command
		if len(c.Argv) == 0 || strings.TrimSpace(c.Argv[0]) == "" {
			v.fail(path+".command", "want an argv list with a program first, e.g. [go, vet, ./...]")
		}
		for i, a := range c.Argv {
			if strings.ContainsRune(a, 0) {
				v.fail(fmt.Sprintf("%s.command[%d]", path, i), "contains a NUL byte")
			}
		}
	case CheckRegression, CheckImpactTests, CheckScope:
		set := map[CheckKind]*bool{CheckRegression: r.Regression, CheckImpactTests: r.ImpactTests, CheckScope: r.Scope}[c.Kind]
		if !*set {
			v.fail(path+"."+c.Kind.String(), "false checks nothing: write true or remove the criterion")
		}
	}
	return c
}

// badRevision says what is wrong with a base revision ("" when nothing):
// it reaches git rev-parse as an argument, so it may not look like an option.
func badRevision(rev string) string {
	switch {
	case strings.HasPrefix(rev, "-"):
		return fmt.Sprintf("%q may not start with '-'", rev)
	case strings.IndexFunc(rev, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return fmt.Sprintf("%q contains a space or control character", rev)
	case strings.Contains(rev, ".."):
		return fmt.Sprintf("%q is a range; give one revision", rev)
	}
	return ""
}

// badGlob says what is wrong with a scope glob ("" when nothing). Globs are
// slash-separated and relative to the repository root, with doublestar's
// syntax (**, *, ?, [class], {alt,…}).
func badGlob(g string) string {
	switch {
	case strings.TrimSpace(g) == "":
		return "empty"
	case strings.HasPrefix(g, "/"):
		return "absolute; write it relative to the repository root"
	case strings.Contains(g, `\`):
		return `use '/' between path segments (and no '\' escapes)`
	case strings.HasPrefix(g, "./"):
		return "drop the leading ./"
	case !doublestar.ValidatePattern(g):
		return "not a valid glob (unbalanced [ ] or { })"
	}
	for _, seg := range strings.Split(g, "/") {
		if seg == ".." || seg == "." {
			return "no . or .. segments: the scope is inside the repository"
		}
	}
	return ""
}
