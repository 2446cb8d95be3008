package loop

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/agent/llm"
	"github.com/cairn-dev/cairn/agent/state"
	"github.com/cairn-dev/cairn/gate/evidence"
	"github.com/cairn-dev/cairn/gate/verify"
)

// evidence writes the run's evidence under RUN/evidence: the change as a
// patch (PatchFile) always; with a gate report of exactly that patch, the
// evidence bundle (evidence.json, in the format of
// schema/evidence.schema.json, whose patch_sha256 Apply checks, and
// CHANGE.md, the Cause / Fix / Proof description) built from the report and
// task state; without one — or when the workspace moved on after the gate
// judged it — a CHANGE.md that says the change was not verified and why.
func (h *harness) evidence(ctx context.Context, out *Outcome) (string, error) {
	dir := filepath.Join(h.run.Dir, "evidence")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	patch, err := h.ws.Diff(ctx)
	if err != nil {
		return "", err
	}
	if h.report != nil && !bytes.Equal(patch, h.judged) {
		// the last report judged an earlier change: it is not this one's
		h.report = nil
	}
	if err := writeAtomic(filepath.Join(dir, PatchFile), patch); err != nil {
		return "", err
	}
	var decisions []string
	for _, d := range h.st.Decisions {
		decisions = append(decisions, d.Text)
	}
	if h.report != nil {
		b, err := evidence.Build(ctx, evidence.Input{
			Report: h.report, Attempt: h.att, Repo: h.o.Repo,
			Candidate: verify.Candidate{Patch: patch}, Patch: patch,
			ScratchDir: filepath.Join(h.run.Dir, "scratch"), CairnVersion: h.o.CairnVersion,
			Model:     &evidence.Model{ID: h.o.Provider.Model(), Provider: h.o.Provider.Name(), Config: map[string]any{"max_tokens": h.o.MaxTokens}},
			RootCause: h.st.RootCause, Summary: h.st.Summary, Decisions: decisions,
			Isolation:    h.isolation(),
			ContractPath: filepath.Join(h.run.Dir, state.ContractFile), PatchPath: filepath.Join(dir, PatchFile),
			Run: h.runSummary(out),
		})
		if err != nil {
			return dir, fmt.Errorf("evidence bundle: %w", err)
		}
		if err := evidence.Write(dir, b); err != nil {
			return dir, err
		}
		return dir, nil
	}
	var md strings.Builder
	fmt.Fprintf(&md, "# %s\n\n**Not verified: the run ended %s", h.att.Contract().Objective, out.Status)
	if out.Reason != "" {
		fmt.Fprintf(&md, " (%s)", out.Reason)
	}
	md.WriteString(".** The verification gate did not run on this change; nothing here says it works.\n\n")
	if h.st.RootCause != "" {
		fmt.Fprintf(&md, "## Cause\n\n%s\n\n", h.st.RootCause)
	}
	if h.st.Summary != "" || len(h.st.FilesModified) > 0 {
		fmt.Fprintf(&md, "## Fix\n\n%s\n\n", h.st.Summary)
		for _, f := range h.st.FilesModified {
			fmt.Fprintf(&md, "- `%s`\n", f)
		}
		md.WriteString("\n")
	}
	if len(h.st.Tests) > 0 {
		md.WriteString("## Tests the agent ran (not the gate)\n\n")
		for _, t := range h.st.Tests {
			fmt.Fprintf(&md, "- step %d `%s`: %d passed, %d failed, %d skipped\n", t.Step, t.Selector, t.Passed, t.Failed, t.Skipped)
		}
		md.WriteString("\n")
	}
	fmt.Fprintf(&md, "Run %s, contract %s, base %s. Verify it: `cairn verify --repo %s --task %s --patch %s`.\n",
		h.run.ID, h.att.Hash(), h.att.Commit(), h.o.Repo, filepath.Join(h.run.Dir, state.ContractFile), filepath.Join(dir, PatchFile))
	if err := writeAtomic(filepath.Join(dir, "CHANGE.md"), []byte(md.String())); err != nil {
		return "", err
	}
	return dir, nil
}

func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// runSummary is the run's line in CHANGE.md: steps, calls, refusals,
// tokens, and the cost — said to be unknown when the model has no price.
func (h *harness) runSummary(out *Outcome) *evidence.RunSummary {
	u := h.st.Usage
	prices := h.o.Prices
	if prices == nil {
		prices = llm.DefaultPrices()
	}
	_, priced := prices.Lookup(h.o.Provider.Model())
	return &evidence.RunSummary{RunID: h.run.ID, Status: string(out.Status), Steps: h.st.Step, ModelCalls: u.ModelCalls, ToolCalls: u.ToolCalls,
		PolicyRefusals: h.st.Violations, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CostUSD: u.CostUSD, CostPriced: priced,
		WallS: u.Wall + time.Since(h.started).Seconds()}
}
