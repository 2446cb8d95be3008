package verify

import (
	"github.com/bmatcuk/doublestar/v4"

	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/task"
)

// scopeFindings: every changed path must match a scope.write glob and no
// scope.protected glob (doublestar, as gate/task validates them).
func scopeFindings(s task.Scope, changed []sandbox.Change) []Finding {
	out := []Finding{}
	for _, ch := range changed {
		if g := matchAny(s.Protected, ch.Path); g != "" {
			out = append(out, Finding{Kind: "protected", Path: ch.Path, Candidate: ch.Status + " matches protected " + g})
			continue
		}
		if matchAny(s.Write, ch.Path) == "" {
			out = append(out, Finding{Kind: "outside_write_scope", Path: ch.Path, Candidate: ch.Status + " matches no scope.write glob"})
		}
	}
	return out
}

func matchAny(globs []string, p string) string {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, p); ok {
			return g
		}
	}
	return ""
}

// ciGlobs are the CI configuration of the common services: an edit is a
// tamper finding whether or not the contract protects it.
var ciGlobs = []string{
	".github/**", ".gitlab-ci.yml", ".gitlab/**", ".circleci/**", ".travis.yml", ".buildkite/**",
	"azure-pipelines.yml", ".azure-pipelines/**", "Jenkinsfile", ".drone.yml", "bitbucket-pipelines.yml",
	".woodpecker/**", ".woodpecker.yml", "appveyor.yml", ".appveyor.yml", ".cirrus.yml",
}
