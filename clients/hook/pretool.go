package hook

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/gate/policy"
	"github.com/cairn-dev/cairn/gate/task"
)

// TaskFile is the session's contract, relative to the repository root:
// its scope narrows what pre-tool allows, and the stop hook's gate runs
// its criteria.
const TaskFile = ".cairn/task.yaml"

// preTool decides a tool call against the layered policy (the user's,
// narrowed by .cairn/policy.yaml, narrowed by the session's contract).
// It opens no index and runs nothing: a policy file, a contract and a
// parse of the command line.
func (o Options) preTool(in *Input, repo string) Answer {
	pol, err := policy.Layered(repo, o.User)
	if err != nil {
		return o.failed(in, repo, fmt.Errorf("read the policy: %w", err))
	}
	if _, err := os.Stat(filepath.Join(repo, TaskFile)); err == nil {
		c, err := task.ParseFile(filepath.Join(repo, TaskFile))
		if err != nil {
			return o.failed(in, repo, fmt.Errorf("the session's contract %s: %w", TaskFile, err))
		}
		pol = pol.ForContract(c.Scope)
	}
	return o.check(in, repo, pol)
}

// check decides a call against a policy. What the policy denies is
// refused (protected paths, test files deleted, deny rules, writes
// outside the write globs or the contract's scope, paths out of the
// repository's .git); what the policy would ask a person about is the
// client's to ask (AskUser); a command that is merely not on the
// allowlist — written for cairn's own sandboxed agent — is left to the
// client's own permission system (Silent). A write outside the repository
// is not the repository's policy's to judge (Silent).
func (o Options) check(in *Input, repo string, pol *policy.Policy) Answer {
	eff, err := effectsOf(in, repo)
	if err != nil {
		return o.failed(in, repo, err)
	}
	chk, err := policy.NewChecker(pol, repo, false)
	if err != nil {
		return o.failed(in, repo, err)
	}
	var ask *policy.Decision
	decide := func(e policy.Effects) *Answer {
		d := chk.Check(e)
		switch {
		case d.Verdict == policy.Allow, d.Rule == policy.RuleUnlisted:
			return nil
		case d.Verdict == policy.AskPerson:
			if ask == nil {
				ask = &d
			}
			return nil
		}
		return &Answer{Verdict: Deny, Reason: refusal(in, d)}
	}
	why := fmt.Sprintf("%s call of %s", in.Tool, o.Client)
	if len(eff.Writes)+len(eff.Deletes) > 0 {
		if a := decide(policy.Effects{Writes: eff.Writes, Deletes: eff.Deletes, Why: why}); a != nil {
			return *a
		}
	}
	// each command alone: one not on the allowlist must not hide a deny
	// rule's match in the next
	for _, argv := range eff.Run {
		if a := decide(policy.Effects{Run: [][]string{argv}, Why: why}); a != nil {
			return *a
		}
	}
	if ask != nil {
		return Answer{Verdict: AskUser, Reason: refusal(in, *ask)}
	}
	return Answer{Verdict: Silent}
}

// refusal is the policy's reason, for a model in an interactive client.
func refusal(in *Input, d policy.Decision) string {
	// the policy's reasons are written for cairn's own agent: its finish
	// tool, its harness
	r := strings.NewReplacer("say so in finish", "stop and tell the user",
		"the harness does every git operation", "change it only through git commands").Replace(d.Reason)
	return fmt.Sprintf("cairn policy refused this %s (%s): %s", in.Tool, d.Rule, r)
}

// effectsOf maps a tool call to the policy's effects: repository-relative
// paths written and deleted, and the argv it runs.
func effectsOf(in *Input, repo string) (policy.Effects, error) {
	var e policy.Effects
	cwd := in.Cwd
	if cwd == "" || !filepath.IsAbs(cwd) {
		cwd = repo
	}
	var writes, deletes []string
	switch kindOf(in.Tool) {
	case toolOther:
		return e, nil
	case toolWrite, toolDelete:
		p, err := toolPath(in)
		if err != nil {
			return e, err
		}
		if kindOf(in.Tool) == toolDelete {
			deletes = append(deletes, join(cwd, p))
		} else {
			writes = append(writes, join(cwd, p))
		}
	case toolPatch:
		w, d := patchPaths(in)
		for _, p := range w {
			writes = append(writes, join(cwd, p))
		}
		for _, p := range d {
			deletes = append(deletes, join(cwd, p))
		}
	case toolShell:
		cmd, err := toolCommand(in)
		if err != nil {
			return e, err
		}
		se, err := parseShell(cmd, cwd)
		if err != nil {
			return e, err
		}
		writes, deletes, e.Run = se.writes, se.deletes, se.run
	}
	// a write "into ." (cp x .) writes a file in the root, not the root
	e.Writes = slices.DeleteFunc(inRepo(repo, writes), func(p string) bool { return p == "." })
	e.Deletes = inRepo(repo, deletes)
	return e, nil
}

// inRepo turns absolute paths into repository-relative ones, the
// repository's root included ("."), leaving out those outside it.
func inRepo(repo string, paths []string) []string {
	roots := []string{repo}
	if real, err := filepath.EvalSymlinks(repo); err == nil && real != repo {
		roots = append(roots, real)
	}
	var out []string
	for _, p := range paths {
		for _, r := range roots {
			rel, err := filepath.Rel(r, p)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue
			}
			if !slices.Contains(out, rel) {
				out = append(out, filepath.ToSlash(rel))
			}
			break
		}
	}
	return out
}
