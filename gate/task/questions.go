package task

import (
	"fmt"
	"strings"
)

// Question is something a person must answer before the contract can run:
// the field it is about and the question itself.
type Question struct {
	Field string `json:"field"`
	Text  string `json:"text"`
}

// everything is the globs that put no bound on where a change may write.
var everything = map[string]bool{"**": true, "**/*": true, "*/**": true}

// Questions returns what is missing or too vague for the contract to be run
// (nil when nothing): the agent stops with status needs_clarification and
// these questions rather than turning uncertainty into code. A contract can
// be valid (it parses) and still raise questions.
func Questions(c *Contract) []Question {
	var qs []Question
	ask := func(field, format string, args ...any) {
		qs = append(qs, Question{Field: field, Text: fmt.Sprintf(format, args...)})
	}
	if len(strings.Fields(c.Objective)) < 3 {
		ask("objective", "The objective %q is too short to act on: what should be true when the task is done, and where?", c.Objective)
	}
	switch {
	case len(c.Scope.Write) == 0:
		ask("scope.write", "Which paths may the change write? Give globs such as \"internal/api/**\".")
	default:
		for i, g := range c.Scope.Write {
			if everything[g] {
				ask(fmt.Sprintf("scope.write[%d]", i), "%q lets the change write anywhere in the repository: which directories does the task need?", g)
			}
		}
	}
	executed := false
	for _, cr := range c.Criteria {
		switch cr.Check.Kind {
		case CheckTests, CheckCommand, CheckRegression, CheckImpactTests:
			executed = true
		}
	}
	switch {
	case len(c.Criteria) == 0:
		ask("criteria", "How is the change proven? Add criteria: the tests that must pass ({tests: SELECTOR}), a regression test ({regression: true}), a command ({command: [...]}).")
	case !executed:
		ask("criteria", "No criterion runs anything: which tests or command prove the objective?")
	}
	return qs
}
