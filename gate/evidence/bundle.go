package evidence

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/task"
	"github.com/cairn-dev/cairn/gate/verify"
)

// SchemaVersion is the format of a bundle (schema/evidence.schema.json).
//
//	1  the first: revisions, files, report, risks, reproduce, environment
const SchemaVersion = 1

// Bundle is the evidence of one gate run: what was judged, what the gate
// said, what it risks, and how to check it again.
type Bundle struct {
	SchemaVersion int    `json:"schema_version"`
	ContractHash  string `json:"contract_hash"`
	Objective     string `json:"objective"`
	// Verdict and Reason repeat the report's, for readers of the summary.
	Verdict     verify.Status  `json:"verdict"`
	Reason      string         `json:"reason,omitempty"`
	Revisions   Revisions      `json:"revisions"`
	Files       []FileStat     `json:"files"`
	Report      *verify.Report `json:"report,omitempty"` // always in evidence.json; left out of summaries
	Risks       Risks          `json:"risks"`
	RootCause   string         `json:"root_cause,omitempty"`
	Summary     string         `json:"summary,omitempty"`
	Decisions   []string       `json:"decisions,omitempty"`
	Reproduce   Reproduce      `json:"reproduce"`
	Environment Environment    `json:"environment"`
	Isolation   Isolation      `json:"isolation"`
	// Run is the agent run's summary (steps, model calls, refusals, cost
	// and whether it was priced); nil for `cairn verify`.
	Run     *RunSummary `json:"run,omitempty"`
	Created time.Time   `json:"created"`
}

// Isolation is how isolated the checks ran and who chose it: the backend;
// when it is the weaker one, why bubblewrap could not run (Degraded, as
// sandbox.UnavailableError.Reason says it); what
// the user's policy or command line allowed beyond the default (Weakened);
// what the repository's policy asked for beyond the user's and did not get
// (Ignored).
type Isolation struct {
	Backend  string   `json:"backend"`
	Isolated bool     `json:"isolated"`
	Degraded string   `json:"degraded,omitempty"`
	Weakened []string `json:"weakened,omitempty"`
	Ignored  []string `json:"ignored,omitempty"`
}

// markdown is CHANGE.md's paragraph on a weakened sandbox or an ignored
// widening; "" when the checks ran isolated and nothing was ignored.
func (i Isolation) markdown() string {
	var s strings.Builder
	if !i.Isolated && i.Backend != "" {
		fmt.Fprintf(&s, "\n**Not isolated:** the checks ran %s, as the user allowed", i.Backend)
		if i.Degraded != "" {
			fmt.Fprintf(&s, " (bubblewrap could not run: %s)", i.Degraded)
		}
		s.WriteString(".\n")
	}
	for _, w := range i.Weakened {
		fmt.Fprintf(&s, "\nThe user's policy allows beyond the default: %s.\n", w)
	}
	for _, w := range i.Ignored {
		fmt.Fprintf(&s, "\nIgnored, the repository's policy asks for: %s.\n", w)
	}
	return s.String()
}

// Revisions name what was judged.
type Revisions struct {
	Base string `json:"base"`
	// Head is the candidate's commit: a range's HEAD, or the worktree's
	// HEAD commit for a working candidate (whose judged content is HEAD
	// plus the uncommitted changes); empty for a bare patch.
	Head string `json:"head,omitempty"`
	// Candidate is how the change was given: range, working or patch.
	Candidate string `json:"candidate"`
	Range     string `json:"range,omitempty"`
	// PatchSHA256 identifies the judged change exactly: the hash of the
	// binary git patch the gate applied.
	PatchSHA256 string `json:"patch_sha256"`
}

// FileStat is one changed file, counted from the patch.
type FileStat struct {
	Path    string `json:"path"`
	Status  string `json:"status"` // git's letter: A, M, D, T
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
	Binary  bool   `json:"binary,omitempty"`
	Test    bool   `json:"test,omitempty"`
}

// Risks are what the engine's impact analysis says about the change.
// Available false means it could not run, and Unavailable says why: no
// risk is ever reported as none because it was not looked for.
type Risks struct {
	Available   bool   `json:"available"`
	Unavailable string `json:"unavailable,omitempty"`
	Level       string `json:"level,omitempty"` // low, medium, high
	// Dependents counts the transitive dependents found (within the
	// walk's depth and limit; Truncated when the limit stopped it);
	// DirectDependents the fan-in of the changed symbols.
	Dependents       int      `json:"dependents"`
	DirectDependents int      `json:"direct_dependents"`
	UntestedCallers  []string `json:"untested_callers"`
	PublicAPI        bool     `json:"public_api"`
	// PublicSymbols are the changed symbols that are exported.
	PublicSymbols []string `json:"public_symbols"`
	Packages      []string `json:"packages"`
	Tests         int      `json:"tests"` // tests found reaching the change
	Reasons       []string `json:"reasons"`
	Truncated     bool     `json:"truncated,omitempty"`
	Unknown       []string `json:"unknown,omitempty"` // what impact could not analyse
}

// Reproduce says how to check the verdict again.
type Reproduce struct {
	// Command is the `cairn verify` command line that reruns the gate.
	Command []string `json:"command"`
	// Contract is the contract as the gate ran it (task.Contract's
	// canonical form, whose sha256 is the contract hash).
	Contract json.RawMessage `json:"contract"`
	Checks   []CheckRepro    `json:"checks"`
}

// CheckRepro is how to rerun one criterion's command by hand.
type CheckRepro struct {
	ID      string   `json:"id"`
	Kind    string   `json:"kind"`
	Argv    []string `json:"argv,omitempty"`
	Dir     string   `json:"dir,omitempty"` // relative to a checkout of the candidate
	Env     []string `json:"env,omitempty"` // the variables that decide what it computes
	Backend string   `json:"backend,omitempty"`
	Note    string   `json:"note,omitempty"`
}

// Environment is what the gate ran with.
type Environment struct {
	RepositoryRevision string     `json:"repository_revision"` // the repository's HEAD when the gate ran
	Lockfiles          []Lockfile `json:"lockfiles"`
	GoVersion          string     `json:"go_version"`
	BwrapVersion       string     `json:"bwrap_version"`
	SandboxBackend     string     `json:"sandbox_backend"`
	CairnVersion       string     `json:"cairn_version"`
	Model              *Model     `json:"model,omitempty"`
}

// Lockfile is one dependency lockfile of the base, hashed.
type Lockfile struct {
	Path    string `json:"path"`
	SHA256  string `json:"sha256"`            // at the base
	Changed bool   `json:"changed,omitempty"` // the change edits it
}

// Model names the model that made the change, when one did.
type Model struct {
	ID       string         `json:"id"`
	Provider string         `json:"provider,omitempty"`
	Config   map[string]any `json:"config,omitempty"`
}

// Input is what Build makes a bundle from. Report, Attempt and Repo are
// required; the rest is optional.
type Input struct {
	Report    *verify.Report
	Attempt   *task.Attempt
	Repo      string
	Candidate verify.Candidate
	// Patch is the candidate as the gate applied it (Candidate.Resolve);
	// nil: resolved here.
	Patch []byte
	// Impact is the engine's analysis of the change when the gate already
	// made it (the impact_tests criterion); ImpactErr why it failed.
	// With neither, Build runs it in a workspace under ScratchDir; without
	// ScratchDir the risks say the analysis was not run.
	Impact     *engine.ImpactResult
	ImpactErr  error
	ScratchDir string
	// Command reproduces the gate (the `cairn verify` argv); nil: one is
	// written from the candidate.
	Command      []string
	CairnVersion string
	Model        *Model
	// From the agent's task state, when there is one.
	RootCause string
	Summary   string
	Decisions []string
	// Isolation is what the caller knows of the sandbox (its Backend is
	// the report's when the report has one).
	Isolation Isolation
	// ContractPath is where the contract is saved (the reproduce command
	// names it); PatchPath where the judged patch is, for a patch
	// candidate. Empty: the command says CONTRACT / PATCH for the reader
	// to fill in.
	ContractPath, PatchPath string
	// Run summarises an agent run (nil for `cairn verify`).
	Run *RunSummary
	// Now stamps Created; zero: time.Now.
	Now time.Time
}

// Build makes the bundle of a gate run. An error means the input is
// incomplete or the repository cannot be read; an analysis that cannot run
// (impact, a tool's version) is recorded in the bundle instead.
func Build(ctx context.Context, in Input) (*Bundle, error) {
	if in.Report == nil || in.Attempt == nil || in.Repo == "" {
		return nil, errors.New("evidence: Report, Attempt and Repo are required")
	}
	r, a := in.Report, in.Attempt
	patch := in.Patch
	if patch == nil {
		var err error
		if patch, err = in.Candidate.Resolve(ctx, in.Repo, a.Commit()); err != nil {
			// the report says blocked for the same reason; the bundle
			// still records what was asked
			patch = []byte{}
		}
	}
	sum := sha256.Sum256(patch)
	b := &Bundle{
		SchemaVersion: SchemaVersion,
		ContractHash:  a.Hash(),
		Objective:     a.Contract().Objective,
		Verdict:       r.Verdict,
		Reason:        r.Reason,
		Revisions:     revisions(ctx, in, hex.EncodeToString(sum[:])),
		Files:         fileStats(r.Changed, patch),
		Report:        r,
		RootCause:     in.RootCause,
		Summary:       in.Summary,
		Decisions:     slices.Clone(in.Decisions),
		Created:       in.Now,
	}
	if b.Created.IsZero() {
		b.Created = time.Now().UTC().Truncate(time.Second)
	}
	b.Risks = risks(ctx, in, patch)
	b.Reproduce = reproduce(in)
	b.Environment = environment(ctx, in)
	b.Isolation = in.Isolation
	b.Run = in.Run
	if in.Report.Backend != "" {
		b.Isolation.Backend = in.Report.Backend
	}
	b.Isolation.Isolated = b.Isolation.Backend == sandbox.BackendBwrap
	return b, nil
}

// WithoutReport is the bundle without the report, for a summary beside
// one (the CLI's --json, the MCP tool's result).
func (b *Bundle) WithoutReport() *Bundle {
	c := *b
	c.Report = nil
	return &c
}

func revisions(ctx context.Context, in Input, sum string) Revisions {
	rv := Revisions{Base: in.Attempt.Commit(), PatchSHA256: sum}
	switch {
	case in.Candidate.Range != "":
		rv.Candidate, rv.Range = "range", in.Candidate.Range
		_, to, _ := strings.Cut(in.Candidate.Range, "..")
		if out, err := sandbox.Git(ctx, in.Repo, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", to+"^{commit}"); err == nil {
			rv.Head = strings.TrimSpace(out)
		}
	case in.Candidate.Working != "":
		rv.Candidate = "working"
		if out, err := sandbox.Git(ctx, in.Candidate.Working, nil, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err == nil {
			rv.Head = strings.TrimSpace(out)
		}
	default:
		rv.Candidate = "patch"
	}
	return rv
}

// fileStats counts added and deleted lines per file of a git patch, in
// the order of the gate's changed paths.
func fileStats(changed []sandbox.Change, patch []byte) []FileStat {
	type count struct {
		add, del int
		binary   bool
	}
	counts := map[string]*count{}
	var cur *count
	inHunk := false
	for line := range bytes.SplitSeq(patch, []byte("\n")) {
		switch {
		case bytes.HasPrefix(line, []byte("diff --git ")):
			cur, inHunk = &count{}, false
			counts[patchPath(string(line))] = cur
		case cur == nil:
		case bytes.HasPrefix(line, []byte("@@")):
			inHunk = true
		case !inHunk && (bytes.HasPrefix(line, []byte("GIT binary patch")) || bytes.HasPrefix(line, []byte("Binary files "))):
			cur.binary = true
		case inHunk && len(line) > 0 && line[0] == '+':
			cur.add++
		case inHunk && len(line) > 0 && line[0] == '-':
			cur.del++
		}
	}
	out := []FileStat{}
	for _, ch := range changed {
		fs := FileStat{Path: ch.Path, Status: ch.Status, Test: isTest(ch.Path)}
		if c := counts[ch.Path]; c != nil {
			fs.Added, fs.Deleted, fs.Binary = c.add, c.del, c.binary
		}
		out = append(out, fs)
	}
	return out
}

// patchPath is the b/ path of a "diff --git a/X b/X" line; a quoted name
// (git quotes unusual ones) is unquoted.
func patchPath(line string) string {
	line = strings.TrimPrefix(line, "diff --git ")
	if strings.HasPrefix(line, `"`) {
		if i := strings.Index(line, `" "b/`); i >= 0 {
			if s, err := strconv.Unquote(line[i+2:]); err == nil {
				return strings.TrimPrefix(s, "b/")
			}
		}
	}
	if i := strings.Index(line, " b/"); i >= 0 && strings.HasPrefix(line, "a/") {
		return line[i+3:]
	}
	return line
}

func isTest(p string) bool {
	base := path.Base(p)
	return strings.HasSuffix(base, "_test.go") || strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py") ||
		strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") || strings.Contains("/"+p, "/testdata/")
}

func risks(ctx context.Context, in Input, patch []byte) Risks {
	res, err := in.Impact, in.ImpactErr
	switch {
	case res != nil || err != nil:
	case len(in.Report.Changed) == 0:
		return Risks{Unavailable: "no change to analyse", UntestedCallers: []string{}, PublicSymbols: []string{}, Packages: []string{}, Reasons: []string{}}
	case in.ScratchDir == "":
		err = errors.New("not run: no scratch directory to index the candidate in")
	default:
		// the scratch directory may not exist yet (an agent run's)
		if derr := os.MkdirAll(in.ScratchDir, 0o755); derr != nil {
			err = derr
			break
		}
		dir, derr := os.MkdirTemp(in.ScratchDir, "impact-")
		if derr != nil {
			err = derr
			break
		}
		os.Remove(dir) // sandbox.Create makes it
		res, err = verify.PatchImpact(ctx, in.Repo, in.Attempt.Commit(), patch, dir)
	}
	rk := Risks{UntestedCallers: []string{}, PublicSymbols: []string{}, Packages: []string{}, Reasons: []string{}}
	if err != nil || res == nil {
		rk.Unavailable = fmt.Sprintf("impact analysis could not run: %v", err)
		return rk
	}
	rk.Available = true
	rk.Level, rk.DirectDependents, rk.PublicAPI = res.Risk.Level, res.Risk.FanIn, res.Risk.Public
	rk.Dependents, rk.Tests, rk.Truncated = len(res.Dependents), len(res.Tests), res.Truncated
	rk.UntestedCallers = append(rk.UntestedCallers, res.Risk.Untested...)
	rk.Reasons = append(rk.Reasons, res.Risk.Reasons...)
	rk.Packages = append(rk.Packages, res.Packages...)
	rk.Unknown = res.Unknown
	for _, s := range res.Changed {
		if s.Exported && !slices.Contains(rk.PublicSymbols, s.QualifiedName) {
			rk.PublicSymbols = append(rk.PublicSymbols, s.QualifiedName)
		}
	}
	return rk
}

func reproduce(in Input) Reproduce {
	rp := Reproduce{Command: in.Command, Contract: json.RawMessage(in.Attempt.Contract().Canonical()), Checks: []CheckRepro{}}
	if rp.Command == nil {
		rp.Command = []string{"cairn", "verify", "--repo", in.Repo, "--task", cmp.Or(in.ContractPath, "CONTRACT")}
		switch {
		case in.Candidate.Range != "":
			rp.Command = append(rp.Command, "--diff", in.Candidate.Range)
		case in.Candidate.Working != "":
			rp.Command = append(rp.Command, "--working")
		case in.Candidate.Patch != nil:
			rp.Command = append(rp.Command, "--patch", cmp.Or(in.PatchPath, "PATCH"))
		}
	}
	env := sandbox.ReproducibleEnv()
	for _, c := range in.Report.Criteria {
		cr := CheckRepro{ID: c.ID, Kind: c.Kind, Argv: c.Argv, Dir: c.Dir, Backend: c.Backend}
		if len(c.Argv) > 0 {
			cr.Env = env
		}
		switch c.Kind {
		case "regression":
			cr.Note = "the diff's new or changed tests, run at the base with only the diff's test files applied (each must fail) and on the change (each must pass); argv is the last run"
		case "impact_tests":
			cr.Note = "the tests the engine's impact analysis selects for the diff; argv is the last selector's run"
		case "scope":
			cr.Note = "every changed path within scope.write and outside scope.protected: no command"
		case "tests":
			cr.Note = "go test runs with -json; failing tests are rerun, and compared with the same run at the base"
		}
		if c.Dir == "" && len(c.Argv) > 0 {
			cr.Dir = "."
		}
		rp.Checks = append(rp.Checks, cr)
	}
	return rp
}

// lockfileNames are the dependency lockfiles hashed into the manifest.
func lockfile(p string) bool {
	base := path.Base(p)
	switch base {
	case "go.sum", "package-lock.json", "poetry.lock", "yarn.lock", "pnpm-lock.yaml", "Cargo.lock", "uv.lock":
		return true
	}
	return strings.HasPrefix(base, "requirements") && strings.HasSuffix(base, ".txt")
}

func environment(ctx context.Context, in Input) Environment {
	env := Environment{Lockfiles: []Lockfile{}, SandboxBackend: in.Report.Backend, CairnVersion: in.CairnVersion, Model: in.Model}
	if env.CairnVersion == "" {
		env.CairnVersion = "unknown"
	}
	if out, err := sandbox.Git(ctx, in.Repo, nil, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err == nil {
		env.RepositoryRevision = strings.TrimSpace(out)
	}
	base := in.Attempt.Commit()
	changed := map[string]bool{}
	for _, c := range in.Report.Changed {
		changed[c.Path] = true
	}
	if out, err := sandbox.Git(ctx, in.Repo, nil, "ls-tree", "-r", "-z", "--name-only", base); err == nil {
		for _, p := range strings.Split(out, "\x00") {
			if p == "" || !lockfile(p) || strings.Contains("/"+p, "/vendor/") || strings.Contains("/"+p, "/node_modules/") {
				continue
			}
			blob, err := sandbox.Git(ctx, in.Repo, nil, "cat-file", "blob", base+":"+p)
			if err != nil {
				continue
			}
			sum := sha256.Sum256([]byte(blob))
			env.Lockfiles = append(env.Lockfiles, Lockfile{Path: p, SHA256: hex.EncodeToString(sum[:]), Changed: changed[p]})
		}
	}
	env.GoVersion = toolVersion(ctx, "go", "env", "GOVERSION")
	env.BwrapVersion = toolVersion(ctx, "bwrap", "--version")
	return env
}

// toolVersion is a tool's own answer, or why there is none.
func toolVersion(ctx context.Context, argv ...string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).Output()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "not installed"
		}
		return fmt.Sprintf("unknown (%s: %v)", argv[0], err)
	}
	return strings.TrimSpace(string(out))
}

// Write writes the bundle into dir as evidence.json and CHANGE.md, each
// atomically (written aside, synced, renamed), CHANGE.md first: a
// directory with evidence.json holds both.
func Write(dir string, b *Bundle) error {
	if b == nil || b.Report == nil {
		return errors.New("evidence: write needs a bundle with its report")
	}
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return fmt.Errorf("evidence: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("evidence: %w", err)
	}
	if err := writeAtomic(filepath.Join(dir, "CHANGE.md"), []byte(b.Markdown())); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, "evidence.json"), append(data, '\n')); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("evidence: %w", err)
	}
	defer d.Close()
	return d.Sync()
}

func writeAtomic(file string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*")
	if err != nil {
		return fmt.Errorf("evidence: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), file)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("evidence: write %s: %w", file, err)
	}
	return nil
}
