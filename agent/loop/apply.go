package loop

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/agent/state"
	"github.com/cairn-dev/cairn/gate/evidence"
	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/verify"
)

// ApplyOptions say where a run's change goes.
type ApplyOptions struct {
	// Branch commits the change on a new local branch from the base, with
	// the change description as the message, and leaves the worktree as it
	// is; "" applies the change to the worktree (the index untouched).
	Branch string
	// Force applies a run the gate did not verify: the patch the run
	// recorded when it ended (evidence/change.patch), under the same checks
	// as a verified one — its sha256 when a gate report covers it, and the
	// workspace must still be that patch. It waives the verdict, never the
	// integrity of what is applied.
	Force bool
}

// Applied is what Apply did.
type Applied struct {
	RunID  string   `json:"run_id"`
	Files  []string `json:"files"`
	Branch string   `json:"branch,omitempty"`
	Commit string   `json:"commit,omitempty"`
	// PatchSHA256 is the sha256 of the patch applied: the one the evidence
	// records for a verified run.
	PatchSHA256 string `json:"patch_sha256"`
}

// ConflictError is a refusal: files the change touches were changed in the
// user's worktree since the base.
type ConflictError struct{ Paths []string }

func (e *ConflictError) Error() string {
	return "refused: changed in your worktree since the run's base (commit or stash them, or apply to a branch): " + strings.Join(e.Paths, ", ")
}

// EvidenceError is a refusal: the patch a run recorded is missing, or is
// not the one its evidence bundle hashed, so what would be applied is not
// what was judged.
type EvidenceError struct {
	RunID   string
	Problem string
}

func (e *EvidenceError) Error() string {
	return fmt.Sprintf("refused: run %s's recorded change cannot be trusted: %s (nothing was applied; rerun the gate with cairn verify, or start a new run)", e.RunID, e.Problem)
}

// DriftError is a refusal: the run's workspace no longer holds the patch
// the run recorded (something changed it after the gate judged it), in
// the files named.
type DriftError struct {
	RunID string
	Paths []string
}

func (e *DriftError) Error() string {
	return fmt.Sprintf("refused: run %s's workspace changed after its change was recorded (%s differ from %s): apply brings only what was judged; nothing was applied",
		e.RunID, strings.Join(e.Paths, ", "), filepath.Join("evidence", PatchFile))
}

// PatchFile is the run's change as a binary git patch, in RUN/evidence:
// for a run the gate judged, exactly the patch it judged (the evidence
// bundle records its sha256).
const PatchFile = "change.patch"

// Apply brings a run's change into the user's repository: the patch the
// run recorded (for a verified run, the one the gate verified, checked
// against the sha256 its evidence records), never the workspace as it is
// now — a workspace that no longer holds that patch is refused. It never
// pushes, and it refuses rather than overwrite: a file the change touches
// must be in the user's worktree exactly as it is at the base.
func Apply(ctx context.Context, dir string, o ApplyOptions) (*Applied, error) {
	v, err := state.Read(dir)
	if err != nil {
		return nil, err
	}
	meta := v.Meta
	st := v.Checkpoint
	if st == nil || !st.Finished {
		return nil, fmt.Errorf("run %s has not ended; nothing to apply yet", meta.RunID)
	}
	if st.Status != StatusVerified && !o.Force {
		return nil, fmt.Errorf("run %s ended %s, not verified: the gate did not accept its change (--force applies it anyway)", meta.RunID, st.Status)
	}
	patch, sum, err := recordedPatch(dir, meta.RunID, st.Status == StatusVerified)
	if err != nil {
		return nil, err
	}
	ws, err := sandbox.Open(ctx, meta.Repo, meta.Base, dir, nil)
	if err != nil {
		return nil, fmt.Errorf("run %s: its workspace: %w", meta.RunID, err)
	}
	now, err := ws.Diff(ctx)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(now, patch) {
		return nil, &DriftError{RunID: meta.RunID, Paths: patchDiffers(patch, now)}
	}
	files, err := patchFiles(ctx, meta.Repo, patch)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("run %s changed nothing", meta.RunID)
	}
	out := &Applied{RunID: meta.RunID, Files: files, PatchSHA256: sum}
	if o.Branch != "" {
		commit, err := commitOnBranch(ctx, meta.Repo, meta.Base, o.Branch, patch, description(meta.RunID, st))
		if err != nil {
			return nil, err
		}
		out.Branch, out.Commit = o.Branch, commit
		return out, nil
	}
	var conflicts []string
	for _, f := range files {
		same, err := sameAsBase(ctx, meta.Repo, meta.Base, f)
		if err != nil {
			return nil, err
		}
		if !same {
			conflicts = append(conflicts, f)
		}
	}
	if len(conflicts) > 0 {
		return nil, &ConflictError{Paths: conflicts}
	}
	if err := git(ctx, meta.Repo, nil, patch, "apply", "--binary", "--whitespace=nowarn", "-"); err != nil {
		return nil, fmt.Errorf("apply the change: %w", err)
	}
	return out, nil
}

// recordedPatch reads RUN/evidence/change.patch and checks it against the
// sha256 the evidence bundle records; a verified run must have a bundle
// whose verdict is pass. Without a bundle (a run the gate never judged)
// there is no hash to check.
func recordedPatch(dir, id string, verified bool) ([]byte, string, error) {
	ev := filepath.Join(dir, "evidence")
	patch, err := os.ReadFile(filepath.Join(ev, PatchFile))
	if err != nil {
		return nil, "", &EvidenceError{RunID: id, Problem: fmt.Sprintf("its patch: %v", err)}
	}
	sum := sha256.Sum256(patch)
	got := hex.EncodeToString(sum[:])
	data, err := os.ReadFile(filepath.Join(ev, "evidence.json"))
	switch {
	case errors.Is(err, os.ErrNotExist) && !verified:
		return patch, got, nil
	case err != nil:
		return nil, "", &EvidenceError{RunID: id, Problem: fmt.Sprintf("its evidence bundle: %v", err)}
	}
	var b struct {
		Verdict   string             `json:"verdict"`
		Revisions evidence.Revisions `json:"revisions"`
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, "", &EvidenceError{RunID: id, Problem: fmt.Sprintf("its evidence bundle does not parse: %v", err)}
	}
	switch {
	case b.Revisions.PatchSHA256 == "":
		return nil, "", &EvidenceError{RunID: id, Problem: "its evidence bundle records no patch_sha256"}
	case got != b.Revisions.PatchSHA256:
		return nil, "", &EvidenceError{RunID: id, Problem: fmt.Sprintf("%s has sha256 %s, the evidence records %s", PatchFile, got, b.Revisions.PatchSHA256)}
	case verified && b.Verdict != verify.Pass.String():
		return nil, "", &EvidenceError{RunID: id, Problem: fmt.Sprintf("the run ended verified but its evidence says %s", b.Verdict)}
	}
	return patch, got, nil
}

// patchFiles lists the paths a patch touches, in its order.
func patchFiles(ctx context.Context, repo string, patch []byte) ([]string, error) {
	if len(patch) == 0 {
		return nil, nil
	}
	cmd := exec.CommandContext(ctx, "git", "-C", repo, "apply", "--numstat", "-z", "-")
	cmd.Stdin = bytes.NewReader(patch)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("read the change's files: git apply --numstat: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var files []string
	for _, rec := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		// "ADDED\tDELETED\tPATH" (no renames: the patch has none)
		if f := strings.SplitN(rec, "\t", 3); len(f) == 3 {
			files = append(files, f[2])
		}
	}
	return files, nil
}

// patchDiffers names the files whose sections differ between two patches
// (git's "diff --git" sections, keyed by their header line).
func patchDiffers(a, b []byte) []string {
	sa, sb := patchSections(a), patchSections(b)
	var out []string
	seen := map[string]bool{}
	for _, m := range []map[string]string{sa, sb} {
		for h := range m {
			if !seen[h] && sa[h] != sb[h] {
				out = append(out, sectionPath(h))
			}
			seen[h] = true
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		out = []string{"the patch"}
	}
	return out
}

func patchSections(p []byte) map[string]string {
	m := map[string]string{}
	s := string(p)
	for s != "" {
		i := strings.Index(s[1:], "\ndiff --git ")
		sec := s
		if i >= 0 {
			sec, s = s[:i+2], s[i+2:]
		} else {
			s = ""
		}
		head, _, _ := strings.Cut(sec, "\n")
		m[head] += sec
	}
	return m
}

// sectionPath is the path of a "diff --git a/P b/P" header (the patches
// have no renames), else the header as it is.
func sectionPath(head string) string {
	rest, ok := strings.CutPrefix(head, "diff --git a/")
	if n := len(rest) - len(" b/"); ok && n > 0 && n%2 == 0 && rest[n/2:n/2+3] == " b/" && rest[:n/2] == rest[n/2+3:] {
		return rest[:n/2]
	}
	return head
}

// sameAsBase reports whether the user's file is as the base has it
// (absent when the base has none).
func sameAsBase(ctx context.Context, repo, base, rel string) (bool, error) {
	disk, derr := os.ReadFile(filepath.Join(repo, filepath.FromSlash(rel)))
	cmd := exec.CommandContext(ctx, "git", "-C", repo, "cat-file", "blob", base+":"+rel)
	blob, berr := cmd.Output()
	switch {
	case berr != nil && errors.Is(derr, os.ErrNotExist):
		return true, nil // new in the change, absent here
	case berr != nil:
		return false, nil // new in the change, but the user has one
	case derr != nil:
		return false, nil // the user deleted it
	}
	return bytes.Equal(disk, blob), nil
}

// commitOnBranch commits the patch on base in a private index and points a
// new branch at it: the user's index and worktree are not touched.
func commitOnBranch(ctx context.Context, repo, base, branch string, patch []byte, msg string) (string, error) {
	if err := git(ctx, repo, nil, nil, "check-ref-format", "--branch", branch); err != nil {
		return "", fmt.Errorf("branch name %q: %w", branch, err)
	}
	if err := git(ctx, repo, nil, nil, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err == nil {
		return "", fmt.Errorf("branch %s exists already", branch)
	}
	tmp, err := os.MkdirTemp("", "cairn-apply-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	if who, _ := gitOutput(ctx, repo, nil, nil, "config", "user.email"); who == "" {
		env = append(env, "GIT_AUTHOR_NAME=cairn agent", "GIT_AUTHOR_EMAIL=cairn@localhost", "GIT_COMMITTER_NAME=cairn agent", "GIT_COMMITTER_EMAIL=cairn@localhost")
	}
	if err := git(ctx, repo, env, nil, "read-tree", base); err != nil {
		return "", err
	}
	if err := git(ctx, repo, env, patch, "apply", "--cached", "--binary", "-"); err != nil {
		return "", fmt.Errorf("apply the change on the base: %w", err)
	}
	tree, err := gitOutput(ctx, repo, env, nil, "write-tree")
	if err != nil {
		return "", err
	}
	commit, err := gitOutput(ctx, repo, env, []byte(msg), "commit-tree", tree, "-p", base, "-F", "-")
	if err != nil {
		return "", err
	}
	if err := git(ctx, repo, nil, nil, "branch", branch, commit); err != nil {
		return "", err
	}
	return commit, nil
}

func description(id string, st *state.TaskState) string {
	var b strings.Builder
	title := st.Objective
	if i := strings.IndexByte(title, '\n'); i >= 0 {
		title = title[:i]
	}
	fmt.Fprintf(&b, "%s\n\n", title)
	if st.RootCause != "" {
		fmt.Fprintf(&b, "Cause: %s\n\n", st.RootCause)
	}
	if st.Summary != "" {
		fmt.Fprintf(&b, "Fix: %s\n\n", st.Summary)
	}
	fmt.Fprintf(&b, "Proof: cairn run %s ended %s.\n", id, st.Status)
	return b.String()
}

func git(ctx context.Context, dir string, env []string, stdin []byte, args ...string) error {
	_, err := gitOutput(ctx, dir, env, stdin, args...)
	return err
}

func gitOutput(ctx context.Context, dir string, env []string, stdin []byte, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "core.hooksPath=/dev/null"}, args...)...)
	cmd.Env = append(cmd.Environ(), env...) // the host's git, as the user runs it
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}
