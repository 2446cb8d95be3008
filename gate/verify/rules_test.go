package verify

import (
	"testing"

	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/task"
)

// TestVerdictRules: pass only when every criterion passes and no finding
// stands; a finding fails a run whose criteria all passed; no criteria, or
// one not finished, is never a pass.
func TestVerdictRules(t *testing.T) {
	pass := []Check{{ID: "a", Status: Pass}, {ID: "b", Status: Pass}}
	finding := []Finding{{Kind: "test_deleted", Path: "x_test.go"}}
	for _, tc := range []struct {
		name          string
		criteria      []Check
		tamper, scope []Finding
		want          Status
	}{
		{"all pass", pass, nil, nil, Pass},
		{"a tamper finding", pass, finding, nil, Fail},
		{"a scope finding", pass, nil, []Finding{{Kind: "outside_write_scope", Path: "README.md"}}, Fail},
		{"a failed criterion", []Check{{ID: "a", Status: Pass}, {ID: "b", Status: Fail}}, nil, nil, Fail},
		{"a criterion not run", []Check{{ID: "a", Status: Pass}, {ID: "b", Status: NotRun}}, nil, nil, Blocked},
		{"a blocked criterion", []Check{{ID: "a", Status: Blocked}}, nil, nil, Blocked},
		{"no criteria", nil, nil, nil, Blocked},
		{"only a scope criterion", []Check{{ID: "scope", Kind: "scope", Status: Pass}}, nil, nil, Blocked},
		{"a scope criterion and a test", []Check{{ID: "scope", Kind: "scope", Status: Pass}, {ID: "t", Kind: "tests", Status: Pass}}, nil, nil, Pass},
	} {
		r := &Report{Criteria: tc.criteria, Tamper: tc.tamper, Scope: tc.scope}
		r.verdict()
		if r.Verdict != tc.want {
			t.Errorf("%s: verdict %v (%s), want %v", tc.name, r.Verdict, r.Reason, tc.want)
		}
	}
}

// TestScopeRules: a protected path is a finding even where a write glob
// also matches it; a path no write glob matches is one.
func TestScopeRules(t *testing.T) {
	s := task.Scope{Write: []string{"server/**", "go.mod"}, Protected: []string{"go.mod", "server/**/*_test.go"}}
	for _, tc := range []struct {
		path, want string
	}{
		{"server/mapper.go", ""},
		{"go.mod", "protected"},
		{"server/api/mapper_test.go", "protected"},
		{"README.md", "outside_write_scope"},
	} {
		got := scopeFindings(s, []sandbox.Change{{Status: "M", Path: tc.path}})
		switch {
		case tc.want == "" && len(got) != 0:
			t.Errorf("%s: findings %+v, want none", tc.path, got)
		case tc.want != "" && (len(got) != 1 || got[0].Kind != tc.want):
			t.Errorf("%s: findings %+v, want one %s", tc.path, got, tc.want)
		}
	}
}
